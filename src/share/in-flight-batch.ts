// A run of in-flight offsets of a share partition (Kafka's InFlightBatch and InFlightState): one state for the
// whole run, so a batch of a million records costs one object, until an acknowledgement or a release covers
// only part of it; then it keeps one state per offset (Kafka's offsetState), and only for that batch.

/** Kafka's RecordState (server.share.fetch.RecordState): the ids are the persisted ones, ACQUIRED is never stored. */
export const enum RecordState {
  Available = 0,
  Acquired = 1,
  Acknowledged = 2,
  /** On its way to the share group's dead-letter queue (KIP-1191): archived once written there. */
  Archiving = 3,
  Archived = 4,
}

/** Why a record goes to the dead-letter queue: Kafka's ShareGroupDLQManager.CLIENT_REJECT / DELIVERY_COUNT_EXCEEDED. */
export const enum DlqCause {
  ClientReject = 'Offset rejected by client.',
  DeliveryCountExceeded = 'Offset delivery count exceeded the threshold.',
}

/** The state of one offset, or of a whole batch that is not split. */
export interface InFlightState {
  state: RecordState;
  deliveryCount: number;
  /** The member holding the acquisition lock, while Acquired. */
  memberId: string | null;
  /** Date.now() at which the acquisition lock expires, while Acquired. */
  lockExpiresAt: number;
  /**
   * Set while the change to this state waits for its write (Kafka's InFlightState rollbackState): what it was
   * before, restored if the write fails. Such a record is neither acquired nor acknowledged meanwhile.
   */
  rollback?: StateRollback;
  /** Set while Archiving and not yet handed to the dead-letter queue: why it goes there. */
  dlqCause?: DlqCause;
}

/** The state before a change, and the write (a PendingWrite) the change settles with. */
interface StateRollback {
  readonly write: object;
  readonly state: RecordState;
  readonly deliveryCount: number;
  readonly memberId: string | null;
  readonly lockExpiresAt: number;
}

export function isTerminal(state: RecordState): boolean {
  return state === RecordState.Acknowledged || state === RecordState.Archived;
}

/** Acknowledged or archived, and durably so: the start offset moves past such records only. */
export function isSettledTerminal(st: InFlightState): boolean {
  return isTerminal(st.state) && st.rollback === undefined;
}

/** Available to acquire: a release still waiting for its write is not yet (Kafka's acquire skips ongoing transitions). */
export function isAvailable(st: InFlightState): boolean {
  return st.state === RecordState.Available && st.rollback === undefined;
}

export class InFlightBatch {
  /** The batch's state while it is not split. */
  readonly whole: InFlightState;
  /** Per-offset states, index offset - firstOffset, once split. */
  offsets: InFlightState[] | null = null;

  constructor(
    readonly firstOffset: number,
    public lastOffset: number,
    state: InFlightState,
  ) {
    this.whole = state;
  }

  get count(): number {
    return this.lastOffset - this.firstOffset + 1;
  }

  /** Splits into one state per offset (Kafka's maybeInitializeOffsetStateUpdate). */
  split(): InFlightState[] {
    if (!this.offsets) {
      this.offsets = new Array(this.count);
      for (let i = 0; i < this.count; i++) this.offsets[i] = { ...this.whole };
    }
    return this.offsets;
  }

  /** The state of one offset of the batch. */
  at(offset: number): InFlightState {
    return this.offsets ? this.offsets[offset - this.firstOffset]! : this.whole;
  }

  /** Calls fn for each run of offsets in [from, to] sharing one state object (the whole batch, or each offset). */
  forEachState(from: number, to: number, fn: (state: InFlightState, first: number, last: number) => void): void {
    const lo = Math.max(from, this.firstOffset);
    const hi = Math.min(to, this.lastOffset);
    if (lo > hi) return;
    if (!this.offsets) {
      fn(this.whole, lo, hi);
      return;
    }
    for (let o = lo; o <= hi; o++) fn(this.offsets[o - this.firstOffset]!, o, o);
  }

  /** The first offset at or after `from` whose state is not `complete`, or undefined. */
  firstIncompleteFrom(from: number, complete: (st: InFlightState) => boolean): number | undefined {
    if (!this.offsets) return complete(this.whole) ? undefined : Math.max(from, this.firstOffset);
    for (let o = Math.max(from, this.firstOffset); o <= this.lastOffset; o++) if (!complete(this.offsets[o - this.firstOffset]!)) return o;
    return undefined;
  }
}
