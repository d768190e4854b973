import type { TxnOffsetCommitRequest } from '../../protocol/generated/TxnOffsetCommitRequest.js';
import type { TxnOffsetCommitResponse } from '../../protocol/generated/TxnOffsetCommitResponse.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import { verificationErrorFor } from '../coordinator/transaction/produce-verification.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { namedTopics } from './topic-ids.js';
import { AclOperation, authorizeGroup, authorizeTopic, authorizeTransactionalId } from '../security/authorization.js';

/** v5: transaction version 2, where this request also does AddOffsetsToTxn's work (KIP-890 part 2). */
const FIRST_TV2_VERSION = 5;
/** TxnOffsetCommit v4 is the first version whose clients know TRANSACTION_ABORTABLE (KIP-1050). */
const FIRST_TRANSACTION_ABORTABLE_VERSION = 4;

/**
 * Offsets committed inside a transaction: pending until its COMMIT marker. As in Kafka 4, the group's
 * __consumer_offsets partition must be in the transaction (AddOffsetsToTxn; from v5 this request adds it
 * itself) and the producer current (checked with the transaction coordinator: a fenced producer gets
 * INVALID_PRODUCER_EPOCH, nothing stored).
 */
export const handler: Handler<TxnOffsetCommitRequest, TxnOffsetCommitResponse> = {
  apiKey: 28,
  name: 'TxnOffsetCommit',
  minVersion: 0,
  maxVersion: 5,
  async handle(request, ctx) {
    const allWith = (errorCode: number): TxnOffsetCommitResponse => ({
      throttleTimeMs: 0,
      topics: namedTopics(request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }))),
    });
    // WRITE on the transactional id, READ on the group, then READ on each topic (KafkaApis.handleTxnOffsetCommitRequest).
    if (!authorizeTransactionalId(ctx, AclOperation.WRITE, request.transactionalId)) return allWith(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) return allWith(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const denied = request.topics.filter((t) => !authorizeTopic(ctx, AclOperation.READ, t.name));
    const deniedTopics = denied.map((t) => ({
      name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })),
    }));
    if (denied.length === request.topics.length && denied.length > 0) return { throttleTimeMs: 0, topics: namedTopics(deniedTopics) };
    const { broker } = ctx;
    const offsetsPartition = broker.groupCoordinator.partitionFor(request.groupId);
    const offsets = new Map([[OFFSETS_TOPIC_NAME, new Set([offsetsPartition])]]);
    let verifyError: number;
    if (ctx.apiVersion >= FIRST_TV2_VERSION) {
      // Durable before the pending offsets are written: they never reach __consumer_offsets unknown to the transaction.
      verifyError = await broker.transactionCoordinator.handleAddPartitions(request.transactionalId, request.producerId, request.producerEpoch, offsets, 2);
    } else {
      const verified = broker.transactionCoordinator.verifyPartitions(request.transactionalId, request.producerId, request.producerEpoch, offsets);
      verifyError = typeof verified === 'number' ? verified : verified.get(OFFSETS_TOPIC_NAME)!.get(offsetsPartition)!;
    }
    if (verifyError !== ErrorCode.NONE) {
      const errorCode = verificationErrorFor(verifyError, ctx.apiVersion >= FIRST_TRANSACTION_ABORTABLE_VERSION);
      ctx.log.debug({ clientId: ctx.clientId, transactionalId: request.transactionalId, group: request.groupId, errorCode }, 'TxnOffsetCommit refused');
      return allWith(errorCode);
    }
    const topics = await broker.groupCoordinator.commitTransactionalOffsets({
      groupId: request.groupId,
      producerId: request.producerId,
      producerEpoch: request.producerEpoch,
      generationId: request.generationIdOrMemberEpoch,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      topics: request.topics.filter((t) => !denied.includes(t)).map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ ...p, commitTimestamp: -1 })) })),
    });
    return { throttleTimeMs: 0, topics: namedTopics([...topics, ...deniedTopics]) };
  },
};
