// Server-side transaction verification for Produce (KIP-890 part 1, Kafka 4's default): a transactional
// batch is accepted only for a partition its transaction contains. Under transaction version 2 (Produce
// v12+) the partition is added to the transaction instead (KIP-890 part 2), as Kafka's partition leader
// does with AddPartitionsToTxn v5.
import { BATCH_HEADER_SIZE, BatchHeader } from '../../../protocol/records/batch-header.js';
import { ErrorCode as E } from '../../errors.js';
import type { TransactionCoordinator } from './transaction-coordinator.js';

/** Produce v12 is the first version a transaction version 2 producer sends. */
const FIRST_TV2_PRODUCE_VERSION = 12;

/**
 * The transaction version of a producer sending Produce `apiVersion`: 2 from v12, else 0 (a version 1
 * producer sends the same Produce versions; nothing checked on append tells the two apart). Kafka's
 * AddPartitionsToTxnManager.produceRequestVersionToTransactionSupportedOperation.
 */
export function producerTransactionVersion(apiVersion: number): number {
  return apiVersion >= FIRST_TV2_PRODUCE_VERSION ? 2 : 0;
}

export interface ProducePartitionData {
  index: number;
  records: unknown;
}

/** The producer of the partition's first batch if it is transactional, else null. */
function transactionalProducerOf(records: unknown): { producerId: number; producerEpoch: number } | null {
  if (!Buffer.isBuffer(records) || records.length < BATCH_HEADER_SIZE) return null;
  const header = new BatchHeader(records, 0);
  if (header.magic !== 2 || !header.isTransactional || header.isControl) return null;
  return { producerId: header.producerId, producerEpoch: header.producerEpoch };
}

/** Produce v11 is the first version whose clients know TRANSACTION_ABORTABLE (KIP-1050). */
const FIRST_TRANSACTION_ABORTABLE_PRODUCE_VERSION = 11;

/**
 * A failed verification as Kafka's AddPartitionsToTxnManager answers it to Produce and TxnOffsetCommit:
 * fencing as INVALID_PRODUCER_EPOCH, a partition not in the transaction as INVALID_TXN_STATE to clients
 * older than KIP-1050 (its transactionSupportedOperation); anything else as the coordinator gave it.
 */
export function verificationErrorFor(coordinatorError: number, knowsTransactionAbortable: boolean): number {
  if (coordinatorError === E.PRODUCER_FENCED) return E.INVALID_PRODUCER_EPOCH;
  if (coordinatorError === E.TRANSACTION_ABORTABLE && !knowsTransactionAbortable) return E.INVALID_TXN_STATE;
  return coordinatorError;
}

/** Produce also answers coordinator trouble as the retriable NOT_ENOUGH_REPLICAS, as Kafka's partition leader does. */
function produceErrorOf(coordinatorError: number, apiVersion: number): number {
  switch (coordinatorError) {
    case E.CONCURRENT_TRANSACTIONS:
    case E.COORDINATOR_LOAD_IN_PROGRESS:
    case E.COORDINATOR_NOT_AVAILABLE:
    case E.NOT_COORDINATOR:
      return E.NOT_ENOUGH_REPLICAS;
    default:
      return verificationErrorFor(coordinatorError, apiVersion >= FIRST_TRANSACTION_ABORTABLE_PRODUCE_VERSION);
  }
}

/** Per coordinator, per transactional id: the last Produce verified and appended, or on its way to be. */
const produceQueues = new WeakMap<TransactionCoordinator, Map<string, Promise<void>>>();

/**
 * Runs `verifyAndAppend` for a Produce of `transactionalId` once the ones received before it are appended.
 * Their verifications wait for different things (an add applied late, a flush), so a producer's pipelined
 * batches could be appended out of order (OUT_OF_ORDER_SEQUENCE_NUMBER, fatal to a transactional
 * producer; seen with librdkafka under quixstreams). Kafka's SocketServer takes one request of a
 * connection at a time, and a transactional producer writes to a broker on one connection.
 */
export function inArrivalOrder<T>(coordinator: TransactionCoordinator, transactionalId: string | null, verifyAndAppend: () => Promise<T>): Promise<T> {
  if (transactionalId === null) return verifyAndAppend();
  let queue = produceQueues.get(coordinator);
  if (!queue) produceQueues.set(coordinator, (queue = new Map()));
  const previous = queue.get(transactionalId);
  const result = previous ? previous.then(verifyAndAppend) : verifyAndAppend();
  const done = result.then(() => {}, () => {});
  queue.set(transactionalId, done);
  void done.then(() => {
    if (queue.get(transactionalId) === done) queue.delete(transactionalId);
  });
  return result;
}

export interface VerificationFailure {
  errorCode: number;
  errorMessage: string | null;
}

/**
 * Verifies every transactional partition of a Produce request; returns the failures by
 * `topic\0partition` (the produce handler answers those without appending). Resolves only once the
 * transaction's state records (its adds, implicit ones included) are on disk, so data never reaches a
 * partition before __transaction_state knows the partition is in the transaction.
 */
export async function verifyTransactionalProduce(
  coordinator: TransactionCoordinator,
  transactionalId: string | null,
  topicData: ReadonlyArray<{ name: string; partitionData: ReadonlyArray<ProducePartitionData> }>,
  apiVersion: number,
  verificationEnabled: boolean,
): Promise<Map<string, VerificationFailure>> {
  const failures = new Map<string, VerificationFailure>();
  const fail = (topic: string, partition: number, error: number): void => {
    const errorCode = produceErrorOf(error, apiVersion);
    failures.set(`${topic}\0${partition}`, {
      errorCode,
      // Kafka's ReplicaManager gives a message only to a partition missing from the transaction; others get the code.
      errorMessage: error === E.TRANSACTION_ABORTABLE ? `Partition ${topic}-${partition} was not added to transaction ${transactionalId}` : null,
    });
  };
  const transactional: Array<{ topic: string; partition: number; producerId: number; producerEpoch: number }> = [];
  for (const t of topicData) {
    for (const p of t.partitionData) {
      const producer = transactionalProducerOf(p.records);
      if (producer === null) continue;
      if (transactionalId === null) {
        failures.set(`${t.name}\0${p.index}`, { errorCode: E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, errorMessage: 'Transactional records without a transactional id' });
        continue;
      }
      transactional.push({ topic: t.name, partition: p.index, ...producer });
    }
  }
  if (transactionalId === null || transactional.length === 0) return failures;
  // Transaction version 2 has no AddPartitionsToTxn: Produce v12 must add, whatever
  // transaction.partition.verification.enable says (else no marker would ever reach the partition).
  const tv2 = apiVersion >= FIRST_TV2_PRODUCE_VERSION;
  if (tv2) {
    // One add for the request's partitions (one state record), answered before its flush.
    const { producerId, producerEpoch } = transactional[0];
    const partitions = new Map<string, Set<number>>();
    for (const { topic, partition } of transactional) {
      let set = partitions.get(topic);
      if (!set) partitions.set(topic, (set = new Set()));
      set.add(partition);
    }
    const error = await coordinator.handleAddPartitions(transactionalId, producerId, producerEpoch, partitions, 2, false);
    if (error !== E.NONE) {
      for (const { topic, partition } of transactional) fail(topic, partition, error);
      return failures;
    }
  }
  // The transaction's state records (adds answered before they were applied or flushed) applied and on disk.
  const durable = await coordinator.awaitStateDurable(transactionalId);
  if (durable !== E.NONE) {
    for (const { topic, partition } of transactional) fail(topic, partition, durable);
    return failures;
  }
  // Checked last, with no I/O before the append (Kafka's VerificationGuard): a transaction that began to end
  // meanwhile is refused, so no batch lands after its markers.
  if (verificationEnabled || tv2) {
    for (const { topic, partition, producerId, producerEpoch } of transactional) {
      const verified = coordinator.verifyPartitions(transactionalId, producerId, producerEpoch, new Map([[topic, new Set([partition])]]));
      const error = typeof verified === 'number' ? verified : verified.get(topic)!.get(partition)!;
      if (error !== E.NONE) fail(topic, partition, error);
    }
  }
  return failures;
}
