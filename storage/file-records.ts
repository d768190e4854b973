// A segment's .log file (Kafka's FileRecords): appends with writeSync (page cache, main thread),
// batch-header hops for lookups, fdatasync off the main thread, and FileSlices for zero-copy reads.
import fs from 'node:fs';
import type { FileSlice } from '../protocol/primitives.js';
import { BATCH_HEADER_SIZE, BATCH_LENGTH, BatchHeader, LOG_OVERHEAD } from '../protocol/records/batch-header.js';
import { writeLogSync } from './fault-injection.js';
import { segmentFiles, type CachedFile } from './file-handle-cache.js';

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

/** A FileSlice whose descriptor comes from the segment-file cache (and can be pinned across async reads). */
class SegmentFileSlice implements FileSlice {
  constructor(
    private readonly handle: CachedFile,
    readonly position: number,
    readonly length: number,
  ) {}

  get fd(): number {
    return this.handle.fd;
  }

  pin(): () => void {
    return this.handle.pin();
  }
}

// batchAt's header read: used and dropped within the call (single-threaded), never handed out.
const HEADER_SCRATCH = Buffer.alloc(BATCH_HEADER_SIZE);
const SCRATCH_HEADER = new BatchHeader(HEADER_SCRATCH, 0);

export class FileRecords {
  private readonly handle: CachedFile;
  private size_: number;

  constructor(file: string, size: number) {
    this.size_ = size;
    this.handle = segmentFiles.file(file);
  }

  get file(): string {
    return this.handle.path;
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

  /** Opened on use through the segment-file cache, which closes idle files: read it right before each call. */
  get fd(): number {
    return this.handle.fd;
  }

  /**
   * Writes at the end. A failed write (ENOSPC, EIO) may have put part of the records in the file: it is
   * cut off again so no partial batch stays behind (if even that fails, recovery cuts it at start-up).
   */
  append(records: Buffer): number {
    const position = this.size_;
    let written = 0;
    const fd = this.fd;
    try {
      while (written < records.length) {
        written += writeLogSync(this.file, fd, records, written, records.length - written, position + written);
      }
    } catch (err) {
      if (written > 0) {
        try {
          fs.ftruncateSync(fd, position);
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

  /**
   * The batch starting at `position` (a batch boundary), or null where headersFrom would stop. Fetch's
   * lookups step with it rather than with the generators: it reads the header into one scratch buffer
   * and allocates only the location.
   */
  batchAt(position: number, end = this.size_): BatchLocation | null {
    if (end - position < BATCH_HEADER_SIZE) return null;
    fs.readSync(this.fd, HEADER_SCRATCH, 0, BATCH_HEADER_SIZE, position);
    scanCounters.headerReads++;
    const h = SCRATCH_HEADER;
    const size = h.sizeInBytes;
    if (size < BATCH_HEADER_SIZE || position + size > end) return null;
    return { position, size, baseOffset: h.baseOffset, lastOffset: h.lastOffset, maxTimestamp: h.maxTimestamp };
  }

  /** The batch after `batch`, as batchesFrom would yield it. */
  batchAfter(batch: BatchLocation, end = this.size_): BatchLocation | null {
    scanCounters.bytesScanned += batch.size;
    return this.batchAt(batch.position + batch.size, end);
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
    return new SegmentFileSlice(this.handle, position, length);
  }

  /** Cuts the file at `size` (recovery of a torn tail). */
  truncateTo(size: number): void {
    fs.ftruncateSync(this.fd, size);
    this.size_ = size;
  }

  /**
   * fdatasync on the thread pool. The file is opened if the cache closed it: fdatasync works on the
   * inode, so it also writes out pages dirtied through a descriptor closed since. Pinned meanwhile.
   */
  flush(): Promise<void> {
    let release: () => void;
    try {
      release = this.handle.pin();
    } catch (err) {
      return Promise.reject(err);
    }
    const fd = this.handle.fd;
    return new Promise((resolve, reject) =>
      fs.fdatasync(fd, (err) => {
        release();
        if (err) reject(err);
        else resolve();
      }),
    );
  }

  flushSync(): void {
    fs.fdatasyncSync(this.fd);
  }

  renameTo(file: string): void {
    fs.renameSync(this.file, file);
    this.handle.path = file;
  }

  close(): void {
    this.handle.close();
  }
}
