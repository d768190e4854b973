// The console's partition page and message browser: segments with their index statistics, what retention
// or compaction does next, records decoded from the log, and the lookup trace of the Fetch read path.
import { readSync } from 'node:fs';
import type { FileSlice } from '../../protocol/primitives.js';
import { decodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { traceLookup, type LookupResult, type LookupTarget } from '../../storage/tools/lookup.js';
import type { UnifiedLog } from '../../storage/unified-log.js';

interface SegmentDetail {
  file: string;
  baseOffset: number;
  /** -1 for an empty segment. */
  lastOffset: number;
  sizeBytes: number;
  firstTimestamp: number;
  maxTimestamp: number;
  offsetIndexEntries: number;
  timeIndexEntries: number;
  /** Bytes of log per .index entry (index.interval.bytes in practice); null without entries. */
  bytesPerIndexEntry: number | null;
  active: boolean;
}

export interface PartitionDetail {
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  lastStableOffset: number;
  sizeBytes: number;
  segments: SegmentDetail[];
  /** What the retention check or the cleaner will do next, in words. */
  next: string[];
}

/** Loads each segment's indexes (as a lookup would) to count their entries. */
export function partitionDetail(log: UnifiedLog, now = Date.now()): PartitionDetail {
  const all = log.segments.values();
  const segments = all.map((segment, i) => {
    const next = all[i + 1];
    const lastOffset = segment.size === 0 ? -1 : (next ? next.baseOffset : log.logEndOffset) - 1;
    const entries = segment.offsetIndex.entries;
    return {
      file: segment.log.file,
      baseOffset: segment.baseOffset,
      lastOffset,
      sizeBytes: segment.size,
      firstTimestamp: segment.size === 0 ? -1 : (segment.log.readHeader(0)?.baseTimestamp ?? -1),
      maxTimestamp: segment.maxTimestampSoFar.timestamp,
      offsetIndexEntries: entries,
      timeIndexEntries: segment.timeIndex.entries,
      bytesPerIndexEntry: entries > 0 ? Math.round(segment.size / entries) : null,
      active: next === undefined,
    };
  });
  return {
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    highWatermark: log.highWatermark,
    lastStableOffset: log.lastStableOffset,
    sizeBytes: log.size,
    segments,
    next: nextActions(log, segments, now),
  };
}

/** Kafka's UnifiedLog.deleteOldSegments and the cleaner's dirty ratio, read as forecasts (never run). */
function nextActions(log: UnifiedLog, segments: SegmentDetail[], now: number): string[] {
  const { cleanupPolicy, retentionMs, retentionBytes, segmentMs, segmentBytes, minCleanableDirtyRatio } = log.config;
  const out: string[] = [];
  const closed = segments.filter((s) => !s.active);
  const active = segments[segments.length - 1];
  if (active) {
    out.push(`The active segment ${active.baseOffset} rolls at ${segmentBytes} bytes (now ${active.sizeBytes}) or ${segmentMs} ms after its first record.`);
  }
  if (cleanupPolicy.includes('delete')) {
    if (retentionMs < 0) out.push('retention.ms is -1: no segment is deleted by age.');
    else if (closed.length === 0) out.push(`No closed segment yet: retention.ms (${retentionMs} ms) only deletes closed segments.`);
    else {
      const oldest = closed[0];
      const due = Math.max(oldest.maxTimestamp, 0) + retentionMs;
      out.push(
        due <= now
          ? `Segment ${oldest.baseOffset} is past retention.ms (${retentionMs} ms) and goes at the next retention check.`
          : `Segment ${oldest.baseOffset} is deleted by retention.ms at ${new Date(due).toISOString()} (in ${Math.round((due - now) / 1000)} s).`,
      );
    }
    if (retentionBytes >= 0) {
      const excess = log.size - retentionBytes;
      out.push(excess > 0 ? `The log is ${excess} bytes over retention.bytes (${retentionBytes}): whole closed segments go at the next check.` : `The log is within retention.bytes (${retentionBytes}).`);
    }
  }
  if (cleanupPolicy.includes('compact')) {
    const closedBytes = closed.reduce((sum, s) => sum + s.sizeBytes, 0);
    out.push(
      closed.length === 0
        ? 'Compaction: nothing to clean until the active segment rolls.'
        : `Compaction: ${closed.length} closed segment(s), ${closedBytes} bytes are candidates; the cleaner runs when the dirty ratio reaches min.cleanable.dirty.ratio (${minCleanableDirtyRatio}).`,
    );
  }
  return out;
}

export interface BrowsedRecord {
  offset: number;
  timestamp: number;
  /** base64, or null. */
  key: string | null;
  value: string | null;
  headers: Array<{ key: string; value: string | null }>;
  keySize: number;
  valueSize: number;
  /** The record batch's size on disk (a batch can hold several records). */
  batchSize: number;
}

export interface BrowseOptions {
  offset: number;
  limit: number;
  /** Only records whose key, as UTF-8, contains this. */
  keyFilter?: string;
  /** Stop after reading this many bytes of log (a key filter can scan far). */
  maxScanBytes: number;
}

/** Records from `offset` on, read the way Fetch reads them (whole batches from the log), decoded. */
export function browseRecords(log: UnifiedLog, opts: BrowseOptions): { records: BrowsedRecord[]; nextOffset: number; scannedBytes: number } {
  const records: BrowsedRecord[] = [];
  let offset = Math.max(opts.offset, log.logStartOffset);
  let scanned = 0;
  const end = log.highWatermark;
  while (records.length < opts.limit && offset < end && scanned < opts.maxScanBytes) {
    const { slices, bytes } = log.read(offset, 256 * 1024, true);
    if (bytes === 0) break;
    scanned += bytes;
    let next = offset;
    for (const slice of slices) {
      const buf = readSlice(slice);
      let pos = 0;
      while (pos + 12 <= buf.length) {
        const size = buf.readInt32BE(pos + 8) + 12;
        const batch = decodeBatch(buf.subarray(pos, pos + size));
        pos += size;
        next = batch.header.lastOffset + 1;
        if (batch.header.isControl) continue;
        for (const r of batch.records) {
          if (r.offset < offset || r.offset >= end || records.length >= opts.limit) continue;
          if (opts.keyFilter && !(r.key?.toString('utf8').includes(opts.keyFilter) ?? false)) continue;
          records.push(browsed(r, size));
        }
        if (records.length >= opts.limit) {
          next = Math.min(next, records[records.length - 1].offset + 1);
          break;
        }
      }
    }
    offset = Math.max(next, offset + 1);
  }
  return { records, nextOffset: Math.min(offset, end), scannedBytes: scanned };
}

function browsed(r: KafkaRecord, batchSize: number): BrowsedRecord {
  return {
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.key?.toString('base64') ?? null,
    value: r.value?.toString('base64') ?? null,
    headers: r.headers.map((h) => ({ key: h.key, value: h.value?.toString('base64') ?? null })),
    keySize: r.key?.length ?? -1,
    valueSize: r.value?.length ?? -1,
    batchSize,
  };
}

/** The lookup trace of a live partition: the same read path Fetch and ListOffsets run. */
export function livePartitionLookup(log: UnifiedLog, target: LookupTarget, maxBytes: number): LookupResult {
  return traceLookup(target, maxBytes, {
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    read: (offset, max, minOneBatch, trace) => log.read(offset, max, minOneBatch, trace),
    byTimestamp: (timestamp, trace) => log.fetchOffsetByTimestamp(timestamp, trace),
  });
}

/** The browser decodes records, so it copies them (Fetch itself never does). */
function readSlice(slice: FileSlice): Buffer {
  const buf = Buffer.allocUnsafe(slice.length);
  let filled = 0;
  while (filled < slice.length) {
    const n = readSync(slice.fd, buf, filled, slice.length - filled, slice.position + filled);
    if (n === 0) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}
