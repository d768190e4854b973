// Log compaction (Kafka's LogCleaner): rewrites the closed segments of compacted logs keeping the
// latest record per key. Offsets are kept (gaps are fine); batches are decoded and re-encoded with
// their own compression only when they lose records. Records of aborted transactions go; transaction
// markers stay until no batch of their transaction is left and their delete horizon (KIP-534,
// delete.retention.ms after the cleaner first found them removable) has passed. Kafka cleans on its own threads; here the work
// runs on the main thread in slices, yielding to the event loop so requests are served meanwhile.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import { decodeBatch, encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { BatchHeader, batchesIn } from '../protocol/records/batch-header.js';
import { ABORT_CONTROL_TYPE, COMMIT_CONTROL_TYPE, controlTypeOf } from '../protocol/records/end-txn-marker.js';
import { CleanedTransactionMetadata } from './cleaned-transaction-metadata.js';
import type { OffsetCheckpointFile } from './checkpoint-file.js';
import { CLEANED_FILE_SUFFIX, logDirName } from './log-file-names.js';
import { LogSegment } from './log-segment.js';
import { segmentConfigOf, type UnifiedLog } from './unified-log.js';

export interface LogCleanerOptions {
  logger: Logger;
  backoffMs: number;
  /** The cleaner-offset-checkpoint of the log dir holding `log`. */
  checkpointFor(log: UnifiedLog): OffsetCheckpointFile;
  /** Every log of the log dir holding `log` (the checkpoint lists them all). */
  logsIn(log: UnifiedLog): UnifiedLog[];
}

export interface CleanResult {
  segments: number;
  bytesBefore: number;
  bytesAfter: number;
  /** The first offset not yet cleaned (checkpointed). */
  firstDirtyOffset: number;
}

/** Bytes of log read between two yields to the event loop (about a millisecond of work). */
const BYTES_PER_SLICE = 1 << 20;

/** The log was deleted, or a segment being cleaned was removed by retention: the pass is dropped. */
class CleaningAbandoned extends Error {
  override name = 'CleaningAbandoned';
}

/** Segments of one log that a cleaning pass covers. */
interface Cleanable {
  segments: LogSegment[];
  firstDirtyOffset: number;
  endOffset: number;
  dirtyRatio: number;
}

export class LogCleaner {
  private timer: NodeJS.Timeout | null = null;
  private cleaning: UnifiedLog | null = null;
  /** The pass in progress, awaited at shutdown. */
  private pass: Promise<CleanResult | null> | null = null;
  private stopping = false;
  private readonly aborted = new Set<UnifiedLog>();

  constructor(private readonly opts: LogCleanerOptions) {}

  startup(logs: () => Iterable<UnifiedLog>): void {
    this.timer = setInterval(() => {
      this.cleanFilthiestLog(logs(), Date.now()).catch((err: Error) => this.opts.logger.error({ err }, `log cleaner failed: ${err.message}`));
    }, this.opts.backoffMs);
    this.timer.unref();
  }

  /** Stops cleaning: the pass in progress ends at its next slice, before the logs are closed. */
  async shutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping = true;
    await this.pass?.catch(() => null);
  }

  isCleaning(log: UnifiedLog): boolean {
    return this.cleaning === log;
  }

  /** The log is being deleted: never clean it again. */
  abort(log: UnifiedLog): void {
    this.aborted.add(log);
  }

  /** Cleans the compacted log with the highest dirty ratio at or above its min.cleanable.dirty.ratio. */
  cleanFilthiestLog(logs: Iterable<UnifiedLog>, now: number): Promise<CleanResult | null> {
    if (this.pass !== null || this.stopping) return Promise.resolve(null);
    let best: { log: UnifiedLog; cleanable: Cleanable } | null = null;
    for (const log of logs) {
      if (this.aborted.has(log)) continue;
      const cleanable = this.cleanableSegments(log, now);
      if (cleanable === null) continue;
      const overdue = this.maxCompactionLagExceeded(log, cleanable, now);
      if (cleanable.dirtyRatio < log.config.minCleanableDirtyRatio && !overdue) continue;
      if (best === null || cleanable.dirtyRatio > best.cleanable.dirtyRatio) best = { log, cleanable };
    }
    return best ? this.startPass(best.log, best.cleanable, now) : Promise.resolve(null);
  }

  /** Cleans one log now, whatever its dirty ratio (tests, and a forced compaction). */
  cleanLog(log: UnifiedLog, now: number): Promise<CleanResult | null> {
    const cleanable = this.cleanableSegments(log, now);
    return cleanable ? this.startPass(log, cleanable, now) : Promise.resolve(null);
  }

  private startPass(log: UnifiedLog, c: Cleanable, now: number): Promise<CleanResult | null> {
    this.cleaning = log;
    const pass = this.clean(log, c, now).catch((err: unknown) => {
      // A read can also fail outright when the log or a segment went away during a yield.
      const gone = this.aborted.has(log) || c.segments.some((s) => !log.segments.values().includes(s));
      if (err instanceof CleaningAbandoned || gone) return null;
      throw err;
    });
    this.pass = pass.finally(() => {
      this.cleaning = null;
      this.pass = null;
    });
    return this.pass;
  }

  /** Between slices of work: gives the event loop a turn, then checks the pass may go on. */
  private async nextSlice(log: UnifiedLog): Promise<void> {
    await yieldToEventLoop();
    if (this.stopping || this.aborted.has(log) || log.isOffline) throw new CleaningAbandoned();
  }

  private maxCompactionLagExceeded(log: UnifiedLog, c: Cleanable, now: number): boolean {
    const firstDirty = c.segments.find((s) => s.baseOffset >= c.firstDirtyOffset);
    return firstDirty !== undefined && now - firstDirty.largestTimestamp > log.config.maxCompactionLagMs;
  }

  /**
   * The closed segments that may be cleaned: below the active segment, the first open transaction,
   * and any segment younger than min.compaction.lag.ms. Null when nothing is dirty.
   */
  private cleanableSegments(log: UnifiedLog, now: number): Cleanable | null {
    if (!log.config.cleanupPolicy.includes('compact')) return null;
    let firstUncleanable = log.segments.activeSegment.baseOffset;
    const unstable = log.producerStateManager.firstUnstableOffset();
    if (unstable !== null) firstUncleanable = Math.min(firstUncleanable, unstable);
    const all = log.segments.values();
    const segments: LogSegment[] = [];
    for (let i = 0; i + 1 < all.length; i++) {
      const segment = all[i];
      const end = all[i + 1].baseOffset;
      if (end > firstUncleanable) break;
      if (now - segment.largestTimestamp < log.config.minCompactionLagMs) break;
      segments.push(segment);
    }
    if (segments.length === 0) return null;
    const endOffset = log.segments.higherSegment(segments[segments.length - 1].baseOffset)!.baseOffset;
    const checkpointed = this.opts.checkpointFor(log).read().get(logDirName(log.topic, log.partition)) ?? 0;
    const firstDirtyOffset = Math.max(checkpointed, log.logStartOffset);
    if (firstDirtyOffset >= endOffset) return null;
    let dirty = 0;
    let total = 0;
    for (const s of segments) {
      total += s.size;
      if (s.baseOffset >= firstDirtyOffset || log.segments.higherSegment(s.baseOffset)!.baseOffset > firstDirtyOffset) dirty += s.size;
    }
    return { segments, firstDirtyOffset, endOffset, dirtyRatio: total === 0 ? 0 : dirty / total };
  }

  private async clean(log: UnifiedLog, c: Cleanable, now: number): Promise<CleanResult> {
    const abortedTxns = log.collectAbortedTransactions(c.segments[0].baseOffset, c.endOffset);
    const latest = await this.buildOffsetMap(log, c, new CleanedTransactionMetadata(abortedTxns));
    const pass: CleaningPass = { now, txns: new CleanedTransactionMetadata(abortedTxns), lastOfProducers: lastRecordsOfActiveProducers(log) };
    let bytesBefore = 0;
    let bytesAfter = 0;
    for (const segment of c.segments) {
      bytesBefore += segment.size;
      const cleaned = await this.cleanSegment(log, segment, latest, pass);
      // Retention or DeleteRecords may have removed the segment while this pass yielded.
      if (!log.segments.values().includes(segment)) {
        cleaned.deleteFiles();
        throw new CleaningAbandoned();
      }
      bytesAfter += cleaned.size;
      log.replaceSegments(cleaned, [segment]);
    }
    this.checkpoint(log, c.endOffset);
    this.opts.logger.info(
      { topic: log.topic, partition: log.partition, fromOffset: c.segments[0].baseOffset, toOffset: c.endOffset, bytesBefore, bytesAfter },
      'log cleaned',
    );
    return { segments: c.segments.length, bytesBefore, bytesAfter, firstDirtyOffset: c.endOffset };
  }

  /** Key → offset of its latest record in the dirty part (Kafka's OffsetMap); aborted records do not count. */
  private async buildOffsetMap(log: UnifiedLog, c: Cleanable, txns: CleanedTransactionMetadata): Promise<Map<string, number>> {
    const latest = new Map<string, number>();
    let sliceBytes = 0;
    for (const segment of c.segments) {
      const next = c.segments[c.segments.indexOf(segment) + 1];
      if ((next?.baseOffset ?? c.endOffset) <= c.firstDirtyOffset) continue;
      for (const batch of batchesOf(segment)) {
        if ((sliceBytes += batch.buf.length) > BYTES_PER_SLICE) {
          sliceBytes = 0;
          await this.nextSlice(log);
        }
        if (batch.header.isControl) {
          txns.onControlBatchRead(batch.header, controlTypeOfBatch(batch.buf));
          continue;
        }
        if (txns.onBatchRead(batch.header)) continue;
        for (const r of decodeBatch(batch.buf).records) {
          if (r.key !== null && r.offset >= c.firstDirtyOffset) latest.set(r.key.toString('latin1'), r.offset);
        }
      }
    }
    return latest;
  }

  private async cleanSegment(log: UnifiedLog, segment: LogSegment, latest: Map<string, number>, pass: CleaningPass): Promise<LogSegment> {
    const cleaned = LogSegment.create(log.dir, segment.baseOffset, segmentConfigOf(log.config), this.opts.logger, CLEANED_FILE_SUFFIX);
    try {
      await this.copyRetained(log, segment, cleaned, latest, pass);
    } catch (err) {
      cleaned.deleteFiles();
      throw err;
    }
    return cleaned;
  }

  private async copyRetained(log: UnifiedLog, segment: LogSegment, cleaned: LogSegment, latest: Map<string, number>, pass: CleaningPass): Promise<void> {
    cleaned.openForAppend();
    const retainedBefore = pass.txns.retainedAbortedTxns.length;
    let sliceBytes = 0;
    for (const { header, buf } of batchesOf(segment)) {
      if ((sliceBytes += buf.length) > BYTES_PER_SLICE) {
        sliceBytes = 0;
        await this.nextSlice(log);
      }
      const out = header.isControl ? filterControlBatch(header, buf, pass, log.config.deleteRetentionMs) : filterDataBatch(header, buf, latest, pass, pass.now - log.config.deleteRetentionMs);
      if (out === null) continue;
      const h = new BatchHeader(out, 0);
      cleaned.append(out, [{ offsetInBuffer: 0, size: out.length, baseOffset: h.baseOffset, lastOffset: h.lastOffset, maxTimestamp: h.maxTimestamp }]);
    }
    cleaned.onBecomeInactiveSegment();
    cleaned.log.flushSync();
    // Kafka's CleanedTransactionMetadata.cleanedIndex: the aborted transactions whose marker stayed.
    cleaned.txnIndex.writeAllSync(pass.txns.retainedAbortedTxns.slice(retainedBefore));
  }

  private checkpoint(log: UnifiedLog, firstDirtyOffset: number): void {
    const file = this.opts.checkpointFor(log);
    const offsets = file.read();
    offsets.set(logDirName(log.topic, log.partition), firstDirtyOffset);
    const live = new Set(this.opts.logsIn(log).map((l) => logDirName(l.topic, l.partition)));
    const entries: { topic: string; partition: number; offset: number }[] = [];
    for (const l of this.opts.logsIn(log)) {
      const offset = offsets.get(logDirName(l.topic, l.partition));
      if (offset !== undefined && live.has(logDirName(l.topic, l.partition))) entries.push({ topic: l.topic, partition: l.partition, offset });
    }
    file.write(entries);
  }
}

/** One pass's clock, transaction walk and the batches that keep producers' state (sequence, epoch). */
interface CleaningPass {
  now: number;
  txns: CleanedTransactionMetadata;
  lastOfProducers: Map<number, { lastDataOffset: number | null; producerEpoch: number }>;
}

/** Kafka's UnifiedLog.lastRecordsOfActiveProducers. */
function lastRecordsOfActiveProducers(log: UnifiedLog): CleaningPass['lastOfProducers'] {
  const out: CleaningPass['lastOfProducers'] = new Map();
  for (const e of log.producerStateManager.activeProducers.values()) {
    out.set(e.producerId, { lastDataOffset: e.batches.at(-1)?.lastOffset ?? null, producerEpoch: e.producerEpoch });
  }
  return out;
}

/**
 * The batch holding an active producer's last sequence (or, without data, its last marker with the
 * current epoch) stays, even emptied, so that producer state survives the cleaning (Kafka's
 * isBatchLastRecordOfProducer).
 */
function isLastBatchOfProducer(header: BatchHeader, pass: CleaningPass): boolean {
  if (header.producerId < 0) return false;
  const last = pass.lastOfProducers.get(header.producerId);
  if (last === undefined) return false;
  return last.lastDataOffset !== null ? header.lastOffset === last.lastDataOffset : header.isControl && header.producerEpoch === last.producerEpoch;
}

function controlTypeOfBatch(buf: Buffer): 'ABORT' | 'COMMIT' | 'OTHER' | null {
  const record = decodeBatch(buf).records[0];
  if (record === undefined) return null;
  const type = controlTypeOf(record.key);
  return type === ABORT_CONTROL_TYPE ? 'ABORT' : type === COMMIT_CONTROL_TYPE ? 'COMMIT' : 'OTHER';
}

/** A data batch after cleaning, or null when it goes. Aborted records all go; otherwise the latest per key. */
function filterDataBatch(header: BatchHeader, buf: Buffer, latest: Map<string, number>, pass: CleaningPass, tombstoneHorizon: number): Buffer | null {
  const aborted = pass.txns.onBatchRead(header);
  const { records } = decodeBatch(buf);
  const kept = aborted ? [] : records.filter((r) => shouldRetain(r, latest, tombstoneHorizon));
  if (kept.length === records.length) return buf;
  if (kept.length === 0 && !isLastBatchOfProducer(header, pass)) return null;
  return rebuildBatch(header, kept);
}

/**
 * A transaction marker after cleaning (Kafka's LogCleaner checkBatchRetention): it stays while its
 * transaction still has batches; once removable it gets a delete horizon, and goes after it.
 */
function filterControlBatch(header: BatchHeader, buf: Buffer, pass: CleaningPass, deleteRetentionMs: number): Buffer | null {
  const canDiscard = pass.txns.onControlBatchRead(header, controlTypeOfBatch(buf));
  if (!canDiscard) return buf;
  if (!header.hasDeleteHorizon) return rebuildBatch(header, decodeBatch(buf).records, pass.now + deleteRetentionMs);
  if (header.baseTimestamp > pass.now) return buf;
  return isLastBatchOfProducer(header, pass) ? rebuildBatch(header, [], header.baseTimestamp) : null;
}

function rebuildBatch(header: BatchHeader, records: KafkaRecord[], deleteHorizonMs?: number): Buffer {
  return encodeBatch({
    baseOffset: header.baseOffset,
    lastOffset: header.lastOffset,
    records,
    compression: header.compression,
    timestampType: header.isLogAppendTime ? 'LogAppendTime' : 'CreateTime',
    producerId: header.producerId,
    producerEpoch: header.producerEpoch,
    baseSequence: header.baseSequence,
    isTransactional: header.isTransactional,
    isControl: header.isControl,
    partitionLeaderEpoch: header.partitionLeaderEpoch,
    deleteHorizonMs,
  });
}

/** Latest record per key is kept; a tombstone also goes once older than delete.retention.ms. */
function shouldRetain(r: KafkaRecord, latest: Map<string, number>, deleteHorizon: number): boolean {
  if (r.key === null) return true;
  const latestOffset = latest.get(r.key.toString('latin1'));
  if (latestOffset !== undefined && r.offset < latestOffset) return false;
  return !(r.value === null && r.timestamp <= deleteHorizon);
}

/** Each batch of a segment with its bytes (read in chunks). */
function* batchesOf(segment: LogSegment): Generator<{ header: BatchHeader; buf: Buffer }> {
  for (const chunk of segment.log.chunksFrom(0)) {
    for (const header of batchesIn(chunk.buf)) {
      yield { header, buf: chunk.buf.subarray(header.pos, header.pos + header.sizeInBytes) };
    }
  }
}
