// What the log cleaner knows about transactions while it walks a log in offset order (Kafka's
// CleanedTransactionMetadata): which batches belong to aborted transactions (their records go), and
// whether a marker may go (an ABORT marker stays while batches of its transaction remain; a COMMIT
// marker stays while batches of its transaction were seen in this pass).
import type { AbortedTxn } from './transaction-index.js';

export class CleanedTransactionMetadata {
  /** Aborted transactions not reached yet, by first offset. */
  private readonly pending: AbortedTxn[];
  private readonly ongoingCommittedTxns = new Set<number>();
  /** Aborted transactions reached, by producer id, with the last offset of a batch of theirs seen in this pass. */
  private readonly ongoingAbortedTxns = new Map<number, { txn: AbortedTxn; lastObservedBatchOffset: number | null }>();
  /** Aborted transactions whose marker is kept: they go into the cleaned segment's .txnindex. */
  readonly retainedAbortedTxns: AbortedTxn[] = [];

  constructor(abortedTxns: readonly AbortedTxn[]) {
    this.pending = [...abortedTxns].sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** A data batch; true when it belongs to an aborted transaction (its records can all be dropped). */
  onBatchRead(batch: { producerId: number; lastOffset: number; isTransactional: boolean }): boolean {
    this.consumeAbortedTxnsUpTo(batch.lastOffset);
    if (!batch.isTransactional) return false;
    const aborted = this.ongoingAbortedTxns.get(batch.producerId);
    if (aborted !== undefined) {
      aborted.lastObservedBatchOffset = batch.lastOffset;
      return true;
    }
    this.ongoingCommittedTxns.add(batch.producerId);
    return false;
  }

  /**
   * A control batch with its control type (null: no record left, i.e. emptied by an earlier pass);
   * true when the marker can be dropped (once its delete horizon has passed).
   */
  onControlBatchRead(batch: { producerId: number; lastOffset: number }, controlType: 'ABORT' | 'COMMIT' | 'OTHER' | null): boolean {
    this.consumeAbortedTxnsUpTo(batch.lastOffset);
    if (controlType === null) return true;
    if (controlType === 'ABORT') {
      const aborted = this.ongoingAbortedTxns.get(batch.producerId);
      this.ongoingAbortedTxns.delete(batch.producerId);
      if (aborted !== undefined && aborted.lastObservedBatchOffset !== null) {
        this.retainedAbortedTxns.push(aborted.txn);
        return false;
      }
      return true;
    }
    if (controlType === 'COMMIT') return !this.ongoingCommittedTxns.delete(batch.producerId);
    return false;
  }

  private consumeAbortedTxnsUpTo(offset: number): void {
    while (this.pending.length > 0 && this.pending[0].firstOffset <= offset) {
      const txn = this.pending.shift()!;
      if (!this.ongoingAbortedTxns.has(txn.producerId)) this.ongoingAbortedTxns.set(txn.producerId, { txn, lastObservedBatchOffset: null });
    }
  }
}
