// When kafkite snapshots the metadata image, as Kafka's SnapshotGenerator decides: once
// metadata.log.max.record.bytes.between.snapshots of record batches were appended since the last snapshot, or
// metadata.log.max.snapshot.interval.ms after the first batch the last snapshot does not hold (0 turns that off).
// Kafka's controller writes a NoOpRecord every half second, so its time trigger fires on time; kafkite writes
// nothing when idle, so a timer stands in for those records.

/** The snapshot and retention settings of the metadata log (Kafka's MetadataLogConfig). */
export interface MetadataLogPolicy {
  maxBytesBetweenSnapshots: number;
  maxSnapshotIntervalMs: number;
  /** metadata.max.retention.bytes and .ms; negative: no limit. */
  retentionBytes: number;
  retentionMs: number;
}

/** Kafka 4.4's defaults: 20 MiB, 1 hour, 100 MiB, 7 days. */
export const DEFAULT_METADATA_LOG_POLICY: MetadataLogPolicy = Object.freeze({
  maxBytesBetweenSnapshots: 20 * 1024 * 1024,
  maxSnapshotIntervalMs: 60 * 60 * 1000,
  retentionBytes: 100 * 1024 * 1024,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
});

/** Node's timers hold at most 2^31-1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SnapshotGenerator {
  private bytesSinceLastSnapshot = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly policy: MetadataLogPolicy,
    /** Asked for a snapshot, with why; it calls snapshotted() once it took one. */
    private readonly emit: (reason: string) => void,
  ) {}

  /** A batch of `bytes` was appended (or, at start-up, is in the log after the latest snapshot). */
  appended(bytes: number): void {
    this.bytesSinceLastSnapshot += bytes;
    if (this.bytesSinceLastSnapshot >= this.policy.maxBytesBetweenSnapshots) {
      this.emit(`${this.bytesSinceLastSnapshot} bytes of records since the last snapshot, at least metadata.log.max.record.bytes.between.snapshots (${this.policy.maxBytesBetweenSnapshots})`);
    } else if (this.timer === null && this.policy.maxSnapshotIntervalMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.emit(`metadata.log.max.snapshot.interval.ms (${this.policy.maxSnapshotIntervalMs}) passed since the first record the last snapshot does not hold`);
      }, Math.min(this.policy.maxSnapshotIntervalMs, MAX_TIMER_MS));
      this.timer.unref();
    }
  }

  snapshotted(): void {
    this.bytesSinceLastSnapshot = 0;
    this.close();
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
