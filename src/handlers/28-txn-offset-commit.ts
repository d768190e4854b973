import type { TxnOffsetCommitRequest } from '../../protocol/generated/TxnOffsetCommitRequest.js';
import type { TxnOffsetCommitResponse } from '../../protocol/generated/TxnOffsetCommitResponse.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import { verificationErrorFor } from '../coordinator/transaction/produce-verification.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { resolveTopicIds } from './topic-ids.js';
import { AclOperation, authorizeGroup, authorizeTopic, authorizeTransactionalId } from '../security/authorization.js';

/** v5: transaction version 2, where this request also does AddOffsetsToTxn's work (KIP-890 part 2). */
const FIRST_TV2_VERSION = 5;
/** TxnOffsetCommit v4 is the first version whose clients know TRANSACTION_ABORTABLE (KIP-1050). */
const FIRST_TRANSACTION_ABORTABLE_VERSION = 4;
/** v6 names topics by id (KIP-1319). */
const FIRST_TOPIC_ID_VERSION = 6;

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
  maxVersion: 6,
  async handle(received, ctx) {
    // v6 names topics by id: resolved first, an id of no topic UNKNOWN_TOPIC_ID, answers as the request named them.
    const ids = resolveTopicIds(received.topics, ctx.broker.topics, ctx.apiVersion >= FIRST_TOPIC_ID_VERSION);
    const request = { ...received, topics: ids.known };
    type Answer = { name: string; partitions: Array<{ partitionIndex: number; errorCode: number }> };
    const failed = (topics: typeof received.topics, errorCode: number): Answer[] =>
      topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
    const respond = (topics: Answer[]): TxnOffsetCommitResponse => ({
      throttleTimeMs: 0,
      topics: [
        ...topics.map((t) => ({ ...t, ...ids.echo(t.name) })),
        ...ids.unknown.map((t) => ({ ...failed([t], ErrorCode.UNKNOWN_TOPIC_ID)[0]!, topicId: t.topicId })),
      ],
    });
    const allWith = (errorCode: number): TxnOffsetCommitResponse => ({
      throttleTimeMs: 0, topics: received.topics.map((t) => ({ ...failed([t], errorCode)[0]!, topicId: t.topicId })),
    });
    // WRITE on the transactional id, READ on the group, then READ on each topic (KafkaApis.handleTxnOffsetCommitRequest).
    if (!authorizeTransactionalId(ctx, AclOperation.WRITE, request.transactionalId)) return allWith(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) return allWith(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const denied = request.topics.filter((t) => !authorizeTopic(ctx, AclOperation.READ, t.name));
    // Then, as Kafka 4.4 answers at every version, a partition the metadata does not have is
    // UNKNOWN_TOPIC_OR_PARTITION, before the transaction is checked; only the others are committed.
    const allowed = request.topics.filter((t) => !denied.includes(t));
    const exists = (t: { name: string }, p: { partitionIndex: number }) => p.partitionIndex >= 0 && p.partitionIndex < (ctx.broker.topics.get(t.name)?.partitions ?? 0);
    const missing = allowed.map((t) => ({ ...t, partitions: t.partitions.filter((p) => !exists(t, p)) })).filter((t) => t.partitions.length > 0);
    const committable = allowed.map((t) => ({ ...t, partitions: t.partitions.filter((p) => exists(t, p)) })).filter((t) => t.partitions.length > 0);
    const refusedTopics = [...failed(denied, ErrorCode.TOPIC_AUTHORIZATION_FAILED), ...failed(missing, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)];
    if (committable.length === 0 && refusedTopics.length > 0) return respond(refusedTopics);
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
      return respond([...failed(committable, errorCode), ...refusedTopics]);
    }
    const topics = await broker.groupCoordinator.commitTransactionalOffsets({
      groupId: request.groupId,
      producerId: request.producerId,
      producerEpoch: request.producerEpoch,
      generationId: request.generationIdOrMemberEpoch,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      topics: committable.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ ...p, commitTimestamp: -1 })) })),
    });
    return respond([...topics, ...refusedTopics]);
  },
};
