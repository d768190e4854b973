// One share partition of one share group (Kafka's kafka.server.share.SharePartition): the start and end offsets
// (SPSO, SPEO) and the in-flight records between them, kept as runs (InFlightBatch). Records are acquired by a
// member under a lock that expires, acknowledged (ACCEPT, RELEASE, REJECT, RENEW as 4.4's AcknowledgeType) or
// released, and archived past the delivery count limit. What Kafka persists goes through the Persister, when
// Kafka writes it: acknowledgements, releases and lock timeouts, not acquisitions. An acknowledgement or release
// is applied as a change that waits for its write (Kafka's startStateTransition): answered once durable, and
// rolled back if the write fails (rollbackOrProcessStateUpdates).
import { ErrorCode } from '../errors.js';
import {
  PersistedDeliveryState, PersisterError, persisterErrorCode, type Persister, type PersisterStateBatch, type SharePartitionKey,
} from './persister.js';
import { DlqCause, InFlightBatch, isAvailable, isSettledTerminal, isTerminal, RecordState, type InFlightState } from './in-flight-batch.js';
import { StateWriteQueue, type PendingWrite } from './state-write-queue.js';

/** Kafka's AcknowledgeType ids, with 0 for a gap (offsets the client did not get: compacted, markers). */
const enum AcknowledgeType {
  Gap = 0,
  Accept = 1,
  Release = 2,
  Reject = 3,
  Renew = 4,
}

export interface AcknowledgementBatch {
  firstOffset: number;
  lastOffset: number;
  /** One type for the whole range, or one per offset. */
  acknowledgeTypes: number[];
}

export interface AcquiredRecords {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

/** What the partition needs of its log at initialization. */
export interface ShareLogView {
  readonly logStartOffset: number;
  readonly highWatermark: number;
  /**
   * The partition's leader epoch, which the state is read and written with (Kafka's SharePartition.leaderEpoch): the
   * share coordinator fences an epoch older than one it has seen, as after a Kafka node wrote the state. 0 if omitted.
   */
  readonly leaderEpoch?: number;
  /** The first offset with a timestamp >= ts, or undefined when there is none. */
  offsetForTimestamp(ts: number): number | undefined;
}

/** The group's settings, read at each use (group configs may change). */
export interface SharePartitionConfig {
  lockDurationMs(): number;
  deliveryCountLimit(): number;
  maxInFlightRecords(): number;
  /** share.auto.offset.reset: latest, earliest or by_duration:<ISO-8601 duration>. */
  autoOffsetReset(): string;
  /** share.renew.acknowledge.enable (KIP-1222); true when not given. */
  renewAcknowledgeEnabled?(): boolean;
  /** The group's dead-letter queue (KIP-1191); none: rejected and exhausted records are archived at once. */
  deadLetterQueue?: DeadLetterQueue;
}

/** Offsets of the partition with one delivery count and one cause, to be written to the dead-letter queue. */
export interface DeadLetterBatch {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
  cause: DlqCause;
}

interface DeadLetterQueue {
  /** share.version 2 and errors.deadletterqueue.topic.name set (Kafka's SharePartition.isDLQEnabledForGroup). */
  enabled(): boolean;
  /** Writes the batch's records there; a failure is only logged, the records are archived either way. */
  write(batch: DeadLetterBatch): Promise<void>;
}

/** Records written in the Archiving state, to hand to the dead-letter queue once that write is durable. */
interface DeadLetterRun extends DeadLetterBatch {
  states: InFlightState[];
}

/** A log batch's offsets, as fetched. */
export interface FetchedBatch {
  baseOffset: number;
  lastOffset: number;
}

export class SharePartition {
  /** Sorted by first offset, not overlapping, all within [startOffset, endOffset]. */
  private batches: InFlightBatch[] = [];
  private stateEpoch = 0;
  private leaderEpoch = 0;
  private startOffset_ = 0;
  private endOffset_ = -1;
  private initializing: Promise<void> | null = null;
  /** Records whose acquisition lock expired, for Kafka's SharePartitionMetrics AcquisitionLockTimeoutPerSec. */
  acquisitionLockTimeouts = 0;
  /** Set when a write was refused as fenced (the state was re-initialized elsewhere): the manager loads it anew. */
  fenced = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Whether some record may wait to be handed to the dead-letter queue: spares the writes a scan when none does. */
  private deadLettersPending = false;
  /** Set by close(): a dead-letter write finishing later leaves its records ARCHIVING for the next load to send again. */
  private closed = false;
  private readonly writes = new StateWriteQueue((write) => this.flush(write));

  constructor(
    readonly key: SharePartitionKey,
    private readonly persister: Persister,
    private readonly config: SharePartitionConfig,
    /** Called when records become available again (release, lock expiry), to wake waiting share fetches. */
    private readonly onAvailable: () => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  get startOffset(): number {
    return this.startOffset_;
  }

  /** The last offset in flight, startOffset - 1 when none. */
  get endOffset(): number {
    return Math.max(this.endOffset_, this.startOffset_ - 1);
  }

  /** In-flight runs, for tests and the console: how many objects the state costs. */
  get inFlightBatchCount(): number {
    return this.batches.length;
  }

  /**
   * Reads the persisted state once (Kafka's maybeInitialize). A start offset of -1 is resolved by
   * share.auto.offset.reset and written back, so a restart does not move it.
   */
  initialize(log: ShareLogView): Promise<void> {
    this.initializing ??= this.load(log).catch((err) => {
      this.initializing = null;
      throw err;
    });
    return this.initializing;
  }

  private async load(log: ShareLogView): Promise<void> {
    this.leaderEpoch = log.leaderEpoch ?? 0;
    const state = await this.persister.readState(this.key, this.leaderEpoch);
    // The group coordinator initializes the state before it assigns the partition to a member: until then a
    // share fetch gets nothing from it (Kafka 4.4 leaves such a partition out of the response).
    if (!state) throw new PersisterError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'share-partition state not initialized');
    this.stateEpoch = state.stateEpoch;
    const start = state.startOffset >= 0 ? state.startOffset : this.resetOffset(log);
    this.startOffset_ = start;
    this.endOffset_ = start - 1;
    const stored = state.stateBatches.filter((b) => b.lastOffset >= start).sort((a, b) => a.firstOffset - b.firstOffset);
    const limit = this.config.deliveryCountLimit();
    for (const b of stored) {
      const first = Math.max(b.firstOffset, start);
      // Offsets between stored runs were fetched but never written: available, never delivered as far as we know.
      if (first > this.endOffset_ + 1) this.batches.push(new InFlightBatch(this.endOffset_ + 1, first - 1, available(0)));
      const st: InFlightState = { state: recordStateOf(b.deliveryState), deliveryCount: b.deliveryCount, memberId: null, lockExpiresAt: 0 };
      // Stored as ARCHIVING: the broker stopped before the dead-letter write was known done, so it is made again, the
      // cause told by the delivery count (Kafka's maybeResumeDlqArchiving).
      if (st.state === RecordState.Archiving) {
        st.dlqCause = b.deliveryCount >= limit ? DlqCause.DeliveryCountExceeded : DlqCause.ClientReject;
        this.deadLettersPending = true;
      }
      this.batches.push(new InFlightBatch(first, b.lastOffset, st));
      this.endOffset_ = b.lastOffset;
    }
    this.advanceStartOffset();
    if (state.startOffset < 0) await this.write();
    this.deadLetter(this.deadLetterRuns());
  }

  private resetOffset(log: ShareLogView): number {
    const reset = this.config.autoOffsetReset().toLowerCase();
    if (reset === 'earliest') return log.logStartOffset;
    if (reset.startsWith('by_duration:')) {
      const ms = isoDurationMs(reset.slice('by_duration:'.length));
      const offset = ms === undefined ? undefined : log.offsetForTimestamp(this.now() - ms);
      return offset ?? log.highWatermark;
    }
    return log.highWatermark;
  }

  /**
   * The first offset to read from the log: the first available in-flight offset, else the one after the
   * end (Kafka's nextFetchOffset). Undefined when nothing can be acquired: none available and the in-flight
   * records at group.share.partition.max.record.locks (Kafka's canAcquireRecords).
   */
  nextFetchOffset(): number | undefined {
    for (const b of this.batches) {
      if (!b.offsets) {
        if (isAvailable(b.whole)) return Math.max(b.firstOffset, this.startOffset_);
        continue;
      }
      for (let o = Math.max(b.firstOffset, this.startOffset_); o <= b.lastOffset; o++) {
        if (isAvailable(b.offsets[o - b.firstOffset]!)) return o;
      }
    }
    return this.inFlightCount() < this.config.maxInFlightRecords() ? this.endOffset + 1 : undefined;
  }

  private inFlightCount(): number {
    return this.endOffset - this.startOffset_ + 1;
  }

  /**
   * Acquires for `memberId` the available records of the fetched batches (Kafka's SharePartition.acquire):
   * in-flight runs that are available, then new records past the end, whole log batches at a time (the
   * limit may be passed to end on a batch boundary) unless `recordLimit` (ShareAcquireMode record_limit).
   * New records form runs of about `batchSize` records, cut on log batch boundaries.
   *
   * Nothing is written: as in Kafka, the new delivery count reaches the Persister with the next write of the
   * partition (an acknowledgement, a release, a lock timeout). A broker that stops before then comes back with
   * these records available at the count last written, so that delivery is not counted and a record can be
   * delivered once more than group.share.delivery.count.limit after a crash (KIP-932 "In-flight records": the
   * delivery count is persisted with the state, not at each acquisition).
   */
  acquire(memberId: string, fetched: readonly FetchedBatch[], maxRecords: number, batchSize: number, recordLimit: boolean): AcquiredRecords[] {
    const result: AcquiredRecords[] = [];
    const expiresAt = this.now() + this.config.lockDurationMs();
    const limit = this.config.deliveryCountLimit();
    let remaining = maxRecords;
    const take = (st: InFlightState, first: number, last: number): void => {
      st.state = RecordState.Acquired;
      st.deliveryCount++;
      st.memberId = memberId;
      st.lockExpiresAt = expiresAt;
      remaining -= last - first + 1;
      pushRange(result, first, last, st.deliveryCount);
    };
    let pending: InFlightBatch | null = null;
    for (const fb of fetched) {
      if (remaining <= 0) break;
      const lo = Math.max(fb.baseOffset, this.startOffset_);
      if (fb.lastOffset < lo) continue;
      const existingHi = Math.min(fb.lastOffset, this.endOffset);
      for (let i = this.indexAtOrAfter(lo); i < this.batches.length && remaining > 0; i++) {
        const b = this.batches[i]!;
        if (b.firstOffset > existingHi) break;
        const from = Math.max(lo, b.firstOffset);
        const to = Math.min(existingHi, b.lastOffset);
        if (!b.offsets && isAvailable(b.whole) && from === b.firstOffset && to === b.lastOffset && (!recordLimit || b.count <= remaining)) {
          if (b.whole.deliveryCount < limit) take(b.whole, from, to);
          continue;
        }
        if (!b.offsets && !isAvailable(b.whole)) continue;
        const states = b.split();
        for (let o = from; o <= to && remaining > 0; o++) {
          const st = states[o - b.firstOffset]!;
          if (isAvailable(st) && st.deliveryCount < limit) take(st, o, o);
        }
      }
      if (fb.lastOffset <= this.endOffset || remaining <= 0) continue;
      // New records, within group.share.partition.max.record.locks.
      const room = this.config.maxInFlightRecords() - this.inFlightCount();
      if (room <= 0) break;
      const first = Math.max(lo, this.endOffset + 1);
      let last = fb.lastOffset;
      if (recordLimit) last = Math.min(last, first + Math.min(remaining, room) - 1);
      if (pending && pending.lastOffset === first - 1 && pending.count < batchSize) {
        pending.lastOffset = last;
      } else {
        pending = new InFlightBatch(first, last, { state: RecordState.Acquired, deliveryCount: 1, memberId, lockExpiresAt: expiresAt });
        this.batches.push(pending);
      }
      this.endOffset_ = last;
      remaining -= last - first + 1;
      pushRange(result, first, last, 1);
    }
    if (result.length > 0) this.scheduleLockExpiry(expiresAt);
    return result;
  }

  /** Index of the first batch whose last offset is >= offset. */
  private indexAtOrAfter(offset: number): number {
    let lo = 0;
    let hi = this.batches.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.batches[mid]!.lastOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private scheduleLockExpiry(at: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.expireLocks().catch(() => {});
    }, Math.max(0, at - this.now()) + 1);
    timer.unref();
    this.timers.add(timer);
  }

  /**
   * Releases every record whose lock has expired (Kafka's AcquisitionLockTimerTask), and writes it. As in Kafka's
   * releaseAcquisitionLockOnTimeout the release stands even if the write fails: the records were not acknowledged.
   */
  async expireLocks(): Promise<void> {
    const now = this.now();
    const released = this.releaseWhere((st) => st.lockExpiresAt <= now, false, null);
    this.acquisitionLockTimeouts += released;
    if (released > 0) await this.writes.next().done;
  }

  /**
   * Archives acquired records the client must not see (aborted transactional batches under read_committed,
   * Kafka's filterAbortedTransactionalAcquiredRecords); they are not written until the next change.
   */
  archiveAcquired(first: number, last: number): void {
    for (let i = this.indexAtOrAfter(first); i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (b.firstOffset > last) break;
      if (b.offsets || first > b.firstOffset || last < b.lastOffset) b.split();
      b.forEachState(first, last, (st) => {
        if (st.state !== RecordState.Acquired) return;
        st.state = RecordState.Archived;
        st.memberId = null;
      });
    }
    this.advanceStartOffset();
  }

  /**
   * Applies one member's acknowledgements (Kafka's SharePartition.acknowledge): all checked first, none
   * applied if any offset is not acquired by this member under a live lock (INVALID_RECORD_STATE); then
   * written through the Persister. Resolves to the partition's error code once the write is durable; if it
   * fails, the records are as they were before (still acquired by the member) and the code is Kafka's for the
   * failure. RENEW only extends locks, which Kafka does not write.
   */
  async acknowledge(memberId: string, acks: readonly AcknowledgementBatch[]): Promise<number> {
    const now = this.now();
    for (const ack of acks) {
      const check = this.checkAcknowledgement(memberId, ack, now);
      if (check !== ErrorCode.NONE) return check;
    }
    const limit = this.config.deliveryCountLimit();
    const write = acks.some((a) => a.acknowledgeTypes.some((t) => t !== AcknowledgeType.Renew)) ? this.writes.next() : null;
    let renewedUntil = 0;
    for (const ack of acks) {
      const single = ack.acknowledgeTypes.length === 1;
      for (let i = this.indexAtOrAfter(ack.firstOffset); i < this.batches.length; i++) {
        const b = this.batches[i]!;
        if (b.firstOffset > ack.lastOffset) break;
        if (!single || b.offsets || ack.firstOffset > b.firstOffset || ack.lastOffset < b.lastOffset) b.split();
        b.forEachState(ack.firstOffset, ack.lastOffset, (st, o) => {
          const type = ack.acknowledgeTypes[single ? 0 : o - ack.firstOffset]!;
          if (type === AcknowledgeType.Renew) {
            st.lockExpiresAt = now + this.config.lockDurationMs();
            renewedUntil = st.lockExpiresAt;
            return;
          }
          beginChange(st, write!);
          st.memberId = null;
          if (type === AcknowledgeType.Accept) st.state = RecordState.Acknowledged;
          else if (type === AcknowledgeType.Release) this.releaseState(st, limit);
          else this.archive(st, DlqCause.ClientReject);
        });
      }
    }
    if (renewedUntil > 0) this.scheduleLockExpiry(renewedUntil);
    return write ? write.done : ErrorCode.NONE;
  }

  private checkAcknowledgement(memberId: string, ack: AcknowledgementBatch, now: number): number {
    const n = ack.lastOffset - ack.firstOffset + 1;
    if (ack.firstOffset < 0 || n <= 0 || (ack.acknowledgeTypes.length !== 1 && ack.acknowledgeTypes.length !== n)) return ErrorCode.INVALID_REQUEST;
    if (ack.acknowledgeTypes.some((t) => t < AcknowledgeType.Gap || t > AcknowledgeType.Renew)) return ErrorCode.INVALID_REQUEST;
    // A group with share.renew.acknowledge.enable=false: RENEW is refused as INVALID_RECORD_STATE, as Kafka 4.4
    // answers it (ShareConsumerTest.testRenewAcknowledgementDisabled), and nothing of the request is applied.
    if (this.config.renewAcknowledgeEnabled?.() === false && ack.acknowledgeTypes.includes(AcknowledgeType.Renew)) return ErrorCode.INVALID_RECORD_STATE;
    if (ack.firstOffset < this.startOffset_ || ack.lastOffset > this.endOffset) return ErrorCode.INVALID_RECORD_STATE;
    let covered = 0;
    let bad = false;
    for (let i = this.indexAtOrAfter(ack.firstOffset); i < this.batches.length && !bad; i++) {
      const b = this.batches[i]!;
      if (b.firstOffset > ack.lastOffset) break;
      b.forEachState(ack.firstOffset, ack.lastOffset, (st, first, last) => {
        covered += last - first + 1;
        if (st.state !== RecordState.Acquired || st.memberId !== memberId || st.lockExpiresAt <= now) bad = true;
      });
    }
    // Offsets in no run are gaps of the log (compaction): only a GAP acknowledgement may name them.
    if (!bad && covered < n) bad = ack.acknowledgeTypes.some((t) => t !== AcknowledgeType.Gap);
    return bad ? ErrorCode.INVALID_RECORD_STATE : ErrorCode.NONE;
  }

  /**
   * Releases what `memberId` holds (a share session closed, its connection dropped, the member left). A
   * normal close gives back the delivery count of what was fetched but not delivered (KAFKA-17541). As
   * Kafka's releaseAcquiredRecords, a change that a failed write rolls back (the records stay acquired until
   * their locks expire); resolves to the write's error code.
   */
  async releaseMember(memberId: string, undoDeliveryCount: boolean): Promise<number> {
    const change: { write?: PendingWrite } = {};
    this.releaseWhere((st) => st.memberId === memberId, undoDeliveryCount, () => (change.write ??= this.writes.next()));
    return change.write ? change.write.done : ErrorCode.NONE;
  }

  /**
   * Moves matching acquired records back to available, or to archived past the delivery count limit; how many.
   * With `change`, as a change that settles with that write; else at once.
   */
  private releaseWhere(match: (st: InFlightState) => boolean, undoDeliveryCount: boolean, change: (() => PendingWrite) | null): number {
    const limit = this.config.deliveryCountLimit();
    let released = 0;
    for (const b of this.batches) {
      b.forEachState(b.firstOffset, b.lastOffset, (st, first, last) => {
        if (st.state !== RecordState.Acquired || !match(st)) return;
        if (change) beginChange(st, change());
        if (undoDeliveryCount && st.deliveryCount > 0) st.deliveryCount--;
        this.releaseState(st, limit);
        st.memberId = null;
        released += last - first + 1;
      });
    }
    // A release waiting for its write makes nothing available yet: settle() wakes the fetches then.
    if (released > 0 && !change) this.onAvailable();
    return released;
  }

  /** A released record: available again, or past the delivery count limit archived (Kafka's DELIVERY_COUNT_EXCEEDED). */
  private releaseState(st: InFlightState, limit: number): void {
    if (st.deliveryCount >= limit) this.archive(st, DlqCause.DeliveryCountExceeded);
    else st.state = RecordState.Available;
  }

  /**
   * A rejected or exhausted record: ARCHIVING while the group has a dead-letter queue (Kafka's recordStateWithDlq),
   * written to it once that state is durable; else ARCHIVED at once.
   */
  private archive(st: InFlightState, cause: DlqCause): void {
    if (this.config.deadLetterQueue?.enabled()) {
      st.state = RecordState.Archiving;
      st.dlqCause = cause;
      this.deadLettersPending = true;
    } else {
      st.state = RecordState.Archived;
    }
  }

  /** The Archiving records not yet handed to the dead-letter queue, as runs of one delivery count and cause. */
  private deadLetterRuns(): DeadLetterRun[] {
    const runs: DeadLetterRun[] = [];
    if (!this.deadLettersPending) return runs;
    for (const b of this.batches) {
      b.forEachState(this.startOffset_, b.lastOffset, (st, first, last) => {
        if (st.state !== RecordState.Archiving || st.dlqCause === undefined) return;
        const prev = runs[runs.length - 1];
        if (prev && prev.lastOffset === first - 1 && prev.deliveryCount === st.deliveryCount && prev.cause === st.dlqCause) {
          prev.lastOffset = last;
          prev.states.push(st);
        } else {
          runs.push({ firstOffset: first, lastOffset: last, deliveryCount: st.deliveryCount, cause: st.dlqCause, states: [st] });
        }
      });
    }
    // None left unsent (all handed over, or rolled back): later writes need not look until archive() sets it again.
    if (runs.length === 0) this.deadLettersPending = false;
    return runs;
  }

  /**
   * Hands durable ARCHIVING runs to the dead-letter queue, then archives them whether the write succeeded or not,
   * and writes that (Kafka's initiateDLQAndArchive). A broker stopping in between resumes from ARCHIVING: a record
   * reaches the dead-letter topic at least once, possibly twice, as in Kafka.
   */
  private deadLetter(runs: readonly DeadLetterRun[]): void {
    for (const run of runs) {
      const batch: DeadLetterBatch = { firstOffset: run.firstOffset, lastOffset: run.lastOffset, deliveryCount: run.deliveryCount, cause: run.cause };
      // By offset, not by the states of the run: a batch may have been split since they were collected.
      this.forEachArchiving(batch, (st) => (st.dlqCause = undefined));
      const written = this.config.deadLetterQueue?.write(batch) ?? Promise.resolve();
      void written.catch(() => {}).then(() => {
        // Out of the cache (group empty, fenced, share.version off): another instance may own the state by now.
        if (this.closed) return;
        this.forEachArchiving(batch, (st) => (st.state = RecordState.Archived));
        return this.writes.next().done;
      });
    }
  }

  /** Calls fn for each ARCHIVING state in the batch's offsets. */
  private forEachArchiving(batch: DeadLetterBatch, fn: (st: InFlightState) => void): void {
    for (let i = this.indexAtOrAfter(batch.firstOffset); i < this.batches.length; i++) {
      const b = this.batches[i]!;
      if (b.firstOffset > batch.lastOffset) break;
      b.forEachState(batch.firstOffset, batch.lastOffset, (st) => {
        if (st.state === RecordState.Archiving) fn(st);
      });
    }
  }

  /**
   * Where the start offset moves past records that are `complete`, and how many leading runs it leaves
   * behind (Kafka's findLastOffsetAcknowledged).
   */
  private nextStartOffset(complete: (st: InFlightState) => boolean): { start: number; passed: number } {
    let start = this.startOffset_;
    let passed = 0;
    for (const b of this.batches) {
      const next = b.firstIncompleteFrom(start, complete);
      if (next === undefined) {
        start = b.lastOffset + 1;
        passed++;
        continue;
      }
      start = Math.max(start, next);
      break;
    }
    if (passed === this.batches.length) start = Math.max(start, this.endOffset_ + 1);
    return { start, passed };
  }

  /**
   * Moves the start offset past acknowledged and archived records whose change is durable, and drops the runs
   * below it (Kafka's maybeUpdateCachedStateAndOffsets); whether it moved.
   */
  private advanceStartOffset(): boolean {
    const { start, passed } = this.nextStartOffset(isSettledTerminal);
    if (passed > 0) this.batches.splice(0, passed);
    const moved = start !== this.startOffset_;
    this.startOffset_ = start;
    return moved;
  }

  /**
   * The log's start moved past the share partition's (retention, DeleteRecords): records below it are gone
   * (Kafka's updateCacheAndOffsets). Not written, as in Kafka: the next write carries the new start offset.
   */
  moveStartTo(logStartOffset: number): void {
    if (logStartOffset <= this.startOffset_) return;
    this.batches = this.batches.filter((b) => b.lastOffset >= logStartOffset);
    this.startOffset_ = logStartOffset;
    if (this.endOffset_ < logStartOffset - 1) this.endOffset_ = logStartOffset - 1;
    this.advanceStartOffset();
  }

  /** Makes one write (StateWriteQueue's flush) and settles the changes waiting in it; the write's error code. */
  private async flush(write: PendingWrite): Promise<number> {
    let code: number = ErrorCode.NONE;
    let deadLetters: DeadLetterRun[] = [];
    try {
      deadLetters = await this.write();
    } catch (err) {
      code = persisterErrorCode(err);
      // Kafka's SharePartitionManager drops a fenced share partition from its cache; the next fetch reads the new state.
      const stored = err instanceof PersisterError ? err.errorCode : undefined;
      if (stored === ErrorCode.FENCED_STATE_EPOCH || stored === ErrorCode.FENCED_LEADER_EPOCH) this.fenced = true;
    }
    this.settle(write, code === ErrorCode.NONE);
    if (code === ErrorCode.NONE) this.deadLetter(deadLetters.filter((run) => run.states.every((st) => st.dlqCause !== undefined)));
    return code;
  }

  /**
   * Completes the changes that waited for `write` (Kafka's completeStateTransition): kept if it is durable, else
   * undone. A record rolled back to acquired whose lock ran out meanwhile is released as its expiry would have.
   * Then the start offset moves, and fetches waiting for records or for room are woken.
   */
  private settle(write: PendingWrite, durable: boolean): void {
    const now = this.now();
    const limit = this.config.deliveryCountLimit();
    let available = false;
    for (const b of this.batches) {
      b.forEachState(b.firstOffset, b.lastOffset, (st, first, last) => {
        const before = st.rollback;
        if (before?.write !== write) return;
        st.rollback = undefined;
        if (!durable) {
          ({ state: st.state, deliveryCount: st.deliveryCount, memberId: st.memberId, lockExpiresAt: st.lockExpiresAt } = before);
          st.dlqCause = undefined;
          if (st.state === RecordState.Acquired && st.lockExpiresAt <= now) {
            this.releaseState(st, limit);
            st.memberId = null;
            this.acquisitionLockTimeouts += last - first + 1;
          }
        }
        if (st.state === RecordState.Available) available = true;
      });
    }
    if (this.advanceStartOffset() || available) this.onAvailable();
  }

  /**
   * The whole in-flight state as runs from `from`; Kafka never stores ACQUIRED. For the console, an acquired record is
   * available with its delivery count. For a state write (`forWrite`), it is as the last write left it: available,
   * without the delivery still out, since Kafka writes only the batches a change touches and a delivery in flight at a
   * crash is not counted (KIP-932); writing it counted made a record that sat acquired through another record's
   * acknowledgement come back after a kill -9 one count higher than on Kafka. A run never delivered (available, count
   * 0) is left out of a write, as Kafka has no batch for it: the loader takes a gap for just that.
   */
  stateBatches(from = this.startOffset_, forWrite = false): PersisterStateBatch[] {
    const out: PersisterStateBatch[] = [];
    for (const b of this.batches) {
      b.forEachState(from, b.lastOffset, (st, first, last) => {
        const deliveryState = persistedStateOf(st.state);
        const deliveryCount = forWrite && st.state === RecordState.Acquired ? st.deliveryCount - 1 : st.deliveryCount;
        if (forWrite && deliveryState === PersistedDeliveryState.Available && deliveryCount === 0) return;
        const prev = out[out.length - 1];
        if (prev && prev.lastOffset === first - 1 && prev.deliveryState === deliveryState && prev.deliveryCount === deliveryCount) prev.lastOffset = last;
        else out.push({ firstOffset: first, lastOffset: last, deliveryState, deliveryCount });
      });
    }
    return out;
  }

  /**
   * Writes the in-flight state as it is now, the changes waiting for this write included: the start offset
   * written is past the records they complete (kafkite stores it with the acknowledgement; Kafka's trails by a write).
   */
  private async write(): Promise<DeadLetterRun[]> {
    const { start } = this.nextStartOffset((st) => isTerminal(st.state));
    const stateBatches = this.stateBatches(start, true);
    // ARCHIVING is not complete: Kafka counts such records once they are archived.
    const complete = stateBatches.reduce((n, b) => n + (isTerminal(recordStateOf(b.deliveryState)) ? b.lastOffset - b.firstOffset + 1 : 0), 0);
    // What this write stores as ARCHIVING goes to the dead-letter queue once it is durable.
    const deadLetters = this.deadLetterRuns();
    await this.persister.writeState(this.key, {
      stateEpoch: this.stateEpoch, leaderEpoch: this.leaderEpoch, startOffset: start, deliveryCompleteCount: complete, stateBatches,
    });
    return deadLetters;
  }

  /** Counts for the console and metrics. */
  counts(): { available: number; acquired: number; acknowledged: number; archived: number } {
    const c = { available: 0, acquired: 0, acknowledged: 0, archived: 0 };
    for (const b of this.batches) {
      b.forEachState(this.startOffset_, b.lastOffset, (st, first, last) => {
        const n = last - first + 1;
        if (st.state === RecordState.Available) c.available += n;
        else if (st.state === RecordState.Acquired) c.acquired += n;
        else if (st.state === RecordState.Acknowledged) c.acknowledged += n;
        else c.archived += n;
      });
    }
    return c;
  }

  /** The state of one offset, for tests: undefined when it is not in flight. */
  stateOf(offset: number): Readonly<InFlightState> | undefined {
    const b = this.batches[this.indexAtOrAfter(offset)];
    return b && b.firstOffset <= offset ? b.at(offset) : undefined;
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

/** Starts a change that settles with `write`, keeping what to restore if it fails. */
function beginChange(st: InFlightState, write: PendingWrite): void {
  const { state, deliveryCount, memberId, lockExpiresAt } = st;
  st.rollback = { write, state, deliveryCount, memberId, lockExpiresAt };
}

/** The persisted form of a state (ACQUIRED is stored as AVAILABLE, its delivery count kept). */
function persistedStateOf(state: RecordState): PersistedDeliveryState {
  switch (state) {
    case RecordState.Acknowledged: return PersistedDeliveryState.Acknowledged;
    case RecordState.Archiving: return PersistedDeliveryState.Archiving;
    case RecordState.Archived: return PersistedDeliveryState.Archived;
    default: return PersistedDeliveryState.Available;
  }
}

function recordStateOf(state: PersistedDeliveryState): RecordState {
  switch (state) {
    case PersistedDeliveryState.Acknowledged: return RecordState.Acknowledged;
    case PersistedDeliveryState.Archiving: return RecordState.Archiving;
    case PersistedDeliveryState.Archived: return RecordState.Archived;
    default: return RecordState.Available;
  }
}

function available(deliveryCount: number): InFlightState {
  return { state: RecordState.Available, deliveryCount, memberId: null, lockExpiresAt: 0 };
}

/** Appends [first, last] to the acquired ranges, merged with the previous one when contiguous with the same count. */
function pushRange(ranges: AcquiredRecords[], first: number, last: number, deliveryCount: number): void {
  const prev = ranges[ranges.length - 1];
  if (prev && prev.lastOffset === first - 1 && prev.deliveryCount === deliveryCount) prev.lastOffset = last;
  else ranges.push({ firstOffset: first, lastOffset: last, deliveryCount });
}

/** An ISO-8601 duration (PnDTnHnMnS, as java.time.Duration parses it) in milliseconds. */
function isoDurationMs(text: string): number | undefined {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(text.trim());
  if (!m) return undefined;
  const [, d, h, min, s] = m;
  return ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000 + Number(s ?? 0) * 1000;
}
