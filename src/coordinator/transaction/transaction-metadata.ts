// One transactional id's state (Kafka's TransactionMetadata). A change is prepared as a
// TxnTransitMetadata (the record to write), marked pending while it is written to __transaction_state,
// and applied by completeTransitionTo once it is; a second change meanwhile is CONCURRENT_TRANSACTIONS.
import { isValidTransition, stateName, TransactionState as S, type TransactionState } from './transaction-state.js';

export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
const SHORT_MAX = 32767;

/** Kafka's TransactionMetadata.isEpochExhausted: the last epoch is kept for fencing, so Short.MaxValue - 1 is the last usable one. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= SHORT_MAX - 1;
}

export class IllegalTransactionStateError extends Error {
  override name = 'IllegalTransactionStateError';
}

/** A transaction's partitions: topic → partition ids. */
export type TxnPartitions = Map<string, Set<number>>;

export interface TxnTransitMetadata {
  producerId: number;
  previousProducerId: number;
  nextProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TransactionState;
  partitions: TxnPartitions;
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  clientTransactionVersion: number;
}

function copyPartitions(p: TxnPartitions): TxnPartitions {
  return new Map([...p].map(([topic, ids]) => [topic, new Set(ids)]));
}

// The class holds a transit's fields as its current state, declared once in TxnTransitMetadata (the interface
// merges with the class); a written transit replaces them whole (setState).
export interface TransactionMetadata extends TxnTransitMetadata {}

export class TransactionMetadata {
  /** The state being written to the log, if any. */
  pendingState: TransactionState | null = null;
  /** An epoch fence (timeout abort) that failed to write: the next attempt must not bump again. */
  hasFailedEpochFence = false;
  /**
   * The flush of a state record applied before it reached the disk (an add of partitions), until it
   * settles: data of the transaction is appended only once it has (see TransactionCoordinator.awaitStateDurable).
   */
  unflushedState: Promise<void> | null = null;
  /** EndTxn's second phase while it runs (markers on their way to disk, then Complete*); see TransactionCoordinator.completionOf. */
  completion: Promise<void> | null = null;
  /** The last add answered before it was applied, until applied and flushed (TransactionCoordinator.addOnceCompleted). */
  deferredAdd: Promise<void> | null = null;

  constructor(readonly transactionalId: string, t: TxnTransitMetadata) {
    this.setState(t);
  }

  /** `t` holds exactly the transit's fields: prepareTransitionTo builds each from snapshot(). */
  private setState(t: TxnTransitMetadata): void {
    Object.assign(this, t, { partitions: copyPartitions(t.partitions) });
  }

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== null;
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch);
  }

  hasPartition(topic: string, partition: number): boolean {
    return this.partitions.get(topic)?.has(partition) ?? false;
  }

  snapshot(): TxnTransitMetadata {
    return {
      producerId: this.producerId,
      previousProducerId: this.previousProducerId,
      nextProducerId: this.nextProducerId,
      producerEpoch: this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch,
      txnTimeoutMs: this.txnTimeoutMs,
      state: this.state,
      partitions: copyPartitions(this.partitions),
      txnStartTimestamp: this.txnStartTimestamp,
      txnLastUpdateTimestamp: this.txnLastUpdateTimestamp,
      clientTransactionVersion: this.clientTransactionVersion,
    };
  }

  /** InitProducerId on a finished transaction: bump the epoch (Kafka's prepareIncrementProducerEpoch). Returns an error code or the transit. */
  prepareIncrementProducerEpoch(newTimeoutMs: number, expectedEpoch: number | null, now: number): TxnTransitMetadata | 'PRODUCER_FENCED' {
    if (this.isProducerEpochExhausted) throw new IllegalTransactionStateError(`epoch of ${this.transactionalId} is exhausted`);
    const bumped = this.producerEpoch + 1;
    let next: [number, number];
    if (expectedEpoch === null) next = [bumped, NO_PRODUCER_EPOCH];
    else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === this.producerEpoch) next = [bumped, this.producerEpoch];
    // A retry of an InitProducerId that bumped the epoch already: answer with the current epoch.
    else if (expectedEpoch === this.lastProducerEpoch) next = [this.producerEpoch, this.lastProducerEpoch];
    else return 'PRODUCER_FENCED';
    return this.prepareTransitionTo({
      state: S.Empty, producerEpoch: next[0], lastProducerEpoch: next[1], txnTimeoutMs: newTimeoutMs,
      partitions: new Map(), txnStartTimestamp: -1, txnLastUpdateTimestamp: now,
    });
  }

  /** The epoch is exhausted: continue under a new producer id at epoch 0. */
  prepareProducerIdRotation(newProducerId: number, newTimeoutMs: number, now: number, recordLastEpoch: boolean): TxnTransitMetadata {
    return this.prepareTransitionTo({
      state: S.Empty, producerId: newProducerId, previousProducerId: this.producerId, nextProducerId: NO_PRODUCER_ID, producerEpoch: 0,
      lastProducerEpoch: recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH, txnTimeoutMs: newTimeoutMs,
      partitions: new Map(), txnStartTimestamp: -1, txnLastUpdateTimestamp: now,
    });
  }

  /**
   * Fences the current producer of an Ongoing transaction (a new InitProducerId, or the timeout) before
   * it is aborted (Kafka's PrepareEpochFence, which is never written): the epoch is bumped in memory
   * and the abort is then written under it, so its markers fence the old producer on every partition.
   */
  fenceProducerEpoch(): void {
    if (this.producerEpoch === SHORT_MAX) throw new IllegalTransactionStateError(`cannot fence ${this.transactionalId}: epoch at its maximum`);
    if (!isValidTransition(this.state, S.PrepareEpochFence)) {
      throw new IllegalTransactionStateError(`${this.transactionalId}: cannot fence in ${stateName(this.state)}`);
    }
    // After a fence whose abort failed to write, the epoch was bumped already.
    if (!this.hasFailedEpochFence) this.producerEpoch += 1;
    this.lastProducerEpoch = NO_PRODUCER_EPOCH;
    this.hasFailedEpochFence = true;
  }

  /** AddPartitionsToTxn/AddOffsetsToTxn: the transaction becomes (or stays) Ongoing with these partitions too. */
  prepareAddPartitions(added: TxnPartitions, now: number, clientTransactionVersion: number): TxnTransitMetadata {
    const partitions = copyPartitions(this.partitions);
    for (const [topic, ids] of added) {
      let set = partitions.get(topic);
      if (!set) partitions.set(topic, (set = new Set()));
      for (const id of ids) set.add(id);
    }
    const starting = this.state === S.Empty || this.state === S.CompleteCommit || this.state === S.CompleteAbort;
    return this.prepareTransitionTo({
      state: S.Ongoing, partitions, txnStartTimestamp: starting ? now : this.txnStartTimestamp, txnLastUpdateTimestamp: now,
      clientTransactionVersion,
    });
  }

  /**
   * EndTxn (or a timeout): PrepareCommit or PrepareAbort under `clientTransactionVersion`. `bumpEpoch`
   * (an EndTxn of transaction version 2, KIP-890 part 2) bumps the epoch here, which the markers carry:
   * to Short.MaxValue from an exhausted epoch, `nextProducerId` taking over at Complete* (Kafka's
   * TransactionMetadata.prepareAbortOrCommit and prepareComplete).
   */
  prepareAbortOrCommit(
    state: S.PrepareCommit | S.PrepareAbort, clientTransactionVersion: number, bumpEpoch: boolean, nextProducerId: number, now: number, noPartitionAdded: boolean,
  ): TxnTransitMetadata {
    const rotate = bumpEpoch && this.isProducerEpochExhausted;
    return this.prepareTransitionTo({
      state,
      producerEpoch: bumpEpoch ? this.producerEpoch + 1 : this.producerEpoch,
      lastProducerEpoch: bumpEpoch ? this.producerEpoch : this.lastProducerEpoch,
      nextProducerId: rotate ? nextProducerId : NO_PRODUCER_ID,
      txnStartTimestamp: noPartitionAdded ? now : this.txnStartTimestamp,
      txnLastUpdateTimestamp: now,
      clientTransactionVersion,
    });
  }

  /**
   * Markers written: CompleteCommit/CompleteAbort, no partitions; a pending id rotation takes effect. The last
   * producer epoch stays the one the client last used (32766 after an overflow), as in Kafka's prepareComplete.
   */
  prepareComplete(now: number): TxnTransitMetadata {
    const state = this.state === S.PrepareCommit ? S.CompleteCommit : S.CompleteAbort;
    const rotate = this.clientTransactionVersion >= 2 && this.nextProducerId !== NO_PRODUCER_ID;
    return this.prepareTransitionTo({
      state, partitions: new Map(), txnLastUpdateTimestamp: now,
      ...(rotate ? { producerId: this.nextProducerId, previousProducerId: this.producerId, nextProducerId: NO_PRODUCER_ID, producerEpoch: 0 } : {}),
    });
  }

  prepareDead(): TxnTransitMetadata {
    return this.prepareTransitionTo({ state: S.Dead, partitions: new Map() });
  }

  private prepareTransitionTo(change: Partial<TxnTransitMetadata> & { state: TransactionState }): TxnTransitMetadata {
    if (this.pendingState !== null) {
      throw new IllegalTransactionStateError(`${this.transactionalId}: cannot prepare ${stateName(change.state)} while ${stateName(this.pendingState)} is pending`);
    }
    if (!isValidTransition(this.state, change.state)) {
      throw new IllegalTransactionStateError(`${this.transactionalId}: invalid transition ${stateName(this.state)} -> ${stateName(change.state)}`);
    }
    this.pendingState = change.state;
    return { ...this.snapshot(), ...change };
  }

  /** The transit was written: apply it. */
  completeTransitionTo(t: TxnTransitMetadata): void {
    this.setState(t);
    this.pendingState = null;
    this.hasFailedEpochFence = false;
  }

  /** The write failed: nothing changes. */
  abortPendingTransition(): void {
    this.pendingState = null;
  }
}
