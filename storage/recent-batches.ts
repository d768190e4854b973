// Where the active segment's last few appended batches are, kept in memory. A consumer that keeps up
// fetches from the batches appended since its last fetch; found through the offset index alone, each
// such lookup would read batch headers from the index entry on, a pread each, up to one
// index.interval.bytes of them (about 25 for 170-byte batches). Kafka's LogSegment.translateOffset
// always scans; this is kafkite's shortcut for the tail, answering exactly as that scan would.
import type { BatchLocation } from './file-records.js';

/** Batches remembered: enough for a consumer a few produce requests behind, 640 bytes per active segment. */
export const RECENT_BATCH_CAPACITY = 16;

const FIELDS = 5;
const POSITION = 0;
const SIZE = 1;
const BASE_OFFSET = 2;
const LAST_OFFSET = 3;
const MAX_TIMESTAMP = 4;

/**
 * A ring of the last batches appended to a segment, contiguous up to the segment's end: every append
 * must be pushed, and anything else that changes the file's tail must clear it.
 */
export class RecentBatches {
  private readonly slots = new Float64Array(RECENT_BATCH_CAPACITY * FIELDS);
  /** Slot of the oldest batch held. */
  private oldest = 0;
  private count = 0;

  push(position: number, size: number, baseOffset: number, lastOffset: number, maxTimestamp: number): void {
    let slot: number;
    if (this.count < RECENT_BATCH_CAPACITY) {
      slot = (this.oldest + this.count) % RECENT_BATCH_CAPACITY;
      this.count++;
    } else {
      slot = this.oldest;
      this.oldest = (this.oldest + 1) % RECENT_BATCH_CAPACITY;
    }
    const at = slot * FIELDS;
    this.slots[at + POSITION] = position;
    this.slots[at + SIZE] = size;
    this.slots[at + BASE_OFFSET] = baseOffset;
    this.slots[at + LAST_OFFSET] = lastOffset;
    this.slots[at + MAX_TIMESTAMP] = maxTimestamp;
  }

  clear(): void {
    this.oldest = 0;
    this.count = 0;
  }

  /**
   * The first batch at or after `startingPosition` whose last offset is >= `offset`, or null when none
   * is (the segment ends before); undefined when the answer may lie before the batches held.
   */
  find(offset: number, startingPosition: number): BatchLocation | null | undefined {
    if (this.count === 0) return undefined;
    const first = this.oldest * FIELDS;
    if (offset < this.slots[first + BASE_OFFSET]! && startingPosition < this.slots[first + POSITION]!) return undefined;
    for (let i = 0; i < this.count; i++) {
      const at = ((this.oldest + i) % RECENT_BATCH_CAPACITY) * FIELDS;
      if (this.slots[at + LAST_OFFSET]! >= offset && this.slots[at + POSITION]! >= startingPosition) {
        return {
          position: this.slots[at + POSITION]!,
          size: this.slots[at + SIZE]!,
          baseOffset: this.slots[at + BASE_OFFSET]!,
          lastOffset: this.slots[at + LAST_OFFSET]!,
          maxTimestamp: this.slots[at + MAX_TIMESTAMP]!,
        };
      }
    }
    return null;
  }

  /** The largest batch boundary <= `limit`; undefined when it may lie before the batches held. */
  boundaryAtOrBefore(limit: number): number | undefined {
    if (this.count === 0 || limit < this.slots[this.oldest * FIELDS + POSITION]!) return undefined;
    let boundary = this.slots[this.oldest * FIELDS + POSITION]!;
    for (let i = 0; i < this.count; i++) {
      const at = ((this.oldest + i) % RECENT_BATCH_CAPACITY) * FIELDS;
      const end = this.slots[at + POSITION]! + this.slots[at + SIZE]!;
      if (end > limit) break;
      boundary = end;
    }
    return boundary;
  }
}
