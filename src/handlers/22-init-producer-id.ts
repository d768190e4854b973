import type { InitProducerIdRequest } from '../../protocol/generated/InitProducerIdRequest.js';
import type { InitProducerIdResponse } from '../../protocol/generated/InitProducerIdResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorize, authorizeAny, authorizeTransactionalId, CLUSTER_NAME, ResourceType } from '../security/authorization.js';

/** InitProducerId v4 introduced PRODUCER_FENCED; older clients get INVALID_PRODUCER_EPOCH (Kafka's KafkaApis). */
const FIRST_PRODUCER_FENCED_VERSION = 4;

/** v6's fields (KIP-939, 2PC), at their defaults: kafkite keeps no prepared transaction across producers. */
const NO_ONGOING_TXN = { ongoingTxnProducerId: -1, ongoingTxnProducerEpoch: -1 };

export const handler: Handler<InitProducerIdRequest, InitProducerIdResponse> = {
  apiKey: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 5,
  async handle(request, ctx) {
    // KafkaApis.handleInitProducerIdRequest: WRITE on the transactional id; an idempotent producer needs
    // IDEMPOTENT_WRITE on the cluster or WRITE on some topic (KIP-679).
    const authorized = request.transactionalId !== null
      ? authorizeTransactionalId(ctx, AclOperation.WRITE, request.transactionalId)
      : authorize(ctx, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME, false) || authorizeAny(ctx, AclOperation.WRITE, ResourceType.TOPIC);
    if (!authorized) {
      const errorCode = request.transactionalId !== null ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
      return { throttleTimeMs: 0, errorCode, producerId: -1, producerEpoch: -1, ...NO_ONGOING_TXN };
    }
    // KIP-360: the producer id and epoch come together or not at all.
    if ((request.producerId === -1) !== (request.producerEpoch === -1)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, producerId: -1, producerEpoch: -1, ...NO_ONGOING_TXN };
    }
    if (request.transactionalId === null) {
      // An idempotent producer gets a fresh id with epoch 0, also when it asks to bump an old one (KIP-360).
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: ctx.broker.producerIds.nextId(), producerEpoch: 0, ...NO_ONGOING_TXN };
    }
    const expected = request.producerId === -1 ? null : { producerId: request.producerId, producerEpoch: request.producerEpoch };
    const result = await ctx.broker.transactionCoordinator.handleInitProducerId(request.transactionalId, request.transactionTimeoutMs, expected);
    let errorCode = result.errorCode;
    if (errorCode === ErrorCode.PRODUCER_FENCED && ctx.apiVersion < FIRST_PRODUCER_FENCED_VERSION) errorCode = ErrorCode.INVALID_PRODUCER_EPOCH;
    if (errorCode !== ErrorCode.NONE) {
      ctx.log.debug({ clientId: ctx.clientId, transactionalId: request.transactionalId, errorCode }, 'InitProducerId refused');
    }
    return { throttleTimeMs: 0, errorCode, producerId: result.producerId, producerEpoch: result.producerEpoch, ...NO_ONGOING_TXN };
  },
};
