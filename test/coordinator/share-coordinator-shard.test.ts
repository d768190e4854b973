// The share coordinator's merge rules (PersisterStateBatchCombiner), epochs and snapshot policy, on the
// shard alone: records it emits are replayed as the service does after appending them.
import { describe, expect, it } from 'vitest';
import { combineStateBatches } from '../../src/coordinator/share-coordinator/persister-state-batch-combiner.js';
import { decodeShareStateRecord, ShareRecordType } from '../../src/coordinator/share-coordinator/share-coordinator-record-helpers.js';
import { ShareCoordinatorShard, type ShardResult } from '../../src/coordinator/share-coordinator/share-coordinator-shard.js';
import { ErrorCode } from '../../src/errors.js';
import { PersistedDeliveryState, type PersisterStateBatch, type SharePartitionState } from '../../src/share/persister.js';

const b = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number): PersisterStateBatch =>
  ({ firstOffset, lastOffset, deliveryState, deliveryCount }) as PersisterStateBatch;
const KEY = { groupId: 'g', topicId: '0123456789abcdef0123456789abcdef', partition: 0 };

describe('PersisterStateBatchCombiner', () => {
  it('joins neighbours with one state and count, and keeps gaps', () => {
    expect(combineStateBatches([b(0, 9, 0, 1)], [b(10, 19, 0, 1), b(30, 39, 2, 1)], -1)).toEqual([b(0, 19, 0, 1), b(30, 39, 2, 1)]);
  });

  it('lets the higher delivery count win an overlap, then the higher state', () => {
    expect(combineStateBatches([b(0, 99, 0, 1)], [b(10, 19, 2, 1), b(50, 59, 0, 2)], -1))
      .toEqual([b(0, 9, 0, 1), b(10, 19, 2, 1), b(20, 49, 0, 1), b(50, 59, 0, 2), b(60, 99, 0, 1)]);
    // A later write with a lower count does not take back what a higher count recorded.
    expect(combineStateBatches([b(0, 9, 0, 3)], [b(0, 9, 2, 1)], -1)).toEqual([b(0, 9, 0, 3)]);
  });

  it('prefers archived over acknowledged over available at one delivery count', () => {
    const { Available, Acknowledged, Archived } = PersistedDeliveryState;
    expect(combineStateBatches([b(0, 9, Archived, 2)], [b(5, 14, Acknowledged, 2), b(0, 19, Available, 2)], -1))
      .toEqual([b(0, 9, Archived, 2), b(10, 14, Acknowledged, 2), b(15, 19, Available, 2)]);
  });

  it('drops batches below the start offset and cuts the one across it', () => {
    expect(combineStateBatches([b(0, 9, 2, 1), b(10, 19, 0, 1)], [b(20, 29, 4, 5)], 15)).toEqual([b(15, 19, 0, 1), b(20, 29, 4, 5)]);
    expect(combineStateBatches([b(0, 9, 2, 1)], [], 10)).toEqual([]);
  });
});

function shard(perSnapshot = 3) {
  const s = new ShareCoordinatorShard(perSnapshot, (_topicId, partition) => partition < 4, () => 1000);
  let offset = 0;
  const types: ShareRecordType[] = [];
  function apply<T>(result: ShardResult<T>): ShardResult<T> {
    for (const record of result.records) {
      const decoded = decodeShareStateRecord(record)!;
      types.push(decoded.type);
      s.replay(offset++, decoded);
    }
    return result;
  }
  return { s, apply, types };
}

const state = (over: Partial<SharePartitionState>): SharePartitionState =>
  ({ stateEpoch: 0, leaderEpoch: 1, startOffset: 0, deliveryCompleteCount: -1, stateBatches: [], ...over });

describe('ShareCoordinatorShard', () => {
  it('refuses a write or read before initialize, and a negative epoch, with INVALID_REQUEST', () => {
    const { s } = shard();
    expect(s.writeState(KEY, state({})).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(s.readState(KEY, 0).errorMessage).toBe('Read operation on uninitialized share partition not allowed.');
    expect(s.writeState(KEY, state({ leaderEpoch: -1 })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(s.initializeState({ ...KEY, partition: 9 }, 0, 0).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('merges updates over the snapshot and reads the merged state back', () => {
    const { s, apply } = shard(100);
    apply(s.initializeState(KEY, 0, 0));
    apply(s.writeState(KEY, state({ stateBatches: [b(0, 9, 0, 1)] })));
    apply(s.writeState(KEY, state({ stateBatches: [b(0, 4, 2, 1)] })));
    apply(s.writeState(KEY, state({ startOffset: 3, stateBatches: [b(10, 14, 4, 5)] })));
    const read = apply(s.readState(KEY, 1));
    expect(read.errorCode).toBe(0);
    // The writes kept the initial leader epoch 0: the read records epoch 1 with an update.
    expect(read.records).toHaveLength(1);
    expect(apply(s.readState(KEY, 1)).records).toEqual([]);
    expect(read.value).toMatchObject({ startOffset: 3, stateEpoch: 0, stateBatches: [b(3, 4, 2, 1), b(5, 9, 0, 1), b(10, 14, 4, 5)] });
    // The start offset never moves back.
    apply(s.writeState(KEY, state({ startOffset: 1, stateBatches: [] })));
    expect(s.get(KEY)!.startOffset).toBe(3);
  });

  it('fences an older leader epoch and an older state epoch', () => {
    const { s, apply } = shard();
    apply(s.initializeState(KEY, 2, 0));
    // A write keeps the recorded leader epoch; a read with a newer one records it.
    apply(s.writeState(KEY, state({ stateEpoch: 2, leaderEpoch: 5 })));
    expect(s.writeState(KEY, state({ stateEpoch: 2, leaderEpoch: 4 })).errorCode).toBe(ErrorCode.NONE);
    expect(apply(s.readState(KEY, 5)).records).toHaveLength(1);
    expect(s.writeState(KEY, state({ stateEpoch: 2, leaderEpoch: 4 })).errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    expect(s.writeState(KEY, state({ stateEpoch: 1, leaderEpoch: 5 })).errorCode).toBe(ErrorCode.FENCED_STATE_EPOCH);
    expect(s.readState(KEY, 4).errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    expect(s.initializeState(KEY, 1, 0).errorCode).toBe(ErrorCode.FENCED_STATE_EPOCH);
    // A read with a newer leader epoch records it, so the old leader is fenced from then on.
    expect(apply(s.readState(KEY, 6)).records).toHaveLength(1);
    expect(s.writeState(KEY, state({ stateEpoch: 2, leaderEpoch: 5 })).errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
  });

  it('writes a snapshot once snapshot.update.records.per.snapshot updates follow the last one', () => {
    const { s, apply, types } = shard(3);
    apply(s.initializeState(KEY, 0, 0));
    for (let i = 0; i < 10; i++) apply(s.writeState(KEY, state({ stateBatches: [b(i, i, 2, 1)] })));
    const S = ShareRecordType.Snapshot;
    const U = ShareRecordType.Update;
    // As Kafka counts: the first update after a snapshot counts 0, so one more update than the setting.
    expect(types).toEqual([S, U, U, U, U, S, U, U, U, S, U]);
    expect(s.get(KEY)!.stateBatches).toEqual([b(0, 9, 2, 1)]);
    expect(s.get(KEY)!.snapshotEpoch).toBe(2);
    // Every key's latest snapshot is at offset 9: everything before it is redundant.
    expect(s.offsetsManager.lastRedundantOffset()).toBe(9);
  });

  it('deletes with a tombstone, and a replay from the records rebuilds the same state', () => {
    const { s, apply } = shard(2);
    const records: Parameters<typeof decodeShareStateRecord>[0][] = [];
    const keep = <T>(r: ShardResult<T>) => (records.push(...r.records), apply(r));
    keep(s.initializeState(KEY, 0, 5));
    keep(s.initializeState({ ...KEY, partition: 1 }, 0, 0));
    for (let i = 0; i < 5; i++) keep(s.writeState(KEY, state({ startOffset: 5, stateBatches: [b(5 + i, 5 + i, i % 2 === 0 ? 2 : 4, 1)] })));
    keep(s.deleteState({ ...KEY, partition: 1 }));
    expect(s.readSummary({ ...KEY, partition: 1 }).value).toBeUndefined();
    const again = new ShareCoordinatorShard(2, () => true);
    records.forEach((r, i) => again.replay(i, decodeShareStateRecord(r)!));
    expect(again.get(KEY)).toEqual(s.get(KEY));
    expect(again.get({ ...KEY, partition: 1 })).toBeUndefined();
  });
});
