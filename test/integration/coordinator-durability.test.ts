// Offset commits, offset deletions, group state (SyncGroup's assignment, ConsumerGroupHeartbeat's records) and
// group deletions are answered once __consumer_offsets is on disk, as an acks=all produce is (Kafka appends
// them with acks=-1). Checked on a real broker through its flush counter: with nothing else written, the
// request's own fdatasync must have completed by the time its answer arrives. A lost TxnOffsetCommit batch
// would let an OS crash after EndTxn undo the input offsets of a committed transaction: its outputs
// committed, its inputs read again.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ApiKey } from '../../protocol/generated/index.js';
import { startBroker, type BrokerProcess, adminAddress } from '../helpers/broker-process.js';

const TOPIC = 'durable-offsets';

let broker: BrokerProcess;
let client: WireClient;
let admin: string;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['offsets.topic.num.partitions=2', 'transaction.state.log.num.partitions=2', 'group.initial.rebalance.delay.ms=0'] });
  client = await WireClient.connect(broker.port);
  admin = adminAddress(broker);
  const created = await client.send(19, 7, { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(created.topics[0].errorCode).toBe(0);
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

/** Log fdatasyncs the broker has completed so far. */
async function flushes(): Promise<number> {
  const text = await (await fetch(`${admin}/metrics`)).text();
  return Number(/^kafkite_log_flush_duration_seconds_count (\S+)$/m.exec(text)?.[1]);
}

function partitionsOf(offset: number) {
  return [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null }] }];
}

async function committed(group: string): Promise<{ committedOffset: number; errorCode: number }> {
  const fetched = await client.send(9, 7, { groupId: group, topics: [{ name: TOPIC, partitionIndexes: [0] }], groups: [], requireStable: true });
  return fetched.topics[0].partitions[0];
}

describe('group coordinator writes are on disk when answered', () => {
  it('OffsetCommit', async () => {
    // The first commit creates __consumer_offsets; the second one is measured on its own.
    expect((await client.send(8, 8, { groupId: 'durable-g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: partitionsOf(1) }))
      .topics[0].partitions[0].errorCode).toBe(0);
    const before = await flushes();
    const res = await client.send(8, 8, { groupId: 'durable-g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: partitionsOf(7) });
    expect(res.topics[0].partitions[0].errorCode).toBe(0);
    expect(await flushes()).toBeGreaterThan(before);
    expect(await committed('durable-g')).toMatchObject({ committedOffset: 7, errorCode: 0 });
  });

  it('TxnOffsetCommit, and the offsets are committed with the transaction', async () => {
    const init = await client.send(22, 4, { transactionalId: 'durable-t', transactionTimeoutMs: 30000, producerId: -1, producerEpoch: -1 });
    const { producerId, producerEpoch } = init;
    expect((await client.send(25, 3, { transactionalId: 'durable-t', producerId, producerEpoch, groupId: 'durable-tg' })).errorCode).toBe(0);
    const before = await flushes();
    const res = await client.send(28, 3, {
      transactionalId: 'durable-t', groupId: 'durable-tg', producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: partitionsOf(11),
    });
    expect(res.topics[0].partitions[0].errorCode).toBe(0);
    expect(await flushes()).toBeGreaterThan(before);
    expect((await committed('durable-tg')).errorCode).toBe(88); // UNSTABLE_OFFSET_COMMIT until the transaction ends
    expect((await client.send(26, 3, { transactionalId: 'durable-t', producerId, producerEpoch, committed: true })).errorCode).toBe(0);
    await expect.poll(() => committed('durable-tg')).toMatchObject({ committedOffset: 11, errorCode: 0 });
  });

  it('OffsetDelete, then DeleteGroups', async () => {
    expect((await client.send(8, 8, { groupId: 'durable-del', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: partitionsOf(5) }))
      .topics[0].partitions[0].errorCode).toBe(0);
    let before = await flushes();
    const deleted = await client.send(47, 0, { groupId: 'durable-del', topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }] });
    expect([deleted.errorCode, deleted.topics[0].partitions[0].errorCode]).toEqual([0, 0]);
    expect(await flushes()).toBeGreaterThan(before);
    expect(await committed('durable-del')).toMatchObject({ committedOffset: -1, errorCode: 0 });

    expect((await client.send(8, 8, { groupId: 'durable-del', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: partitionsOf(6) }))
      .topics[0].partitions[0].errorCode).toBe(0);
    before = await flushes();
    const groups = await client.send(42, 2, { groupsNames: ['durable-del'] });
    expect(groups.results.map((r: any) => [r.groupId, r.errorCode])).toEqual([['durable-del', 0]]);
    expect(await flushes()).toBeGreaterThan(before);
    expect(await committed('durable-del')).toMatchObject({ committedOffset: -1, errorCode: 0 });
  });

  it("SyncGroup with the leader's assignment", async () => {
    const join = (memberId: string) => client.send(11, 5, {
      groupId: 'durable-classic', sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId, groupInstanceId: null,
      protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0, 0]) }], reason: null,
    });
    const first = await join('');
    expect(first.errorCode).toBe(79); // MEMBER_ID_REQUIRED
    const joined = await join(first.memberId);
    expect([joined.errorCode, joined.leader]).toEqual([0, first.memberId]);
    const before = await flushes();
    const synced = await client.send(14, 5, {
      groupId: 'durable-classic', generationId: joined.generationId, memberId: first.memberId, groupInstanceId: null,
      protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: first.memberId, assignment: Buffer.from('assigned') }],
    });
    expect([synced.errorCode, Buffer.from(synced.assignment).toString()]).toEqual([0, 'assigned']);
    expect(await flushes()).toBeGreaterThan(before);
  });

  it('ConsumerGroupHeartbeat that joins, and DeleteGroups of a consumer group (KIP-848)', async () => {
    const heartbeat = (body: Record<string, unknown>) => client.send(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: 'durable-848', memberId: randomUUID(), memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: [TOPIC], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [], ...body,
    });
    let before = await flushes();
    const joined = await heartbeat({});
    expect(joined.errorCode).toBe(0);
    expect(await flushes()).toBeGreaterThan(before);
    // memberEpoch -1: the member leaves, and the group is empty.
    expect((await heartbeat({ memberId: joined.memberId, memberEpoch: -1, subscribedTopicNames: null, topicPartitions: null })).errorCode).toBe(0);
    before = await flushes();
    const groups = await client.send(42, 2, { groupsNames: ['durable-848'] });
    expect(groups.results.map((r: any) => [r.groupId, r.errorCode])).toEqual([['durable-848', 0]]);
    expect(await flushes()).toBeGreaterThan(before);
  });
});
