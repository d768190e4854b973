// The transactional ids this coordinator owns, in memory, with __transaction_state as their durable copy
// (Kafka's TransactionStateManager): loaded once at start-up (last record per key wins, tombstones
// delete), appended to and flushed before any change is applied.
import type { Logger } from 'pino';
import type { CoordinatorRecord } from '../offsets-topic.js';
import { partitionFor } from '../offsets-topic.js';
import { decodeTransactionLogKey, decodeTransactionLogValue, transactionLogKey, transactionLogValue } from './transaction-log.js';
import { TransactionMetadata, type TxnTransitMetadata } from './transaction-metadata.js';

export const TRANSACTION_STATE_TOPIC_NAME = '__transaction_state';

/**
 * How far an append goes before it resolves: 'flushed' on disk; 'flushing' appended with its flush
 * started; 'unflushed' appended only, carried to disk by the partition's next flush (a Complete* record:
 * lost, the transaction is found prepared at start-up and completed again).
 */
export type Durability = 'flushed' | 'flushing' | 'unflushed';

/** The coordinator's view of __transaction_state (the broker implements it on its logs). */
export interface TransactionStateTopic {
  readonly numPartitions: number;
  /** Appends the records as one batch and resolves as `durability` says ('flushed' when omitted). */
  append(partition: number, records: ReadonlyArray<CoordinatorRecord>, durability?: Durability): Promise<void>;
  readAll(partition: number): Promise<CoordinatorRecord[]>;
  /** Resolves once everything appended to the partition so far is on disk. */
  flush(partition: number): Promise<void>;
}

export class TransactionStateManager {
  private readonly transactions = new Map<string, TransactionMetadata>();

  constructor(
    private readonly topic: TransactionStateTopic,
    /** TransactionLogValue version to write, read at each write: the finalized transaction.version may change (see transaction-version.ts). */
    private readonly valueVersion: () => number,
    private readonly log?: Logger,
  ) {}

  partitionFor(transactionalId: string): number {
    return partitionFor(transactionalId, this.topic.numPartitions);
  }

  get(transactionalId: string): TransactionMetadata | undefined {
    return this.transactions.get(transactionalId);
  }

  /** Adds `metadata` unless the id has one already; returns the one in place. */
  putIfNotExists(metadata: TransactionMetadata): TransactionMetadata {
    const existing = this.transactions.get(metadata.transactionalId);
    if (existing) return existing;
    this.transactions.set(metadata.transactionalId, metadata);
    return metadata;
  }

  all(): IterableIterator<TransactionMetadata> {
    return this.transactions.values();
  }

  async load(): Promise<void> {
    const loaded = new Map<string, TxnTransitMetadata | null>();
    for (let p = 0; p < this.topic.numPartitions; p++) {
      for (const record of await this.topic.readAll(p)) {
        try {
          loaded.set(decodeTransactionLogKey(record.key), record.value === null ? null : decodeTransactionLogValue(record.value));
        } catch (err) {
          this.log?.warn({ err, partition: p }, 'skipping an unreadable __transaction_state record');
        }
      }
    }
    for (const [id, value] of loaded) if (value !== null) this.transactions.set(id, new TransactionMetadata(id, value));
  }

  /**
   * Writes the transit (pending on `metadata`) and applies it. On a failed write the pending state is
   * cleared and the error rethrown: nothing changed. Short of 'flushed', applied once appended; a
   * 'flushing' record's flush is kept on `metadata` (unflushedState) until it settles.
   */
  async appendTransaction(metadata: TransactionMetadata, transit: TxnTransitMetadata, durability: Durability = 'flushed'): Promise<void> {
    const partition = this.partitionFor(metadata.transactionalId);
    const key = transactionLogKey(metadata.transactionalId);
    try {
      await this.topic.append(partition, [{ key, value: transactionLogValue(transit, this.valueVersion()) }], durability);
    } catch (err) {
      metadata.abortPendingTransition();
      this.log?.error({ err, transactionalId: metadata.transactionalId, partition }, 'failed to write transaction state');
      throw err;
    }
    metadata.completeTransitionTo(transit);
    if (durability === 'flushing') this.trackFlush(metadata);
  }

  /** Keeps the flush of the record just appended on `metadata` until it settles (the flush's own error handling is the log's). */
  private trackFlush(metadata: TransactionMetadata): void {
    const flushed = this.flush(metadata.transactionalId);
    metadata.unflushedState = flushed;
    const settle = (): void => {
      if (metadata.unflushedState === flushed) metadata.unflushedState = null;
    };
    flushed.then(settle, settle);
  }

  /** Resolves once the transactional id's records written so far are on disk. */
  flush(transactionalId: string): Promise<void> {
    return this.topic.flush(this.partitionFor(transactionalId));
  }

  /** transactional.id.expiration.ms: a tombstone, then the id is forgotten (Kafka's Dead state). */
  async removeTransactionalId(metadata: TransactionMetadata): Promise<void> {
    const transit = metadata.prepareDead();
    try {
      await this.topic.append(this.partitionFor(metadata.transactionalId), [{ key: transactionLogKey(metadata.transactionalId), value: null }]);
    } catch (err) {
      metadata.abortPendingTransition();
      throw err;
    }
    metadata.completeTransitionTo(transit);
    this.transactions.delete(metadata.transactionalId);
  }
}
