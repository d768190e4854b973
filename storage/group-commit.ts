// The broker-wide commit round of one log dir: the flushes of all its partitions (acks=all appends,
// flush.messages/flush.ms, transaction markers) that arrive while a round is running join the next one.
// A round begins each log's flush (fixing the offset it makes durable), makes the files durable, and
// completes each flush (recovery point forward, waiting produce answers released).
// Making them durable: one syncfs(2) of the log dir's filesystem (native/storage.cc), or an fdatasync per
// dirty file, whichever costs less. syncfs writes back every dirty page of the filesystem, not only the
// round's: an earlier measurement found one syncfs for 8 dirty files 2.5× faster than their fdatasyncs
// (5-9× for 64), but on a filesystem shared with busy neighbours, or with acks=1 topics' unflushed data
// beside, it pays for their writeback too. So the round measures both (moving averages of a syncfs, and
// of an fdatasync round per file), takes the cheaper, and retries the other at most once a second.
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
/** The mode not chosen is measured again after this long, as the cost of both changes with the load. */
const REMEASURE_MS = 1000;
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

/** What rounds have done, for tests and benchmarks. */
export interface GroupCommitStats {
  rounds: number;
  syncfsCalls: number;
  fileFlushes: number;
  /** Moving averages: ms per syncfs, and ms per file of an fdatasync round (NaN until measured). */
  syncfsMs: number;
  fdatasyncMsPerFile: number;
}

type Mode = 'syncfs' | 'fdatasync';

export class GroupCommit {
  /** Logs waiting for the next round, each with the promise its callers hold. */
  private next = new Map<Flushable, Waiter>();
  /** The running round's flushes. */
  private current: Map<Flushable, { pending: PendingFlush; waiter: Waiter }> | null = null;
  private scheduled = false;
  /**
   * Opened once and kept: syncfs reports the filesystem's writeback errors seen since its fd was opened
   * (Linux's per-superblock errseq), so a fresh fd per round could miss an error another reader saw first.
   */
  private fd: number | null;
  readonly stats: GroupCommitStats = { rounds: 0, syncfsCalls: 0, fileFlushes: 0, syncfsMs: NaN, fdatasyncMsPerFile: NaN };
  /** When each mode was last measured (performance.now()). */
  private readonly measuredAt: Record<Mode, number> = { syncfs: -Infinity, fdatasync: -Infinity };

  constructor(
    readonly logDir: string,
    private readonly syncfs: SyncfsFn,
    private readonly logger: Logger,
  ) {
    this.fd = fs.openSync(logDir, 'r');
  }

  /** Settles once everything `log` had appended when called is durable (or its flush failed). */
  flush(log: Flushable): Promise<void> {
    const running = this.current?.get(log);
    if (running && running.pending.coversAll()) return running.waiter.promise;
    let w = this.next.get(log);
    if (!w) {
      w = waiter();
      this.next.set(log, w);
    }
    if (this.current === null && !this.scheduled) {
      // Once the event loop has read everything ready: the flushes of all requests parsed in this turn share the round.
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        if (this.current === null) void this.runRound();
      });
    }
    return w.promise;
  }

  private async runRound(): Promise<void> {
    const waiting = this.next;
    this.next = new Map();
    const round = new Map<Flushable, { pending: PendingFlush; waiter: Waiter }>();
    this.current = round;
    this.stats.rounds++;
    let files = 0;
    for (const [log, w] of waiting) {
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
      round.set(log, { pending, waiter: w });
      files += pending.files;
    }
    try {
      if (round.size === 0) return;
      const mode = this.fd !== null && files >= MIN_SYNCFS_FILES ? this.cheaperMode(files) : 'fdatasync';
      const started = performance.now();
      if (mode === 'syncfs') await this.syncfsRound(round, this.fd!);
      else await Promise.all([...round.values()].map((f) => this.fdatasyncEach(f.pending, f.waiter)));
      this.measured(mode, performance.now() - started, files);
    } finally {
      this.current = null;
      if (this.next.size > 0) void this.runRound();
    }
  }

  /** The mode expected to cost less for `files` dirty files; the other one when its figure is stale. */
  private cheaperMode(files: number): Mode {
    const now = performance.now();
    const { syncfsMs, fdatasyncMsPerFile } = this.stats;
    if (Number.isNaN(syncfsMs)) return 'syncfs';
    if (Number.isNaN(fdatasyncMsPerFile)) return 'fdatasync';
    const cheaper: Mode = syncfsMs <= fdatasyncMsPerFile * files ? 'syncfs' : 'fdatasync';
    const other: Mode = cheaper === 'syncfs' ? 'fdatasync' : 'syncfs';
    return now - this.measuredAt[other] >= REMEASURE_MS ? other : cheaper;
  }

  private measured(mode: Mode, ms: number, files: number): void {
    this.measuredAt[mode] = performance.now();
    const ewma = (old: number, sample: number) => (Number.isNaN(old) ? sample : old + EWMA_WEIGHT * (sample - old));
    if (mode === 'syncfs') this.stats.syncfsMs = ewma(this.stats.syncfsMs, ms);
    else if (files >= MIN_SYNCFS_FILES) this.stats.fdatasyncMsPerFile = ewma(this.stats.fdatasyncMsPerFile, ms / files);
  }

  private async syncfsRound(round: Map<Flushable, { pending: PendingFlush; waiter: Waiter }>, fd: number): Promise<void> {
    this.stats.syncfsCalls++;
    const error = await new Promise<unknown>((resolve) => this.syncfs(fd, (err) => resolve(err)));
    if (error) this.logger.error({ logDir: this.logDir, error: (error as Error).message }, 'syncfs of the log dir failed');
    for (const { pending, waiter: w } of round.values()) complete(pending, w, error);
  }

  private async fdatasyncEach(pending: PendingFlush, w: Waiter): Promise<void> {
    this.stats.fileFlushes += pending.files;
    let error: unknown = null;
    try {
      await pending.fdatasyncEach();
    } catch (err) {
      error = err;
    }
    complete(pending, w, error);
  }

  /** Stops using syncfs (shutdown): later flushes fdatasync file by file. */
  close(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

function complete(pending: PendingFlush, w: Waiter, error: unknown): void {
  try {
    pending.complete(error ?? null);
    w.resolve();
  } catch (err) {
    w.reject(err);
  }
}
