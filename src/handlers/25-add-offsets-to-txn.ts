import type { AddOffsetsToTxnRequest } from '../../protocol/generated/AddOffsetsToTxnRequest.js';
import type { AddOffsetsToTxnResponse } from '../../protocol/generated/AddOffsetsToTxnResponse.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeGroup, authorizeTransactionalId } from '../security/authorization.js';

const FIRST_PRODUCER_FENCED_VERSION = 2;

/** The group's __consumer_offsets partition joins the transaction, so its markers reach the group's offsets (Kafka's KafkaApis). */
export const handler: Handler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> = {
  apiKey: 25,
  name: 'AddOffsetsToTxn',
  minVersion: 0,
  maxVersion: 4,
  async handle(request, ctx) {
    if (!authorizeTransactionalId(ctx, AclOperation.WRITE, request.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    const partition = ctx.broker.groupCoordinator.partitionFor(request.groupId);
    let errorCode = await ctx.broker.transactionCoordinator.handleAddPartitions(
      request.transactionalId, request.producerId, request.producerEpoch, new Map([[OFFSETS_TOPIC_NAME, new Set([partition])]]),
    );
    if (errorCode === ErrorCode.PRODUCER_FENCED && ctx.apiVersion < FIRST_PRODUCER_FENCED_VERSION) errorCode = ErrorCode.INVALID_PRODUCER_EPOCH;
    return { throttleTimeMs: 0, errorCode };
  },
};
