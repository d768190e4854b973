import { afterEach, describe, expect, it } from 'vitest';
import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResult } from '../../src/coordinator/consumer/consumer-group-coordinator.js';
import {
  ConsumerGroupRecordType as RecordType, decodeConsumerGroupKey, decodeGroupMetadata, groupEpochRecord, tombstone,
} from '../../src/coordinator/consumer/consumer-group-records.js';
import { metadataHash } from '../../src/coordinator/metadata-hash.js';
import { ErrorCode as E } from '../../src/errors.js';
import type { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import { joinRequest, MemoryOffsetsTopic, sleep, startCoordinator, Topics } from './helpers.js';


let coordinator: GroupCoordinator;
let topics: Topics;
let T: string;
afterEach(() => coordinator?.shutdown());

async function start(overrides = {}, topic = new MemoryOffsetsTopic()) {
  ({ coordinator } = await startCoordinator(overrides, topic));
  return topic;
}

function setup(): void {
  topics = new Topics();
  T = topics.add('t', 4);
}

function hb(overrides: Partial<ConsumerGroupHeartbeatRequest>): Promise<ConsumerGroupHeartbeatResult> {
  return coordinator.consumerGroupHeartbeat({
    groupId: 'g', memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 5000,
    subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    clientId: 'c', clientHost: '/127.0.0.1', apiVersion: 0, ...overrides,
  }, topics);
}

const partitionsOf = (r: ConsumerGroupHeartbeatResult) => r.assignment?.topicPartitions.flatMap((tp) => tp.partitions).sort() ?? [];
const owning = (r: ConsumerGroupHeartbeatResult) => r.assignment!.topicPartitions;

describe('ConsumerGroupHeartbeat', () => {
  it('joins: the broker generates the member id, bumps the epoch and assigns everything', async () => {
    setup();
    await start();
    const r = await hb({});
    expect(r.errorCode).toBe(E.NONE);
    expect(r.memberId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(r.memberEpoch).toBe(1);
    expect(r.heartbeatIntervalMs).toBe(5000);
    expect(partitionsOf(r)).toEqual([0, 1, 2, 3]);
    const [described] = coordinator.consumerGroupDescribe(['g'], topics);
    expect(described).toMatchObject({ groupState: 'Stable', groupEpoch: 1, assignmentEpoch: 1, assignorName: 'uniform' });
    expect(described!.members[0]!.assignment.topicPartitions).toEqual([{ topicId: T, topicName: 't', partitions: [0, 1, 2, 3] }]);
  });

  it('hands a partition to a new member only after its previous owner revoked it', async () => {
    setup();
    await start();
    const a = await hb({});
    const b = await hb({ memberId: '', clientId: 'b' });
    // b is at the new epoch but everything is still held by a.
    expect(b.memberEpoch).toBe(2);
    expect(partitionsOf(b)).toEqual([]);
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]!.groupState).toBe('Reconciling');

    // a learns what to revoke and stays at its epoch until it does.
    const a2 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a) });
    expect(a2.memberEpoch).toBe(1);
    expect(partitionsOf(a2)).toHaveLength(2);
    const a3 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a2) });
    expect(a3.memberEpoch).toBe(2);

    const b2 = await hb({ memberId: b.memberId!, memberEpoch: 2, topicPartitions: [] });
    expect(partitionsOf(b2)).toHaveLength(2);
    expect([...partitionsOf(a3), ...partitionsOf(b2)].sort()).toEqual([0, 1, 2, 3]);
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]!.groupState).toBe('Stable');
  });

  it("sends the assignment back only when the member's partitions changed, not for a new epoch alone (as Kafka)", async () => {
    setup();
    await start();
    const a = await hb({});
    await hb({ clientId: 'b' });
    const beat = (epoch: number, owned: ReturnType<typeof owning>) =>
      hb({ memberId: a.memberId!, memberEpoch: epoch, rebalanceTimeoutMs: -1, subscribedTopicNames: null, topicPartitions: owned });
    const revoking = await beat(1, owning(a));
    expect(revoking.memberEpoch).toBe(1);
    expect(partitionsOf(revoking)).toHaveLength(2);
    const acknowledged = await beat(1, owning(revoking));
    expect(acknowledged).toMatchObject({ errorCode: E.NONE, memberEpoch: 2, assignment: null });
  });

  it('fences wrong epochs and unknown members', async () => {
    setup();
    await start();
    const a = await hb({});
    expect((await hb({ memberId: a.memberId!, memberEpoch: 5, topicPartitions: owning(a) })).errorCode).toBe(E.FENCED_MEMBER_EPOCH);
    expect((await hb({ memberId: 'nobody', memberEpoch: 1 })).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
    expect((await hb({ groupId: 'other', memberId: 'x', memberEpoch: 3 })).errorCode).toBe(E.GROUP_ID_NOT_FOUND);
  });

  it('accepts a retry with the previous epoch when the member owns nothing new', async () => {
    setup();
    await start();
    const a = await hb({});
    const b = await hb({ clientId: 'b' });
    await hb({ memberId: b.memberId!, memberEpoch: 2, topicPartitions: [] });
    const a2 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: [] });
    expect(a2.memberEpoch).toBe(2);
    // The response was "lost": a retries with epoch 1 and its subset.
    const retry = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a2) });
    expect(retry.errorCode).toBe(E.NONE);
    expect(retry.memberEpoch).toBe(2);
  });

  it('validates requests: assignor, rebalance timeout, regex, owned partitions on join', async () => {
    setup();
    await start();
    expect((await hb({ serverAssignor: 'sticky' })).errorCode).toBe(E.UNSUPPORTED_ASSIGNOR);
    expect((await hb({ rebalanceTimeoutMs: -1 })).errorCode).toBe(E.INVALID_REQUEST);
    expect((await hb({ subscribedTopicNames: null, subscribedTopicRegex: null })).errorCode).toBe(E.INVALID_REQUEST);
    expect(await hb({ subscribedTopicNames: null, subscribedTopicRegex: 'a(b', memberId: 'm', apiVersion: 1 })).toMatchObject({
      errorCode: E.INVALID_REGULAR_EXPRESSION, errorMessage: 'SubscribedTopicRegex `a(b` is not a valid regular expression: missing closing ).',
    });
    // RE2/J has no lookbehind: a regex java.util.regex would take is refused as Kafka refuses it.
    expect((await hb({ subscribedTopicRegex: '(?<=x)t', memberId: 'm', apiVersion: 1 })).errorCode).toBe(E.INVALID_REGULAR_EXPRESSION);
    expect((await hb({ memberId: '', apiVersion: 1 })).errorCode).toBe(E.INVALID_REQUEST);
    expect((await hb({ topicPartitions: [{ topicId: T, partitions: [0] }] })).errorCode).toBe(E.INVALID_REQUEST);
    expect((await hb({ memberEpoch: -3, memberId: 'x' })).errorCode).toBe(E.INVALID_REQUEST);
  });

  it('uses the assignor the members ask for', async () => {
    setup();
    await start();
    await hb({ serverAssignor: 'range' });
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]!.assignorName).toBe('range');
  });

  it('leaves with epoch -1: the next heartbeat reassigns everything to the rest', async () => {
    setup();
    await start();
    const a = await hb({});
    const b = await hb({ clientId: 'b' });
    const leave = await hb({ memberId: b.memberId!, memberEpoch: -1 });
    expect(leave).toMatchObject({ errorCode: E.NONE, memberEpoch: -1 });
    const a2 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a) });
    expect(a2.memberEpoch).toBe(3);
    expect(partitionsOf(a2)).toEqual([0, 1, 2, 3]);
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]).toMatchObject({ groupEpoch: 3, assignmentEpoch: 3 });
    // The last member leaves: the empty group's assignment epoch catches up with its epoch (KAFKA-20442).
    await hb({ memberId: a.memberId!, memberEpoch: -1 });
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]).toMatchObject({ groupState: 'Empty', groupEpoch: 4, assignmentEpoch: 4, members: [] });
  });

  it('removes a member whose session expires', async () => {
    setup();
    await start({ consumerGroupSessionTimeoutMs: 50 });
    await hb({});
    await sleep(120);
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]).toMatchObject({ groupState: 'Empty', groupEpoch: 2, assignmentEpoch: 2, members: [] });
  });

  it("takes a group's own session timeout and heartbeat interval (group configs) at the member's next heartbeat", async () => {
    setup();
    await start({ consumerGroupSessionTimeoutMs: 60_000 });
    const first = await hb({});
    expect(first.heartbeatIntervalMs).toBe(5000);
    coordinator.useConsumerGroupTimeouts((groupId) => (groupId === 'g' ? { sessionTimeoutMs: 50, heartbeatIntervalMs: 20 } : { sessionTimeoutMs: 60_000, heartbeatIntervalMs: 5000 }));
    const next = await hb({ memberId: first.memberId!, memberEpoch: first.memberEpoch, topicPartitions: owning(first) });
    expect(next.heartbeatIntervalMs).toBe(20);
    await sleep(150);
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]).toMatchObject({ groupState: 'Empty', members: [] });
  });

  it('computes at most one target per assignment interval (KIP-1263); members reconcile towards the last one meanwhile', async () => {
    setup();
    await start();
    let intervalMs = 60_000;
    coordinator.useConsumerGroupTimeouts(() => ({ sessionTimeoutMs: 60_000, heartbeatIntervalMs: 5000, assignmentIntervalMs: intervalMs }));
    const a = await hb({});
    expect(partitionsOf(a)).toEqual([0, 1, 2, 3]); // the group's first target is computed at once
    const b = await hb({ clientId: 'b' });
    // b joins at the last target's epoch, with nothing; a keeps everything.
    expect(b).toMatchObject({ errorCode: E.NONE, memberEpoch: 1 });
    expect(partitionsOf(b)).toEqual([]);
    const a2 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a) });
    expect(a2.memberEpoch).toBe(1);
    expect(partitionsOf(a2)).toEqual([0, 1, 2, 3]);
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]).toMatchObject({ groupState: 'Assigning', groupEpoch: 2, assignmentEpoch: 1 });

    intervalMs = 0; // the interval has passed: the next heartbeat computes the target for both
    const a3 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a) });
    expect(partitionsOf(a3)).toHaveLength(2);
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]).toMatchObject({ groupEpoch: 2, assignmentEpoch: 2 });
  });

  it('revokes the partitions of a topic the member no longer subscribes to while the target lags', async () => {
    setup();
    const U = topics.add('u', 2);
    await start();
    coordinator.useConsumerGroupTimeouts(() => ({ sessionTimeoutMs: 60_000, heartbeatIntervalMs: 5000, assignmentIntervalMs: 60_000 }));
    const a = await hb({ subscribedTopicNames: ['t', 'u'] });
    expect(owning(a).map((tp) => tp.topicId).sort()).toEqual([T, U].sort());
    const a2 = await hb({ memberId: a.memberId!, memberEpoch: 1, subscribedTopicNames: ['t'], topicPartitions: owning(a) });
    expect(a2.memberEpoch).toBe(1);
    expect(owning(a2)).toEqual([{ topicId: T, partitions: [0, 1, 2, 3] }]);
    const a3 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a2) });
    expect(a3).toMatchObject({ errorCode: E.NONE, memberEpoch: 1 });
    const [described] = coordinator.consumerGroupDescribe(['g'], topics);
    expect(described!.members[0]!.assignment.topicPartitions).toEqual([{ topicId: T, topicName: 't', partitions: [0, 1, 2, 3] }]);
  });

  it('removes a member that does not revoke within its rebalance timeout', async () => {
    setup();
    await start();
    const a = await hb({ rebalanceTimeoutMs: 50 });
    const b = await hb({ clientId: 'b' });
    await hb({ memberId: a.memberId!, memberEpoch: 1, rebalanceTimeoutMs: 50, topicPartitions: owning(a) });
    await sleep(120);
    const members = coordinator.consumerGroupDescribe(['g'], topics)[0]!.members;
    expect(members.map((m) => m.memberId)).toEqual([b.memberId]);
  });

  it('lets a static member come back under a new member id with its partitions', async () => {
    setup();
    await start();
    const a = await hb({ instanceId: 'i1' });
    expect((await hb({ instanceId: 'i1' })).errorCode).toBe(E.UNRELEASED_INSTANCE_ID);
    const away = await hb({ memberId: a.memberId!, memberEpoch: -2, instanceId: 'i1' });
    expect(away).toMatchObject({ errorCode: E.NONE, memberEpoch: -2 });
    const back = await hb({ instanceId: 'i1' });
    expect(back.errorCode).toBe(E.NONE);
    expect(back.memberId).not.toBe(a.memberId);
    expect(back.memberEpoch).toBe(1);
    expect(partitionsOf(back)).toEqual([0, 1, 2, 3]);
    expect((await hb({ memberId: a.memberId!, memberEpoch: 1, instanceId: 'i1' })).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('refuses members beyond group.consumer.max.size', async () => {
    setup();
    await start({ consumerGroupMaxSize: 1 });
    await hb({});
    expect((await hb({ clientId: 'b' })).errorCode).toBe(E.GROUP_MAX_SIZE_REACHED);
  });

  it('rebalances when the subscribed topic grows', async () => {
    setup();
    await start();
    const a = await hb({});
    topics.add('t', 6);
    const a2 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a) });
    expect(a2.memberEpoch).toBe(2);
    expect(partitionsOf(a2)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('keeps a member-generated id (v1, KIP-1082)', async () => {
    setup();
    await start();
    const r = await hb({ memberId: 'my-own-id', apiVersion: 1 });
    expect(r).toMatchObject({ errorCode: E.NONE, memberId: 'my-own-id', memberEpoch: 1 });
  });

  it('resolves a regex subscription against whole topic names, and again as topics come and go', async () => {
    setup();
    const other = topics.add('other', 1);
    topics.add('xt-1', 1);
    await start();
    const a = await hb({ memberId: 'a', apiVersion: 1, subscribedTopicNames: [], subscribedTopicRegex: 't|t-.*' });
    expect(a.memberEpoch).toBe(1);
    expect(owning(a)).toEqual([{ topicId: T, partitions: [0, 1, 2, 3] }]);
    const [described] = coordinator.consumerGroupDescribe(['g'], topics);
    expect(described!.members[0]!.subscribedTopicRegex).toBe('t|t-.*');

    // A topic created later that matches: the next heartbeat bumps the epoch and assigns it.
    const t2 = topics.add('t-2', 2);
    const a2 = await hb({ memberId: 'a', memberEpoch: 1, apiVersion: 1, subscribedTopicNames: null, subscribedTopicRegex: null, topicPartitions: owning(a) });
    expect(a2.memberEpoch).toBe(2);
    expect(new Map(owning(a2).map((tp) => [tp.topicId, tp.partitions]))).toEqual(new Map([[T, [0, 1, 2, 3]], [t2, [0, 1]]]));
    expect(owning(a2).some((tp) => tp.topicId === other)).toBe(false);

    // Names and a regex together: the union.
    const b = await hb({ memberId: 'b', apiVersion: 1, subscribedTopicNames: ['other'], subscribedTopicRegex: 't-.*' });
    expect(b.errorCode).toBe(E.NONE);
    const [both] = coordinator.consumerGroupDescribe(['g'], topics);
    const targetOf = (id: string) => both!.members.find((m) => m.memberId === id)!.targetAssignment.topicPartitions.map((tp) => tp.topicName).sort();
    expect([...targetOf('a'), ...targetOf('b')].sort()).toEqual(expect.arrayContaining(['other', 't', 't-2']));
    expect(targetOf('b').every((n) => n === 'other' || n === 't-2')).toBe(true);
  });
});

describe('consumer groups and the shared group APIs', () => {
  const commit = (memberId: string, epoch: number, apiVersion = 9) => coordinator.commitOffsets({
    groupId: 'g', generationId: epoch, memberId, groupInstanceId: null, retentionTimeMs: -1,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
  }, apiVersion);
  const errorOf = (r: Awaited<ReturnType<typeof commit>>) => r[0]!.partitions[0]!.errorCode;

  it('checks the member epoch of offset commits and fetches', async () => {
    setup();
    await start();
    const a = await hb({});
    expect(errorOf(await commit(a.memberId!, 1))).toBe(E.NONE);
    expect(errorOf(await commit(a.memberId!, 0))).toBe(E.STALE_MEMBER_EPOCH);
    expect(errorOf(await commit('nobody', 1))).toBe(E.UNKNOWN_MEMBER_ID);
    expect(errorOf(await commit(a.memberId!, 1, 8))).toBe(E.UNSUPPORTED_VERSION);
    expect(coordinator.fetchOffsets('g', null, { memberId: a.memberId!, memberEpoch: 0 }).errorCode).toBe(E.STALE_MEMBER_EPOCH);
    expect(coordinator.fetchOffsets('g', null, { memberId: a.memberId!, memberEpoch: 1 }).topics[0]!.partitions[0]!.committedOffset).toBe(42);
  });

  it("drops a deleted topic's offsets from consumer groups too", async () => {
    setup();
    await start();
    const a = await hb({});
    expect(errorOf(await commit(a.memberId!, 1))).toBe(E.NONE);
    await coordinator.onTopicDeleted('t');
    expect(coordinator.fetchOffsets('g', null, { memberId: a.memberId!, memberEpoch: 1 }).topics).toEqual([]);
  });

  it('expires offsets of topics no member subscribes to, after offsets.retention, and keeps subscribed ones', async () => {
    setup();
    await start({ offsetsRetentionMs: 50 });
    const a = await hb({});
    expect(errorOf(await commit(a.memberId!, 1))).toBe(E.NONE);
    const unsubscribed = await coordinator.commitOffsets({
      groupId: 'g', generationId: 1, memberId: a.memberId!, groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 'other', partitions: [{ partitionIndex: 0, committedOffset: 7, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    }, 9);
    expect(errorOf(unsubscribed)).toBe(E.NONE);
    await coordinator.cleanupExpiredOffsets(Date.now() + 100);
    const left = coordinator.fetchOffsets('g', null, { memberId: a.memberId!, memberEpoch: 1 }).topics.map((t) => t.name);
    expect(left).toEqual(['t']);
  });

  it('keeps classic and consumer groups apart, lists and deletes consumer groups', async () => {
    setup();
    await start({ groupInitialRebalanceDelayMs: 0 });
    void coordinator.joinGroup(joinRequest({ groupId: 'classic' }));
    await sleep(10);
    expect((await hb({ groupId: 'classic' })).errorCode).toBe(E.GROUP_ID_NOT_FOUND);
    const a = await hb({});
    expect((await coordinator.joinGroup(joinRequest({ groupId: 'g' }))).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
    expect(coordinator.consumerGroupDescribe(['classic'], topics)[0]).toMatchObject({
      errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group classic is not a consumer group.',
    });
    expect(coordinator.describeGroups(['g'])[0]!.groupState).toBe('Dead');
    expect(coordinator.listGroups([], ['consumer']).groups).toEqual([
      { groupId: 'g', protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
    ]);
    expect(coordinator.listGroups([], []).groups.map((g) => g.groupId).sort()).toEqual(['classic', 'g']);
    expect(await coordinator.deleteGroups(['g'])).toEqual([{ groupId: 'g', errorCode: E.NON_EMPTY_GROUP }]);
    await hb({ memberId: a.memberId!, memberEpoch: -1 });
    expect(await coordinator.deleteGroups(['g'])).toEqual([{ groupId: 'g', errorCode: E.NONE }]);
    expect(coordinator.consumerGroupDescribe(['g'], topics)[0]!.errorCode).toBe(E.GROUP_ID_NOT_FOUND);
  });

  it('turns an empty classic group (offsets only) into a consumer group, keeping its offsets', async () => {
    setup();
    await start();
    await commit('', -1);
    const a = await hb({});
    expect(a.errorCode).toBe(E.NONE);
    expect(coordinator.fetchOffsets('g', null).topics[0]!.partitions[0]!.committedOffset).toBe(42);
  });

  it('reloads groups, epochs and assignments from __consumer_offsets after a restart', async () => {
    setup();
    const topic = await start();
    const a = await hb({});
    const b = await hb({ clientId: 'b' });
    const a2 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a) });
    await commit(a.memberId!, 1);
    const before = coordinator.consumerGroupDescribe(['g'], topics);
    coordinator.shutdown();

    await start({}, topic);
    expect(coordinator.consumerGroupDescribe(['g'], topics)).toEqual(before);
    // The members carry on where they were.
    const a3 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a2) });
    expect(a3).toMatchObject({ errorCode: E.NONE, memberEpoch: 2 });
    const b2 = await hb({ memberId: b.memberId!, memberEpoch: 2, topicPartitions: [] });
    expect([...partitionsOf(a3), ...partitionsOf(b2)].sort()).toEqual([0, 1, 2, 3]);
    expect(coordinator.fetchOffsets('g', null).topics[0]!.partitions[0]!.committedOffset).toBe(42);
  });

  it('after a load of records from before KIP-1101, tombstones the partition metadata record and bumps the epoch once for the hash', async () => {
    setup();
    const topic = await start();
    const a = await hb({});
    const a2 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a) });
    coordinator.shutdown();
    // As kafkite wrote them before: no hash in the group's record, and a ConsumerGroupPartitionMetadata record.
    const [records] = [...topic.partitions.values()].filter((list) => list.some((r) => decodeConsumerGroupKey(r.key)?.groupId === 'g'));
    for (const r of records!) {
      if (decodeConsumerGroupKey(r.key)?.type === RecordType.Metadata && r.value) r.value = groupEpochRecord('g', decodeGroupMetadata(r.value).epoch, 0n).value;
    }
    const oldPartitionMetadata = Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 2]), Buffer.from(T, 'hex'), Buffer.from([2, 0x74, 0, 0, 0, 4, 1, 0, 0])]);
    records!.push({ key: tombstone(RecordType.PartitionMetadata, 'g').key, value: oldPartitionMetadata });
    const loaded = records!.length;

    await start({}, topic);
    const a3 = await hb({ memberId: a.memberId!, memberEpoch: 1, topicPartitions: owning(a2) });
    expect(a3).toMatchObject({ errorCode: E.NONE, memberEpoch: 2 });
    const written = records!.slice(loaded).map((r) => ({ key: decodeConsumerGroupKey(r.key), value: r.value }));
    expect(written.filter((r) => r.key?.type === RecordType.PartitionMetadata).map((r) => r.value)).toEqual([null]);
    const epochs = written.filter((r) => r.key?.type === RecordType.Metadata).map((r) => decodeGroupMetadata(r.value!));
    expect(epochs).toEqual([{ epoch: 2, metadataHash: metadataHash([{ topicId: T, name: 't', numPartitions: 4 }]) }]);
    // Once: the next heartbeats write neither.
    const after = records!.length;
    await hb({ memberId: a.memberId!, memberEpoch: 2, topicPartitions: owning(a3) });
    expect(records!.slice(after).filter((r) => [RecordType.PartitionMetadata, RecordType.Metadata].includes(decodeConsumerGroupKey(r.key)?.type!))).toEqual([]);
  });
});
