// Reusable buffers for Produce request frames that arrive in several socket chunks. A fresh 1 MB
// buffer per request costs a malloc, page faults on every page and external-memory GC pressure; a
// reused one is already mapped and warm. Only Produce frames come from here, and only because its
// handler keeps nothing of the request once it has answered (the records are written to the log by
// then); a frame goes back to the pool only after its handler finished, never on an error path.

export class FrameBufferPool {
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

  /** Returns a frame from take() for reuse; its contents may be overwritten from now on. */
  give(frame: Buffer): void {
    const buffer = frame.buffer as ArrayBuffer;
    if (!this.owned.has(buffer) || this.free.length >= this.maxFree || this.free.includes(buffer)) return;
    this.free.push(buffer);
  }

  /** Buffers waiting for reuse (tests). */
  get freeCount(): number {
    return this.free.length;
  }
}
