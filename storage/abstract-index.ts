// The in-memory part of Kafka's sparse indexes: a Buffer of fixed-size big-endian entries, searched
// with binary search. While the segment is active every append is written through to the file, so
// the file always holds exactly the entries (we never preallocate).
import fs from 'node:fs';

export abstract class AbstractIndex {
  protected buf: Buffer;
  protected entryCount = 0;
  private fd: number | null = null;

  protected constructor(
    public file: string,
    readonly baseOffset: number,
    readonly maxIndexSize: number,
    readonly entrySize: number,
    contents?: Buffer,
  ) {
    if (contents) {
      this.buf = contents;
      this.entryCount = Math.floor(contents.length / entrySize);
    } else {
      this.buf = Buffer.allocUnsafe(entrySize * 64);
    }
  }

  get entries(): number {
    return this.entryCount;
  }

  get maxEntries(): number {
    return Math.floor(this.maxIndexSize / this.entrySize);
  }

  get isFull(): boolean {
    return this.entryCount >= this.maxEntries;
  }

  get sizeInBytes(): number {
    return this.entryCount * this.entrySize;
  }

  /** Bytes of memory the index holds. */
  get memoryBytes(): number {
    return this.buf.length;
  }

  /** Opens the file for write-through appends (the segment became active). */
  openForAppend(): void {
    if (this.fd === null) this.fd = fs.openSync(this.file, fs.existsSync(this.file) ? 'r+' : 'w+');
  }

  /** Writes all entries to the file and makes it exactly that long (after a rebuild). */
  writeAll(): void {
    const fd = this.fd ?? fs.openSync(this.file, 'w');
    try {
      fs.writeSync(fd, this.buf, 0, this.sizeInBytes, 0);
      fs.ftruncateSync(fd, this.sizeInBytes);
    } finally {
      if (this.fd === null) fs.closeSync(fd);
    }
  }

  protected reserve(): number {
    const pos = this.entryCount * this.entrySize;
    if (pos + this.entrySize > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.entrySize * 64));
      this.buf.copy(next, 0, 0, pos);
      this.buf = next;
    }
    return pos;
  }

  protected commitEntry(pos: number): void {
    this.entryCount++;
    if (this.fd !== null) fs.writeSync(this.fd, this.buf, pos, this.entrySize, pos);
  }

  /** The index of the last entry whose key is <= target, or -1 (binary search). `onProbe` sees every slot read. */
  protected largestLowerBoundSlot(target: number, keyOf: (slot: number) => number, onProbe?: (slot: number) => void): number {
    let lo = 0;
    let hi = this.entryCount - 1;
    if (hi < 0) return -1;
    onProbe?.(0);
    if (keyOf(0) > target) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      onProbe?.(mid);
      if (keyOf(mid) <= target) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Stops write-through (the segment rolled); the file is already exactly the entries. */
  closeForAppend(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
  }
}
