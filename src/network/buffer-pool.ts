// Reusable buffers of one size for large transient data: Produce request frames that arrive in several
// socket chunks, and Fetch responses read into memory. A fresh 1 MB buffer costs a malloc, page faults
// on every page and external-memory pressure, which makes V8 run full collections (see the users'
// comments); a reused one is already mapped and warm. A buffer goes back only once nothing reads it.

export class BufferPool {
  private readonly free: ArrayBuffer[] = [];
  private readonly owned = new WeakSet<ArrayBuffer>();

  /**
   * @param bufferBytes size of each pooled buffer; larger frames get a fresh buffer.
   * @param maxFree buffers kept for reuse; more given back are left to the GC.
   */
  constructor(readonly bufferBytes: number, private readonly maxFree: number) {}

  /** A buffer of exactly `size` bytes, from the pool when it fits. */
  take(size: number): Buffer {
    if (size > this.bufferBytes) return Buffer.allocUnsafeSlow(size);
    let buffer = this.free.pop();
    if (buffer === undefined) {
      buffer = new ArrayBuffer(this.bufferBytes);
      this.owned.add(buffer);
    }
    return Buffer.from(buffer, 0, size);
  }

  /** Returns a buffer from take() for reuse; its contents may be overwritten from now on. */
  give(taken: Buffer): void {
    const buffer = taken.buffer as ArrayBuffer;
    if (!this.owned.has(buffer) || this.free.length >= this.maxFree || this.free.includes(buffer)) return;
    this.free.push(buffer);
  }

  /** Buffers waiting for reuse (tests). */
  get freeCount(): number {
    return this.free.length;
  }
}
