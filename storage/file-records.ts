// A segment's .log file (Kafka's FileRecords): appends with writeSync (page cache, main thread),
// batch-header hops for lookups, fdatasync off the main thread, and FileSlices for zero-copy reads.
import fs from 'node:fs';
import type { FileSlice } from '../protocol/primitives.js';
import { BATCH_HEADER_SIZE, BATCH_LENGTH, BatchHeader, LOG_OVERHEAD } from '../protocol/records/batch-header.js';
import { writeLogSync } from './fault-injection.js';

/** Work done by header hops, for benchmarks: batch headers read and bytes of log skipped over. */
export const scanCounters = { headerReads: 0, bytesScanned: 0 };

/** The position, size and offsets of one batch in a file. */
export interface BatchLocation {
  position: number;
  size: number;
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: number;
}

export class FileRecords {
  private fd_: number | null = null;
  private size_: number;

  constructor(public file: string, size: number) {
    this.size_ = size;
  }

  static open(file: string): FileRecords {
    return new FileRecords(file, fs.statSync(file).size);
  }

  static create(file: string): FileRecords {
    fs.closeSync(fs.openSync(file, 'wx'));
    return new FileRecords(file, 0);
  }

  get sizeInBytes(): number {
    return this.size_;
  }

  /** Opened on first use, so loading thousands of segments opens no files. */
  get fd(): number {
    if (this.fd_ === null) this.fd_ = fs.openSync(this.file, 'r+');
    return this.fd_;
  }

  /**
   * Writes at the end. A failed write (ENOSPC, EIO) may have put part of the records in the file: it is
   * cut off again so no partial batch stays behind (if even that fails, recovery cuts it at start-up).
   */
  append(records: Buffer): number {
    const position = this.size_;
    let written = 0;
    try {
      while (written < records.length) {
        written += writeLogSync(this.file, this.fd, records, written, records.length - written, position + written);
      }
    } catch (err) {
      if (written > 0) {
        try {
          fs.ftruncateSync(this.fd, position);
        } catch {
          // The size we count stays at `position`: nothing past it is ever read.
        }
      }
      throw err;
    }
    this.size_ += records.length;
    return position;
  }

  /** Reads the batch header at `position`; null when fewer than a header's bytes remain or the size is impossible. */
  readHeader(position: number, end = this.size_): BatchHeader | null {
    if (end - position < BATCH_HEADER_SIZE) return null;
    const buf = Buffer.allocUnsafe(BATCH_HEADER_SIZE);
    fs.readSync(this.fd, buf, 0, BATCH_HEADER_SIZE, position);
    scanCounters.headerReads++;
    const size = buf.readInt32BE(BATCH_LENGTH) + LOG_OVERHEAD;
    if (size < BATCH_HEADER_SIZE || position + size > end) return null;
    return new BatchHeader(buf, 0);
  }

  /** Hops from batch to batch (headers only) starting at a batch boundary. */
  *headersFrom(position: number, end = this.size_): Generator<{ position: number; header: BatchHeader }> {
    let pos = position;
    for (;;) {
      const header = this.readHeader(pos, end);
      if (header === null) return;
      yield { position: pos, header };
      const size = header.sizeInBytes;
      scanCounters.bytesScanned += size;
      pos += size;
    }
  }

  *batchesFrom(position: number, end = this.size_): Generator<BatchLocation> {
    for (const { position: pos, header: h } of this.headersFrom(position, end)) {
      yield { position: pos, size: h.sizeInBytes, baseOffset: h.baseOffset, lastOffset: h.lastOffset, maxTimestamp: h.maxTimestamp };
    }
  }

  /** Reads bytes into memory (recovery, compaction, dump-log; never fetch). */
  read(position: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = fs.readSync(this.fd, buf, done, length - done, position + done);
      if (n === 0) return buf.subarray(0, done);
      done += n;
    }
    return buf;
  }

  /**
   * Full batches from `position` in chunks of about `chunkSize`, for validation. Yields each chunk with
   * the position it starts at and the bytes of complete batches in it; stops at the first incomplete batch.
   */
  *chunksFrom(position: number, chunkSize = 1 << 20): Generator<{ position: number; buf: Buffer }> {
    let pos = position;
    while (pos < this.size_) {
      let buf = this.read(pos, Math.min(chunkSize, this.size_ - pos));
      let complete = 0;
      while (buf.length - complete >= LOG_OVERHEAD) {
        const size = buf.readInt32BE(complete + BATCH_LENGTH) + LOG_OVERHEAD;
        if (size < BATCH_HEADER_SIZE) break;
        if (complete + size > buf.length) {
          // One batch larger than the chunk: read exactly it (if the file holds it).
          if (complete === 0 && pos + size <= this.size_) {
            buf = this.read(pos, size);
            complete = size;
          }
          break;
        }
        complete += size;
      }
      if (complete === 0) return;
      yield { position: pos, buf: buf.subarray(0, complete) };
      pos += complete;
    }
  }

  slice(position: number, length: number): FileSlice {
    return { fd: this.fd, position, length };
  }

  /** Cuts the file at `size` (recovery of a torn tail). */
  truncateTo(size: number): void {
    fs.ftruncateSync(this.fd, size);
    this.size_ = size;
  }

  /** fdatasync on the thread pool. */
  flush(): Promise<void> {
    if (this.fd_ === null) return Promise.resolve();
    const fd = this.fd_;
    return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  }

  flushSync(): void {
    if (this.fd_ !== null) fs.fdatasyncSync(this.fd_);
  }

  renameTo(file: string): void {
    fs.renameSync(this.file, file);
    this.file = file;
  }

  close(): void {
    if (this.fd_ !== null) {
      fs.closeSync(this.fd_);
      this.fd_ = null;
    }
  }
}
