// Kafka's .index: 8-byte entries (offset relative to the segment base, file position of the batch).
import { AbstractIndex } from './abstract-index.js';
import type { IndexProbe, LookupTrace } from './lookup-trace.js';

const OFFSET_INDEX_ENTRY_SIZE = 8;

export interface OffsetPosition {
  offset: number;
  position: number;
}

export class OffsetIndex extends AbstractIndex {
  constructor(file: string, baseOffset: number, maxIndexSize: number, contents?: Buffer) {
    super(file, baseOffset, maxIndexSize, OFFSET_INDEX_ENTRY_SIZE, contents);
  }

  private relativeOffset(slot: number): number {
    return this.buf.readInt32BE(slot * OFFSET_INDEX_ENTRY_SIZE);
  }

  private physical(slot: number): number {
    return this.buf.readInt32BE(slot * OFFSET_INDEX_ENTRY_SIZE + 4);
  }

  entry(slot: number): OffsetPosition {
    return { offset: this.baseOffset + this.relativeOffset(slot), position: this.physical(slot) };
  }

  get lastOffset(): number {
    return this.entryCount === 0 ? this.baseOffset : this.baseOffset + this.relativeOffset(this.entryCount - 1);
  }

  append(offset: number, position: number): void {
    if (this.entryCount > 0 && offset <= this.lastOffset) {
      throw new Error(`index ${this.file}: offset ${offset} is not larger than the last entry ${this.lastOffset}`);
    }
    const pos = this.reserve();
    this.buf.writeInt32BE(offset - this.baseOffset, pos);
    this.buf.writeInt32BE(position, pos + 4);
    this.commitEntry(pos);
  }

  /** The last entry with offset <= target, or (baseOffset, 0) when there is none. */
  lookup(targetOffset: number, trace?: LookupTrace): OffsetPosition {
    const probes: IndexProbe[] | undefined = trace ? [] : undefined;
    const slot = this.largestLowerBoundSlot(targetOffset - this.baseOffset, (s) => this.relativeOffset(s), probes && ((s) => probes.push({ slot: s, ...this.entry(s) })));
    const found = slot < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(slot);
    if (trace && probes) trace.add({ kind: 'offset-index', file: this.file, entries: this.entryCount, purpose: 'offset', target: targetOffset, probes, found: { slot, ...found } });
    return found;
  }

  /** The last entry with position <= target, or (baseOffset, 0) when there is none. */
  lookupByPosition(targetPosition: number, trace?: LookupTrace): OffsetPosition {
    const probes: IndexProbe[] | undefined = trace ? [] : undefined;
    const slot = this.largestLowerBoundSlot(targetPosition, (s) => this.physical(s), probes && ((s) => probes.push({ slot: s, ...this.entry(s) })));
    const found = slot < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(slot);
    if (trace && probes) trace.add({ kind: 'offset-index', file: this.file, entries: this.entryCount, purpose: 'range-end', target: targetPosition, probes, found: { slot, ...found } });
    return found;
  }

  /** Describes what is wrong with the entries, or null (Kafka's sanityCheck plus ordering). */
  checkEntries(logSize: number): string | null {
    if (this.buf.length % OFFSET_INDEX_ENTRY_SIZE !== 0) return `size ${this.buf.length} is not a multiple of ${OFFSET_INDEX_ENTRY_SIZE}`;
    let prevOffset = -1;
    let prevPosition = -1;
    for (let s = 0; s < this.entryCount; s++) {
      const rel = this.relativeOffset(s);
      const position = this.physical(s);
      if (rel <= prevOffset || position <= prevPosition || position >= logSize) return `bad entry ${s}: offset ${rel} position ${position}`;
      prevOffset = rel;
      prevPosition = position;
    }
    return null;
  }
}
