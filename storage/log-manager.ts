// Every partition log of every log dir (Kafka's LogManager): loading with recovery at start-up,
// creation and deletion, checkpoints, and the background tasks (retention, flush, cleaner).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { OffsetCheckpointFile, writeFileAtomically } from './checkpoint-file.js';
import type { LogConfig } from './log-config.js';
import { LogCleaner } from './log-cleaner.js';
import {
  CLEANER_OFFSET_CHECKPOINT_FILE,
  CLEAN_SHUTDOWN_FILE,
  DELETE_DIR_SUFFIX,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  META_PROPERTIES_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE,
  logDirName,
  parseLogDirName,
} from './log-file-names.js';
import { KafkaStorageError } from './errors.js';
import { ensureMetaProperties, readPartitionMetadata, writePartitionMetadata } from './meta-properties.js';
import { UnifiedLog } from './unified-log.js';

/** Kafka's log.flush.offset.checkpoint.interval.ms default. */
const RECOVERY_POINT_CHECKPOINT_INTERVAL_MS = 60_000;

export interface LogManagerOptions {
  logDirs: readonly string[];
  logger: Logger;
  clusterId: string;
  nodeId: number;
  configFor(topic: string): LogConfig;
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
}

export class LogManager {
  private readonly logs = new Map<string, UnifiedLog>();
  private readonly logDirOf = new Map<UnifiedLog, string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly pendingDirDeletes = new Map<() => void, NodeJS.Timeout>();
  /** Log dirs taken offline by an I/O error, with the error (Kafka's offline log dirs). */
  private readonly offlineDirs = new Map<string, KafkaStorageError>();
  readonly cleaner: LogCleaner;

  private constructor(private readonly opts: LogManagerOptions) {
    this.cleaner = new LogCleaner({
      logger: opts.logger,
      backoffMs: opts.cleanerBackoffMs ?? 15_000,
      checkpointFor: (log) => new OffsetCheckpointFile(path.join(this.logDirOf.get(log)!, CLEANER_OFFSET_CHECKPOINT_FILE)),
      logsIn: (log) => this.logsInDir(this.logDirOf.get(log)!),
    });
  }

  /** Loads and recovers every partition directory of every log dir. */
  static async open(opts: LogManagerOptions): Promise<LogManager> {
    const manager = new LogManager(opts);
    for (const dir of opts.logDirs) manager.loadLogDir(dir);
    return manager;
  }

  private loadLogDir(logDir: string): void {
    fs.mkdirSync(logDir, { recursive: true });
    const metaFile = path.join(logDir, META_PROPERTIES_FILE);
    if (!fs.existsSync(metaFile) && fs.readdirSync(logDir).some((name) => parseLogDirName(name) !== null)) {
      this.opts.logger.warn(`${metaFile} is missing in a log dir holding partitions; writing a new one for cluster ${this.opts.clusterId}`);
    }
    ensureMetaProperties(logDir, this.opts.clusterId, this.opts.nodeId);
    const marker = path.join(logDir, CLEAN_SHUTDOWN_FILE);
    const hadCleanShutdown = fs.existsSync(marker);
    const recoveryPoints = this.readCheckpoint(path.join(logDir, RECOVERY_POINT_CHECKPOINT_FILE));
    const logStartOffsets = this.readCheckpoint(path.join(logDir, LOG_START_OFFSET_CHECKPOINT_FILE));
    const started = Date.now();
    for (const entry of fs.readdirSync(logDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const full = path.join(logDir, entry.name);
      if (entry.name.endsWith(DELETE_DIR_SUFFIX)) {
        fs.rmSync(full, { recursive: true, force: true });
        continue;
      }
      const parsed = parseLogDirName(entry.name);
      if (parsed === null) continue;
      try {
        const log = this.loadLog(full, parsed.topic, parsed.partition, readPartitionMetadata(full) ?? '0'.repeat(32), {
          recoveryPoint: recoveryPoints.get(entry.name) ?? 0,
          logStartOffset: logStartOffsets.get(entry.name) ?? 0,
          hadCleanShutdown,
        });
        this.logs.set(entry.name, log);
        this.logDirOf.set(log, logDir);
      } catch (err) {
        // One damaged partition must not keep the broker from starting.
        this.opts.logger.error({ err }, `Cannot load ${full}: ${(err as Error).message}`);
      }
    }
    fs.rmSync(marker, { force: true });
    this.opts.logger.info(`Loaded ${this.logsInDir(logDir).length} logs from ${logDir} in ${Date.now() - started} ms${hadCleanShutdown ? '' : ' (with recovery)'}`);
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
      ...state,
      onLogStartOffsetChange: () => {
        if (log) this.checkpointLogStartOffsets(this.logDirOf.get(log)!);
      },
      onStorageError: (err) => {
        if (log) this.markLogDirOffline(this.logDirOf.get(log)!, err);
      },
      onFlushed: this.opts.onFlushed,
      onTransactionMarker: () => this.opts.onTransactionMarker?.(topic, partition),
    });
    return log;
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

  getLog(topic: string, partition: number): UnifiedLog | undefined {
    return this.logs.get(logDirName(topic, partition));
  }

  allLogs(): Iterable<UnifiedLog> {
    return this.logs.values();
  }

  logsInDir(logDir: string): UnifiedLog[] {
    return [...this.logs.values()].filter((l) => this.logDirOf.get(l) === logDir);
  }

  /** Creates the partition in the log dir holding the fewest partitions (or returns the existing log). */
  createLog(topic: string, partition: number, topicId: string, config: LogConfig): UnifiedLog {
    const name = logDirName(topic, partition);
    const existing = this.logs.get(name);
    if (existing) return existing;
    const online = this.opts.logDirs.filter((d) => !this.offlineDirs.has(d));
    if (online.length === 0) throw new KafkaStorageError(`cannot create ${name}: every log dir is offline`);
    const counts = online.map((d) => ({ d, n: this.logsInDir(d).length }));
    const logDir = counts.reduce((a, b) => (b.n < a.n ? b : a)).d;
    const dir = path.join(logDir, name);
    fs.mkdirSync(dir, { recursive: true });
    writePartitionMetadata(dir, topicId);
    let log: UnifiedLog | undefined;
    log = UnifiedLog.load({
      dir,
      topic,
      partition,
      topicId,
      config,
      logger: this.opts.logger,
      recoveryPoint: 0,
      logStartOffset: 0,
      hadCleanShutdown: true,
      onLogStartOffsetChange: () => {
        if (log) this.checkpointLogStartOffsets(logDir);
      },
      onStorageError: (err) => this.markLogDirOffline(logDir, err),
      onFlushed: this.opts.onFlushed,
      onTransactionMarker: () => this.opts.onTransactionMarker?.(topic, partition),
    });
    this.logs.set(name, log);
    this.logDirOf.set(log, logDir);
    return log;
  }

  /**
   * Renames the partition dir to `<topic>-<p>.<uuid>-delete` now and removes it after
   * file.delete.delay.ms (as Kafka does), so FileSlices of in-flight fetches stay valid until then.
   */
  async deleteLog(topic: string, partition: number): Promise<void> {
    const name = logDirName(topic, partition);
    const log = this.logs.get(name);
    if (!log) return;
    const logDir = this.logDirOf.get(log)!;
    this.logs.delete(name);
    this.logDirOf.delete(log);
    this.cleaner.abort(log);
    const renamed = path.join(logDir, `${name}.${crypto.randomUUID().replaceAll('-', '')}${DELETE_DIR_SUFFIX}`);
    fs.renameSync(log.dir, renamed);
    this.checkpointRecoveryPoints(logDir);
    this.checkpointLogStartOffsets(logDir);
    const remove = () => {
      this.pendingDirDeletes.delete(remove);
      log.closeAndDelete();
      fs.rmSync(renamed, { recursive: true, force: true });
    };
    this.pendingDirDeletes.set(remove, setTimeout(remove, log.config.fileDeleteDelayMs).unref());
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
    every(RECOVERY_POINT_CHECKPOINT_INTERVAL_MS, () => {
      for (const d of this.opts.logDirs) this.checkpointRecoveryPoints(d);
    });
    if (this.opts.cleanerEnable ?? true) this.cleaner.startup(() => this.allLogs());
  }

  /** Retention: deletes expired segments of every log. Returns the number of segments deleted. */
  cleanupLogs(now: number): number {
    let deleted = 0;
    for (const log of this.logs.values()) {
      if (log.isOffline || this.cleaner.isCleaning(log)) continue;
      deleted += log.deleteOldSegments(now);
    }
    return deleted;
  }

  private async flushDirtyLogs(now: number): Promise<void> {
    await Promise.all([...this.logs.values()].map((log) => log.flushIfDue(now)));
  }

  private checkpointRecoveryPoints(logDir: string): void {
    if (this.offlineDirs.has(logDir)) return;
    new OffsetCheckpointFile(path.join(logDir, RECOVERY_POINT_CHECKPOINT_FILE)).write(
      this.logsInDir(logDir).map((l) => ({ topic: l.topic, partition: l.partition, offset: l.recoveryPoint })),
    );
  }

  private checkpointLogStartOffsets(logDir: string): void {
    if (this.offlineDirs.has(logDir)) return;
    // Kafka only lists logs whose start offset is above their first segment's base; listing all is equivalent.
    new OffsetCheckpointFile(path.join(logDir, LOG_START_OFFSET_CHECKPOINT_FILE)).write(
      this.logsInDir(logDir).map((l) => ({ topic: l.topic, partition: l.partition, offset: l.logStartOffset })),
    );
  }

  /** Stops the tasks, flushes and closes every log, writes the checkpoints and the clean-shutdown marker. */
  async shutdown(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    await this.cleaner.shutdown();
    for (const [remove, timer] of this.pendingDirDeletes) {
      clearTimeout(timer);
      remove();
    }
    await Promise.all([...this.logs.values()].map((l) => l.close()));
    // An offline dir gets no checkpoints and no clean-shutdown marker: the next start recovers it.
    for (const logDir of this.opts.logDirs.filter((d) => !this.offlineDirs.has(d))) {
      this.checkpointRecoveryPoints(logDir);
      this.checkpointLogStartOffsets(logDir);
      writeFileAtomically(path.join(logDir, CLEAN_SHUTDOWN_FILE), JSON.stringify({ version: 0, brokerEpoch: -1 }));
    }
  }
}
