// The share coordinator service over an in-memory __share_group_state: pruning moves the log start only past
// records every share partition has a newer snapshot for (cold partitions get one), so replaying what is
// left rebuilds the same state; a deleted topic's share partitions get tombstones.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { CoordinatorRecord } from '../../src/coordinator/offsets-topic.js';
import { ShareCoordinatorService, type ShareStateTopic } from '../../src/coordinator/share-coordinator/share-coordinator-service.js';
import type { UnifiedLog } from '../../storage/unified-log.js';

class MemoryTopic implements ShareStateTopic {
  readonly numPartitions = 1;
  readonly records: CoordinatorRecord[] = [];
  logStart = 0;

  write(_partition: number, batch: ReadonlyArray<CoordinatorRecord>): UnifiedLog {
    this.records.push(...batch);
    return { logEndOffset: this.records.length, flush: async () => {} } as unknown as UnifiedLog;
  }

  async readAll(): Promise<CoordinatorRecord[]> {
    return this.records.map((r, offset) => ({ ...r, offset })).slice(this.logStart);
  }

  deleteRecordsBefore(_partition: number, offset: number): number {
    this.logStart = Math.max(this.logStart, offset);
    return this.logStart;
  }
}

const TOPIC = 'aa'.repeat(16);
const OTHER = 'bb'.repeat(16);
const A = { groupId: 'g', topicId: TOPIC, partition: 0 };
const B = { groupId: 'g', topicId: TOPIC, partition: 1 };
const C = { groupId: 'g', topicId: OTHER, partition: 0 };
const config = { numPartitions: 1, snapshotUpdateRecordsPerSnapshot: 100, pruneIntervalMs: 1e9, coldPartitionSnapshotIntervalMs: 1000 };
let clock = 0;

async function service(topic: MemoryTopic): Promise<ShareCoordinatorService> {
  const s = new ShareCoordinatorService(config, topic, () => true, pino({ level: 'silent' }), () => clock);
  await s.startup();
  return s;
}

const write = (s: ShareCoordinatorService, key: typeof A, first: number) =>
  s.writeState(key, { stateEpoch: 0, leaderEpoch: 0, startOffset: 0, deliveryCompleteCount: -1, stateBatches: [{ firstOffset: first, lastOffset: first, deliveryState: 2, deliveryCount: 1 }] });

describe('ShareCoordinatorService', () => {
  it('prunes to the oldest latest snapshot, and what is left replays to the same state', async () => {
    const topic = new MemoryTopic();
    clock = 0;
    const s = await service(topic);
    await s.initializeState(A, 0, 0);
    await s.initializeState(B, 0, 0);
    for (let i = 0; i < 3; i++) await write(s, A, i);
    s.prune();
    // A's only snapshot is at offset 0: nothing is redundant yet.
    expect(topic.logStart).toBe(0);
    clock = 999;
    await s.snapshotColdPartitions();
    expect(topic.records).toHaveLength(5);
    // Both last snapshots are a cold interval old: each gets a fresh one (A at 5, B at 6).
    clock = 1000;
    await s.snapshotColdPartitions();
    expect(topic.records).toHaveLength(7);
    s.prune();
    expect(topic.logStart).toBe(5);
    // Every share partition has been cold-snapshotted since its last snapshot: nothing more, as in Kafka.
    clock = 5000;
    await s.snapshotColdPartitions();
    expect(topic.records).toHaveLength(7);
    await write(s, A, 9);
    const again = await service(topic);
    for (const key of [A, B]) expect(await again.readState(key, 0)).toEqual(await s.readState(key, 0));
    expect((await again.readState(A, 0))!.stateBatches).toEqual([
      { firstOffset: 0, lastOffset: 2, deliveryState: 2, deliveryCount: 1 }, { firstOffset: 9, lastOffset: 9, deliveryState: 2, deliveryCount: 1 },
    ]);
  });

  it('deletes the state of a deleted topic, and keeps it deleted across a replay', async () => {
    const topic = new MemoryTopic();
    clock = 0;
    const s = await service(topic);
    for (const key of [A, B, C]) await s.initializeState(key, 0, 0);
    await s.onTopicDeleted(TOPIC);
    expect(s.summaryOf(A)).toBeUndefined();
    expect(s.summaryOf(B)).toBeUndefined();
    expect(s.summaryOf(C)).toMatchObject({ startOffset: 0 });
    const again = await service(topic);
    expect(await again.readState(A, 0)).toBeUndefined();
    expect(again.sharePartitionsOf('g')).toEqual([C]);
  });
});
