// Reusable buffers for large transient data: Produce request frames that arrive in several socket
// chunks, and Fetch responses read into memory. A fresh 1 MB buffer costs a malloc, page faults on
// every page and external-memory pressure, which makes V8 run full collections (see the users'
// comments); a reused one is already mapped and warm. A buffer goes back only once nothing reads it.
// Buffers come in power-of-two sizes from minBytes to maxBytes; a request for more gets a fresh one.

export interface BufferPoolOptions {
  /** The smallest pooled buffer (a power of two); smaller requests get one of this size. */
  minBytes: number;
  /** The largest pooled buffer (a power of two); larger requests get a fresh buffer, never pooled. */
  maxBytes: number;
  /** Bytes of buffers kept for reuse, all sizes together; more given back are left to the GC. */
  maxFreeBytes: number;
}

export class BufferPool {
  /** Free buffers by size (a power of two). */
  private readonly free = new Map<number, ArrayBuffer[]>();
  private readonly owned = new WeakSet<ArrayBuffer>();
  private freeBytes = 0;

  constructor(private readonly opts: BufferPoolOptions) {}

  /** A buffer of exactly `size` bytes, from the pool when it fits. */
  take(size: number): Buffer {
    if (size > this.opts.maxBytes) return Buffer.allocUnsafeSlow(size);
    const bytes = Math.max(this.opts.minBytes, 2 ** Math.ceil(Math.log2(Math.max(size, 1))));
    let buffer = this.free.get(bytes)?.pop();
    if (buffer === undefined) {
      buffer = new ArrayBuffer(bytes);
      this.owned.add(buffer);
    } else {
      this.freeBytes -= bytes;
    }
    return Buffer.from(buffer, 0, size);
  }

  /** Returns a buffer from take() for reuse; its contents may be overwritten from now on. */
  give(taken: Buffer): void {
    const buffer = taken.buffer as ArrayBuffer;
    if (!this.owned.has(buffer) || this.freeBytes + buffer.byteLength > this.opts.maxFreeBytes) return;
    let list = this.free.get(buffer.byteLength);
    if (list === undefined) this.free.set(buffer.byteLength, (list = []));
    if (list.includes(buffer)) return;
    list.push(buffer);
    this.freeBytes += buffer.byteLength;
  }

  /** Buffers waiting for reuse (tests). */
  get freeCount(): number {
    let count = 0;
    for (const list of this.free.values()) count += list.length;
    return count;
  }
}
