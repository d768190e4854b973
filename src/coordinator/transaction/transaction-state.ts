// Kafka's TransactionState: the ids stored in TransactionLogValue.TransactionStatus, the names
// DescribeTransactions/ListTransactions report, and which state each may be entered from.

export enum TransactionState {
  Empty = 0,
  Ongoing = 1,
  PrepareCommit = 2,
  PrepareAbort = 3,
  CompleteCommit = 4,
  CompleteAbort = 5,
  Dead = 6,
  PrepareEpochFence = 7,
}

const TRANSACTION_STATE_NAMES: ReadonlyMap<TransactionState, string> = new Map([
  [TransactionState.Empty, 'Empty'],
  [TransactionState.Ongoing, 'Ongoing'],
  [TransactionState.PrepareCommit, 'PrepareCommit'],
  [TransactionState.PrepareAbort, 'PrepareAbort'],
  [TransactionState.CompleteCommit, 'CompleteCommit'],
  [TransactionState.CompleteAbort, 'CompleteAbort'],
  [TransactionState.Dead, 'Dead'],
  [TransactionState.PrepareEpochFence, 'PrepareEpochFence'],
]);

export function stateName(state: TransactionState): string {
  return TRANSACTION_STATE_NAMES.get(state)!;
}

/** The state named `name` (ListTransactions' state filters), or undefined. */
export function stateOfName(name: string): TransactionState | undefined {
  for (const [state, n] of TRANSACTION_STATE_NAMES) if (n === name) return state;
  return undefined;
}

const S = TransactionState;

/** Kafka's TransactionState.validPreviousStates (PrepareAbort from Empty/Complete* is transaction version 2's abort of an idle producer). */
const states = (...s: TransactionState[]): ReadonlySet<TransactionState> => new Set(s);

const VALID_PREVIOUS_STATES = new Map<TransactionState, ReadonlySet<TransactionState>>([
  [S.Empty, states(S.Empty, S.CompleteCommit, S.CompleteAbort)],
  [S.Ongoing, states(S.Ongoing, S.Empty, S.CompleteCommit, S.CompleteAbort)],
  [S.PrepareCommit, states(S.Ongoing)],
  [S.PrepareAbort, states(S.Ongoing, S.PrepareEpochFence, S.Empty, S.CompleteCommit, S.CompleteAbort)],
  [S.CompleteCommit, states(S.PrepareCommit)],
  [S.CompleteAbort, states(S.PrepareAbort)],
  [S.Dead, states(S.Empty, S.CompleteAbort, S.CompleteCommit)],
  [S.PrepareEpochFence, states(S.Ongoing)],
]);

export function isValidTransition(from: TransactionState, to: TransactionState): boolean {
  return VALID_PREVIOUS_STATES.get(to)!.has(from);
}

/** States in which the transaction has finished (or never started): the transactional id may expire. */
export function isExpirable(state: TransactionState): boolean {
  return state === S.Empty || state === S.CompleteCommit || state === S.CompleteAbort;
}
