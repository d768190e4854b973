// Puts response bytes on the socket. In-memory chunks go out in one corked write; a response with file
// slices (Fetch record data) is read from the page cache into one buffer first. The zero-copy sendfile
// path plugs in here.
import { read, readSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { FileSlice } from '../../protocol/primitives.js';
import { BufferPool } from './buffer-pool.js';

export interface ResponseSender {
  /** Writes the chunks in order. Returns a promise only when the send had to wait for file reads. */
  send(socket: Socket, chunks: ReadonlyArray<Buffer | FileSlice>): Promise<void> | undefined;
}

function writeAll(socket: Socket, buffers: ReadonlyArray<Buffer>): void {
  if (buffers.length === 1) {
    socket.write(buffers[0]!);
    return;
  }
  socket.cork();
  for (const b of buffers) socket.write(b);
  socket.uncork();
}

/** Reads on the thread pool into `out` at `at`; the slice's file is pinned meanwhile so its descriptor cannot be closed and reused. */
function readSlice(slice: FileSlice, out: Buffer, at: number): Promise<void> {
  if (slice.length === 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const release = slice.pin?.() ?? (() => {});
    const fd = slice.fd;
    const step = (filled: number): void => {
      read(fd, out, at + filled, slice.length - filled, slice.position + filled, (err, n) => {
        if (err || n === 0 || filled + n >= slice.length) release();
        if (err) return reject(err);
        if (n === 0) return reject(new Error(`short read of fd ${fd} at ${slice.position + filled}`));
        if (filled + n < slice.length) return step(filled + n);
        resolve();
      });
    };
    step(0);
  });
}

/**
 * Responses carrying at most this much record data are read synchronously from the page cache: a
 * thread-pool round trip (async read or sendfile) costs more than copying a few pages.
 */
export const SMALL_RESPONSE_FILE_BYTES = 64 * 1024;

/** Pins every slice's file (see FileSlice.pin) until the returned function is called. */
export function pinSlices(chunks: ReadonlyArray<Buffer | FileSlice>): () => void {
  const releases: Array<() => void> = [];
  for (const c of chunks) if (!Buffer.isBuffer(c) && c.pin) releases.push(c.pin());
  return () => {
    for (const release of releases) release();
  };
}

export function fileBytesOf(chunks: ReadonlyArray<Buffer | FileSlice>): number {
  let bytes = 0;
  for (const c of chunks) if (!Buffer.isBuffer(c)) bytes += c.length;
  return bytes;
}

function readSliceSync(slice: FileSlice, out: Buffer, at: number): void {
  let filled = 0;
  while (filled < slice.length) {
    const n = readSync(slice.fd, out, at + filled, slice.length - filled, slice.position + filled);
    if (n === 0) throw new Error(`short read of fd ${slice.fd} at ${slice.position + filled}`);
    filled += n;
  }
}

/** Buffer.allocUnsafe serves requests below this from Node's shared slab (Buffer.poolSize / 2). */
const NODE_SLAB_BYTES = Buffer.poolSize >>> 1;

/**
 * Reads file slices into memory and writes them: used where sendfile is not available (TLS, no addon).
 * A response with file data goes out as one buffer, the data read straight into place: given several,
 * a TLS socket would copy them into one before encrypting (Node's TLSWrap::DoWrite): 7% of the broker's
 * samples in a TLS consume (perf).
 * That buffer is reused once the socket has written it. A fresh one per response made V8 run a full
 * collection every few dozen MB of external memory: 0.6-0.8 of 1.1-1.3 CPU-s per GB fetched in a
 * copying consume (perf: concurrent marking and sweeping), against about 0.03 in user space with sendfile.
 */
export class CopyingResponseSender implements ResponseSender {
  /**
   * From Buffer.poolSize / 2 (4 KiB to Node 22, 32 KiB from Node 24) up to 64 MiB: a response within Kafka's fetch.max.bytes (55 MB); librdkafka's of 1 MiB per
   * partition for four partitions take 4 MiB buffers. 32 MiB of them are kept while no response uses them.
   */
  private readonly pool = new BufferPool({ minBytes: NODE_SLAB_BYTES, maxBytes: 64 << 20, maxFreeBytes: 32 << 20 });

  send(socket: Socket, chunks: ReadonlyArray<Buffer | FileSlice>): Promise<void> | undefined {
    let length = 0;
    let fileBytes = 0;
    let slices = 0;
    for (const c of chunks) {
      length += c.length;
      if (Buffer.isBuffer(c)) continue;
      fileBytes += c.length;
      slices++;
    }
    if (slices === 0) {
      writeAll(socket, chunks as ReadonlyArray<Buffer>);
      return undefined;
    }
    // A small response is cut from Node's shared Buffer slab, cheaper than any buffer of its own; give() ignores it.
    const out = length < NODE_SLAB_BYTES ? Buffer.allocUnsafe(length) : this.pool.take(length);
    const reads: Array<Promise<void>> = [];
    let at = 0;
    for (const c of chunks) {
      if (Buffer.isBuffer(c)) c.copy(out, at);
      else if (fileBytes <= SMALL_RESPONSE_FILE_BYTES) readSliceSync(c, out, at);
      else reads.push(readSlice(c, out, at));
      at += c.length;
    }
    // Given back once written; after a failed write (a destroyed socket) it is left to the GC.
    const write = (): void => {
      socket.write(out, (err) => {
        if (!err) this.pool.give(out);
      });
    };
    if (reads.length === 0) {
      write();
      return undefined;
    }
    return Promise.all(reads).then(() => {
      if (!socket.destroyed) write();
    });
  }
}
