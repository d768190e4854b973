// Leader epoch -> start offset, in memory and in leader-epoch-checkpoint (Kafka's LeaderEpochFileCache, the file
// exactly as Kafka keeps it). A kafkite-created partition stays at epoch 0; one taken over from a Kafka node goes on
// from the epochs Kafka's restarts left, and each new epoch starts at the log end offset when it is assigned.
import { LeaderEpochCheckpointFile, type EpochEntry } from './checkpoint-file.js';

/** OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET. */
const UNDEFINED = { epoch: -1, endOffset: -1 } as const;

export class LeaderEpochFileCache {
  private entries: EpochEntry[];

  /** A malformed file is treated as empty: the log re-assigns its epoch and rewrites it. */
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

  /** The epoch of the log start offset, -1 if the first entry starts after it (Kafka's UnifiedLog.fetchOffsetByTimestamp, EARLIEST). */
  earliestEpochAt(logStartOffset: number): number {
    const first = this.entries[0];
    return first !== undefined && first.startOffset <= logStartOffset ? first.epoch : -1;
  }

  /**
   * Records that `epoch` starts at `startOffset`, as Kafka's assign: nothing when it is the latest epoch already
   * (from no later offset); otherwise entries of this or a later epoch, or starting at or after the offset, give way.
   */
  assign(epoch: number, startOffset: number): void {
    const latest = this.entries[this.entries.length - 1];
    if (epoch < 0 || startOffset < 0 || (latest !== undefined && latest.epoch === epoch && latest.startOffset <= startOffset)) return;
    let keep = this.entries.length;
    while (keep > 0 && (this.entries[keep - 1].epoch >= epoch || this.entries[keep - 1].startOffset >= startOffset)) keep--;
    this.entries = [...this.entries.slice(0, keep), { epoch, startOffset }];
    this.checkpoint.write(this.entries);
  }

  /**
   * Kafka's endOffsetFor: the largest epoch <= `requested` and where it ends (the next epoch's start offset, or
   * `logEndOffset` for the latest epoch); a requested epoch before the first keeps its number and ends where the
   * first starts; one past the latest, or -1, is undefined.
   */
  endOffsetFor(requested: number, logEndOffset: number): { epoch: number; endOffset: number } {
    if (requested < 0 || this.entries.length === 0) return UNDEFINED;
    if (requested === this.latestEpoch) return { epoch: requested, endOffset: logEndOffset };
    const higher = this.entries.findIndex((e) => e.epoch > requested);
    if (higher < 0) return UNDEFINED;
    const endOffset = this.entries[higher].startOffset;
    return higher === 0 ? { epoch: requested, endOffset } : { epoch: this.entries[higher - 1].epoch, endOffset };
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

  /**
   * The log was truncated to `endOffset` (recovery): epochs starting at or after it go (Kafka's truncateFromEnd), but
   * for the first, which an empty log would otherwise drop and re-assign unchanged at every load.
   */
  truncateFromEnd(endOffset: number): void {
    const kept = this.entries.filter((e, i) => e.startOffset < endOffset || i === 0);
    if (kept.length !== this.entries.length) {
      this.entries = kept;
      this.checkpoint.write(this.entries);
    }
  }
}
