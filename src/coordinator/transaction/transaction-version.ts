// The transaction.version feature (Kafka's TransactionVersion): 0 the original protocol, 1 flexible
// __transaction_state values, 2 KIP-890 part 2 (an epoch bump per transaction, implicit adds).

/**
 * The level kafkite finalizes: what every client path it enables works end to end. Level 2: Produce v12 and
 * TxnOffsetCommit v5 add implicitly, EndTxn v5 bumps the epoch (tested over the wire in transactions-protocol.test.ts).
 */
export const FINALIZED_TRANSACTION_VERSION = 2;

/** TransactionLogValue version Kafka writes at a finalized level (TransactionVersion.transactionLogValueVersion). */
export function transactionLogValueVersion(level: number): number {
  return level >= 1 ? 1 : 0;
}
