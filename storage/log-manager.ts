// Every partition log of every log dir (Kafka's LogManager): loading with recovery, creation and
// deletion, checkpoints, and the background tasks (retention, flush, cleaner).
// Start-up only lists the partition directories: a log is loaded (and recovered) when first used, and
// the rest in the background, so a restart on 100k partitions is ready in well under a second.
// kafkite's own (Kafka keeps every log loaded): with kafkite.log.unload.idle.ms, a log nobody used for
// that long is closed and only its offsets and a retention summary stay in memory; new partitions and
// those the background pass loaded are unloaded at once. So idle memory follows the partitions in use,
// not the partitions that exist.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { BackgroundCheckpoint, OffsetCheckpointFile, syncingOnce, syncingOnceAsync, writeFileAtomically } from './checkpoint-file.js';
import type { LogConfig } from './log-config.js';
import { LogCleaner } from './log-cleaner.js';
import {
  CLEANER_OFFSET_CHECKPOINT_FILE,
  CLEAN_SHUTDOWN_FILE,
  DELETE_DIR_SUFFIX,
  LOG_FILE_SUFFIX,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE,
  logDirName,
  parseLogDirName,
} from './log-file-names.js';
import { DiskSpaceMonitor, type MinFreeSpace } from './disk-space-monitor.js';
import { DiskFullError, KafkaStorageError, StorageResourceError, TooManyOpenFilesError } from './errors.js';
import { descriptorReserve, isDescriptorExhaustion, segmentFileCapacity, segmentFiles } from './file-handle-cache.js';
import { GroupCommit } from './group-commit.js';
import { ensureMetaProperties, readPartitionMetadata, writePartitionMetadata } from './meta-properties.js';
import { probeStorageAddon } from './native-storage.js';
import { UnifiedLog, type RetentionSummary } from './unified-log.js';

/** Kafka's log.flush.offset.checkpoint.interval.ms default. */
const RECOVERY_POINT_CHECKPOINT_INTERVAL_MS = 60_000;
/**
 * Background loading after start-up: milliseconds of loading per turn of the event loop, so requests
 * arriving meanwhile wait at most about this long (plus one log's load) before they are served.
 */
const BACKGROUND_LOAD_SLICE_MS = 2;
/**
 * Pause between slices: the process sleeps rather than running flat out until the load is done, so on a
 * busy machine the scheduler still wakes it at once when a request arrives.
 */
const BACKGROUND_LOAD_PAUSE_MS = 1;
/** After the background load ran into the descriptor limit: how long it waits before trying again. */
const BACKGROUND_LOAD_RETRY_MS = 1000;
/** A repeated resource warning (too many open files) is logged at most this often. */
const RESOURCE_WARNING_INTERVAL_MS = 60_000;

export interface LogManagerOptions {
  logDirs: readonly string[];
  logger: Logger;
  clusterId: string;
  nodeId: number;
  configFor(topic: string): LogConfig;
  /** The partition's leader epoch (the metadata image's), which its log stamps batches with; 0 when omitted. */
  leaderEpochOf?(topic: string, partition: number): number;
  retentionCheckIntervalMs: number;
  flushSchedulerIntervalMs?: number;
  cleanerBackoffMs?: number;
  cleanerEnable?: boolean;
  /** Every log dir failed: Kafka halts the broker then, as it can serve nothing. */
  onAllLogDirsOffline?: () => void;
  /** After each successful log flush, with its duration. */
  onFlushed?: (millis: number) => void;
  /** After a transaction marker is appended to a partition (its last stable offset may have moved). */
  onTransactionMarker?: (topic: string, partition: number) => void;
  /** RLIMIT_NOFILE's soft limit: the segment-file cache gets a share of it. */
  openFileLimit?: number;
  /**
   * Whether a partition directory found at start-up belongs to a topic that exists (the broker's
   * registry). The others are leftovers of a topic creation that failed or crashed, and are removed.
   */
  isKnownPartition?: (topic: string, partition: number) => boolean;
  /** kafkite.storage.min.free.bytes; without it appends are only stopped by an actual ENOSPC. */
  minFreeSpace?: MinFreeSpace;
  /**
   * kafkite.log.flush.syncfs.enable (default true): flushes of a log dir's partitions share commit rounds
   * with one syncfs(2) each (when the native addon is built); false keeps an fdatasync per file and log.
   */
  syncfs?: boolean;
  /** producer.id.expiration.ms, read at each check (it is a dynamic broker config); never when omitted. */
  producerIdExpirationMs?: () => number;
  /** producer.id.expiration.check.interval.ms (Kafka's PeriodicProducerExpirationCheck). */
  producerIdExpirationCheckIntervalMs?: number;
  /**
   * kafkite.log.unload.idle.ms: a log unused this long is unloaded (flushed first), and logs created or
   * loaded in the background are unloaded at once. Negative or absent: logs stay loaded, as in Kafka.
   */
  unloadIdleMs?: number;
}

/** A partition log not loaded: found at start-up and not loaded yet, or unloaded while idle. */
interface UnloadedLog {
  name: string;
  logDir: string;
  topic: string;
  partition: number;
  recoveryPoint: number;
  logStartOffset: number;
  /** Closed cleanly (unloaded, or found after a clean shutdown): it loads without recovery. */
  clean: boolean;
  /** Null until the log was loaded once (then the retention task can judge it without loading it). */
  summary: RetentionSummary | null;
}

export class LogManager {
  private readonly logs = new Map<string, UnifiedLog>();
  private readonly unloaded = new Map<string, UnloadedLog>();
  private readonly logDirOf = new Map<UnifiedLog, string>();
  /** When each loaded log was last asked for (0: loaded by a background task, never used). */
  private readonly lastUsed = new Map<UnifiedLog, number>();
  /** One string per topic name for the many entries of a topic's partitions. */
  private readonly topicNames = new Map<string, string>();
  /** Partitions (loaded or not) per log dir, for placing new ones. */
  private readonly partitionCounts = new Map<string, number>();
  private readonly hadCleanShutdown = new Map<string, boolean>();
  /** Cancels the next slice of the background load; null when none is scheduled. */
  private cancelBackgroundLoad: (() => void) | null = null;
  private lastResourceWarning = 0;
  private readonly staleStartOffsetCheckpoints = new Set<string>();
  /** Each log dir's recovery-point and log-start-offset checkpoints, written off the event loop while running. */
  private readonly backgroundCheckpoints = new Map<string, { recoveryPoints: BackgroundCheckpoint; logStartOffsets: BackgroundCheckpoint }>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly pendingDirDeletes = new Map<() => void, NodeJS.Timeout>();
  /** Log dirs taken offline by an I/O error, with the error (Kafka's offline log dirs). */
  private readonly offlineDirs = new Map<string, KafkaStorageError>();
  readonly cleaner: LogCleaner;
  /** Free space of each log dir's filesystem against kafkite.storage.min.free.bytes. */
  readonly diskSpace: DiskSpaceMonitor;
  /** Each log dir's commit round, with the device of the log dir (a partition dir elsewhere flushes alone). */
  private readonly groupCommits = new Map<string, { commit: GroupCommit; dev: number }>();

  private constructor(private readonly opts: LogManagerOptions) {
    if (opts.openFileLimit !== undefined) segmentFiles.capacity = segmentFileCapacity(opts.openFileLimit);
    descriptorReserve.hold();
    for (const dir of opts.logDirs) fs.mkdirSync(dir, { recursive: true });
    this.diskSpace = new DiskSpaceMonitor(opts.logDirs, opts.minFreeSpace ?? { bytes: 0 }, opts.logger);
    this.cleaner = new LogCleaner({
      logger: opts.logger,
      backoffMs: opts.cleanerBackoffMs ?? 15_000,
      checkpointFor: (log) => new OffsetCheckpointFile(path.join(this.logDirOf.get(log)!, CLEANER_OFFSET_CHECKPOINT_FILE)),
      logsIn: (log) => this.logsInDir(this.logDirOf.get(log)!),
    });
    this.startGroupCommits();
  }

  private startGroupCommits(): void {
    const probe = this.opts.syncfs === false ? { addon: null, reason: 'kafkite.log.flush.syncfs.enable=false' } : probeStorageAddon();
    if (probe.addon === null) {
      this.opts.logger.info({ flush: 'fdatasync per file', reason: probe.reason }, 'flushes fdatasync each partition file');
      return;
    }
    for (const dir of this.opts.logDirs) {
      this.groupCommits.set(dir, { commit: new GroupCommit(dir, probe.addon.syncfs, this.opts.logger), dev: fs.statSync(dir).dev });
    }
    this.opts.logger.info({ flush: 'syncfs per log dir' }, 'flushes of each log dir share commit rounds with one syncfs(2)');
  }

  /** The commit round a log in `dir` joins; none for a partition dir on another filesystem than its log dir. */
  private commitRoundFor(logDir: string, dir: string): ((log: UnifiedLog) => Promise<void>) | undefined {
    const entry = this.groupCommits.get(logDir);
    if (!entry || fs.statSync(dir).dev !== entry.dev) return undefined;
    return (log) => entry.commit.flush(log);
  }

  /** Lists every partition directory of every log dir; logs load when first used (see getLog) or in the background. */
  static async open(opts: LogManagerOptions): Promise<LogManager> {
    const manager = new LogManager(opts);
    for (const dir of opts.logDirs) manager.scanLogDir(dir);
    return manager;
  }

  private scanLogDir(logDir: string): void {
    fs.mkdirSync(logDir, { recursive: true });
    const entries = fs.readdirSync(logDir, { withFileTypes: true });
    ensureMetaProperties(logDir, this.opts.clusterId, this.opts.nodeId, (message) => this.opts.logger.warn(message));
    const marker = path.join(logDir, CLEAN_SHUTDOWN_FILE);
    this.hadCleanShutdown.set(logDir, fs.existsSync(marker));
    const recoveryPoints = this.readCheckpoint(path.join(logDir, RECOVERY_POINT_CHECKPOINT_FILE));
    const logStartOffsets = this.readCheckpoint(path.join(logDir, LOG_START_OFFSET_CHECKPOINT_FILE));
    const leftovers: string[] = [];
    let count = 0;
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = path.join(logDir, entry.name);
      if (entry.name.endsWith(DELETE_DIR_SUFFIX)) {
        fs.rmSync(full, { recursive: true, force: true });
        continue;
      }
      const parsed = parseLogDirName(entry.name);
      if (parsed === null) continue;
      if (this.opts.isKnownPartition && !this.opts.isKnownPartition(parsed.topic, parsed.partition)) {
        leftovers.push(entry.name);
        fs.rmSync(full, { recursive: true, force: true });
        continue;
      }
      let topic = this.topicNames.get(parsed.topic);
      if (topic === undefined) this.topicNames.set(parsed.topic, (topic = parsed.topic));
      this.unloaded.set(entry.name, {
        name: entry.name,
        logDir,
        topic,
        partition: parsed.partition,
        recoveryPoint: recoveryPoints.get(entry.name) ?? 0,
        logStartOffset: logStartOffsets.get(entry.name) ?? 0,
        clean: this.hadCleanShutdown.get(logDir) ?? false,
        summary: null,
      });
      count++;
    }
    this.partitionCounts.set(logDir, count);
    if (leftovers.length > 0) {
      this.opts.logger.warn({ logDir, partitions: leftovers }, `Removed ${leftovers.length} partition dir(s) of topics that do not exist (a topic creation that failed or was interrupted)`);
    }
    fs.rmSync(marker, { force: true });
    this.opts.logger.info(`Found ${count} logs in ${logDir}${this.hadCleanShutdown.get(logDir) ? '' : ' (with recovery)'}`);
  }

  /**
   * Loads a log not loaded (`used`: for a request, not a background task). A damaged one is left out
   * (logged), as one bad partition must not stop the broker.
   */
  private loadUnloaded(pending: UnloadedLog, used: boolean): UnifiedLog | undefined {
    let log: UnifiedLog;
    const dir = path.join(pending.logDir, pending.name);
    try {
      log = this.loadLog(dir, pending.logDir, pending.topic, pending.partition, readPartitionMetadata(dir) ?? '0'.repeat(32), {
        recoveryPoint: pending.recoveryPoint,
        logStartOffset: pending.logStartOffset,
        hadCleanShutdown: pending.clean,
      });
    } catch (err) {
      if (isDescriptorExhaustion(err) || err instanceof StorageResourceError) {
        // Not the partition's fault: it stays listed and loads at its next use.
        this.resourceWarning(err instanceof StorageResourceError ? err : new TooManyOpenFilesError((err as Error).message, { cause: err }));
        return undefined;
      }
      this.unloaded.delete(pending.name);
      this.partitionCounts.set(pending.logDir, (this.partitionCounts.get(pending.logDir) ?? 1) - 1);
      this.opts.logger.error({ err }, `Cannot load ${dir}: ${(err as Error).message}`);
      return undefined;
    }
    this.unloaded.delete(pending.name);
    this.logs.set(pending.name, log);
    this.logDirOf.set(log, pending.logDir);
    this.lastUsed.set(log, used ? Date.now() : 0);
    const offline = this.offlineDirs.get(pending.logDir);
    if (offline) log.markOffline(`log dir ${pending.logDir} is offline (${offline.message})`);
    return log;
  }

  /**
   * Loads (recovering them) the logs nobody asked for yet, in slices of a few milliseconds with a pause
   * in between, so that requests go first. Retention and the cleaner need them
   * loaded, or, when unloading is on, their retention summary: those are unloaded again at once.
   */
  private loadInBackground(): void {
    const names = [...this.unloaded.values()].filter((u) => u.summary === null).map((u) => u.name);
    if (names.length === 0) return;
    const started = Date.now();
    let i = 0;
    const step = () => {
      this.cancelBackgroundLoad = null;
      const deadline = performance.now() + BACKGROUND_LOAD_SLICE_MS;
      while (i < names.length && performance.now() < deadline) {
        const pending = this.unloaded.get(names[i]);
        // Loaded on demand (or deleted) meanwhile.
        if (pending === undefined || pending.summary !== null) {
          i++;
          continue;
        }
        const log = this.loadUnloaded(pending, false);
        if (log === undefined && this.unloaded.has(pending.name)) {
          // Out of descriptors: it stays listed; try again in a while rather than spin on it.
          const retry = setTimeout(step, BACKGROUND_LOAD_RETRY_MS);
          this.cancelBackgroundLoad = () => clearTimeout(retry);
          return;
        }
        i++;
        if (log !== undefined) this.unload(pending.name, log);
      }
      if (i < names.length) next();
      else this.opts.logger.info(`Loaded ${names.length} logs in the background in ${Date.now() - started} ms`);
    };
    const next = () => {
      const turn = setTimeout(step, BACKGROUND_LOAD_PAUSE_MS);
      this.cancelBackgroundLoad = () => clearTimeout(turn);
    };
    next();
  }

  /** Whether a loaded log may ever be unloaded: not internal topics, nor compacted logs (the cleaner works on loaded ones). */
  private unloadable(log: UnifiedLog): boolean {
    return (
      (this.opts.unloadIdleMs ?? -1) >= 0 &&
      !log.topic.startsWith('__') &&
      !log.config.cleanupPolicy.includes('compact') &&
      !this.cleaner.isCleaning(log) &&
      log.canUnload
    );
  }

  /** Closes the log and keeps only its entry (offsets, retention summary) if it may be unloaded. */
  private unload(name: string, log: UnifiedLog): boolean {
    if (!this.unloadable(log)) return false;
    const logDir = this.logDirOf.get(log)!;
    try {
      const summary = log.retentionSummary();
      log.closeForUnload();
      this.unloaded.set(name, {
        name,
        logDir,
        topic: log.topic,
        partition: log.partition,
        recoveryPoint: log.recoveryPoint,
        logStartOffset: log.logStartOffset,
        clean: true,
        summary,
      });
    } catch (err) {
      // Its files reopen on use, so it simply stays loaded.
      this.opts.logger.warn({ topic: log.topic, partition: log.partition, error: (err as Error).message }, 'idle log not unloaded');
      return false;
    }
    this.logs.delete(name);
    this.logDirOf.delete(log);
    this.lastUsed.delete(log);
    return true;
  }

  /** Unloads the logs unused for kafkite.log.unload.idle.ms; a dirty one is flushed now and unloaded at a later pass. */
  unloadIdleLogs(now: number): number {
    const idleMs = this.opts.unloadIdleMs ?? -1;
    if (idleMs < 0) return 0;
    let unloaded = 0;
    for (const [name, log] of this.logs) {
      if (now - (this.lastUsed.get(log) ?? 0) < idleMs) continue;
      if (this.unload(name, log)) unloaded++;
      else if (log.hasUnflushedData && !log.isOffline) log.flush().catch(() => {});
    }
    return unloaded;
  }

  /** One warning per minute at most for running out of descriptors, naming the limit. */
  private resourceWarning(err: StorageResourceError): void {
    if (!(err instanceof TooManyOpenFilesError)) return;
    const now = Date.now();
    if (now - this.lastResourceWarning < RESOURCE_WARNING_INTERVAL_MS) return;
    this.lastResourceWarning = now;
    this.opts.logger.warn(
      { openFileLimit: this.opts.openFileLimit ?? null, segmentFilesOpen: segmentFiles.size, segmentFileCapacity: segmentFiles.capacity, error: err.message },
      `Too many open files: the process hit RLIMIT_NOFILE (soft limit ${this.opts.openFileLimit ?? 'unknown'}); ` +
        'requests that need a file get a retriable KAFKA_STORAGE_ERROR, log dirs stay online. Raise the limit (ulimit -n) or close connections',
    );
  }

  /** A damaged checkpoint reads as empty: every log is then fully re-validated, which is safe. */
  private readCheckpoint(file: string): Map<string, number> {
    try {
      return new OffsetCheckpointFile(file).read();
    } catch (err) {
      this.opts.logger.warn(`Ignoring ${file}: ${(err as Error).message}`);
      return new Map();
    }
  }

  private loadLog(
    dir: string,
    logDir: string,
    topic: string,
    partition: number,
    topicId: string,
    state: { recoveryPoint: number; logStartOffset: number; hadCleanShutdown: boolean },
  ): UnifiedLog {
    let log: UnifiedLog | undefined;
    log = UnifiedLog.load({
      dir,
      topic,
      partition,
      topicId,
      config: this.opts.configFor(topic),
      logger: this.opts.logger,
      leaderEpoch: this.opts.leaderEpochOf?.(topic, partition),
      ...state,
      onLogStartOffsetChange: () => {
        if (log) this.checkpointsOf(this.logDirOf.get(log)!).logStartOffsets.request();
      },
      onStorageError: (err) => {
        if (log) this.markLogDirOffline(this.logDirOf.get(log)!, err);
      },
      onResourceError: (err) => {
        if (log) this.onResourceError(this.logDirOf.get(log)!, err);
      },
      checkFreeSpace: (bytes) => {
        if (log) this.diskSpace.checkAppend(this.logDirOf.get(log)!, bytes);
      },
      onFlushed: this.opts.onFlushed,
      onTransactionMarker: () => this.opts.onTransactionMarker?.(topic, partition),
      commitRound: this.commitRoundFor(logDir, dir),
    });
    return log;
  }

  private onResourceError(logDir: string, err: StorageResourceError): void {
    if (err instanceof DiskFullError) this.diskSpace.reportDiskFull(logDir);
    else this.resourceWarning(err);
  }

  /**
   * A log dir's checkpoints, written in the background. The log start offset one is requested whenever a
   * log start offset moves (DeleteRecords, retention) and again by the periodic task after a failed write
   * (a full disk must not fail the DeleteRecords that frees it).
   */
  private checkpointsOf(logDir: string): { recoveryPoints: BackgroundCheckpoint; logStartOffsets: BackgroundCheckpoint } {
    let checkpoints = this.backgroundCheckpoints.get(logDir);
    if (checkpoints === undefined) {
      const online = (content: () => string) => () => (this.offlineDirs.has(logDir) ? null : content());
      checkpoints = {
        recoveryPoints: new BackgroundCheckpoint(path.join(logDir, RECOVERY_POINT_CHECKPOINT_FILE), online(() => this.recoveryPointsText(logDir)), (error) => {
          if (error) this.opts.logger.warn({ logDir, error: (error as Error).message }, 'recovery point checkpoint not written; retried at the next interval');
        }),
        logStartOffsets: new BackgroundCheckpoint(path.join(logDir, LOG_START_OFFSET_CHECKPOINT_FILE), online(() => this.logStartOffsetsText(logDir)), (error) => {
          if (error === null) return void this.staleStartOffsetCheckpoints.delete(logDir);
          this.staleStartOffsetCheckpoints.add(logDir);
          this.opts.logger.warn({ logDir, error: (error as Error).message }, 'log start offset checkpoint not written; retried later');
        }),
      };
      this.backgroundCheckpoints.set(logDir, checkpoints);
    }
    return checkpoints;
  }

  /** Resolves once the background checkpoint writes requested so far are done (tests; shutdown). */
  async checkpointsWritten(): Promise<void> {
    for (const c of this.backgroundCheckpoints.values()) await Promise.all([c.recoveryPoints.idle(), c.logStartOffsets.idle()]);
  }

  /**
   * An I/O error in `logDir` (ENOSPC, EIO): like Kafka, the whole dir goes offline, since one failed
   * write says the disk can no longer be trusted. Its partitions answer KAFKA_STORAGE_ERROR until the
   * broker restarts (and recovers them); other log dirs keep serving.
   */
  markLogDirOffline(logDir: string, cause: KafkaStorageError): void {
    if (this.offlineDirs.has(logDir)) return;
    this.offlineDirs.set(logDir, cause);
    const logs = this.logsInDir(logDir);
    for (const log of logs) {
      log.markOffline(`log dir ${logDir} is offline (${cause.message})`);
      this.cleaner.abort(log);
    }
    this.opts.logger.error(
      { logDir, partitions: logs.map((l) => `${l.topic}-${l.partition}`), error: cause.message },
      `Log dir ${logDir} is offline after an I/O error; its ${logs.length} partition(s) answer KAFKA_STORAGE_ERROR until restart`,
    );
    if (this.offlineDirs.size === this.opts.logDirs.length) this.opts.onAllLogDirsOffline?.();
  }

  /** The log dirs taken offline, each with the error that did it. */
  get offlineLogDirs(): ReadonlyMap<string, KafkaStorageError> {
    return this.offlineDirs;
  }

  /** The partition's log, loaded now if it was not yet. */
  getLog(topic: string, partition: number): UnifiedLog | undefined {
    const name = logDirName(topic, partition);
    const log = this.logs.get(name);
    if (log) {
      this.lastUsed.set(log, Date.now());
      return log;
    }
    const pending = this.unloaded.get(name);
    return pending ? this.loadUnloaded(pending, true) : undefined;
  }

  /** The partition's log if it is loaded (loads nothing: a log not loaded takes its config when it loads). */
  loadedLog(topic: string, partition: number): UnifiedLog | undefined {
    return this.logs.get(logDirName(topic, partition));
  }

  /** Bytes of every partition of the log dir, loaded or not (DescribeLogDirs, the console). */
  partitionSizes(logDir: string): Array<{ topic: string; partition: number; size: number }> {
    return [
      ...this.logsInDir(logDir).map((l) => ({ topic: l.topic, partition: l.partition, size: l.size })),
      ...this.unloadedInDir(logDir).map((u) => ({ topic: u.topic, partition: u.partition, size: u.summary?.size ?? segmentBytesOnDisk(path.join(logDir, u.name)) })),
    ];
  }

  /** Whether the partition has a log, loaded or not (loads nothing). */
  hasLog(topic: string, partition: number): boolean {
    const name = logDirName(topic, partition);
    return this.logs.has(name) || this.unloaded.has(name);
  }

  /** The log dir holding the partition's log (loaded or not), for its PartitionRecord's directory. */
  logDirOfPartition(topic: string, partition: number): string | undefined {
    const name = logDirName(topic, partition);
    const log = this.logs.get(name);
    return log ? this.logDirOf.get(log) : this.unloaded.get(name)?.logDir;
  }

  /** Whether the partition's log is offline, without loading it. */
  isLogOffline(topic: string, partition: number): boolean {
    const name = logDirName(topic, partition);
    const log = this.logs.get(name);
    if (log) return log.isOffline;
    const pending = this.unloaded.get(name);
    return pending !== undefined && this.offlineDirs.has(pending.logDir);
  }

  /** Whether the background load after start-up is still going. */
  get backgroundLoading(): boolean {
    return this.cancelBackgroundLoad !== null;
  }

  /** Partition logs loaded (in memory, files open on use) and not loaded (only their entry in memory). */
  get logCounts(): { loaded: number; unloaded: number } {
    return { loaded: this.logs.size, unloaded: this.unloaded.size };
  }

  /** The logs loaded now (the others are unchanged since they were last loaded, or since start-up). */
  allLogs(): Iterable<UnifiedLog> {
    return this.logs.values();
  }

  logsInDir(logDir: string): UnifiedLog[] {
    return [...this.logs.values()].filter((l) => this.logDirOf.get(l) === logDir);
  }

  private unloadedInDir(logDir: string): UnloadedLog[] {
    return [...this.unloaded.values()].filter((u) => u.logDir === logDir);
  }

  /** Creates the partition in the log dir holding the fewest partitions (or returns the existing log). */
  createLog(topic: string, partition: number, topicId: string, config: LogConfig): UnifiedLog {
    const name = logDirName(topic, partition);
    const existing = this.getLog(topic, partition);
    if (existing) return existing;
    const online = this.opts.logDirs.filter((d) => !this.offlineDirs.has(d));
    if (online.length === 0) throw new KafkaStorageError(`cannot create ${name}: every log dir is offline`);
    const counts = online.map((d) => ({ d, n: this.partitionCounts.get(d) ?? 0 }));
    const logDir = counts.reduce((a, b) => (b.n < a.n ? b : a)).d;
    const dir = path.join(logDir, name);
    let log: UnifiedLog | undefined;
    try {
      fs.mkdirSync(dir, { recursive: true });
      writePartitionMetadata(dir, topicId);
      log = this.newLog(dir, logDir, topic, partition, topicId, config);
    } catch (err) {
      // Nothing half made stays behind: the directory goes, and the caller learns why (not why removing it failed).
      this.removeFailedDir(dir);
      if (isDescriptorExhaustion(err) || err instanceof TooManyOpenFilesError) {
        const error = err instanceof TooManyOpenFilesError ? err : new TooManyOpenFilesError(`cannot create ${name}: ${(err as Error).message}`, { cause: err });
        this.resourceWarning(error);
        throw error;
      }
      throw err;
    }
    this.logs.set(name, log);
    this.logDirOf.set(log, logDir);
    this.lastUsed.set(log, Date.now());
    this.partitionCounts.set(logDir, (this.partitionCounts.get(logDir) ?? 0) + 1);
    return log;
  }

  /**
   * Creates the partition's log (see createLog) for a topic being created: when unloading is on it is
   * unloaded at once, so that creating 100k partitions leaves nothing but their entries in memory.
   */
  createPartition(topic: string, partition: number, topicId: string, config: LogConfig): void {
    const log = this.createLog(topic, partition, topicId, config);
    this.unload(logDirName(topic, partition), log);
  }

  private newLog(dir: string, logDir: string, topic: string, partition: number, topicId: string, config: LogConfig): UnifiedLog {
    let log: UnifiedLog | undefined;
    log = UnifiedLog.load({
      dir,
      topic,
      partition,
      topicId,
      config,
      logger: this.opts.logger,
      leaderEpoch: this.opts.leaderEpochOf?.(topic, partition),
      recoveryPoint: 0,
      logStartOffset: 0,
      hadCleanShutdown: true,
      onLogStartOffsetChange: () => {
        if (log) this.checkpointsOf(logDir).logStartOffsets.request();
      },
      onStorageError: (err) => this.markLogDirOffline(logDir, err),
      onResourceError: (err) => this.onResourceError(logDir, err),
      checkFreeSpace: (bytes) => this.diskSpace.checkAppend(logDir, bytes),
      onFlushed: this.opts.onFlushed,
      onTransactionMarker: () => this.opts.onTransactionMarker?.(topic, partition),
      commitRound: this.commitRoundFor(logDir, dir),
    });
    return log;
  }

  /**
   * Renames the partition dir to `<topic>-<p>.<uuid>-delete` now and removes it after
   * file.delete.delay.ms (as Kafka does), so FileSlices of in-flight fetches stay valid until then.
   */
  async deleteLog(topic: string, partition: number): Promise<void> {
    const name = logDirName(topic, partition);
    const pending = this.unloaded.get(name);
    if (pending) {
      // Not loaded (never, or not for kafkite.log.unload.idle.ms): nothing is reading it, so it goes at once.
      this.unloaded.delete(name);
      this.partitionCounts.set(pending.logDir, (this.partitionCounts.get(pending.logDir) ?? 1) - 1);
      const renamed = path.join(pending.logDir, `${name}.${crypto.randomUUID().replaceAll('-', '')}${DELETE_DIR_SUFFIX}`);
      fs.renameSync(path.join(pending.logDir, name), renamed);
      fs.rmSync(renamed, { recursive: true, force: true });
      return;
    }
    const log = this.logs.get(name);
    if (!log) return;
    const logDir = this.logDirOf.get(log)!;
    this.logs.delete(name);
    this.logDirOf.delete(log);
    this.lastUsed.delete(log);
    this.partitionCounts.set(logDir, (this.partitionCounts.get(logDir) ?? 1) - 1);
    this.cleaner.abort(log);
    const renamed = path.join(logDir, `${name}.${crypto.randomUUID().replaceAll('-', '')}${DELETE_DIR_SUFFIX}`);
    fs.renameSync(log.dir, renamed);
    const checkpoints = this.checkpointsOf(logDir);
    checkpoints.recoveryPoints.request();
    checkpoints.logStartOffsets.request();
    const remove = () => {
      this.pendingDirDeletes.delete(remove);
      log.closeAndDelete();
      fs.rmSync(renamed, { recursive: true, force: true });
    };
    this.pendingDirDeletes.set(remove, setTimeout(remove, log.config.fileDeleteDelayMs).unref());
  }

  /**
   * Runs `fn` (creating logs) with one filesystem sync at the end instead of fsyncs per file: the files
   * of every log it made are durable when it returns, so the caller can then commit the topic. Blocks
   * the event loop meanwhile: for the coordinators' internal topics; requests use creatingLogsAsync.
   */
  creatingLogs<T>(fn: () => T): T {
    try {
      return syncingOnce(this.opts.logDirs, fn);
    } catch (err) {
      throw this.creationError(err);
    }
  }

  /** creatingLogs with the sync on the libuv pool: `fn` runs now, the promise settles once its files are durable. */
  async creatingLogsAsync<T>(fn: () => T): Promise<T> {
    try {
      return await syncingOnceAsync(this.opts.logDirs, fn);
    } catch (err) {
      throw this.creationError(err);
    }
  }

  /** Out of descriptors while syncing what was made, not only while making it: the same retriable error and warning. */
  private creationError(err: unknown): unknown {
    if (!isDescriptorExhaustion(err) || err instanceof TooManyOpenFilesError) return err;
    const error = new TooManyOpenFilesError((err as Error).message, { cause: err });
    this.resourceWarning(error);
    return error;
  }

  /** Removes a log made moments ago whose topic creation failed: closed and deleted at once. */
  abandonLog(topic: string, partition: number): void {
    const name = logDirName(topic, partition);
    const unloaded = this.unloaded.get(name);
    if (unloaded) {
      this.unloaded.delete(name);
      this.partitionCounts.set(unloaded.logDir, (this.partitionCounts.get(unloaded.logDir) ?? 1) - 1);
      this.removeFailedDir(path.join(unloaded.logDir, name));
      return;
    }
    const log = this.logs.get(name);
    if (!log) return;
    const logDir = this.logDirOf.get(log)!;
    this.logs.delete(name);
    this.logDirOf.delete(log);
    this.lastUsed.delete(log);
    this.partitionCounts.set(logDir, (this.partitionCounts.get(logDir) ?? 1) - 1);
    try {
      log.closeAndDelete();
    } catch {
      // Removed with its directory below.
    }
    this.removeFailedDir(log.dir);
  }

  /** Removes a partition dir whose creation failed, on the spare descriptor when none is left (what made it fail, often). */
  private removeFailedDir(dir: string): void {
    const remove = () => fs.rmSync(dir, { recursive: true, force: true });
    try {
      try {
        remove();
      } catch {
        descriptorReserve.spend(remove);
      }
    } catch (err) {
      // What stays is not in the registry, so the next start removes it.
      this.opts.logger.warn({ dir, error: (err as Error).message }, 'cannot remove the partition dir of a failed topic creation');
    }
  }

  // ---- background tasks ----

  startup(): void {
    const { logger } = this.opts;
    const every = (ms: number, task: () => void | Promise<void>) => {
      const timer = setInterval(() => {
        Promise.resolve()
          .then(task)
          .catch((err) => logger.error({ err }, `log manager task failed: ${(err as Error).message}`));
      }, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.opts.retentionCheckIntervalMs, () => {
      this.cleanupLogs(Date.now());
    });
    every(this.opts.flushSchedulerIntervalMs ?? 1000, () => this.flushDirtyLogs(Date.now()));
    const expirationMs = this.opts.producerIdExpirationMs;
    if (expirationMs) every(this.opts.producerIdExpirationCheckIntervalMs ?? 600_000, () => this.removeExpiredProducers(Date.now(), expirationMs()));
    every(RECOVERY_POINT_CHECKPOINT_INTERVAL_MS, () => {
      for (const d of this.opts.logDirs) this.checkpointsOf(d).recoveryPoints.request();
    });
    every(Math.min(this.opts.retentionCheckIntervalMs, 10_000), () => {
      for (const d of [...this.staleStartOffsetCheckpoints]) this.checkpointsOf(d).logStartOffsets.request();
    });
    const idleMs = this.opts.unloadIdleMs ?? -1;
    if (idleMs >= 0) every(Math.min(Math.max(idleMs, 100), 30_000), () => void this.unloadIdleLogs(Date.now()));
    this.diskSpace.start();
    if (this.opts.cleanerEnable ?? true) this.cleaner.startup(() => this.allLogs());
    this.loadInBackground();
  }

  /**
   * Retention: deletes expired segments of every log. An unloaded log is loaded only when its summary
   * says retention would delete a segment (or its topic became compacted, for the cleaner). Returns
   * the number of segments deleted.
   */
  cleanupLogs(now: number): number {
    const configs = new Map<string, LogConfig>();
    for (const pending of [...this.unloaded.values()]) {
      if (pending.summary === null || this.offlineDirs.has(pending.logDir)) continue;
      let config = configs.get(pending.topic);
      if (config === undefined) configs.set(pending.topic, (config = this.opts.configFor(pending.topic)));
      if (needsLoading(pending.summary, pending.logStartOffset, config, now)) this.loadUnloaded(pending, false);
    }
    let deleted = 0;
    for (const log of this.logs.values()) {
      if (log.isOffline || this.cleaner.isCleaning(log)) continue;
      deleted += log.deleteOldSegments(now);
    }
    return deleted;
  }

  /** producer.id.expiration.ms over the loaded logs (one loaded later is checked at the next round). */
  removeExpiredProducers(now: number, expirationMs: number): void {
    let removed = 0;
    for (const log of this.logs.values()) if (!log.isOffline) removed += log.removeExpiredProducers(now, expirationMs);
    if (removed > 0) this.opts.logger.debug({ removed, expirationMs }, 'expired idle producer ids');
  }

  private async flushDirtyLogs(now: number): Promise<void> {
    const due: Promise<void>[] = [];
    for (const log of this.logs.values()) if (log.hasUnflushedData) due.push(log.flushIfDue(now));
    await Promise.all(due);
  }

  /** Logs not loaded yet keep the offsets they were checkpointed with. */
  private recoveryPointsText(logDir: string): string {
    return OffsetCheckpointFile.format([
      ...this.logsInDir(logDir).map((l) => ({ topic: l.topic, partition: l.partition, offset: l.recoveryPoint })),
      ...this.unloadedInDir(logDir).map((u) => ({ topic: u.topic, partition: u.partition, offset: u.recoveryPoint })),
    ]);
  }

  /** Kafka only lists logs whose start offset is above their first segment's base; listing all is equivalent. */
  private logStartOffsetsText(logDir: string): string {
    return OffsetCheckpointFile.format([
      ...this.logsInDir(logDir).map((l) => ({ topic: l.topic, partition: l.partition, offset: l.logStartOffset })),
      ...this.unloadedInDir(logDir).map((u) => ({ topic: u.topic, partition: u.partition, offset: u.logStartOffset })),
    ]);
  }

  /** Stops the tasks, flushes and closes every log, writes the checkpoints and the clean-shutdown marker. */
  async shutdown(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    this.cancelBackgroundLoad?.();
    this.cancelBackgroundLoad = null;
    this.diskSpace.stop();
    await this.cleaner.shutdown();
    for (const [remove, timer] of this.pendingDirDeletes) {
      clearTimeout(timer);
      remove();
    }
    // One at a time: a flush pins its file in the descriptor cache, and closing takes little time per log.
    const unclean = new Set<string>();
    for (const log of this.logs.values()) {
      try {
        await log.close();
      } catch (err) {
        unclean.add(this.logDirOf.get(log)!);
        this.opts.logger.warn({ topic: log.topic, partition: log.partition, error: (err as Error).message }, 'log not closed cleanly; it is recovered at the next start');
      }
    }
    // A background write still running must not land after (and over) the final ones below.
    await this.checkpointsWritten();
    // An offline dir gets no checkpoints and no clean-shutdown marker: the next start recovers it. So
    // does a dir where closing a log or writing a checkpoint failed (a full disk).
    for (const logDir of this.opts.logDirs.filter((d) => !this.offlineDirs.has(d))) {
      try {
        writeFileAtomically(path.join(logDir, RECOVERY_POINT_CHECKPOINT_FILE), this.recoveryPointsText(logDir));
        writeFileAtomically(path.join(logDir, LOG_START_OFFSET_CHECKPOINT_FILE), this.logStartOffsetsText(logDir));
        // Logs never loaded after an unclean start were never recovered: the next start must still recover them.
        const unrecovered = this.unloadedInDir(logDir).some((u) => !u.clean);
        if (!unrecovered && !unclean.has(logDir)) writeFileAtomically(path.join(logDir, CLEAN_SHUTDOWN_FILE), JSON.stringify({ version: 0, brokerEpoch: -1 }));
      } catch (err) {
        this.opts.logger.warn({ logDir, error: (err as Error).message }, 'checkpoints not written at shutdown; the log dir is recovered at the next start');
      }
    }
    for (const { commit } of this.groupCommits.values()) commit.close();
  }
}

/** Whether retention would delete a segment of an unloaded log (UnifiedLog.deleteOldSegments' tests), or the cleaner needs it. */
function needsLoading(summary: RetentionSummary, logStartOffset: number, config: LogConfig, now: number): boolean {
  if (config.cleanupPolicy.includes('compact')) return true;
  if (summary.secondSegmentBase <= logStartOffset) return true;
  if (!config.cleanupPolicy.includes('delete') || summary.size === 0) return false;
  if (config.retentionMs >= 0 && now - summary.firstSegmentLargestTimestamp > config.retentionMs) return true;
  return config.retentionBytes >= 0 && summary.size - config.retentionBytes >= summary.firstSegmentSize;
}

/** The bytes of a partition directory's .log files (for one never loaded). */
function segmentBytesOnDisk(dir: string): number {
  let bytes = 0;
  try {
    for (const f of fs.readdirSync(dir)) if (f.endsWith(LOG_FILE_SUFFIX)) bytes += fs.statSync(path.join(dir, f)).size;
  } catch {
    // Gone meanwhile: nothing to count.
  }
  return bytes;
}
