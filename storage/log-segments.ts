// A partition's segments ordered by base offset (Kafka's LogSegments), with floor lookup.
import type { LogSegment } from './log-segment.js';

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
  floorSegment(offset: number): LogSegment | undefined {
    const i = this.ceilingIndex(offset + 1) - 1;
    return i >= 0 ? this.segments[i] : undefined;
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
  private ceilingIndex(offset: number): number {
    let lo = 0;
    let hi = this.segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.segments[mid].baseOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
