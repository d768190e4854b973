// The transaction coordinator of a single broker (Kafka's TransactionCoordinator): producer ids and
// epochs per transactional id, the partitions of each transaction, EndTxn's two-phase completion
// (Prepare* durable and answered, then markers durable, then Complete* written), timeouts and
// transactional id expiration.
// One node: markers are appended to the local logs directly instead of sent by a marker channel manager.
import type { Logger } from 'pino';
import { ErrorCode as E, KafkaError } from '../../errors.js';
import {
  IllegalTransactionStateError, isEpochExhausted, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TransactionMetadata,
  type TxnPartitions, type TxnTransitMetadata,
} from './transaction-metadata.js';
import { stateName, TransactionState as S, isExpirable } from './transaction-state.js';
import type { TransactionStateManager } from './transaction-state-manager.js';

/** The coordinator epoch of the one __transaction_state leader kafkite has: it never changes. */
const COORDINATOR_EPOCH = 0;

export interface TransactionConfig {
  transactionMaxTimeoutMs: number;
  abortTimedOutTransactionsIntervalMs: number;
  transactionalIdExpirationMs: number;
  removeExpiredTransactionalIdsIntervalMs: number;
}

/** A COMMIT/ABORT marker (Kafka's TxnMarkerEntry). */
export interface TxnMarker {
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  commit: boolean;
  /** The transaction's client transaction version: from 2 a partition takes only a marker above its producer's epoch. */
  transactionVersion: number;
}

/** Appends COMMIT/ABORT markers to the transaction's partitions and resolves once they are on disk. */
export interface TransactionMarkerWriter {
  writeMarkers(marker: TxnMarker, partitions: TxnPartitions): Promise<void>;
}

export interface TransactionMetrics {
  transactionStarted(): void;
  transactionCompleted(committed: boolean): void;
  transactionTimedOut(): void;
}

export interface ProducerIdGenerator {
  nextId(): number;
}

export interface InitProducerIdResult {
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

export type EndTxnResult = InitProducerIdResult;

function initError(errorCode: number): InitProducerIdResult {
  return { errorCode, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
}

function isSubset(added: TxnPartitions, of: TransactionMetadata): boolean {
  for (const [topic, ids] of added) for (const id of ids) if (!of.hasPartition(topic, id)) return false;
  return true;
}

export class TransactionCoordinator {
  private active = false;
  private timers: NodeJS.Timeout[] = [];
  private readonly completions = new Set<Promise<void>>();
  metrics?: TransactionMetrics;

  constructor(
    private readonly config: TransactionConfig,
    private readonly txnManager: TransactionStateManager,
    private readonly markers: TransactionMarkerWriter,
    private readonly producerIds: ProducerIdGenerator,
    private readonly log?: Logger,
  ) {}

  /** Loads __transaction_state; transactions left in PrepareCommit/PrepareAbort get their markers and complete. */
  async startup(): Promise<void> {
    await this.txnManager.load();
    this.active = true;
    for (const txn of [...this.txnManager.all()]) {
      if (txn.state === S.PrepareCommit || txn.state === S.PrepareAbort) {
        this.log?.info({ transactionalId: txn.transactionalId, state: stateName(txn.state) }, 'completing a transaction left prepared');
        await this.completeTransaction(txn, txn.state === S.PrepareCommit);
      }
    }
    const every = (ms: number, fn: () => Promise<void>): void => {
      const timer = setInterval(() => void fn().catch((err) => this.log?.error({ err }, 'transaction housekeeping failed')), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.config.abortTimedOutTransactionsIntervalMs, () => this.abortTimedOutTransactions(Date.now()));
    every(this.config.removeExpiredTransactionalIdsIntervalMs, () => this.removeExpiredTransactionalIds(Date.now()));
  }

  /** Stops the timers and lets the completions under way finish (a later start-up completes any that fail). */
  async shutdown(): Promise<void> {
    this.active = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.all([...this.completions]);
  }

  partitionFor(transactionalId: string): number {
    return this.txnManager.partitionFor(transactionalId);
  }

  transactions(): IterableIterator<TransactionMetadata> {
    return this.txnManager.all();
  }

  get(transactionalId: string): TransactionMetadata | undefined {
    return this.txnManager.get(transactionalId);
  }

  // ---- InitProducerId ----

  /** `expected`: the producer id and epoch an InitProducerId v3+ names (KIP-360), or null. */
  async handleInitProducerId(
    transactionalId: string, transactionTimeoutMs: number, expected: { producerId: number; producerEpoch: number } | null,
  ): Promise<InitProducerIdResult> {
    if (transactionalId === '') return initError(E.INVALID_REQUEST);
    if (!this.active) return initError(E.COORDINATOR_NOT_AVAILABLE);
    if (transactionTimeoutMs <= 0 || transactionTimeoutMs > this.config.transactionMaxTimeoutMs) return initError(E.INVALID_TRANSACTION_TIMEOUT);
    await this.completionOf(this.txnManager.get(transactionalId));
    const now = Date.now();
    const txn = this.txnManager.get(transactionalId) ?? this.txnManager.putIfNotExists(new TransactionMetadata(transactionalId, {
      producerId: this.producerIds.nextId(), previousProducerId: NO_PRODUCER_ID, nextProducerId: NO_PRODUCER_ID,
      producerEpoch: NO_PRODUCER_EPOCH, lastProducerEpoch: NO_PRODUCER_EPOCH, txnTimeoutMs: transactionTimeoutMs, state: S.Empty,
      partitions: new Map(), txnStartTimestamp: -1, txnLastUpdateTimestamp: now, clientTransactionVersion: 0,
    }));
    // Kafka's isValidProducerId: a just-created id, the current id, or a retry after an epoch-exhausting rotation.
    const validExpected = expected === null || txn.producerEpoch === NO_PRODUCER_EPOCH || expected.producerId === txn.producerId ||
      (expected.producerId === txn.previousProducerId && isEpochExhausted(expected.producerEpoch));
    if (txn.pendingTransitionInProgress) return initError(E.CONCURRENT_TRANSACTIONS);
    if (!validExpected) return initError(E.PRODUCER_FENCED);
    switch (txn.state) {
      case S.PrepareCommit:
      case S.PrepareAbort:
        return initError(E.CONCURRENT_TRANSACTIONS);
      case S.Ongoing: {
        // Fence the producer and abort its transaction; the client retries and gets the next epoch then.
        const result = await this.fenceAndAbort(txn);
        // The retry finds the abort complete.
        await this.completionOf(txn);
        return initError(result.errorCode === E.NONE ? E.CONCURRENT_TRANSACTIONS : result.errorCode);
      }
      default: {
        let transit: TxnTransitMetadata | 'PRODUCER_FENCED';
        if (txn.isProducerEpochExhausted && (expected === null || expected.producerEpoch === txn.producerEpoch)) {
          transit = txn.prepareProducerIdRotation(this.producerIds.nextId(), transactionTimeoutMs, now, expected !== null);
        } else {
          transit = txn.prepareIncrementProducerEpoch(transactionTimeoutMs, expected?.producerEpoch ?? null, now);
        }
        if (transit === 'PRODUCER_FENCED') return initError(E.PRODUCER_FENCED);
        try {
          await this.txnManager.appendTransaction(txn, transit);
        } catch {
          return initError(E.COORDINATOR_NOT_AVAILABLE);
        }
        this.log?.debug({ transactionalId, producerId: txn.producerId, producerEpoch: txn.producerEpoch }, 'transactional producer initialized');
        return { errorCode: E.NONE, producerId: txn.producerId, producerEpoch: txn.producerEpoch };
      }
    }
  }

  // ---- AddPartitionsToTxn / AddOffsetsToTxn / implicit adds ----

  /** Checks the producer against the transaction: an error code, or NONE. */
  private validateProducer(txn: TransactionMetadata | undefined, producerId: number, producerEpoch: number): number {
    if (!txn) return E.INVALID_PRODUCER_ID_MAPPING;
    const error = this.checkProducerIdentity(txn, producerId, producerEpoch);
    return error !== E.NONE ? error : this.checkStateAllowsAdd(txn);
  }

  /** The producer id and epoch are the transaction's (else INVALID_PRODUCER_ID_MAPPING or PRODUCER_FENCED). */
  private checkProducerIdentity(txn: TransactionMetadata, producerId: number, producerEpoch: number): number {
    if (txn.producerId !== producerId) return E.INVALID_PRODUCER_ID_MAPPING;
    if (txn.producerEpoch !== producerEpoch) return E.PRODUCER_FENCED;
    return E.NONE;
  }

  /** No change is being written and the transaction is not ending (else CONCURRENT_TRANSACTIONS). */
  private checkStateAllowsAdd(txn: TransactionMetadata): number {
    if (txn.pendingTransitionInProgress || txn.state === S.PrepareCommit || txn.state === S.PrepareAbort) return E.CONCURRENT_TRANSACTIONS;
    return E.NONE;
  }

  /**
   * Adds the partitions to the transaction, starting it if needed; one error code for them all.
   * `durable` false (a producer's own AddPartitionsToTxn, or Produce v12's implicit add): answered once the
   * record is appended, its flush running; the transaction's data waits for that flush before it is
   * appended (awaitStateDurable), so the add costs no fsync round of its own and a crash never leaves
   * transactional data on disk that __transaction_state does not know of. AddOffsetsToTxn stays durable:
   * TxnOffsetCommit goes through the group coordinator, not the produce path.
   */
  async handleAddPartitions(
    transactionalId: string, producerId: number, producerEpoch: number, partitions: TxnPartitions, clientTransactionVersion = 0, durable = true,
  ): Promise<number> {
    if (transactionalId === '') return E.INVALID_REQUEST;
    if (!this.active) return E.COORDINATOR_NOT_AVAILABLE;
    const txn = this.txnManager.get(transactionalId);
    if ((txn?.completion || txn?.deferredAdd) && !durable) return this.addOnceCompleted(txn, producerId, producerEpoch, partitions, clientTransactionVersion);
    await this.completionOf(txn);
    return this.addPartitions(txn, producerId, producerEpoch, partitions, clientTransactionVersion, durable);
  }

  private async addPartitions(
    txn: TransactionMetadata | undefined, producerId: number, producerEpoch: number, partitions: TxnPartitions, clientTransactionVersion: number, durable: boolean,
  ): Promise<number> {
    const error = this.validateProducer(txn, producerId, producerEpoch);
    if (error !== E.NONE) return error;
    if (txn!.state === S.Ongoing && isSubset(partitions, txn!)) return durable ? this.awaitStateDurable(txn!.transactionalId) : E.NONE;
    const starting = txn!.state !== S.Ongoing;
    const transit = txn!.prepareAddPartitions(partitions, Date.now(), clientTransactionVersion);
    try {
      await this.txnManager.appendTransaction(txn!, transit, durable ? 'flushed' : 'flushing');
    } catch {
      return E.COORDINATOR_NOT_AVAILABLE;
    }
    if (starting) this.metrics?.transactionStarted();
    return E.NONE;
  }

  /**
   * An add that is not durable (see handleAddPartitions) while the id's previous transaction completes:
   * answered at once, and applied once Complete* is written (which waits for the markers to be durable),
   * after the adds deferred before it. The transaction's data waits for it and its flush
   * (awaitStateDurable); an error it meets then (a fenced epoch) fails that data.
   */
  private addOnceCompleted(
    txn: TransactionMetadata, producerId: number, producerEpoch: number, partitions: TxnPartitions, clientTransactionVersion: number,
  ): number {
    // The producer's identity is checked now, the state when the add is applied. Under transaction
    // version 2 a producer id rotated by the EndTxn is the one Complete* will leave.
    const rotated = txn.nextProducerId !== NO_PRODUCER_ID && producerId === txn.nextProducerId && producerEpoch === 0;
    const identity = rotated ? E.NONE : this.checkProducerIdentity(txn, producerId, producerEpoch);
    if (identity !== E.NONE) return identity;
    const add = (): Promise<number> => (this.active ? this.addPartitions(txn, producerId, producerEpoch, partitions, clientTransactionVersion, false) : Promise.resolve(E.COORDINATOR_NOT_AVAILABLE));
    const previous = txn.deferredAdd ?? txn.completion!;
    const added: Promise<void> = previous.then(add, add).then(async (errorCode) => {
      if (errorCode !== E.NONE) throw new KafkaError(errorCode, `add to transaction ${txn.transactionalId} failed`);
      // The add's own flush, tracked in its place.
      if (txn.unflushedState !== null && txn.unflushedState !== added) await txn.unflushedState;
    });
    txn.unflushedState = added;
    txn.deferredAdd = added;
    const settle = (): void => {
      if (txn.unflushedState === added) txn.unflushedState = null;
      if (txn.deferredAdd === added) txn.deferredAdd = null;
    };
    added.then(settle, settle);
    return E.NONE;
  }

  /**
   * Resolves once the transactional id's state records are applied and on disk: NONE, the error of an
   * add applied late (addOnceCompleted), or COORDINATOR_NOT_AVAILABLE when a flush failed. A produce
   * awaits it before appending the transaction's data.
   */
  async awaitStateDurable(transactionalId: string): Promise<number> {
    const txn = this.txnManager.get(transactionalId);
    if (!txn || (!txn.deferredAdd && !txn.unflushedState)) return E.NONE;
    try {
      // The last deferred add first (it follows the earlier ones and its own flush): once the first of them
      // is applied, unflushedState is that one's flush alone, and a batch for a partition added by a later
      // one would be verified before its add (INVALID_TXN_STATE). Then the flush of whatever was applied.
      if (txn.deferredAdd) await txn.deferredAdd;
      if (txn.unflushedState) await txn.unflushedState;
      return E.NONE;
    } catch (err) {
      return err instanceof KafkaError ? err.code : E.COORDINATOR_NOT_AVAILABLE;
    }
  }

  /**
   * AddPartitionsToTxn v4+ with verifyOnly (KIP-890 part 1): which partitions are in the transaction.
   * Returns one error for all, or per partition NONE / TRANSACTION_ABORTABLE (KIP-1050; older requests map it to
   * INVALID_TXN_STATE, as Kafka's AddPartitionsToTxnManager does). An add being written (AddOffsetsToTxn,
   * other partitions) does not fail it: Kafka's handleVerifyPartitionsInTransaction checks the partitions applied
   * so far, not the pending state. A pending end of the transaction or epoch bump does (CONCURRENT_TRANSACTIONS):
   * its markers may be written before a batch verified now is appended, where Kafka's VerificationGuard refuses it.
   */
  verifyPartitions(transactionalId: string, producerId: number, producerEpoch: number, partitions: TxnPartitions): number | Map<string, Map<number, number>> {
    if (transactionalId === '') return E.INVALID_REQUEST;
    if (!this.active) return E.COORDINATOR_NOT_AVAILABLE;
    const txn = this.txnManager.get(transactionalId);
    if (!txn) return E.INVALID_PRODUCER_ID_MAPPING;
    const identity = this.checkProducerIdentity(txn, producerId, producerEpoch);
    if (identity !== E.NONE) return identity;
    const ending = txn.pendingState !== null && txn.pendingState !== S.Ongoing;
    if (ending || txn.state === S.PrepareCommit || txn.state === S.PrepareAbort) return E.CONCURRENT_TRANSACTIONS;
    const ongoing = txn.state === S.Ongoing;
    const result = new Map<string, Map<number, number>>();
    for (const [topic, ids] of partitions) {
      result.set(topic, new Map([...ids].map((id) => [id, ongoing && txn.hasPartition(topic, id) ? E.NONE : E.TRANSACTION_ABORTABLE])));
    }
    return result;
  }

  // ---- EndTxn ----

  /** EndTxn from a client; `clientTransactionVersion` 2 for EndTxn v5+ (KIP-890 part 2: an epoch bump per transaction). */
  handleEndTransaction(
    transactionalId: string, producerId: number, producerEpoch: number, commit: boolean, clientTransactionVersion: number,
  ): Promise<EndTxnResult> {
    if (transactionalId === '') return Promise.resolve(initError(E.INVALID_REQUEST));
    if (!this.active) return Promise.resolve(initError(E.COORDINATOR_NOT_AVAILABLE));
    const txn = this.txnManager.get(transactionalId);
    if (!txn) return Promise.resolve(initError(E.INVALID_PRODUCER_ID_MAPPING));
    // A retry of an EndTxn answered meanwhile finds it complete (Kafka answers CONCURRENT_TRANSACTIONS and the client retries).
    if (txn.completion || txn.deferredAdd) return this.completionOf(txn).then(() => this.handleEndTransaction(transactionalId, producerId, producerEpoch, commit, clientTransactionVersion));
    return this.endTransaction(txn, producerId, producerEpoch, commit, true, clientTransactionVersion);
  }

  /**
   * Fences the producer of an Ongoing transaction (an epoch bump) and aborts the transaction: a new
   * producer's InitProducerId, or transaction.timeout.ms. The abort keeps the transaction's client
   * transaction version (in its TransactionLogValue, and for its markers). Kafka's coordinator passes its
   * finalized transaction.version level here (TransactionCoordinator.abortTimedOutTransactions), the same 2
   * for a version 2 transaction; a version 0/1 transaction is not moved to version 2's rules at its end.
   */
  private fenceAndAbort(txn: TransactionMetadata): Promise<EndTxnResult> {
    txn.fenceProducerEpoch();
    return this.endTransaction(txn, txn.producerId, txn.producerEpoch, false, false, txn.clientTransactionVersion);
  }

  private async endTransaction(
    txn: TransactionMetadata, producerId: number, producerEpoch: number, commit: boolean, isFromClient: boolean, clientTransactionVersion: number,
  ): Promise<EndTxnResult> {
    const current = (): EndTxnResult => ({ errorCode: E.NONE, producerId: txn.producerId, producerEpoch: txn.producerEpoch });
    const fail = (errorCode: number): EndTxnResult => ({ ...current(), errorCode });
    const invalidTransition = (): EndTxnResult => {
      this.log?.debug({ transactionalId: txn.transactionalId, state: stateName(txn.state), commit }, 'EndTxn in a state that does not allow it');
      return fail(E.INVALID_TXN_STATE);
    };
    const tv2 = clientTransactionVersion >= 2;
    // Under transaction version 2 EndTxn bumps the epoch (KIP-890 part 2). The coordinator's own abort
    // (fenceAndAbort) was bumped by its fence: one bump in all, as in Kafka's endTransaction since KAFKA-19367.
    const bumpsEpoch = tv2 && isFromClient;
    // Under transaction version 2 a retried EndTxn names the epoch before its bump (or before an id rotation).
    const retryOnEpochBump = tv2 && txn.producerEpoch === producerEpoch + 1 && txn.producerId === producerId;
    const retryOnOverflow = tv2 && txn.previousProducerId === producerId && producerEpoch === 32766 && txn.producerEpoch === 0;
    const isRetry = retryOnEpochBump || retryOnOverflow;
    if (txn.producerId !== producerId && !retryOnOverflow) return fail(E.INVALID_PRODUCER_ID_MAPPING);
    if (!isRetry && ((isFromClient && producerEpoch !== txn.producerEpoch) || producerEpoch < txn.producerEpoch)) return fail(E.PRODUCER_FENCED);
    if (txn.pendingTransitionInProgress) return fail(E.CONCURRENT_TRANSACTIONS);
    const nextState = commit ? S.PrepareCommit : S.PrepareAbort;
    let noPartitionAdded = false;
    switch (txn.state) {
      case S.Ongoing:
        if (isRetry) return fail(E.PRODUCER_FENCED);
        break;
      case S.CompleteCommit:
        if (commit) return isRetry || !tv2 ? current() : invalidTransition();
        if (!tv2 || isRetry) return invalidTransition();
        noPartitionAdded = true;
        break;
      case S.CompleteAbort:
        if (!commit) {
          if (isRetry || !tv2) return current();
          noPartitionAdded = true;
          break;
        }
        return invalidTransition();
      case S.PrepareCommit:
      case S.PrepareAbort:
        return (txn.state === nextState) ? fail(E.CONCURRENT_TRANSACTIONS) : invalidTransition();
      case S.Empty:
        // Transaction version 2 lets a producer abort with nothing added (it bumps the epoch).
        if (commit || !tv2) return invalidTransition();
        noPartitionAdded = true;
        break;
      default:
        return invalidTransition();
    }
    const needsRotation = bumpsEpoch && txn.isProducerEpochExhausted;
    let transit: TxnTransitMetadata;
    try {
      transit = txn.prepareAbortOrCommit(
        nextState, clientTransactionVersion, bumpsEpoch, needsRotation ? this.producerIds.nextId() : NO_PRODUCER_ID, Date.now(), noPartitionAdded,
      );
    } catch (err) {
      if (err instanceof IllegalTransactionStateError) return invalidTransition();
      throw err;
    }
    try {
      await this.txnManager.appendTransaction(txn, transit, 'flushed');
    } catch {
      return fail(E.COORDINATOR_NOT_AVAILABLE);
    }
    // Kafka's order: the decision (Prepare*) is durable before any marker is written, and the answer
    // needs no more; the markers follow, then Complete* once they are durable. A Prepare* found at
    // start-up gets its markers again. Written in one flush round with the markers, the decision could
    // be lost in a crash while some markers were not: those partitions committed, the others aborted at the timeout.
    // Under transaction version 2 the answer carries the producer id and epoch Complete* will leave.
    const rotates = txn.clientTransactionVersion >= 2 && txn.nextProducerId !== NO_PRODUCER_ID;
    const answer: EndTxnResult = rotates ? { errorCode: E.NONE, producerId: txn.nextProducerId, producerEpoch: 0 } : current();
    const completion = this.completeTransaction(txn, commit).finally(() => {
      if (txn.completion === completion) txn.completion = null;
      this.completions.delete(completion);
    });
    txn.completion = completion;
    this.completions.add(completion);
    return answer;
  }

  /**
   * Resolves once the transaction's markers and Complete* are written (or their writing failed, leaving
   * it prepared), and the adds deferred meanwhile are applied. Requests for a transactional id wait for
   * it: in Kafka they would get CONCURRENT_TRANSACTIONS and retry after a backoff (kafkajs's is 100 ms or more).
   */
  private async completionOf(txn: TransactionMetadata | undefined): Promise<void> {
    while (txn?.completion || txn?.deferredAdd) await (txn.completion ?? txn.deferredAdd!.catch(() => {}));
  }

  /**
   * Phase two: the markers (with the epoch of the Prepare* record), then Complete*. A failure leaves the
   * transaction prepared; the next start-up (or the next EndTxn's CONCURRENT_TRANSACTIONS retry loop) completes it.
   */
  private async completeTransaction(txn: TransactionMetadata, commit: boolean): Promise<void> {
    try {
      const marker: TxnMarker = {
        producerId: txn.producerId, producerEpoch: txn.producerEpoch, coordinatorEpoch: COORDINATOR_EPOCH, commit, transactionVersion: txn.clientTransactionVersion,
      };
      await this.markers.writeMarkers(marker, txn.partitions);
      // Complete* need not be on disk before the answer, nor flushed on its own: lost, the transaction
      // is still prepared at the next start and its markers are written again (they are on disk by now).
      // Its own flush would only delay the next transaction's add, queued behind it.
      await this.txnManager.appendTransaction(txn, txn.prepareComplete(Date.now()), 'unflushed');
    } catch (err) {
      this.log?.error({ err, transactionalId: txn.transactionalId }, 'failed to complete transaction; it stays prepared');
      this.retryCompletion(txn, commit);
      return;
    }
    this.metrics?.transactionCompleted(commit);
  }

  private retryCompletion(txn: TransactionMetadata, commit: boolean): void {
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer);
      if (this.active && !txn.pendingTransitionInProgress && (txn.state === S.PrepareCommit || txn.state === S.PrepareAbort)) {
        void this.completeTransaction(txn, commit);
      }
    }, 1000);
    timer.unref();
    this.timers.push(timer);
  }

  // ---- housekeeping ----

  /** transaction.timeout.ms passed: fence the producer (epoch bump) and abort (Kafka's abortTimedOutTransactions). */
  async abortTimedOutTransactions(now: number): Promise<void> {
    for (const txn of [...this.txnManager.all()]) {
      if (txn.state !== S.Ongoing || txn.pendingTransitionInProgress || txn.txnStartTimestamp + txn.txnTimeoutMs >= now) continue;
      this.log?.info({ transactionalId: txn.transactionalId, producerId: txn.producerId, timeoutMs: txn.txnTimeoutMs }, 'aborting timed out transaction');
      const result = await this.fenceAndAbort(txn);
      if (result.errorCode === E.NONE) this.metrics?.transactionTimedOut();
      else this.log?.warn({ transactionalId: txn.transactionalId, errorCode: result.errorCode }, 'abort of timed out transaction failed');
    }
  }

  /** transactional.id.expiration.ms since the last update of a finished transaction: the id is removed. */
  async removeExpiredTransactionalIds(now: number): Promise<void> {
    for (const txn of [...this.txnManager.all()]) {
      if (!isExpirable(txn.state) || txn.pendingTransitionInProgress) continue;
      if (txn.txnLastUpdateTimestamp + this.config.transactionalIdExpirationMs > now) continue;
      await this.txnManager.removeTransactionalId(txn);
      this.log?.info({ transactionalId: txn.transactionalId }, 'transactional id expired');
    }
  }
}

