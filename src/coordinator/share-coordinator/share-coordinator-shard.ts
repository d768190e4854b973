// The state of one __share_group_state partition, as Kafka's ShareCoordinatorShard: the merged state of
// each share partition whose key hashes here, rebuilt by replaying ShareSnapshot and ShareUpdate records.
// Each operation checks the request (Kafka's errors, in Kafka's order) and returns the records to append;
// the service appends them and replays them here, so the in-memory state is what the log says.
import { ErrorCode } from '../../errors.js';
import type { PersisterStateBatch, SharePartitionKey, SharePartitionState, SharePartitionSummary } from '../../share/persister.js';
import type { CoordinatorRecord } from '../offsets-topic.js';
import { combineStateBatches } from './persister-state-batch-combiner.js';
import {
  newShareSnapshotRecord, newShareStateTombstoneRecord, newShareUpdateRecord, ShareRecordType, type ShareGroupOffset, type ShareStateRecord,
  type ShareUpdateValue,
} from './share-coordinator-record-helpers.js';
import { ShareCoordinatorOffsetsManager } from './share-coordinator-offsets-manager.js';

export interface ShardResult<T> {
  errorCode: number;
  errorMessage: string | null;
  records: CoordinatorRecord[];
  value?: T;
}

/** Whether the topic id and partition exist (Kafka checks the metadata image). */
export type PartitionExists = (topicId: string, partition: number) => boolean;

// Kafka's ShareCoordinatorShard exception messages.
const NEGATIVE_PARTITION_ID = 'The partition id cannot be a negative number.';
const NEGATIVE_LEADER_EPOCH = 'The leader epoch cannot be a negative number.';
const NEGATIVE_STATE_EPOCH = 'The state epoch cannot be a negative number.';
const WRITE_UNINITIALIZED = 'Write operation on uninitialized share partition not allowed.';
const READ_UNINITIALIZED = 'Read operation on uninitialized share partition not allowed.';
const UNKNOWN_PARTITION = 'This server does not host this topic-partition.';
const FENCED_STATE_EPOCH = 'The coordinator rejected the request because the state epoch did not match.';

function stateKey(key: SharePartitionKey): string {
  return `${key.groupId}\0${key.topicId}\0${key.partition}`;
}

function error<T>(errorCode: number, errorMessage: string | null): ShardResult<T> {
  return { errorCode, errorMessage, records: [] };
}

function ok<T>(value: T, records: CoordinatorRecord[] = []): ShardResult<T> {
  return { errorCode: ErrorCode.NONE, errorMessage: null, records, value };
}

export class ShareCoordinatorShard {
  private readonly shareStateMap = new Map<string, ShareGroupOffset>();
  private readonly leaderEpochMap = new Map<string, number>();
  private readonly stateEpochMap = new Map<string, number>();
  private readonly snapshotUpdateCount = new Map<string, number>();
  private readonly keys = new Map<string, SharePartitionKey>();
  readonly offsetsManager = new ShareCoordinatorOffsetsManager();

  constructor(
    private readonly snapshotUpdateRecordsPerSnapshot: number,
    private readonly partitionExists: PartitionExists,
    private readonly now: () => number = Date.now,
  ) {}

  /** Applies one record read from (or just appended to) the log at `offset`. */
  replay(offset: number, record: ShareStateRecord): void {
    const k = stateKey(record.key);
    if (record.type === ShareRecordType.Snapshot) {
      if (record.value === null) {
        this.shareStateMap.delete(k);
        this.leaderEpochMap.delete(k);
        this.stateEpochMap.delete(k);
        this.snapshotUpdateCount.delete(k);
        this.keys.delete(k);
        this.offsetsManager.updateState(k, offset, true);
        return;
      }
      this.keys.set(k, record.key);
      this.raise(this.leaderEpochMap, k, record.value.leaderEpoch);
      this.raise(this.stateEpochMap, k, record.value.stateEpoch);
      this.shareStateMap.set(k, record.value);
      if ((this.snapshotUpdateCount.get(k) ?? 0) >= this.snapshotUpdateRecordsPerSnapshot) this.snapshotUpdateCount.set(k, 0);
      this.offsetsManager.updateState(k, offset, false);
    } else if (record.value !== null) {
      this.keys.set(k, record.key);
      this.raise(this.leaderEpochMap, k, record.value.leaderEpoch);
      const current = this.shareStateMap.get(k);
      this.shareStateMap.set(k, current ? merge(current, record.value) : fromUpdate(record.value));
      const count = this.snapshotUpdateCount.get(k);
      this.snapshotUpdateCount.set(k, count === undefined ? 0 : count + 1);
    }
  }

  private raise(map: Map<string, number>, k: string, epoch: number): void {
    const current = map.get(k);
    if (current === undefined || current < epoch) map.set(k, epoch);
  }

  /** A fresh snapshot: no batches, leader epoch 0. */
  initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: number): ShardResult<void> {
    if (key.partition < 0) return error(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID);
    const k = stateKey(key);
    const currentStateEpoch = this.stateEpochMap.get(k);
    if (currentStateEpoch !== undefined && currentStateEpoch > stateEpoch) {
      return error(ErrorCode.FENCED_STATE_EPOCH, FENCED_STATE_EPOCH);
    }
    if (!this.partitionExists(key.topicId, key.partition)) return error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_PARTITION);
    const current = this.shareStateMap.get(k);
    const now = this.now();
    return ok(undefined, [newShareSnapshotRecord(key, {
      snapshotEpoch: current ? current.snapshotEpoch + 1 : 0,
      // Nothing delivered yet: 0, or unknown (-1) while the start offset is (4.4's summary answers these).
      stateEpoch, leaderEpoch: 0, startOffset, deliveryCompleteCount: startOffset === -1 ? -1 : 0, createTimestamp: now, writeTimestamp: now, stateBatches: [],
    })]);
  }

  writeState(key: SharePartitionKey, state: SharePartitionState): ShardResult<void> {
    if (key.partition < 0) return error(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID);
    if (state.leaderEpoch < 0) return error(ErrorCode.INVALID_REQUEST, NEGATIVE_LEADER_EPOCH);
    if (state.stateEpoch < 0) return error(ErrorCode.INVALID_REQUEST, NEGATIVE_STATE_EPOCH);
    const k = stateKey(key);
    if (!this.shareStateMap.has(k)) return error(ErrorCode.INVALID_REQUEST, WRITE_UNINITIALIZED);
    if ((this.leaderEpochMap.get(k) ?? -1) > state.leaderEpoch) return error(ErrorCode.FENCED_LEADER_EPOCH, 'The leader epoch in the request is older than the epoch on the broker.');
    if ((this.stateEpochMap.get(k) ?? -1) > state.stateEpoch) return error(ErrorCode.FENCED_STATE_EPOCH, FENCED_STATE_EPOCH);
    if (!this.partitionExists(key.topicId, key.partition)) return error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_PARTITION);
    // The write keeps the recorded leader epoch: only a read records a new one (4.4's writeState).
    return ok(undefined, [this.generateShareStateRecord(key, state, false)]);
  }

  /** The state; a newer leader epoch is recorded with an update (Kafka's readStateAndMaybeUpdateLeaderEpoch). */
  readState(key: SharePartitionKey, leaderEpoch: number): ShardResult<SharePartitionState> {
    if (key.partition < 0) return error(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID);
    if (leaderEpoch < 0) return error(ErrorCode.INVALID_REQUEST, NEGATIVE_LEADER_EPOCH);
    const k = stateKey(key);
    const current = this.shareStateMap.get(k);
    if (!current) return error(ErrorCode.INVALID_REQUEST, READ_UNINITIALIZED);
    const knownLeaderEpoch = this.leaderEpochMap.get(k);
    if (knownLeaderEpoch !== undefined && knownLeaderEpoch > leaderEpoch) {
      return error(ErrorCode.FENCED_LEADER_EPOCH, 'The leader epoch in the request is older than the epoch on the broker.');
    }
    if (!this.partitionExists(key.topicId, key.partition)) return error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_PARTITION);
    const state: SharePartitionState = {
      stateEpoch: current.stateEpoch, leaderEpoch, startOffset: current.startOffset, deliveryCompleteCount: current.deliveryCompleteCount,
      stateBatches: current.stateBatches.map((b) => ({ ...b })) as PersisterStateBatch[],
    };
    if (knownLeaderEpoch === leaderEpoch) return ok(state);
    const update = this.generateShareStateRecord(key, { ...state, stateBatches: [] }, true);
    return ok(state, [update]);
  }

  readSummary(key: SharePartitionKey): ShardResult<SharePartitionSummary | undefined> {
    if (key.partition < 0) return error(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID);
    if (!this.partitionExists(key.topicId, key.partition)) return error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_PARTITION);
    const current = this.shareStateMap.get(stateKey(key));
    if (!current) return ok(undefined);
    const { stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount } = current;
    return ok({ stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount });
  }

  /** A tombstone of the key's snapshot; deleting a key never initialized succeeds without a record, as in Kafka. */
  deleteState(key: SharePartitionKey): ShardResult<void> {
    if (key.partition < 0) return error(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID);
    if (!this.shareStateMap.has(stateKey(key))) return ok(undefined);
    return ok(undefined, [newShareStateTombstoneRecord(key)]);
  }

  /**
   * Kafka's snapshotColdPartitions: a fresh snapshot of each share partition whose last one is older than
   * share.coordinator.cold.partition.snapshot.interval.ms (a snapshot keeps its create time, an update keeps the
   * write time), so pruning is not held back by one that is no longer written to. Nothing while every share
   * partition has had one already.
   */
  snapshotColdPartitions(coldIntervalMs: number): CoordinatorRecord[] {
    const states = [...this.shareStateMap.values()];
    if (states.every((state) => state.createTimestamp !== state.writeTimestamp)) return [];
    const now = this.now();
    const records: CoordinatorRecord[] = [];
    for (const [k, state] of this.shareStateMap) {
      if (now - state.writeTimestamp < coldIntervalMs) continue;
      records.push(newShareSnapshotRecord(this.keys.get(k)!, { ...state, snapshotEpoch: state.snapshotEpoch + 1, writeTimestamp: now }));
    }
    return records;
  }

  /** Tombstones for the share partitions of deleted topics (Kafka's maybeCleanupShareState). */
  cleanupShareState(deletedTopicIds: ReadonlySet<string>): CoordinatorRecord[] {
    return [...this.keys.values()].filter((key) => deletedTopicIds.has(key.topicId)).map(newShareStateTombstoneRecord);
  }

  get(key: SharePartitionKey): ShareGroupOffset | undefined {
    return this.shareStateMap.get(stateKey(key));
  }

  /** The share partitions of a group whose state lives here. */
  *sharePartitionsOf(groupId: string): Generator<SharePartitionKey> {
    for (const key of this.keys.values()) if (key.groupId === groupId) yield key;
  }

  /**
   * Kafka's generateShareStateRecord: a ShareUpdate with the write's batches, or every
   * snapshot.update.records.per.snapshot updates a ShareSnapshot of the whole merged state. The start
   * offset never moves back; the delivery-complete count follows the start offset it was counted from.
   */
  private generateShareStateRecord(key: SharePartitionKey, write: SharePartitionState, updateLeaderEpoch: boolean): CoordinatorRecord {
    const k = stateKey(key);
    const current = this.shareStateMap.get(k)!;
    const now = this.now();
    const leaderEpoch = updateLeaderEpoch ? write.leaderEpoch : current.leaderEpoch;
    const startOffset = Math.max(write.startOffset, current.startOffset);
    let deliveryCompleteCount = write.deliveryCompleteCount;
    if (write.startOffset === current.startOffset) deliveryCompleteCount = Math.max(write.deliveryCompleteCount, current.deliveryCompleteCount);
    else if (write.startOffset < current.startOffset) deliveryCompleteCount = current.deliveryCompleteCount;
    if ((this.snapshotUpdateCount.get(k) ?? 0) >= this.snapshotUpdateRecordsPerSnapshot) {
      return newShareSnapshotRecord(key, {
        snapshotEpoch: current.snapshotEpoch + 1, stateEpoch: current.stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount,
        createTimestamp: now, writeTimestamp: now, stateBatches: combineStateBatches(current.stateBatches as PersisterStateBatch[], write.stateBatches, startOffset),
      });
    }
    return newShareUpdateRecord(key, {
      snapshotEpoch: current.snapshotEpoch, leaderEpoch, startOffset, deliveryCompleteCount,
      stateBatches: combineStateBatches([], write.stateBatches, startOffset),
    });
  }
}

/** Kafka's ShareCoordinatorShard.merge: an update over the state (-1 start offset or leader epoch keeps the current one). */
function merge(current: ShareGroupOffset, update: ShareUpdateValue): ShareGroupOffset {
  const startOffset = update.startOffset === -1 ? current.startOffset : update.startOffset;
  return {
    snapshotEpoch: current.snapshotEpoch,
    stateEpoch: current.stateEpoch,
    startOffset,
    deliveryCompleteCount: update.deliveryCompleteCount,
    leaderEpoch: update.leaderEpoch === -1 ? current.leaderEpoch : update.leaderEpoch,
    stateBatches: combineStateBatches(current.stateBatches as PersisterStateBatch[], update.stateBatches as PersisterStateBatch[], startOffset),
    createTimestamp: current.createTimestamp,
    writeTimestamp: current.writeTimestamp,
  };
}

/** An update replayed with no snapshot before it (its snapshot was pruned away): Kafka's ShareGroupOffset.fromRecord. */
function fromUpdate(update: ShareUpdateValue): ShareGroupOffset {
  return { ...update, stateEpoch: 0, createTimestamp: -1, writeTimestamp: -1 };
}
