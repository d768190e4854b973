// Server-side transaction verification for Produce (KIP-890 part 1, Kafka 4's default): a transactional
// batch is accepted only for a partition its transaction contains. Under transaction version 2 (Produce
// v12+) the partition is added to the transaction instead (KIP-890 part 2), as Kafka's partition leader
// does with AddPartitionsToTxn v5.
import { BATCH_HEADER_SIZE, BatchHeader } from '../../../protocol/records/batch-header.js';
import { ErrorCode as E } from '../../errors.js';
import type { TransactionCoordinator } from './transaction-coordinator.js';

/** Produce v12 is the first version a transaction version 2 producer sends. */
const FIRST_TV2_PRODUCE_VERSION = 12;

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

/**
 * Errors the coordinator gives that a producer cannot act on are answered as Kafka's
 * AddPartitionsToTxnManager does: fencing as INVALID_PRODUCER_EPOCH, coordinator trouble as the
 * retriable NOT_ENOUGH_REPLICAS.
 */
function produceErrorOf(coordinatorError: number): number {
  switch (coordinatorError) {
    case E.PRODUCER_FENCED:
      return E.INVALID_PRODUCER_EPOCH;
    case E.CONCURRENT_TRANSACTIONS:
    case E.COORDINATOR_LOAD_IN_PROGRESS:
    case E.COORDINATOR_NOT_AVAILABLE:
    case E.NOT_COORDINATOR:
      return E.NOT_ENOUGH_REPLICAS;
    default:
      return coordinatorError;
  }
}

export interface VerificationFailure {
  errorCode: number;
  errorMessage: string;
}

/**
 * Verifies every transactional partition of a Produce request; returns the failures by
 * `topic\0partition` (the produce handler answers those without appending).
 */
export async function verifyTransactionalProduce(
  coordinator: TransactionCoordinator,
  transactionalId: string | null,
  topicData: ReadonlyArray<{ name: string; partitionData: ReadonlyArray<ProducePartitionData> }>,
  apiVersion: number,
  verificationEnabled: boolean,
): Promise<Map<string, VerificationFailure>> {
  const failures = new Map<string, VerificationFailure>();
  for (const t of topicData) {
    for (const p of t.partitionData) {
      const producer = transactionalProducerOf(p.records);
      if (producer === null) continue;
      const key = `${t.name}\0${p.index}`;
      if (transactionalId === null) {
        failures.set(key, { errorCode: E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, errorMessage: 'Transactional records without a transactional id' });
        continue;
      }
      if (!verificationEnabled) continue;
      const partitions = new Map([[t.name, new Set([p.index])]]);
      let error: number;
      if (apiVersion >= FIRST_TV2_PRODUCE_VERSION) {
        error = await coordinator.handleAddPartitions(transactionalId, producer.producerId, producer.producerEpoch, partitions, 2);
      } else {
        const verified = coordinator.verifyPartitions(transactionalId, producer.producerId, producer.producerEpoch, partitions);
        error = typeof verified === 'number' ? verified : verified.get(t.name)!.get(p.index)!;
      }
      if (error !== E.NONE) {
        const errorCode = produceErrorOf(error);
        failures.set(key, {
          errorCode,
          errorMessage: errorCode === E.INVALID_TXN_STATE
            ? `Partition ${t.name}-${p.index} was not added to transaction ${transactionalId}`
            : `Transaction verification of ${t.name}-${p.index} for ${transactionalId} failed`,
        });
      }
    }
  }
  return failures;
}
