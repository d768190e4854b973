// The in-memory part of Kafka's sparse indexes: a Buffer of fixed-size big-endian entries, searched
// with binary search. While the segment is active every append is written through to the file, so
// the file always holds exactly the entries (we never preallocate), through the segment-file cache.
import fs from 'node:fs';
import { segmentFiles, type CachedFile } from './file-handle-cache.js';

export abstract class AbstractIndex {
  protected buf: Buffer;
  protected entryCount = 0;
  /** Set while the segment is active (write-through). */
  private handle: CachedFile | null = null;
  /** A write-through failed (ENOSPC, EMFILE): the whole index is written again when appends stop. */
  private writeBehind = false;
  private file_: string;

  protected constructor(
    file: string,
    readonly baseOffset: number,
    readonly maxIndexSize: number,
    readonly entrySize: number,
    contents?: Buffer,
  ) {
    this.file_ = file;
    if (contents) {
      this.buf = contents;
      this.entryCount = Math.floor(contents.length / entrySize);
    } else {
      this.buf = Buffer.allocUnsafe(entrySize * 64);
    }
  }

  get file(): string {
    return this.file_;
  }

  /** The file was renamed (an open descriptor follows it). */
  set file(file: string) {
    this.file_ = file;
    if (this.handle) this.handle.path = file;
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
    if (this.handle !== null) return;
    if (!fs.existsSync(this.file)) this.writeAll();
    this.handle = segmentFiles.file(this.file);
  }

  /** Writes all entries to the file and makes it exactly that long (after a rebuild). */
  writeAll(): void {
    const fd = fs.openSync(this.file, 'w');
    try {
      fs.writeSync(fd, this.buf, 0, this.sizeInBytes, 0);
      fs.ftruncateSync(fd, this.sizeInBytes);
    } finally {
      fs.closeSync(fd);
    }
    this.writeBehind = false;
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

  /**
   * Counts the entry and writes it through. A failed write does not fail the append (the log bytes are
   * already written): the in-memory index is complete and the file is rewritten when the segment rolls
   * or closes; a crash before that rebuilds the index from the log at start-up.
   */
  protected commitEntry(pos: number): void {
    this.entryCount++;
    if (this.handle === null || this.writeBehind) return;
    try {
      fs.writeSync(this.handle.fd, this.buf, pos, this.entrySize, pos);
    } catch {
      this.writeBehind = true;
    }
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

  /** Stops write-through (the segment rolled); the file is then exactly the entries. */
  closeForAppend(): void {
    if (this.handle === null) return;
    this.handle.close();
    this.handle = null;
    if (this.writeBehind) {
      try {
        this.writeAll();
      } catch {
        // Still failing: recovery at the next start rebuilds the index from the log.
      }
    }
  }
}
