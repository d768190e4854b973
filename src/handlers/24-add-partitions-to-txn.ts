import type { AddPartitionsToTxnRequest, AddPartitionsToTxnTopic } from '../../protocol/generated/AddPartitionsToTxnRequest.js';
import type { AddPartitionsToTxnResponse, AddPartitionsToTxnTopicResult } from '../../protocol/generated/AddPartitionsToTxnResponse.js';
import type { TxnPartitions } from '../coordinator/transaction/transaction-metadata.js';
import { ErrorCode } from '../errors.js';
import type { Handler, RequestContext } from './handler.js';
import { AclOperation, authorizeCluster, authorizeTopic, authorizeTransactionalId } from '../security/authorization.js';

/** v2 introduced PRODUCER_FENCED; v4+ is the batched (broker) form, v5 its transaction version 2 use. */
const FIRST_PRODUCER_FENCED_VERSION = 2;
const FIRST_BATCHED_VERSION = 4;
const FIRST_TV2_VERSION = 5;

function resultsWith(topics: ReadonlyArray<AddPartitionsToTxnTopic>, errorOf: (topic: string, partition: number) => number): AddPartitionsToTxnTopicResult[] {
  return topics.map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: errorOf(t.name, partitionIndex) })),
  }));
}

/**
 * One transaction's partitions. As Kafka's KafkaApis: any partition of a missing topic fails the whole
 * request (UNKNOWN_TOPIC_OR_PARTITION), the others get OPERATION_NOT_ATTEMPTED, and nothing is added.
 */
async function addOrVerify(
  ctx: RequestContext, transactionalId: string, producerId: number, producerEpoch: number, topics: ReadonlyArray<AddPartitionsToTxnTopic>,
  verifyOnly: boolean, clientTransactionVersion: number,
): Promise<AddPartitionsToTxnTopicResult[]> {
  // WRITE on the transactional id, then on every topic (KafkaApis.handleAddPartitionsToTxnRequest).
  if (!authorizeTransactionalId(ctx, AclOperation.WRITE, transactionalId)) return resultsWith(topics, () => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const denied = new Set(topics.filter((t) => !authorizeTopic(ctx, AclOperation.WRITE, t.name)).map((t) => t.name));
  if (denied.size > 0) return resultsWith(topics, (t) => (denied.has(t) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.OPERATION_NOT_ATTEMPTED));
  const missing = (topic: string, partition: number): boolean => {
    const info = ctx.broker.topics.get(topic);
    return !info || partition < 0 || partition >= info.partitions;
  };
  if (topics.some((t) => t.partitions.some((p) => missing(t.name, p)))) {
    ctx.log.debug({ clientId: ctx.clientId, transactionalId }, 'AddPartitionsToTxn for a partition that does not exist');
    return resultsWith(topics, (t, p) => (missing(t, p) ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.OPERATION_NOT_ATTEMPTED));
  }
  const partitions: TxnPartitions = new Map();
  for (const t of topics) {
    let set = partitions.get(t.name);
    if (!set) partitions.set(t.name, (set = new Set()));
    for (const p of t.partitions) set.add(p);
  }
  const coordinator = ctx.broker.transactionCoordinator;
  if (verifyOnly) {
    const verified = coordinator.verifyPartitions(transactionalId, producerId, producerEpoch, partitions);
    return resultsWith(topics, (t, p) => (typeof verified === 'number' ? verified : verified.get(t)!.get(p)!));
  }
  // The producer's own form (v0-3) is answered before the record's flush: its produce waits for that
  // flush instead, so a transaction costs one fsync round fewer. The batched form stays durable.
  const durable = ctx.apiVersion >= FIRST_BATCHED_VERSION;
  const error = await coordinator.handleAddPartitions(transactionalId, producerId, producerEpoch, partitions, clientTransactionVersion, durable);
  return resultsWith(topics, () => error);
}

export const handler: Handler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> = {
  apiKey: 24,
  name: 'AddPartitionsToTxn',
  minVersion: 0,
  maxVersion: 5,
  async handle(request, ctx) {
    if (ctx.apiVersion < FIRST_BATCHED_VERSION) {
      const results = await addOrVerify(
        ctx, request.v3AndBelowTransactionalId, request.v3AndBelowProducerId, request.v3AndBelowProducerEpoch, request.v3AndBelowTopics, false, 0,
      );
      if (ctx.apiVersion < FIRST_PRODUCER_FENCED_VERSION) {
        for (const t of results) for (const p of t.resultsByPartition) {
          if (p.partitionErrorCode === ErrorCode.PRODUCER_FENCED) p.partitionErrorCode = ErrorCode.INVALID_PRODUCER_EPOCH;
        }
      }
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction: [], resultsByTopicV3AndBelow: results };
    }
    // The batched form is the broker-to-coordinator request: it needs CLUSTER_ACTION.
    if (!authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, resultsByTransaction: [], resultsByTopicV3AndBelow: [] };
    }
    const clientTransactionVersion = ctx.apiVersion >= FIRST_TV2_VERSION ? 2 : 0;
    const resultsByTransaction = [];
    for (const txn of request.transactions) {
      const topicResults = await addOrVerify(ctx, txn.transactionalId, txn.producerId, txn.producerEpoch, txn.topics, txn.verifyOnly, clientTransactionVersion);
      resultsByTransaction.push({ transactionalId: txn.transactionalId, topicResults });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction, resultsByTopicV3AndBelow: [] };
  },
};
