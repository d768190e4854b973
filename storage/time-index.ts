// Kafka's .timeindex: 12-byte entries (timestamp, offset relative to the segment base), appended only
// when the segment's max timestamp grows.
import { AbstractIndex } from './abstract-index.js';
import type { IndexProbe, LookupTrace } from './lookup-trace.js';
import { readInt64, writeInt64 } from '../protocol/primitives.js';

const TIME_INDEX_ENTRY_SIZE = 12;

export interface TimestampOffset {
  timestamp: number;
  offset: number;
}

export class TimeIndex extends AbstractIndex {
  constructor(file: string, baseOffset: number, maxIndexSize: number, contents?: Buffer) {
    super(file, baseOffset, maxIndexSize, TIME_INDEX_ENTRY_SIZE, contents);
  }

  private timestamp(slot: number): number {
    return readInt64(this.buf, slot * TIME_INDEX_ENTRY_SIZE);
  }

  private relativeOffset(slot: number): number {
    return this.buf.readInt32BE(slot * TIME_INDEX_ENTRY_SIZE + 8);
  }

  entry(slot: number): TimestampOffset {
    return { timestamp: this.timestamp(slot), offset: this.baseOffset + this.relativeOffset(slot) };
  }

  /** Kafka keeps one slot free for the entry written when the segment rolls. */
  override get isFull(): boolean {
    return this.entryCount >= this.maxEntries - 1;
  }

  get lastEntry(): TimestampOffset {
    return this.entryCount === 0 ? { timestamp: -1, offset: this.baseOffset } : this.entry(this.entryCount - 1);
  }

  /** Appends unless the timestamp is not larger than the last entry's. */
  maybeAppend(timestamp: number, offset: number, skipFullCheck = false): void {
    if (!skipFullCheck && this.isFull) throw new Error(`time index ${this.file} is full`);
    if (this.entryCount > 0 && timestamp <= this.lastEntry.timestamp) return;
    const pos = this.reserve();
    writeInt64(this.buf, timestamp, pos);
    this.buf.writeInt32BE(offset - this.baseOffset, pos + 8);
    this.commitEntry(pos);
  }

  /** The last entry with timestamp <= target, or (-1, baseOffset) when there is none. */
  lookup(targetTimestamp: number, trace?: LookupTrace): TimestampOffset {
    const probes: IndexProbe[] | undefined = trace ? [] : undefined;
    const slot = this.largestLowerBoundSlot(targetTimestamp, (s) => this.timestamp(s), probes && ((s) => probes.push({ slot: s, ...this.entry(s) })));
    const found = slot < 0 ? { timestamp: -1, offset: this.baseOffset } : this.entry(slot);
    if (trace && probes) trace.add({ kind: 'time-index', file: this.file, entries: this.entryCount, target: targetTimestamp, probes, found: { slot, ...found } });
    return found;
  }

  checkEntries(nextOffset: number): string | null {
    if (this.buf.length % TIME_INDEX_ENTRY_SIZE !== 0) return `size ${this.buf.length} is not a multiple of ${TIME_INDEX_ENTRY_SIZE}`;
    let prevTimestamp = -Infinity;
    let prevOffset = -1;
    for (let s = 0; s < this.entryCount; s++) {
      const ts = this.timestamp(s);
      const rel = this.relativeOffset(s);
      if (ts <= prevTimestamp || rel < prevOffset || this.baseOffset + rel >= nextOffset) return `bad entry ${s}: timestamp ${ts} offset ${rel}`;
      prevTimestamp = ts;
      prevOffset = rel;
    }
    return null;
  }
}
