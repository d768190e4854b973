import type { InitProducerIdRequest } from '../../protocol/generated/InitProducerIdRequest.js';
import type { InitProducerIdResponse } from '../../protocol/generated/InitProducerIdResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorize, authorizeAny, authorizeTransactionalId, CLUSTER_NAME, ResourceType } from '../security/authorization.js';

const TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53;

export const handler: Handler<InitProducerIdRequest, InitProducerIdResponse> = {
  apiKey: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    // KafkaApis.handleInitProducerIdRequest: WRITE on the transactional id; an idempotent producer needs
    // IDEMPOTENT_WRITE on the cluster or WRITE on some topic (KIP-679).
    const authorized = request.transactionalId !== null
      ? authorizeTransactionalId(ctx, AclOperation.WRITE, request.transactionalId)
      : authorize(ctx, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME, false) || authorizeAny(ctx, AclOperation.WRITE, ResourceType.TOPIC);
    if (!authorized) {
      const errorCode = request.transactionalId !== null ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
      return { throttleTimeMs: 0, errorCode, producerId: -1, producerEpoch: -1 };
    }
    if (request.transactionalId !== null) {
      // Transactions are not implemented yet; refuse clearly rather than half-support them.
      ctx.log.warn({ clientId: ctx.clientId, transactionalId: request.transactionalId }, 'transactional producer refused');
      return { throttleTimeMs: 0, errorCode: TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1, producerEpoch: -1 };
    }
    // An idempotent producer gets a fresh id with epoch 0, also when it asks to bump an old one (KIP-360).
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: ctx.broker.producerIds.nextId(), producerEpoch: 0 };
  },
};
