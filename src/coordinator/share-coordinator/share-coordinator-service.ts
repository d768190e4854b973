// The share coordinator (Kafka's ShareCoordinatorService): share-partition state kept in __share_group_state,
// one shard per partition of it, and the Persister the share partitions and share groups call in process.
// A state change is appended, replayed into its shard and fdatasync'd before it is answered, as offset
// commits are; a read waits for the flush of what it saw. Periodically cold share partitions get a fresh
// snapshot and the log start moves past records every key has a newer snapshot for (Kafka's pruning).
import type { Logger } from 'pino';
import { ErrorCode } from '../../errors.js';
import {
  PersisterError, type Persister, type SharePartitionKey, type SharePartitionState, type SharePartitionSummary,
} from '../../share/persister.js';
import type { LogOffsetsTopic } from '../log-offsets-topic.js';
import { partitionFor, type CoordinatorRecord } from '../offsets-topic.js';
import type { ShareCoordinatorConfig } from './share-coordinator-config.js';
import { decodeShareStateRecord } from './share-coordinator-record-helpers.js';
import { ShareCoordinatorShard, type PartitionExists, type ShardResult } from './share-coordinator-shard.js';

/** What the service needs of __share_group_state: LogOffsetsTopic's writes and reads, and log start moves. */
export interface ShareStateTopic {
  readonly numPartitions: number;
  write: LogOffsetsTopic['write'];
  readAll: LogOffsetsTopic['readAll'];
  /** Moves the partition's log start (Kafka's PartitionWriter.deleteRecords); returns the new log start. */
  deleteRecordsBefore(partition: number, offset: number): number | undefined;
}

/** Kafka's SharePartitionKey.asCoordinatorKey: "groupId:topicId:partition", the topic id in its base64 form. */
function coordinatorKey(key: SharePartitionKey): string {
  return `${key.groupId}:${Buffer.from(key.topicId, 'hex').toString('base64url')}:${key.partition}`;
}

export class ShareCoordinatorService implements Persister {
  private readonly shards = new Map<number, ShareCoordinatorShard>();
  /** Per partition, the flush of its last append: what a later answer must wait for. */
  private readonly flushes = new Map<number, Promise<void>>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly config: ShareCoordinatorConfig,
    private readonly topic: ShareStateTopic,
    private readonly partitionExists: PartitionExists,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Replays every partition of __share_group_state, then starts the pruning and cold-snapshot jobs. */
  async startup(): Promise<void> {
    let records = 0;
    for (let p = 0; p < this.topic.numPartitions; p++) {
      for (const record of await this.topic.readAll(p)) {
        const decoded = decodeShareStateRecord(record);
        if (decoded && record.offset !== undefined) this.shard(p).replay(record.offset, decoded);
        records++;
      }
    }
    this.log.info({ records, partitions: this.shards.size }, 'share coordinator loaded');
    this.timers.push(setInterval(() => void this.snapshotColdPartitions(), this.config.coldPartitionSnapshotIntervalMs).unref());
    this.timers.push(setInterval(() => this.prune(), this.config.pruneIntervalMs).unref());
  }

  shutdown(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  partitionFor(key: SharePartitionKey): number {
    return partitionFor(coordinatorKey(key), this.topic.numPartitions);
  }

  private shard(partition: number): ShareCoordinatorShard {
    let shard = this.shards.get(partition);
    if (!shard) {
      shard = new ShareCoordinatorShard(this.config.snapshotUpdateRecordsPerSnapshot, this.partitionExists, this.now);
      this.shards.set(partition, shard);
    }
    return shard;
  }

  /** Runs one shard operation: its records appended and replayed, the answer given once they are on disk. */
  async execute<T>(key: SharePartitionKey, op: (shard: ShareCoordinatorShard) => ShardResult<T>): Promise<ShardResult<T>> {
    const partition = this.partitionFor(key);
    const result = op(this.shard(partition));
    if (result.records.length > 0) {
      try {
        this.append(partition, result.records);
      } catch (err) {
        this.log.warn({ partition, error: (err as Error).message }, 'share state not written');
        return { errorCode: errorCodeOf(err), errorMessage: (err as Error).message, records: [] };
      }
    }
    try {
      await this.flushes.get(partition);
    } catch (err) {
      return { errorCode: errorCodeOf(err), errorMessage: (err as Error).message, records: [] };
    }
    return result;
  }

  private append(partition: number, records: CoordinatorRecord[]): void {
    const log = this.topic.write(partition, records);
    const base = log.logEndOffset - records.length;
    const shard = this.shard(partition);
    records.forEach((record, i) => shard.replay(base + i, decodeShareStateRecord(record)!));
    const flushed = log.flush();
    // Awaited by the answers that depend on it; a failure is theirs to report, never an unhandled rejection.
    flushed.catch(() => {});
    this.flushes.set(partition, flushed);
  }

  /** Appends what `records` gives for each shard; returns once all of it is on disk. */
  private async appendToEach(what: string, records: (shard: ShareCoordinatorShard) => CoordinatorRecord[]): Promise<void> {
    for (const [partition, shard] of this.shards) {
      const batch = records(shard);
      if (batch.length === 0) continue;
      try {
        this.append(partition, batch);
      } catch (err) {
        this.log.warn({ partition, error: (err as Error).message }, `${what} not written`);
      }
    }
    await Promise.all(this.flushes.values()).catch((err: Error) => this.log.warn({ error: err.message }, `${what} not flushed`));
  }

  /** Fresh snapshots of share partitions whose last one is old, so pruning is not held back. */
  snapshotColdPartitions(): Promise<void> {
    return this.appendToEach('cold share partition snapshots', (shard) => shard.snapshotColdPartitions(this.config.coldPartitionSnapshotIntervalMs));
  }

  /** A topic was deleted: its share partitions' state goes, as Kafka's share coordinator cleans it up. */
  onTopicDeleted(topicId: string): Promise<void> {
    return this.appendToEach('share state of a deleted topic', (shard) => shard.cleanupShareState(new Set([topicId])));
  }

  /** Moves each partition's log start to its last redundant offset (Kafka's ShareCoordinatorService.setupRecordPruning). */
  prune(): void {
    for (const [partition, shard] of this.shards) {
      const offset = shard.offsetsManager.lastRedundantOffset();
      if (offset === undefined) continue;
      try {
        const logStart = this.topic.deleteRecordsBefore(partition, offset);
        this.log.debug({ partition, offset, logStart }, 'share group state pruned');
      } catch (err) {
        this.log.warn({ partition, offset, error: (err as Error).message }, 'share group state not pruned');
      }
    }
  }

  /** The stored summary, at once (for the admin APIs: nothing is written, nothing to wait for). */
  summaryOf(key: SharePartitionKey): SharePartitionSummary | undefined {
    const state = this.shard(this.partitionFor(key)).get(key);
    if (!state) return undefined;
    const { stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount } = state;
    return { stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount };
  }

  /** The share partitions of a group that have state, across every shard. */
  sharePartitionsOf(groupId: string): SharePartitionKey[] {
    return [...this.shards.values()].flatMap((shard) => [...shard.sharePartitionsOf(groupId)]);
  }

  private async persisted<T>(key: SharePartitionKey, op: (shard: ShareCoordinatorShard) => ShardResult<T>): Promise<T> {
    const result = await this.execute(key, op);
    if (result.errorCode !== ErrorCode.NONE) throw new PersisterError(result.errorCode, result.errorMessage ?? '');
    return result.value as T;
  }

  async initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<void> {
    await this.persisted(key, (shard) => shard.initializeState(key, stateEpoch, startOffset));
  }

  async readState(key: SharePartitionKey, leaderEpoch: number): Promise<SharePartitionState | undefined> {
    if (!this.shard(this.partitionFor(key)).get(key)) return undefined;
    return this.persisted(key, (shard) => shard.readState(key, leaderEpoch));
  }

  async writeState(key: SharePartitionKey, state: SharePartitionState): Promise<void> {
    await this.persisted(key, (shard) => shard.writeState(key, state));
  }

  readSummary(key: SharePartitionKey, _leaderEpoch: number): Promise<SharePartitionSummary | undefined> {
    return this.persisted(key, (shard) => shard.readSummary(key));
  }

  async deleteState(key: SharePartitionKey): Promise<void> {
    await this.persisted(key, (shard) => shard.deleteState(key));
  }
}

function errorCodeOf(err: unknown): number {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : ErrorCode.KAFKA_STORAGE_ERROR;
}
