// A partition's segments ordered by base offset (Kafka's LogSegments), with floor lookup.
import type { FileSlice } from '../protocol/primitives.js';
import { decodeBatch } from '../protocol/records/record-batch.js';
import type { LogSegment } from './log-segment.js';
import type { LookupTrace, SegmentProbe } from './lookup-trace.js';

/** A ListOffsets answer (Kafka's FileRecords.TimestampAndOffset): the leader epoch is its batch's, -1 for none. */
export interface TimestampAndOffset {
  offset: number;
  timestamp: number;
  leaderEpoch: number;
}

export class LogSegments {
  private readonly segments: LogSegment[] = [];

  get size(): number {
    return this.segments.length;
  }

  get isEmpty(): boolean {
    return this.segments.length === 0;
  }

  /** The newest segment, which appends go to. */
  get activeSegment(): LogSegment {
    const s = this.segments[this.segments.length - 1];
    if (!s) throw new Error('log has no segments');
    return s;
  }

  get firstSegment(): LogSegment | undefined {
    return this.segments[0];
  }

  values(): readonly LogSegment[] {
    return this.segments;
  }

  get sizeInBytes(): number {
    let total = 0;
    for (const s of this.segments) total += s.size;
    return total;
  }

  /** Inserts keeping base-offset order, replacing a segment with the same base offset. */
  add(segment: LogSegment): void {
    const i = this.ceilingIndex(segment.baseOffset);
    if (this.segments[i]?.baseOffset === segment.baseOffset) this.segments[i] = segment;
    else this.segments.splice(i, 0, segment);
  }

  remove(segment: LogSegment): void {
    const i = this.segments.indexOf(segment);
    if (i >= 0) this.segments.splice(i, 1);
  }

  /** The segment with the largest base offset <= `offset` (the one that would hold it). */
  floorSegment(offset: number, trace?: LookupTrace): LogSegment | undefined {
    const probes: SegmentProbe[] | undefined = trace ? [] : undefined;
    const i = this.ceilingIndex(offset + 1, probes) - 1;
    const chosen = i >= 0 ? this.segments[i] : undefined;
    if (trace && probes) {
      trace.add({ kind: 'segment-floor', target: offset, segments: this.segments.length, probes, chosen: chosen?.baseOffset ?? null, file: chosen?.log.file ?? null });
    }
    return chosen;
  }

  /**
   * Fetch's read: whole batches from the one holding `fetchOffset`, none at or past `maxOffset` (the log end
   * offset, or the last stable offset for read_committed), at most `maxBytes` (at least one batch when
   * `minOneBatch`), as one file range of the first segment that reaches it.
   */
  read(
    fetchOffset: number,
    maxOffset: number,
    logEndOffset: number,
    maxBytes: number,
    minOneBatch: boolean,
    trace?: LookupTrace,
  ): { slices: FileSlice[]; bytes: number; segment?: LogSegment } {
    let segment = this.floorSegment(fetchOffset, trace);
    while (segment !== undefined && fetchOffset < maxOffset) {
      const next = this.higherSegment(segment.baseOffset);
      // The batch starting at maxOffset (a batch boundary) bounds the read when it is in this segment.
      const maxPosition = maxOffset < (next?.baseOffset ?? logEndOffset) ? (segment.translateOffset(maxOffset)?.position ?? segment.size) : segment.size;
      const result = segment.read(fetchOffset, maxBytes, minOneBatch, maxPosition, trace);
      if (result !== null) {
        return result.slice.length > 0 ? { slices: [result.slice], bytes: result.slice.length, segment } : { slices: [], bytes: 0 };
      }
      segment = next;
    }
    return { slices: [], bytes: 0 };
  }

  /** ListOffsets by time: the first record at or after `startOffset` with timestamp >= `timestamp`, through each segment's time index. */
  offsetForTimestamp(timestamp: number, startOffset: number, trace?: LookupTrace): TimestampAndOffset | null {
    for (const segment of this.segments) {
      if (segment.size === 0 || segment.largestTimestamp < timestamp) {
        trace?.add({ kind: 'segment-skip', baseOffset: segment.baseOffset, reason: segment.size === 0 ? 'empty' : `largest timestamp ${segment.largestTimestamp} < ${timestamp}` });
        continue;
      }
      const batch = segment.findBatchByTimestamp(timestamp, startOffset, trace);
      if (batch === null) continue;
      const decoded = decodeBatch(segment.log.read(batch.position, batch.size));
      const record = decoded.records.find((r) => r.timestamp >= timestamp && r.offset >= startOffset);
      if (record) {
        trace?.add({ kind: 'timestamp-result', offset: record.offset, timestamp: record.timestamp });
        return { offset: record.offset, timestamp: record.timestamp, leaderEpoch: decoded.header.partitionLeaderEpoch };
      }
    }
    return null;
  }

  /** The segment after the one with base offset `baseOffset`. */
  higherSegment(baseOffset: number): LogSegment | undefined {
    return this.segments[this.ceilingIndex(baseOffset + 1)];
  }

  /** Segments from the one holding `from` to the end. */
  segmentsFrom(from: number): LogSegment[] {
    return this.segments.slice(Math.max(0, this.ceilingIndex(from + 1) - 1));
  }

  /** Index of the first segment with base offset >= `offset`. */
  private ceilingIndex(offset: number, probes?: SegmentProbe[]): number {
    let lo = 0;
    let hi = this.segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      probes?.push({ slot: mid, baseOffset: this.segments[mid].baseOffset });
      if (this.segments[mid].baseOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
