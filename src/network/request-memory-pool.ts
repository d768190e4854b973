// Kafka's queued.max.request.bytes (its SimpleMemoryPool, non-strict): a request's size is reserved
// when its size prefix arrives and given back once it is decoded. While the pool is used up, connections
// wanting memory are not read (Kafka mutes them) and get it in arrival order as it frees up. Non-strict
// as in Kafka: any memory left admits a whole request, so one request of any size can always proceed
// and use stays below the capacity plus one socket.request.max.bytes. Capacity -1 (Kafka's default): no bound.

export class RequestMemoryPool {
  private available: number;
  private readonly waiting: Array<{ size: number; grant: () => void }> = [];

  constructor(readonly capacity: number) {
    this.available = capacity;
  }

  get bounded(): boolean {
    return this.capacity > 0;
  }

  /** Reserves `size` bytes now (true), or queues `grant` for when memory frees up (false). */
  reserve(size: number, grant: () => void): boolean {
    if (!this.bounded) return true;
    if (this.waiting.length === 0 && this.available > 0) {
      this.available -= size;
      return true;
    }
    this.waiting.push({ size, grant });
    return false;
  }

  release(size: number): void {
    if (!this.bounded) return;
    this.available += size;
    while (this.waiting.length > 0 && this.available > 0) {
      const next = this.waiting.shift()!;
      this.available -= next.size;
      next.grant();
    }
  }

  /** A connection closed while waiting: it no longer wants its reservation. */
  cancel(grant: () => void): void {
    const i = this.waiting.findIndex((w) => w.grant === grant);
    if (i >= 0) this.waiting.splice(i, 1);
  }
}
