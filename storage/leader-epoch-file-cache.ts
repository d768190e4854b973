// Leader epoch → start offset (Kafka's LeaderEpochFileCache). On one broker the epoch is always 0,
// but the leader-epoch-checkpoint file is kept exactly as Kafka keeps it.
import { LeaderEpochCheckpointFile, type EpochEntry } from './checkpoint-file.js';

export class LeaderEpochFileCache {
  private entries: EpochEntry[];

  /** A malformed file is treated as empty: the log re-assigns epoch 0 and rewrites it. */
  constructor(private readonly checkpoint: LeaderEpochCheckpointFile) {
    try {
      this.entries = checkpoint.read();
    } catch {
      this.entries = [];
    }
  }

  get latestEpoch(): number {
    return this.entries.length > 0 ? this.entries[this.entries.length - 1].epoch : -1;
  }

  /** Records that `epoch` starts at `startOffset`, if it is a new epoch. */
  assign(epoch: number, startOffset: number): void {
    if (epoch <= this.latestEpoch) return;
    this.entries.push({ epoch, startOffset });
    this.checkpoint.write(this.entries);
  }

  /** The log start offset moved: drop epochs that ended before it and move the first one up to it. */
  truncateFromStart(startOffset: number): void {
    let i = 0;
    while (i + 1 < this.entries.length && this.entries[i + 1].startOffset <= startOffset) i++;
    const first = this.entries[i];
    if (first === undefined || (i === 0 && first.startOffset >= startOffset)) return;
    this.entries = [{ epoch: first.epoch, startOffset: Math.max(first.startOffset, startOffset) }, ...this.entries.slice(i + 1)];
    this.checkpoint.write(this.entries);
  }

  /** The log was truncated to `endOffset` (recovery): drop epochs starting at or after it. */
  truncateFromEnd(endOffset: number): void {
    const kept = this.entries.filter((e) => e.startOffset < endOffset || e === this.entries[0]);
    if (kept.length !== this.entries.length) {
      this.entries = kept;
      this.checkpoint.write(this.entries);
    }
  }
}
