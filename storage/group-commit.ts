// The broker-wide commit round of one log dir: the flushes of all its partitions (acks=all appends,
// flush.messages/flush.ms, transaction markers) that arrive while a round is running join the next one.
// A round begins each log's flush (fixing the offset it makes durable), makes the files durable, and
// completes each flush (recovery point forward, waiting produce answers released).
// Making them durable: one syncfs(2) of the log dir's filesystem (native/storage.cc) for the whole round,
// or an fdatasync of each log's dirty files, each log going on to its next flush as soon as its own is
// done (the group commit of one log). syncfs writes back every dirty page of the filesystem, not only the
// round's: an earlier measurement found one syncfs for 8 dirty files 2.5× faster than their fdatasyncs
// (5-9× for 64), but on a filesystem shared with busy neighbours, or with acks=1 topics' unflushed data
// beside, it pays for their writeback too. So both are timed (moving averages of how long a flush waits
// for its syncfs, or for its log's fdatasyncs), the faster is taken, and the other is tried again now and
// then. A syncfs round runs alone: the flushes that arrive meanwhile wait for its end (two syncfs at once
// measured slower: each waits for all the filesystem's writeback). fdatasyncs overlap: a log's next
// flush begins while the one before still waits for the disk (FLUSHES_IN_FLIGHT), so the appends that
// arrived meanwhile start syncing at once instead of waiting a whole flush, and the disk's latency
// overlaps with appending and answering. A log's flushes still complete in the order they began: a later
// one may have skipped the directory or transaction index fsync an earlier one took on, and a writeback
// error is reported to one caller only (the kernel's errseq), so an earlier flush's failure fails the
// later ones too.
import fs from 'node:fs';
import type { Logger } from 'pino';

/** One log's flush between its two halves (UnifiedLog.beginFlush → complete). */
export interface PendingFlush {
  /** Files an fdatasync per file would sync (segments, transaction indexes, the directory). */
  readonly files: number;
  /** True while nothing was appended (or rolled) since the flush began: it still covers everything. */
  coversAll(): boolean;
  /** The fallback: fdatasync of each dirty file, and of the directory after a roll. */
  fdatasyncEach(): Promise<void>;
  /** Second half: advances the recovery point, or reports `error` (thrown back as KafkaStorageError). */
  complete(error: unknown): void;
}

/** A log that can take part in a round. `beginFlush` is null when everything is durable already. */
export interface Flushable {
  beginFlush(): PendingFlush | null;
}

export type SyncfsFn = (fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => void;

/** Below this many dirty files a round always fdatasyncs them one by one (one file: syncfs cannot be cheaper). */
const MIN_SYNCFS_FILES = 2;
/**
 * The mode not taken is timed again after this long, as both costs change with the load; and at most
 * once per RETRY_COST_FACTOR times its last duration, so that a syncfs slowed to 300 ms by neighbours
 * stalls the log dir's flushes once in 15 s (2%), not once a second.
 */
const REMEASURE_MS = 1000;
const RETRY_COST_FACTOR = 50;
/**
 * Flushes of a log in flight at once: two let one sync the next appends while the other waits for the
 * disk; more would only queue on the thread pool, each fdatasync costing CPU (tens of µs) of its own.
 */
const FLUSHES_IN_FLIGHT = 2;
/** Weight of the newest duration in the moving averages. */
const EWMA_WEIGHT = 0.5;

interface Waiter {
  promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

function waiter(): Waiter {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // The caller of flush() gets this promise and handles it; a round must not crash the process meanwhile.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** What the commit rounds have done, for tests and benchmarks. */
export interface GroupCommitStats {
  rounds: number;
  syncfsCalls: number;
  /** Files fdatasynced one by one. */
  fileFlushes: number;
  /** Moving averages of a flush's duration, ms: by syncfs, and by its log's fdatasyncs (NaN until timed). */
  syncfsMs: number;
  fdatasyncMs: number;
}

type Mode = 'syncfs' | 'fdatasync';

interface Begun {
  log: Flushable;
  pending: PendingFlush;
  waiter: Waiter;
  /** Set once its files are durable (or failed); it completes when the flushes begun before it have. */
  outcome?: { error: unknown };
}

/** A log's flushes in flight, oldest first, and the failure of one already completed (it fails the rest). */
interface InFlight {
  flushes: Begun[];
  error: unknown;
}

export class GroupCommit {
  /** Logs whose next flush has not begun, each with the promise its callers hold. */
  private readonly waiting = new Map<Flushable, Waiter>();
  /** Flushes begun and not completed: at most FLUSHES_IN_FLIGHT per log. */
  private readonly inFlight = new Map<Flushable, InFlight>();
  private syncfsRunning = false;
  private scheduled = false;
  /**
   * Opened once and kept: syncfs reports the filesystem's writeback errors seen since its fd was opened
   * (Linux's per-superblock errseq), so a fresh fd per round could miss an error another reader saw first.
   */
  private fd: number | null;
  readonly stats: GroupCommitStats = { rounds: 0, syncfsCalls: 0, fileFlushes: 0, syncfsMs: NaN, fdatasyncMs: NaN };
  /** When each mode was last timed (performance.now()). */
  private readonly timedAt: Record<Mode, number> = { syncfs: -Infinity, fdatasync: -Infinity };

  constructor(
    readonly logDir: string,
    private readonly syncfs: SyncfsFn,
    private readonly logger: Logger,
  ) {
    this.fd = fs.openSync(logDir, 'r');
  }

  /** Settles once everything `log` had appended when called is durable (or its flush failed). */
  flush(log: Flushable): Promise<void> {
    const newest = this.inFlight.get(log)?.flushes.at(-1);
    if (newest && newest.pending.coversAll()) return newest.waiter.promise;
    let w = this.waiting.get(log);
    if (!w) {
      w = waiter();
      this.waiting.set(log, w);
    }
    this.schedule();
    return w.promise;
  }

  /** Once the event loop has read everything ready: the flushes of all requests parsed in this turn share the round. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startRound();
    });
  }

  /** Begins the flush of every waiting log with room for one, unless a syncfs is running (its end starts the next). */
  private startRound(): void {
    if (this.syncfsRunning) return;
    const begun: Begun[] = [];
    let files = 0;
    for (const [log, w] of this.waiting) {
      if ((this.inFlight.get(log)?.flushes.length ?? 0) >= FLUSHES_IN_FLIGHT) continue;
      this.waiting.delete(log);
      let pending: PendingFlush | null;
      try {
        pending = log.beginFlush();
      } catch (err) {
        w.reject(err);
        continue;
      }
      if (pending === null) {
        w.resolve();
        continue;
      }
      begun.push({ log, pending, waiter: w });
      files += pending.files;
    }
    if (begun.length === 0) return;
    this.stats.rounds++;
    for (const b of begun) {
      const running = this.inFlight.get(b.log);
      if (running) running.flushes.push(b);
      else this.inFlight.set(b.log, { flushes: [b], error: null });
    }
    // One file: nothing to share, and syncfs would also write everything else that is dirty.
    if (this.fd !== null && files >= MIN_SYNCFS_FILES && this.fasterMode() === 'syncfs') void this.syncfsRound(begun, this.fd);
    else for (const b of begun) void this.fdatasyncLog(b);
  }

  /** The mode timed faster; the other one when its figure is over a second old. */
  private fasterMode(): Mode {
    const { syncfsMs, fdatasyncMs } = this.stats;
    if (Number.isNaN(syncfsMs)) return 'syncfs';
    if (Number.isNaN(fdatasyncMs)) return 'fdatasync';
    const faster: Mode = syncfsMs <= fdatasyncMs ? 'syncfs' : 'fdatasync';
    const other: Mode = faster === 'syncfs' ? 'fdatasync' : 'syncfs';
    const otherMs = other === 'syncfs' ? syncfsMs : fdatasyncMs;
    return performance.now() - this.timedAt[other] >= Math.max(REMEASURE_MS, RETRY_COST_FACTOR * otherMs) ? other : faster;
  }

  private timed(mode: Mode, ms: number): void {
    this.timedAt[mode] = performance.now();
    const key = mode === 'syncfs' ? 'syncfsMs' : 'fdatasyncMs';
    const old = this.stats[key];
    this.stats[key] = Number.isNaN(old) ? ms : old + EWMA_WEIGHT * (ms - old);
  }

  private async syncfsRound(begun: Begun[], fd: number): Promise<void> {
    this.syncfsRunning = true;
    this.stats.syncfsCalls++;
    const started = performance.now();
    const error = await new Promise<unknown>((resolve) => this.syncfs(fd, (err) => resolve(err)));
    this.timed('syncfs', performance.now() - started);
    if (error) this.logger.error({ logDir: this.logDir, error: (error as Error).message }, 'syncfs of the log dir failed');
    this.syncfsRunning = false;
    for (const b of begun) this.durable(b, error);
    this.startRound();
  }

  private async fdatasyncLog(b: Begun): Promise<void> {
    this.stats.fileFlushes += b.pending.files;
    const started = performance.now();
    let error: unknown = null;
    try {
      await b.pending.fdatasyncEach();
    } catch (err) {
      error = err;
    }
    // Single-file flushes say little about what syncfs competes with (it only runs for two files or more).
    if (b.pending.files >= MIN_SYNCFS_FILES || this.inFlight.size > 1) this.timed('fdatasync', performance.now() - started);
    this.durable(b, error);
    if (this.waiting.size > 0) this.schedule();
  }

  /** `b`'s files are durable (or failed): completes it, and the flushes of its log after it, in order. */
  private durable(b: Begun, error: unknown): void {
    b.outcome = { error };
    const running = this.inFlight.get(b.log)!;
    while (running.flushes[0]?.outcome !== undefined) {
      const head = running.flushes.shift()!;
      running.error ??= head.outcome!.error;
      this.completed(head, running.error);
    }
    if (running.flushes.length === 0) this.inFlight.delete(b.log);
  }

  private completed(b: Begun, error: unknown): void {
    try {
      b.pending.complete(error ?? null);
      b.waiter.resolve();
    } catch (err) {
      b.waiter.reject(err);
    }
  }

  /** Stops using syncfs (shutdown): later flushes fdatasync file by file. */
  close(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}
