// One segment of a partition log (Kafka's LogSegment): the .log file, its two sparse indexes and the
// index of transactions aborted in it (.txnindex).
// Indexes of inactive segments are loaded on first use and rebuilt from the log when missing or damaged.
import fs from 'node:fs';
import type { Logger } from 'pino';
import type { FileSlice } from '../protocol/primitives.js';
import { BatchHeader, batchesIn } from '../protocol/records/batch-header.js';
import { FileRecords, type BatchLocation } from './file-records.js';
import type { LeaderEpochFileCache } from './leader-epoch-file-cache.js';
import { logFile, offsetIndexFile, timeIndexFile, txnIndexFile } from './log-file-names.js';
import type { LookupStep, LookupTrace } from './lookup-trace.js';
import { OffsetIndex } from './offset-index.js';
import { RecentBatches } from './recent-batches.js';
import { TimeIndex, type TimestampOffset } from './time-index.js';
import { TransactionIndex, type AbortedTxn } from './transaction-index.js';

const INT32_MAX = 0x7fffffff;

export interface SegmentConfig {
  indexIntervalBytes: number;
  /** segment.index.bytes: the most bytes either index may hold. */
  maxIndexSize: number;
  rollJitterMs: number;
}

/** One batch of an append, located by its offset within the appended buffer. */
export interface AppendedBatch {
  offsetInBuffer: number;
  size: number;
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: number;
}

export interface RollParams {
  maxSegmentBytes: number;
  maxSegmentMs: number;
  messagesSize: number;
  maxTimestampInMessages: number;
  maxOffsetInMessages: number;
  now: number;
}

/** What recovery found: the valid prefix of the log and, when it truncated, why. */
export interface RecoveryResult {
  validBytes: number;
  truncatedBytes: number;
  reason: string | null;
  nextOffset: number;
}

/** A segment's part of a flush, begun: its files and the fdatasync of them. */
export interface SegmentFlush {
  files: number;
  fdatasync(): Promise<void>;
}

export class LogSegment {
  private offsetIndex_: OffsetIndex | null = null;
  private timeIndex_: TimeIndex | null = null;
  private bytesSinceLastIndexEntry = 0;
  /** The active segment's last appended batches (null once it rolled, or before it is opened for appends). */
  private recentBatches: RecentBatches | null = null;
  private maxTimestampSoFar_: TimestampOffset | null = null;
  /** Max timestamp of the first batch, which time-based rolling counts from; undefined until read. */
  private firstBatchTimestamp: number | undefined;
  readonly created = Date.now();
  readonly txnIndex: TransactionIndex;

  private constructor(
    readonly dir: string,
    readonly baseOffset: number,
    readonly log: FileRecords,
    private config: SegmentConfig,
    private readonly logger: Logger | undefined,
    private suffix: string,
    txnIndex?: TransactionIndex,
  ) {
    this.txnIndex = txnIndex ?? new TransactionIndex(txnIndexFile(dir, baseOffset, suffix), baseOffset);
  }

  /** Creates the segment's files; a failure (full disk, no descriptors) removes the ones already made. */
  static create(dir: string, baseOffset: number, config: SegmentConfig, logger?: Logger, suffix = ''): LogSegment {
    const log = FileRecords.create(logFile(dir, baseOffset, suffix));
    let segment: LogSegment | undefined;
    try {
      const txnIndex = TransactionIndex.create(txnIndexFile(dir, baseOffset, suffix), baseOffset);
      segment = new LogSegment(dir, baseOffset, log, config, logger, suffix, txnIndex);
      segment.offsetIndex_ = new OffsetIndex(segment.offsetIndexFile, baseOffset, config.maxIndexSize);
      segment.timeIndex_ = new TimeIndex(segment.timeIndexFile, baseOffset, config.maxIndexSize);
      segment.offsetIndex_.writeAll();
      segment.timeIndex_.writeAll();
    } catch (err) {
      if (segment) {
        segment.deleteFiles();
      } else {
        log.close();
        fs.rmSync(log.file, { force: true });
      }
      throw err;
    }
    return segment;
  }

  /** Opens an existing segment without reading its indexes. */
  static open(dir: string, baseOffset: number, config: SegmentConfig, logger?: Logger, suffix = ''): LogSegment {
    const log = FileRecords.open(logFile(dir, baseOffset, suffix));
    return new LogSegment(dir, baseOffset, log, config, logger, suffix);
  }

  get size(): number {
    return this.log.sizeInBytes;
  }

  get offsetIndexFile(): string {
    return offsetIndexFile(this.dir, this.baseOffset, this.suffix);
  }

  get timeIndexFile(): string {
    return timeIndexFile(this.dir, this.baseOffset, this.suffix);
  }

  get indexesLoaded(): boolean {
    return this.offsetIndex_ !== null;
  }

  get offsetIndex(): OffsetIndex {
    if (this.offsetIndex_ === null) this.loadIndexes();
    return this.offsetIndex_!;
  }

  get timeIndex(): TimeIndex {
    if (this.timeIndex_ === null) this.loadIndexes();
    return this.timeIndex_!;
  }

  updateConfig(config: SegmentConfig): void {
    this.config = { ...config, rollJitterMs: this.config.rollJitterMs };
  }

  /** The largest timestamp and the (batch last) offset it first appeared at. */
  get maxTimestampSoFar(): TimestampOffset {
    if (this.maxTimestampSoFar_ === null) this.maxTimestampSoFar_ = this.lastTimeIndexEntryOnDisk() ?? this.timeIndex.lastEntry;
    return this.maxTimestampSoFar_;
  }

  /**
   * The last entry of a not-yet-loaded time index, read alone so that retention checks over thousands
   * of cold segments do not load their indexes. Null when the file looks wrong (then it is loaded and checked).
   */
  private lastTimeIndexEntryOnDisk(): TimestampOffset | null {
    if (this.timeIndex_ !== null) return null;
    let fd: number;
    try {
      fd = fs.openSync(this.timeIndexFile, 'r');
    } catch {
      return null;
    }
    try {
      const size = fs.fstatSync(fd).size;
      if (size === 0 || size % 12 !== 0) return null;
      const buf = Buffer.allocUnsafe(12);
      fs.readSync(fd, buf, 0, 12, size - 12);
      const index = new TimeIndex(this.timeIndexFile, this.baseOffset, 12, buf);
      return index.lastEntry.timestamp >= 0 ? index.lastEntry : null;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Max record timestamp, or the file's mtime for a segment without timestamps (as Kafka does). */
  get largestTimestamp(): number {
    const ts = this.maxTimestampSoFar.timestamp;
    return ts >= 0 ? ts : fs.statSync(this.log.file).mtimeMs;
  }

  /** The .log file's mtime: what the v0 ListOffsets answer orders segments by (Kafka's LogSegment.lastModified). */
  get lastModified(): number {
    return fs.statSync(this.log.file).mtimeMs;
  }

  // ---- loading and recovery ----

  private loadIndexes(): void {
    const problem = this.tryLoadIndexes();
    if (problem !== null) {
      const result = this.recover();
      this.logger?.warn(
        `Rebuilt indexes of ${this.log.file} (${problem})` +
          (result.reason ? `; truncated ${result.truncatedBytes} bytes at position ${result.validBytes}: ${result.reason}` : ''),
      );
    }
  }

  /** Loads both index files; returns what is wrong with them, or null. */
  private tryLoadIndexes(): string | null {
    const offsetContents = readIfExists(this.offsetIndexFile);
    const timeContents = readIfExists(this.timeIndexFile);
    if (offsetContents === null) return `missing ${this.offsetIndexFile}`;
    if (timeContents === null) return `missing ${this.timeIndexFile}`;
    const offsetIndex = new OffsetIndex(this.offsetIndexFile, this.baseOffset, this.config.maxIndexSize, offsetContents);
    const offsetProblem = offsetIndex.checkEntries(this.size);
    if (offsetProblem) return `corrupt ${this.offsetIndexFile}: ${offsetProblem}`;
    const tail = this.checkIndexTail(offsetIndex);
    if (typeof tail === 'string') return `${this.offsetIndexFile}: ${tail}`;
    const timeIndex = new TimeIndex(this.timeIndexFile, this.baseOffset, this.config.maxIndexSize, timeContents);
    const timeProblem = timeIndex.checkEntries(tail.nextOffset);
    if (timeProblem) return `corrupt ${this.timeIndexFile}: ${timeProblem}`;
    this.offsetIndex_ = offsetIndex;
    this.timeIndex_ = timeIndex;
    this.bytesSinceLastIndexEntry = tail.bytesSinceLastIndexEntry;
    return null;
  }

  /**
   * Walks the batches after the last index entry (at most about index.interval.bytes of them): the
   * entry must point at a batch ending at its offset, and no batch may be missing an entry.
   */
  private checkIndexTail(index: OffsetIndex): string | { nextOffset: number; bytesSinceLastIndexEntry: number } {
    const last = index.entries > 0 ? index.entry(index.entries - 1) : null;
    let bytesSince = 0;
    let nextOffset = this.baseOffset;
    let first = true;
    for (const batch of this.log.batchesFrom(last ? last.position : 0)) {
      if (first && last) {
        if (batch.lastOffset !== last.offset) return `last entry (${last.offset}, ${last.position}) does not match the batch there`;
      } else if (bytesSince > this.config.indexIntervalBytes) {
        return `no entry for the batch at position ${batch.position}`;
      }
      first = false;
      bytesSince += batch.size;
      nextOffset = batch.lastOffset + 1;
    }
    if (first && last) return `last entry points past the log`;
    return { nextOffset, bytesSinceLastIndexEntry: bytesSince };
  }

  /**
   * Re-validates every batch (magic, CRC, increasing offsets), rebuilds both indexes, and truncates
   * the log at the first invalid or incomplete batch. Each valid batch of an epoch later than the
   * cache's latest starts that epoch there (Kafka's LogSegment.recover), so that the cache a crash
   * left short is rebuilt from the batch headers.
   */
  recover(epochs?: LeaderEpochFileCache): RecoveryResult {
    this.offsetIndex_?.closeForAppend();
    this.timeIndex_?.closeForAppend();
    this.offsetIndex_ = new OffsetIndex(this.offsetIndexFile, this.baseOffset, this.config.maxIndexSize);
    this.timeIndex_ = new TimeIndex(this.timeIndexFile, this.baseOffset, this.config.maxIndexSize);
    this.maxTimestampSoFar_ = { timestamp: -1, offset: this.baseOffset };
    this.bytesSinceLastIndexEntry = 0;
    this.firstBatchTimestamp = undefined;
    this.recentBatches?.clear();
    let validBytes = 0;
    let nextOffset = this.baseOffset;
    let reason: string | null = null;
    outer: for (const chunk of this.log.chunksFrom(0)) {
      for (const batch of batchesIn(chunk.buf)) {
        reason = this.problemWith(batch, nextOffset);
        if (reason !== null) break outer;
        const position = chunk.position + batch.pos;
        this.indexBatch(position, batch.sizeInBytes, batch.lastOffset, batch.maxTimestamp);
        this.firstBatchTimestamp ??= batch.maxTimestamp;
        if (epochs !== undefined && batch.partitionLeaderEpoch > epochs.latestEpoch) epochs.assign(batch.partitionLeaderEpoch, batch.baseOffset);
        validBytes = position + batch.sizeInBytes;
        nextOffset = batch.lastOffset + 1;
      }
    }
    const truncatedBytes = this.size - validBytes;
    if (truncatedBytes > 0) {
      reason ??= 'incomplete batch';
      this.log.truncateTo(validBytes);
    }
    if (this.maxTimestampSoFar_.timestamp >= 0) {
      this.timeIndex_.maybeAppend(this.maxTimestampSoFar_.timestamp, this.maxTimestampSoFar_.offset, true);
    }
    this.offsetIndex_.writeAll();
    this.timeIndex_.writeAll();
    return { validBytes, truncatedBytes, reason: truncatedBytes > 0 ? reason : null, nextOffset };
  }

  private problemWith(batch: BatchHeader, nextOffset: number): string | null {
    if (batch.magic !== 2) return `unsupported magic ${batch.magic}`;
    if (!batch.isCrcValid()) return `CRC mismatch at offset ${batch.baseOffset}`;
    if (batch.baseOffset < nextOffset) return `offset ${batch.baseOffset} not above ${nextOffset - 1}`;
    if (batch.lastOffsetDelta < 0 || batch.lastOffset - this.baseOffset > INT32_MAX) return `bad lastOffsetDelta ${batch.lastOffsetDelta}`;
    return null;
  }

  /** Offset after the last batch, and where the last complete batch ends (reads the batches after the last index entry). */
  readNextOffset(): { nextOffset: number; validBytes: number } {
    const index = this.offsetIndex;
    let nextOffset = this.baseOffset;
    let validBytes = index.entries > 0 ? index.entry(index.entries - 1).position : 0;
    for (const batch of this.log.batchesFrom(validBytes)) {
      nextOffset = batch.lastOffset + 1;
      validBytes = batch.position + batch.size;
    }
    return { nextOffset, validBytes };
  }

  // ---- appends ----

  /** Makes the index files write-through (this became the active segment). */
  openForAppend(): void {
    this.offsetIndex.openForAppend();
    this.timeIndex.openForAppend();
    this.recentBatches = new RecentBatches();
  }

  append(records: Buffer, batches: readonly AppendedBatch[]): void {
    const position = this.log.append(records);
    if (position === 0 && batches.length > 0) this.firstBatchTimestamp = batches[0].maxTimestamp;
    for (const b of batches) {
      // Remembered first: the batch is in the file even if indexing it throws.
      this.recentBatches?.push(position + b.offsetInBuffer, b.size, b.baseOffset, b.lastOffset, b.maxTimestamp);
      this.indexBatch(position + b.offsetInBuffer, b.size, b.lastOffset, b.maxTimestamp);
    }
  }

  /** Kafka's rule: an index entry for a batch once more than index.interval.bytes were appended since the last one. */
  private indexBatch(position: number, size: number, lastOffset: number, maxTimestamp: number): void {
    const max = this.maxTimestampSoFar;
    if (maxTimestamp > max.timestamp) this.maxTimestampSoFar_ = { timestamp: maxTimestamp, offset: lastOffset };
    if (this.bytesSinceLastIndexEntry > this.config.indexIntervalBytes) {
      this.offsetIndex_!.append(lastOffset, position);
      const m = this.maxTimestampSoFar;
      this.timeIndex_!.maybeAppend(m.timestamp, m.offset);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += size;
  }

  canConvertToRelativeOffset(offset: number): boolean {
    const relative = offset - this.baseOffset;
    return relative >= 0 && relative <= INT32_MAX;
  }

  shouldRoll(p: RollParams): boolean {
    const reachedRollMs = this.timeWaitedForRoll(p.now, p.maxTimestampInMessages) > p.maxSegmentMs - this.config.rollJitterMs;
    return (
      this.size > p.maxSegmentBytes - p.messagesSize ||
      (this.size > 0 && reachedRollMs) ||
      this.offsetIndex.isFull ||
      this.timeIndex.isFull ||
      !this.canConvertToRelativeOffset(p.maxOffsetInMessages)
    );
  }

  /** Time since the segment's first record (by record timestamp), or since it was created. */
  private timeWaitedForRoll(now: number, messageTimestamp: number): number {
    if (this.firstBatchTimestamp === undefined && this.size > 0) {
      this.firstBatchTimestamp = this.log.readHeader(0)?.maxTimestamp ?? -1;
    }
    const first = this.firstBatchTimestamp ?? -1;
    return first >= 0 ? messageTimestamp - first : now - this.created;
  }

  /** The segment rolled: final time index entry, and the index files stop being written. */
  onBecomeInactiveSegment(): void {
    const m = this.maxTimestampSoFar;
    if (m.timestamp >= 0) this.timeIndex.maybeAppend(m.timestamp, m.offset, true);
    this.offsetIndex.closeForAppend();
    this.timeIndex.closeForAppend();
    this.recentBatches = null;
  }

  // ---- reads ----

  /**
   * The first batch whose last offset is >= `offset`, found by index lookup and a bounded forward scan,
   * or among the recent batches without reading the file. A traced lookup (the console's) always takes
   * the index and the scan, which show how the file is laid out.
   */
  translateOffset(offset: number, startingPosition = 0, trace?: LookupTrace): BatchLocation | null {
    const recent = trace ? undefined : this.recentBatches?.find(offset, startingPosition);
    if (recent !== undefined) return recent;
    const entry = this.offsetIndex.lookup(offset, trace);
    const from = Math.max(entry.position, startingPosition);
    const scan = trace && this.scanStep('offset', from);
    for (let batch = this.log.batchAt(from); batch !== null; batch = this.log.batchAfter(batch)) {
      if (batch.lastOffset >= offset) return finishScan(trace, scan, batch);
      scan?.batches.push(batch);
    }
    return finishScan(trace, scan, null);
  }

  /**
   * Whole batches from the one holding `startOffset`, at most `maxSize` bytes (or the first batch
   * whatever its size when `minOneBatch`), none at or past `maxPosition`. Null when no batch in this
   * segment reaches `startOffset`.
   */
  read(
    startOffset: number,
    maxSize: number,
    minOneBatch: boolean,
    maxPosition = this.size,
    trace?: LookupTrace,
  ): { slice: FileSlice; first: BatchLocation } | null {
    const first = this.translateOffset(startOffset, 0, trace);
    if (first === null) return null;
    let slice: FileSlice;
    if (first.position >= maxPosition || (first.size > maxSize && !minOneBatch)) {
      slice = this.log.slice(first.position, 0);
    } else {
      // maxPosition (the last stable offset's batch, for read_committed) is a batch boundary.
      const limit = Math.min(first.position + Math.max(maxSize, first.size), maxPosition);
      slice = this.log.slice(first.position, this.batchBoundaryAtOrBefore(limit, first.position, trace) - first.position);
    }
    trace?.add({ kind: 'range', file: this.log.file, position: slice.position, length: slice.length, bytesScanned: trace.bytesScanned });
    return { slice, first };
  }

  /** The base offset of the batch starting at `position` (a batch boundary), or null at the end of the segment. */
  baseOffsetAt(position: number): number | null {
    if (position >= this.size) return null;
    for (const batch of this.log.batchesFrom(position)) return batch.baseOffset;
    return null;
  }

  /** The largest batch boundary <= `limit`, scanning forward from the index entry nearest below it. */
  private batchBoundaryAtOrBefore(limit: number, from: number, trace?: LookupTrace): number {
    if (limit >= this.size) return this.size;
    const recent = trace ? undefined : this.recentBatches?.boundaryAtOrBefore(limit);
    if (recent !== undefined) return Math.max(recent, from);
    let pos = Math.max(this.offsetIndex.lookupByPosition(limit, trace).position, from);
    const scan = trace && this.scanStep('range-end', pos);
    for (let batch = this.log.batchAt(pos, limit); batch !== null; batch = this.log.batchAfter(batch, limit)) {
      scan?.batches.push(batch);
      pos = batch.position + batch.size;
    }
    if (trace && scan) trace.add({ ...scan, bytesScanned: pos - scan.from });
    return pos;
  }

  /** The first batch after `startingOffset` with max timestamp >= `timestamp`, found through the time index. */
  findBatchByTimestamp(timestamp: number, startingOffset: number, trace?: LookupTrace): BatchLocation | null {
    const te = this.timeIndex.lookup(timestamp, trace);
    const position = this.offsetIndex.lookup(Math.max(te.offset, startingOffset), trace).position;
    const scan = trace && this.scanStep('timestamp', position);
    for (const batch of this.log.batchesFrom(position)) {
      if (batch.maxTimestamp >= timestamp && batch.lastOffset >= startingOffset) return finishScan(trace, scan, batch);
      scan?.batches.push(batch);
    }
    return finishScan(trace, scan, null);
  }

  private scanStep(purpose: ScanStep['purpose'], from: number): ScanStep {
    return { kind: 'scan', file: this.log.file, purpose, from, batches: [], found: null, bytesScanned: 0 };
  }

  // ---- transactions ----

  /** Kafka's LogSegment.updateTxnIndex: an ABORT marker in this segment records its transaction. */
  updateTxnIndex(txn: AbortedTxn): void {
    this.txnIndex.append(txn);
  }

  collectAbortedTxns(fetchOffset: number, upperBoundOffset: number): { aborted: AbortedTxn[]; isComplete: boolean } {
    return this.txnIndex.collectAbortedTxns(fetchOffset, upperBoundOffset);
  }

  // ---- life cycle ----

  /**
   * First half of a flush: what it covers is fixed now (the .txnindex entries written so far, the .log
   * up to its end). `fdatasync` writes those files out; `files` says how many that is.
   */
  beginFlush(): SegmentFlush {
    const txnIndex = this.txnIndex.beginFlush();
    if (txnIndex === null) return { files: 1, fdatasync: () => this.log.flush() };
    return { files: 2, fdatasync: () => Promise.all([this.log.flush(), txnIndex()]).then(() => undefined) };
  }

  /** Renames the segment's files, e.g. '' → '.deleted' before a delayed delete. */
  changeFileSuffixes(newSuffix: string): void {
    const oldIndex = this.offsetIndexFile;
    const oldTime = this.timeIndexFile;
    this.suffix = newSuffix;
    this.log.renameTo(logFile(this.dir, this.baseOffset, newSuffix));
    renameIfExists(oldIndex, this.offsetIndexFile);
    renameIfExists(oldTime, this.timeIndexFile);
    this.txnIndex.renameTo(txnIndexFile(this.dir, this.baseOffset, newSuffix));
    if (this.offsetIndex_) this.offsetIndex_.file = this.offsetIndexFile;
    if (this.timeIndex_) this.timeIndex_.file = this.timeIndexFile;
  }

  /**
   * Gives back the .log's descriptor, once nothing has it pinned (a segment renamed for deletion): a slice
   * taken before opens the file again by its new name if it is read during file.delete.delay.ms.
   */
  releaseLogDescriptor(): void {
    this.log.close();
  }

  /** Closes files; an active segment first gets its final time index entry (clean shutdown). */
  close(): void {
    if (this.timeIndex_ !== null && this.maxTimestampSoFar_ !== null && this.maxTimestampSoFar_.timestamp > this.timeIndex_.lastEntry.timestamp) {
      this.timeIndex_.openForAppend();
      this.timeIndex_.maybeAppend(this.maxTimestampSoFar_.timestamp, this.maxTimestampSoFar_.offset, true);
    }
    this.offsetIndex_?.closeForAppend();
    this.timeIndex_?.closeForAppend();
    this.txnIndex.close();
    this.log.close();
  }

  deleteFiles(): void {
    this.offsetIndex_?.closeForAppend();
    this.timeIndex_?.closeForAppend();
    this.txnIndex.deleteFile();
    this.log.close();
    for (const f of [this.log.file, this.offsetIndexFile, this.timeIndexFile]) fs.rmSync(f, { force: true });
  }
}

type ScanStep = Extract<LookupStep, { kind: 'scan' }>;

/** Notes a forward scan's end: the bytes hopped over are those of the batches before the one found. */
function finishScan(trace: LookupTrace | undefined, scan: ScanStep | undefined, found: BatchLocation | null): BatchLocation | null {
  if (trace && scan) {
    const last = scan.batches[scan.batches.length - 1];
    trace.add({ ...scan, found, bytesScanned: found ? found.position - scan.from : last ? last.position + last.size - scan.from : 0 });
  }
  return found;
}

function readIfExists(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function renameIfExists(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
