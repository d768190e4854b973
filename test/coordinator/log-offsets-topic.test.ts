import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode as E } from '../../src/errors.js';
import { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import { LogOffsetsTopic, type OffsetsTopicLogs } from '../../src/coordinator/log-offsets-topic.js';
import { OFFSETS_TOPIC_NAME } from '../../src/coordinator/offsets-topic.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../storage/log-config.js';
import { LogManager } from '../../storage/log-manager.js';
import { joinRequest, TEST_CONFIG } from './helpers.js';

const COMPACTED: LogConfig = { ...DEFAULT_LOG_CONFIG, cleanupPolicy: ['compact'], segmentBytes: 2048 };
const TOPIC_ID = '0123456789abcdef0123456789abcdef';

let dir: string;
let logManager: LogManager | undefined;
let coordinator: GroupCoordinator | undefined;

async function openLogs(): Promise<OffsetsTopicLogs> {
  logManager = await LogManager.open({
    logDirs: [dir], logger: pino({ level: 'silent' }), clusterId: 'test-cluster', nodeId: 1,
    configFor: () => COMPACTED, retentionCheckIntervalMs: 300000, cleanerEnable: false,
  });
  const manager = logManager;
  return {
    numPartitions: 3,
    get: (p) => manager.getLog(OFFSETS_TOPIC_NAME, p),
    getOrCreate: (p) => manager.createLog(OFFSETS_TOPIC_NAME, p, TOPIC_ID, COMPACTED),
  };
}

async function restart(): Promise<GroupCoordinator> {
  coordinator?.shutdown();
  await logManager?.shutdown();
  coordinator = new GroupCoordinator(TEST_CONFIG, new LogOffsetsTopic(await openLogs()));
  await coordinator.startup();
  return coordinator;
}

beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'kafkite-offsets-')); });
afterEach(async () => {
  coordinator?.shutdown();
  coordinator = undefined;
  await logManager?.shutdown();
  logManager = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('LogOffsetsTopic', () => {
  it('reads from a given offset on, across segments (the schema registry catching up)', async () => {
    const topic = new LogOffsetsTopic(await openLogs());
    for (let i = 0; i < 30; i++) await topic.append(2, [{ key: Buffer.from(`k${i}`), value: Buffer.alloc(100, i) }]);
    const keys = async (from: number) => (await topic.readAll(2, from)).map((r) => r.key.toString());
    expect(await keys(25)).toEqual(['k25', 'k26', 'k27', 'k28', 'k29']);
    expect(await keys(30)).toEqual([]);
    expect(await keys(0)).toHaveLength(30);
  });

  it('reads back appended records, tombstones included, across segments and a reopen', async () => {
    const topic = new LogOffsetsTopic(await openLogs());
    expect(await topic.readAll(1)).toEqual([]);
    for (let i = 0; i < 40; i++) {
      await topic.append(1, [
        { key: Buffer.from(`k${i}`), value: Buffer.alloc(50, i) },
        { key: Buffer.from(`t${i}`), value: null },
      ]);
    }
    await logManager!.shutdown();
    const reopened = new LogOffsetsTopic(await openLogs());
    const records = await reopened.readAll(1);
    expect(records).toHaveLength(80);
    expect(records[78]).toEqual({ key: Buffer.from('k39'), value: Buffer.alloc(50, 39), offset: 78 });
    expect(records[79]).toEqual({ key: Buffer.from('t39'), value: null, offset: 79 });
    expect(await reopened.readAll(0)).toEqual([]);
  });

  it('keeps committed offsets and groups of a coordinator across a broker restart', async () => {
    let c = await restart();
    const first = await c.joinGroup(joinRequest({ sessionTimeoutMs: 10000 }));
    await c.syncGroup({
      groupId: 'g', generationId: 1, memberId: first.memberId, groupInstanceId: null, protocolType: null, protocolName: null,
      assignments: [{ memberId: first.memberId, assignment: Buffer.from('assigned') }],
    });
    const topics = [{ name: 'orders', partitions: [0, 1, 2].map((p) => ({
      partitionIndex: p, committedOffset: 100 + p, committedLeaderEpoch: 0, commitTimestamp: -1, committedMetadata: `m${p}`,
    })) }];
    await c.commitOffsets({ groupId: 'g', generationId: 1, memberId: first.memberId, groupInstanceId: null, retentionTimeMs: -1, topics });
    await c.commitOffsets({ groupId: 'solo', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics });
    expect((await c.deleteOffsets('solo', [{ name: 'orders', partitions: [1] }])).errorCode).toBe(E.NONE);

    c = await restart();
    expect(c.fetchOffsets('g', null).topics).toEqual([{ name: 'orders', partitions: [0, 1, 2].map((p) => ({
      partitionIndex: p, committedOffset: 100 + p, committedLeaderEpoch: 0, metadata: `m${p}`, errorCode: E.NONE,
    })) }]);
    expect(c.fetchOffsets('solo', null).topics[0].partitions.map((p) => p.partitionIndex)).toEqual([0, 2]);
    const [g] = c.describeGroups(['g']);
    expect(g).toMatchObject({ groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
    expect(g.members[0]).toMatchObject({ memberId: first.memberId, memberAssignment: Buffer.from('assigned') });
  });
});
