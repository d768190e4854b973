// Open transactions as the admin HTTP shows them (kafka-transactions.sh list/describe in one view): the
// ones in Ongoing, PrepareCommit or PrepareAbort, oldest first, with how long they have been open.
import type { Broker } from '../broker.js';
import { stateName, TransactionState } from '../coordinator/transaction/transaction-state.js';

export interface TransactionView {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  state: string;
  timeoutMs: number;
  startTimeMs: number;
  durationMs: number;
  partitions: Array<{ topic: string; partition: number }>;
}

const OPEN_STATES: ReadonlySet<TransactionState> = new Set([TransactionState.Ongoing, TransactionState.PrepareCommit, TransactionState.PrepareAbort]);

export function ongoingTransactions(broker: Broker, now = Date.now()): TransactionView[] {
  const views: TransactionView[] = [];
  for (const txn of broker.transactionCoordinator.transactions()) {
    if (!OPEN_STATES.has(txn.state)) continue;
    views.push({
      transactionalId: txn.transactionalId,
      producerId: txn.producerId,
      producerEpoch: txn.producerEpoch,
      state: stateName(txn.state),
      timeoutMs: txn.txnTimeoutMs,
      startTimeMs: txn.txnStartTimestamp,
      durationMs: now - txn.txnStartTimestamp,
      partitions: [...txn.partitions].flatMap(([topic, ids]) => [...ids].sort((a, b) => a - b).map((partition) => ({ topic, partition }))),
    });
  }
  return views.sort((a, b) => a.startTimeMs - b.startTimeMs || a.transactionalId.localeCompare(b.transactionalId));
}
