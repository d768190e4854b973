// Kafka's ShareCoordinatorOffsetsManager: per share partition, the offset of its latest ShareSnapshot in
// one __share_group_state partition. Below the smallest of them every record is superseded, so the log
// start may move there (the "redundant offset" the coordinator prunes to).
const NONE = Number.MAX_SAFE_INTEGER;

export class ShareCoordinatorOffsetsManager {
  private readonly offsets = new Map<string, number>();
  private redundant = NONE;

  /** A snapshot of `key` was written at `offset`; `isDelete` for a tombstone (the key then leaves the set). */
  updateState(key: string, offset: number, isDelete: boolean): void {
    this.redundant = Math.min(this.redundant, offset);
    this.offsets.set(key, offset);
    const found = this.findRedundantOffset();
    if (found !== undefined) this.redundant = found;
    if (isDelete) this.offsets.delete(key);
  }

  private findRedundantOffset(): number | undefined {
    if (this.offsets.size === 0) return undefined;
    let min = NONE;
    for (const offset of this.offsets.values()) {
      min = Math.min(min, offset);
      // Nothing below the current value can be freed: stop early, as Kafka does.
      if (min === this.redundant) return min;
    }
    return min;
  }

  /** The offset records below which are redundant, or undefined while there is none. */
  lastRedundantOffset(): number | undefined {
    return this.redundant <= 0 || this.redundant === NONE ? undefined : this.redundant;
  }
}
