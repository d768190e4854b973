// Fetch requests waiting for data (Kafka's DelayedFetch purgatory): woken by appends, never polled.
type Waiter = () => void;

export class FetchPurgatory {
  private readonly waiters = new Map<string, Set<Waiter>>();

  private static key(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /**
   * Resolves when any of the partitions gets new data (the fetch re-checks min_bytes) or after `maxWaitMs`.
   */
  wait(partitions: ReadonlyArray<[topic: string, partition: number]>, maxWaitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const keys = partitions.map(([t, p]) => FetchPurgatory.key(t, p));
      const done = (): void => {
        clearTimeout(timer);
        for (const k of keys) {
          const set = this.waiters.get(k);
          if (!set) continue;
          set.delete(done);
          if (set.size === 0) this.waiters.delete(k);
        }
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      for (const k of keys) {
        let set = this.waiters.get(k);
        if (!set) this.waiters.set(k, (set = new Set()));
        set.add(done);
      }
    });
  }

  /** Called after an append to the partition. */
  notify(topic: string, partition: number): void {
    const set = this.waiters.get(FetchPurgatory.key(topic, partition));
    if (!set) return;
    for (const waiter of [...set]) waiter();
  }

  /** Wakes every waiting fetch (shutdown). */
  wakeAll(): void {
    for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter();
  }
}
