// The share coordinator on __share_group_state over TCP: the state APIs (83-87) answered from one store,
// merged state read back, and the state kept across a clean restart and a kill -9 (checked from a new
// connection); snapshots every share.coordinator.snapshot.update.records.per.snapshot updates, on disk.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { dumpLog } from '../../storage/tools/dump-log.js';
import { killAndRestart, REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { javaArgs } from '../helpers/java.js';

let broker: BrokerProcess;
let client: WireClient;
let topicId: string;
const GROUP = 'sg';
const OVERRIDES = ['share.coordinator.state.topic.num.partitions=3'];

beforeAll(async () => {
  // share.coordinator.snapshot.update.records.per.snapshot stays at its default (500); 3 partitions of
  // __share_group_state keep start-up quick.
  broker = await startBroker({ overrides: OVERRIDES });
  client = await WireClient.connect(broker.port);
  const created = await client.send(19, 7, {
    topics: [{ name: 'work', numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false,
  });
  expect(created.topics[0].errorCode).toBe(0);
  topicId = created.topics[0].topicId;
});

afterAll(async () => {
  client.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

const batch = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number) => ({ firstOffset, lastOffset, deliveryState, deliveryCount });

function initialize(partition: number, stateEpoch = 0, startOffset = 0, c = client) {
  return c.send(83, 0, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition, stateEpoch, startOffset }] }] });
}

function write(partition: number, p: { leaderEpoch?: number; stateEpoch?: number; startOffset?: number; batches: ReturnType<typeof batch>[] }, c = client) {
  return c.send(85, 1, {
    groupId: GROUP,
    topics: [{ topicId, partitions: [{
      partition, stateEpoch: p.stateEpoch ?? 0, leaderEpoch: p.leaderEpoch ?? 1, startOffset: p.startOffset ?? 0, deliveryCompleteCount: -1, stateBatches: p.batches,
    }] }],
  });
}

async function read(partition: number, leaderEpoch = 1, c = client) {
  const res = await c.send(84, 0, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition, leaderEpoch }] }] });
  return res.results[0].partitions[0];
}

async function summary(partition: number, c = client) {
  const res = await c.send(87, 1, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition, leaderEpoch: 1 }] }] });
  return res.results[0].partitions[0];
}

const code = (res: { results: Array<{ partitions: Array<{ errorCode: number }> }> }) => res.results[0]!.partitions[0]!.errorCode;

describe('share coordinator', () => {
  it('answers FindCoordinator for a share coordinator key with this node', async () => {
    const key = `${GROUP}:${Buffer.from(topicId, 'hex').toString('base64url')}:0`;
    const res = await client.send(10, 6, { key: '', keyType: 2, coordinatorKeys: [key, 'not-a-key'] });
    expect(res.coordinators[0]).toMatchObject({ key, errorCode: 0, nodeId: 1, port: broker.port });
    expect(res.coordinators[1].errorCode).toBe(42);
  });

  it('initializes, merges writes, reads back and summarizes; refuses what Kafka refuses', async () => {
    expect(code(await write(0, { batches: [] }))).toBe(42); // INVALID_REQUEST: not initialized
    expect(await read(0)).toMatchObject({ errorCode: 42, errorMessage: 'Read operation on uninitialized share partition not allowed.' });
    expect(code(await initialize(0))).toBe(0);
    expect(code(await initialize(9))).toBe(3); // UNKNOWN_TOPIC_OR_PARTITION
    expect(code(await write(0, { batches: [batch(0, 9, 0, 1)] }))).toBe(0);
    expect(code(await write(0, { batches: [batch(0, 4, 2, 1)] }))).toBe(0);
    expect(code(await write(0, { startOffset: 2, leaderEpoch: 2, batches: [batch(10, 14, 4, 5)] }))).toBe(0);
    // A read with leader epoch 2 records it: a write of leader epoch 1 is fenced from then on.
    expect((await read(0, 2)).errorCode).toBe(0);
    expect(code(await write(0, { leaderEpoch: 1, batches: [batch(20, 20, 2, 1)] }))).toBe(74); // FENCED_LEADER_EPOCH
    expect(await read(0, 2)).toMatchObject({
      errorCode: 0, stateEpoch: 0, startOffset: 2, stateBatches: [batch(2, 4, 2, 1), batch(5, 9, 0, 1), batch(10, 14, 4, 5)],
    });
    expect(await summary(0)).toMatchObject({ errorCode: 0, stateEpoch: 0, leaderEpoch: 2, startOffset: 2 });
    expect(await summary(3)).toMatchObject({ errorCode: 0, startOffset: -1 });
  });

  it('fences an older state epoch and deletes state', async () => {
    expect(code(await initialize(1, 3, 100))).toBe(0);
    expect(code(await write(1, { stateEpoch: 2, batches: [] }))).toBe(124); // FENCED_STATE_EPOCH
    expect(code(await initialize(1, 2, 0))).toBe(124);
    expect(code(await write(1, { stateEpoch: 3, startOffset: 100, batches: [batch(100, 109, 2, 1)] }))).toBe(0);
    const deleted = await client.send(86, 0, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 1 }] }] });
    expect(code(deleted)).toBe(0);
    expect(await summary(1)).toMatchObject({ startOffset: -1 });
  });

  it('keeps every answered write across a restart and a kill -9', async () => {
    expect(code(await initialize(2, 0, 0))).toBe(0);
    for (let i = 0; i < 30; i++) expect(code(await write(2, { batches: [batch(i, i, i % 3 === 0 ? 4 : 2, 1)] }))).toBe(0);
    const before = await read(2);
    const before0 = await read(0, 2);
    client.close();
    expect(await broker.stop()).toBe(0);
    broker = await startBroker({ dataDir: broker.dataDir, port: broker.port, overrides: OVERRIDES });
    client = await WireClient.connect(broker.port);
    expect(await read(2)).toEqual(before);
    expect(await read(0, 2)).toEqual(before0);
    expect(await summary(1)).toMatchObject({ startOffset: -1 });

    for (let i = 30; i < 40; i++) expect(code(await write(2, { batches: [batch(i, i, 0, 2)] }))).toBe(0);
    const acknowledged = await read(2);
    client.close();
    broker = await killAndRestart(broker, { overrides: OVERRIDES });
    client = await WireClient.connect(broker.port);
    expect(await read(2)).toEqual(acknowledged);
    expect(acknowledged.stateBatches).toEqual([
      ...Array.from({ length: 10 }, (_, j) => [batch(3 * j, 3 * j, 4, 1), batch(3 * j + 1, 3 * j + 2, 2, 1)]).flat().filter((b) => b.firstOffset < 30),
      batch(30, 39, 0, 2),
    ]);
  });

  it('keeps every answered write when killed -9 amid pipelined writes', async () => {
    const amid = { groupId: 'amid', topics: [{ topicId, partitions: [{ partition: 1, stateEpoch: 0, startOffset: 0 }] }] };
    expect(code(await client.send(83, 0, amid))).toBe(0);
    const answered: number[] = [];
    const pending = Array.from({ length: 300 }, (_, i) => client.send(85, 1, { groupId: 'amid', topics: [{ topicId, partitions: [{
      partition: 1, stateEpoch: 0, leaderEpoch: 0, startOffset: 0, deliveryCompleteCount: -1, stateBatches: [batch(2 * i, 2 * i, 4, 1)],
    }] }] }).then((res) => { if (code(res) === 0) answered.push(i); }, () => {}));
    while (answered.length < 20) await new Promise((r) => setTimeout(r, 1));
    client.close();
    broker = await killAndRestart(broker, { overrides: OVERRIDES });
    await Promise.all(pending);
    client = await WireClient.connect(broker.port);
    const read = await client.send(84, 0, { groupId: 'amid', topics: [{ topicId, partitions: [{ partition: 1, leaderEpoch: 0 }] }] });
    const stored = new Set(read.results[0].partitions[0].stateBatches.map((b: { firstOffset: number }) => b.firstOffset / 2));
    expect(answered.length).toBeGreaterThanOrEqual(20);
    expect(answered.filter((i) => !stored.has(i))).toEqual([]);
  });

  it('describes, alters and deletes share-group offsets, with 4.4\'s lag', async () => {
    const now = Date.now();
    const records = encodeBatch({ baseOffset: 0, records: Array.from({ length: 10 }, (_, i) => ({ offset: i, timestamp: now, key: null, value: Buffer.from(`v${i}`), headers: [] })) });
    const produced = await client.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'work', partitionData: [{ index: 3, records }] }] });
    expect(produced.responses[0].partitionResponses[0].errorCode).toBe(0);
    const describe = async (topics: unknown) => (await client.send(90, 1, { groups: [{ groupId: 'adm', topics }] })).groups[0];
    expect((await describe([{ topicName: 'work', partitions: [3] }])).topics[0].partitions[0]).toMatchObject({ startOffset: -1, lag: -1 });
    const altered = await client.send(91, 0, { groupId: 'adm', topics: [{ topicName: 'work', partitions: [{ partitionIndex: 3, startOffset: 4 }] }] });
    expect(altered).toMatchObject({ errorCode: 0, responses: [{ topicName: 'work', partitions: [{ partitionIndex: 3, errorCode: 0 }] }] });
    expect((await describe(null)).topics).toEqual([{ topicName: 'work', topicId, partitions: [{ partitionIndex: 3, startOffset: 4, leaderEpoch: 0, lag: 6, errorCode: 0, errorMessage: null }] }]);
    // Two records delivered past the start offset: the lag counts what is left.
    const written = await client.send(85, 1, { groupId: 'adm', topics: [{ topicId, partitions: [{
      partition: 3, stateEpoch: 0, leaderEpoch: 0, startOffset: 4, deliveryCompleteCount: 2, stateBatches: [batch(4, 5, 2, 1)],
    }] }] });
    expect(code(written)).toBe(0);
    expect((await describe(null)).topics[0].partitions[0]).toMatchObject({ startOffset: 4, lag: 4 });
    // A group of another type is refused; a classic group is made by committing an offset.
    await client.send(8, 9, { groupId: 'classic', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: [{ name: 'work', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: null }] }] });
    expect(await client.send(92, 0, { groupId: 'classic', topics: [{ topicName: 'work' }] })).toMatchObject({ errorCode: 69, errorMessage: 'Group classic is not a share group.' });
    const deleted = await client.send(92, 0, { groupId: 'adm', topics: [{ topicName: 'work' }] });
    expect(deleted).toMatchObject({ errorCode: 0, responses: [{ topicName: 'work', errorCode: 0 }] });
    expect((await describe(null)).topics).toEqual([]);
  });

  it('writes a ShareSnapshot after 500 updates, as the records on disk show', async () => {
    const snap = { groupId: 'snap', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, startOffset: 0 }] }] };
    expect(code(await client.send(83, 0, snap))).toBe(0);
    // Pipelined on one connection: the coordinator takes them in order.
    const writes = await Promise.all(Array.from({ length: 502 }, (_, i) => client.send(85, 1, { groupId: 'snap', topics: [{ topicId, partitions: [{
      partition: 0, stateEpoch: 0, leaderEpoch: 0, startOffset: 0, deliveryCompleteCount: -1, stateBatches: [batch(i, i, 2, 1)],
    }] }] })));
    expect(writes.map(code).every((c) => c === 0)).toBe(true);
    const read = await client.send(84, 0, { groupId: 'snap', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] });
    expect(read.results[0].partitions[0].stateBatches).toEqual([batch(0, 501, 2, 1)]);
    const partitionDirs = readdirSync(broker.dataDir).filter((d) => d.startsWith('__share_group_state-'));
    expect(partitionDirs).toHaveLength(3);
    const types: number[] = [];
    for (const dir of partitionDirs) {
      const files = readdirSync(join(broker.dataDir, dir)).filter((f) => f.endsWith('.log')).map((f) => join(broker.dataDir, dir, f));
      const ours: string[] = [];
      for await (const line of dumpLog({ files, printDataLog: true, deepIteration: true, indexSanityCheck: false, shareGroupStateDecoder: true })) {
        ours.push(line);
        const m = /key: (\{.*\}) payload: /.exec(line);
        if (m && line.includes('"groupId":"snap"')) types.push(Number(JSON.parse(m[1]!).type));
      }
      // Kafka 4.4's kafka-dump-log.sh decodes the same segments into the same lines.
      const kafka = spawnSync('java', javaArgs('org.apache.kafka.tools.DumpLogSegments', ['--share-group-state-decoder', '--files', files.join(',')]), { cwd: REPO_ROOT, encoding: 'utf8' });
      expect(kafka.status, kafka.stderr).toBe(0);
      expect(ours).toEqual(kafka.stdout.trimEnd().split('\n'));
    }
    // The initializing snapshot, then 502 writes: 501 updates and, as Kafka counts (the first update after a
    // snapshot counts 0), a snapshot for the 502nd.
    expect(types).toEqual([0, ...Array(501).fill(1), 0]);
  });
});
