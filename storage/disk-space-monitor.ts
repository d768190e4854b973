// kafkite.storage.min.free.bytes: below that much free space on a log dir's filesystem, client appends
// are refused with a retriable DiskFullError, so the disk never fills up and everything else (reads,
// DeleteRecords, topic deletion, retention, compaction) keeps working. Kafka has no such guard (a full
// disk takes the log dir offline); this follows Redpanda's storage_min_free_bytes.
// Checked as writes happen (free space is counted down by the bytes appended, and measured again with
// statfs when it gets near the threshold or the dir is full) and on a timer, so writes resume by
// themselves once space is freed.
import fs from 'node:fs';
import type { Logger } from 'pino';
import { DiskFullError } from './errors.js';

export type MinFreeSpace = { bytes: number } | { percent: number };

export interface DiskSpaceStatus {
  logDir: string;
  freeBytes: number;
  totalBytes: number;
  thresholdBytes: number;
  full: boolean;
}

interface DirState extends DiskSpaceStatus {
  /** Free bytes counted down by appends since the last statfs. */
  estimate: number;
  /** Free bytes when a write failed with ENOSPC: the dir counts as full until clearly more is free. */
  freeAtEnospc: number | null;
}

/** An ENOSPC is cleared once this much more than at the failure is free (if the threshold is lower). */
const ENOSPC_HYSTERESIS_BYTES = 1 << 20;

export class DiskSpaceMonitor {
  private readonly dirs = new Map<string, DirState>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    logDirs: readonly string[],
    private readonly minFree: MinFreeSpace,
    private readonly logger: Logger,
    private readonly intervalMs = 1000,
  ) {
    for (const logDir of logDirs) {
      const state: DirState = { logDir, freeBytes: 0, totalBytes: 0, thresholdBytes: 0, full: false, estimate: 0, freeAtEnospc: null };
      this.dirs.set(logDir, state);
      this.measure(state);
    }
  }

  private get enabled(): boolean {
    return 'bytes' in this.minFree ? this.minFree.bytes > 0 : this.minFree.percent > 0;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      for (const state of this.dirs.values()) this.measure(state);
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Throws DiskFullError when `logDir` is short of space for an append of `bytes`. */
  checkAppend(logDir: string, bytes: number): void {
    const state = this.dirs.get(logDir);
    if (!state || (!this.enabled && state.freeAtEnospc === null)) return;
    state.estimate -= bytes;
    if (state.full || state.estimate < state.thresholdBytes) this.measure(state);
    if (state.full) throw new DiskFullError(this.describe(state));
  }

  /** A write failed with ENOSPC/EDQUOT (the threshold did not prevent it, or is off). */
  reportDiskFull(logDir: string): void {
    const state = this.dirs.get(logDir);
    if (!state) return;
    this.measure(state);
    state.freeAtEnospc = state.freeBytes;
    this.update(state);
  }

  /** Every log dir's last measurement. */
  status(): DiskSpaceStatus[] {
    return [...this.dirs.values()].map(({ logDir, freeBytes, totalBytes, thresholdBytes, full }) => ({ logDir, freeBytes, totalBytes, thresholdBytes, full }));
  }

  get fullLogDirs(): string[] {
    return [...this.dirs.values()].filter((s) => s.full).map((s) => s.logDir);
  }

  private measure(state: DirState): void {
    let stats: fs.StatsFs;
    try {
      stats = fs.statfsSync(state.logDir);
    } catch {
      return; // An unreadable dir is the I/O error handling's business; keep the last figures.
    }
    state.totalBytes = stats.blocks * stats.bsize;
    state.freeBytes = stats.bavail * stats.bsize;
    state.estimate = state.freeBytes;
    state.thresholdBytes = 'bytes' in this.minFree ? this.minFree.bytes : Math.ceil((state.totalBytes * this.minFree.percent) / 100);
    this.update(state);
  }

  private update(state: DirState): void {
    if (state.freeAtEnospc !== null && state.freeBytes >= Math.max(state.thresholdBytes, state.freeAtEnospc + ENOSPC_HYSTERESIS_BYTES)) {
      state.freeAtEnospc = null;
    }
    const full = (this.enabled && state.freeBytes < state.thresholdBytes) || state.freeAtEnospc !== null;
    if (full === state.full) return;
    state.full = full;
    const fields = { logDir: state.logDir, freeBytes: state.freeBytes, totalBytes: state.totalBytes, minFreeBytes: state.thresholdBytes };
    if (full) this.logger.warn(fields, `${this.describe(state)}`);
    else this.logger.info(fields, `Log dir ${state.logDir} has ${mib(state.freeBytes)} free again: produce requests are accepted`);
  }

  private describe(state: DirState): string {
    return (
      `The disk is full: log dir ${state.logDir} has ${mib(state.freeBytes)} free, ` +
      (state.freeAtEnospc !== null ? 'and a write failed with ENOSPC' : `below kafkite.storage.min.free.bytes (${mib(state.thresholdBytes)})`) +
      '; produce requests are refused until space is freed (retention, DeleteRecords, DeleteTopics), reads go on'
    );
  }
}

function mib(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}
