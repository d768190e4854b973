import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResult } from '../../src/coordinator/share/share-group-coordinator.js';
import {
  decodeShareGroupEpoch, decodeShareGroupKey, decodeShareStatePartitionMetadata, decodeShareStatePartitionMetadataTopics, shareGroupEpochRecord, ShareGroupRecordType as RT,
} from '../../src/coordinator/share/share-group-records.js';
import { assignShareGroup } from '../../src/coordinator/share/simple-assignor.js';
import { ErrorCode as E } from '../../src/errors.js';
import { MemoryPersister } from '../helpers/memory-persister.js';
import { joinRequest, MemoryOffsetsTopic, sleep, startCoordinator, Topics } from './helpers.js';


let coordinator: GroupCoordinator;
let topics: Topics;
let persister: MemoryPersister;
let T: string;
afterEach(() => {
  coordinator?.shutdown();
  vi.useRealTimers();
});

async function start(topic = new MemoryOffsetsTopic(), partitions = 4): Promise<MemoryOffsetsTopic> {
  ({ coordinator } = await startCoordinator({}, topic));
  persister ??= new MemoryPersister();
  coordinator.shareGroups.persister = persister;
  if (!topics) {
    topics = new Topics();
    T = topics.add('t', partitions);
  }
  return topic;
}

function fresh(): void {
  topics = undefined!;
  persister = undefined!;
}

function hb(overrides: Partial<ShareGroupHeartbeatRequest>): Promise<ShareGroupHeartbeatResult> {
  return coordinator.shareGroupHeartbeat({
    groupId: 'sg', memberId: 'm1', memberEpoch: 0, rackId: null, subscribedTopicNames: ['t'], clientId: 'c', clientHost: '/127.0.0.1',
    ...overrides,
  }, topics);
}

const partitionsOf = (r: ShareGroupHeartbeatResult) => r.assignment?.topicPartitions.flatMap((tp) => tp.partitions).sort() ?? [];

function recordsOf(topic: MemoryOffsetsTopic) {
  return [...topic.partitions.values()].flat().map((r) => ({ key: decodeShareGroupKey(r.key), value: r.value })).filter((r) => r.key);
}

describe('ShareGroupHeartbeat', () => {
  it('joins: initializes every partition through the Persister, then assigns them all', async () => {
    fresh();
    const topic = await start();
    const r = await hb({});
    // Epoch 1 for the member, 2 with its partitions initializing (the Persister's state epoch), 3 once initialized, as in Kafka 4.4.
    expect(r).toMatchObject({ errorCode: E.NONE, memberId: 'm1', memberEpoch: 3, heartbeatIntervalMs: 5000 });
    expect(partitionsOf(r)).toEqual([0, 1, 2, 3]);
    expect(persister.calls).toEqual([0, 1, 2, 3].map((p) => `initialize sg:${T}:${p} epoch=2 start=-1`));
    const states = recordsOf(topic).filter((x) => x.key!.type === RT.StatePartitionMetadata);
    expect(states).toHaveLength(2);
    // The first record has them initializing (not initialized): a restart in between initializes them again.
    expect(decodeShareStatePartitionMetadata(states[0]!.value!).size).toBe(0);
    expect([...decodeShareStatePartitionMetadata(states[1]!.value!)]).toEqual([[T, { topicName: 't', partitions: new Set([0, 1, 2, 3]) }]]);
    const [described] = coordinator.shareGroupDescribe(['sg'], topics);
    expect(described).toMatchObject({ errorCode: 0, groupState: 'Stable', groupEpoch: 3, assignmentEpoch: 3, assignorName: 'simple' });
    expect(described!.members[0]).toMatchObject({ memberId: 'm1', memberEpoch: 3, clientId: 'c', subscribedTopicNames: ['t'] });
    expect(described!.members[0]!.assignment.topicPartitions).toEqual([{ topicId: T, topicName: 't', partitions: [0, 1, 2, 3] }]);
  });

  it('gives two members the same partition of a one-partition topic', async () => {
    fresh();
    await start(new MemoryOffsetsTopic(), 1);
    await hb({});
    const b = await hb({ memberId: 'm2' });
    expect(b.memberEpoch).toBe(4);
    expect(partitionsOf(b)).toEqual([0]);
    // a keeps its partition at the new epoch: no assignment in the answer, as from Kafka (nothing changed).
    const a = await hb({ memberEpoch: 3, subscribedTopicNames: null });
    expect(a).toMatchObject({ memberEpoch: 4, assignment: null });
    const held = coordinator.shareGroupDescribe(['sg'], topics)[0]!.members.map((m) => m.assignment.topicPartitions[0]!.partitions);
    expect(held).toEqual([[0], [0]]);
    // The partition was initialized once, not once per member.
    expect(persister.calls).toHaveLength(1);
  });

  it('splits several partitions between members and sends the assignment only when it changes', async () => {
    fresh();
    await start();
    await hb({});
    const b = await hb({ memberId: 'm2' });
    const a = await hb({ memberEpoch: 3, subscribedTopicNames: null });
    expect(partitionsOf(a)).toHaveLength(2);
    expect(partitionsOf(b)).toHaveLength(2);
    expect([...partitionsOf(a), ...partitionsOf(b)].sort()).toEqual([0, 1, 2, 3]);
    const again = await hb({ memberEpoch: 4, subscribedTopicNames: null });
    expect(again).toMatchObject({ errorCode: 0, memberEpoch: 4, assignment: null });
  });

  it('fences a stale or future epoch and refuses unknown members and invalid requests', async () => {
    fresh();
    await start();
    await hb({});
    await hb({ memberId: 'm2' });
    await hb({ memberEpoch: 3, subscribedTopicNames: null });
    await hb({ memberId: 'm3' });
    await hb({ memberEpoch: 4, subscribedTopicNames: null });
    // m1 is at epoch 5 (previous 4): epoch 3 is neither.
    expect((await hb({ memberEpoch: 3, subscribedTopicNames: null })).errorCode).toBe(E.FENCED_MEMBER_EPOCH);
    expect((await hb({ memberEpoch: 9, subscribedTopicNames: null })).errorCode).toBe(E.FENCED_MEMBER_EPOCH);
    expect((await hb({ memberId: 'nobody', memberEpoch: 5, subscribedTopicNames: null })).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
    expect(await hb({ memberId: '' })).toMatchObject({ errorCode: E.INVALID_REQUEST, errorMessage: null });
    expect(await hb({ memberId: 'm4', subscribedTopicNames: [] }))
      .toMatchObject({ errorCode: E.INVALID_REQUEST, errorMessage: 'SubscribedTopicNames must be set in first request.' });
    expect((await hb({ memberEpoch: -2 })).errorCode).toBe(E.INVALID_REQUEST);
    expect(await hb({ groupId: 'other', memberEpoch: 1 }))
      .toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Share group other not found.' });
    // None of it changed the group.
    expect(coordinator.shareGroupDescribe(['sg'], topics)[0]).toMatchObject({ groupEpoch: 5, members: expect.any(Array) });
    expect(coordinator.shareGroupDescribe(['sg'], topics)[0]!.members).toHaveLength(3);
  });

  it('refuses a member past group.share.max.size', async () => {
    fresh();
    ({ coordinator } = await startCoordinator({ shareGroupMaxSize: 2 }));
    persister = new MemoryPersister();
    coordinator.shareGroups.persister = persister;
    topics = new Topics();
    T = topics.add('t', 1);
    await hb({});
    await hb({ memberId: 'm2' });
    expect((await hb({ memberId: 'm3' })).errorCode).toBe(E.GROUP_MAX_SIZE_REACHED);
    expect(coordinator.shareGroupDescribe(['sg'], topics)[0]!.members).toHaveLength(2);
  });

  it('removes a member that leaves (epoch -1) and tells the listeners', async () => {
    fresh();
    await start();
    const heard: string[] = [];
    coordinator.shareGroups.addListener({ onMemberLeave: (g, m) => heard.push(`leave ${g} ${m}`), onGroupEmpty: (g) => heard.push(`empty ${g}`) });
    await hb({});
    await hb({ memberId: 'm2' });
    const left = await hb({ memberId: 'm2', memberEpoch: -1, subscribedTopicNames: null });
    expect(left).toMatchObject({ errorCode: 0, memberId: 'm2', memberEpoch: -1 });
    expect(heard).toEqual(['leave sg m2']);
    // m1 never took the half m2's join gave it: it holds all four at the new epoch, unchanged, so without an assignment.
    const a = await hb({ memberEpoch: 3, subscribedTopicNames: null });
    expect(a).toMatchObject({ memberEpoch: 5, assignment: null });
    expect(coordinator.shareGroupDescribe(['sg'], topics)[0]!.members[0]!.assignment.topicPartitions[0]!.partitions).toEqual([0, 1, 2, 3]);
    await hb({ memberEpoch: -1, subscribedTopicNames: null });
    expect(heard).toEqual(['leave sg m2', 'leave sg m1', 'empty sg']);
    expect(coordinator.shareGroupDescribe(['sg'], topics)[0]).toMatchObject({ groupState: 'Empty', groupEpoch: 6, assignmentEpoch: 6, members: [] });
  });

  it('expires a member whose session times out', async () => {
    fresh();
    await start();
    coordinator.shareGroupTimeoutsOf = () => ({ sessionTimeoutMs: 400, heartbeatIntervalMs: 20 });
    const heard: string[] = [];
    coordinator.shareGroups.addListener({ onMemberLeave: (_g, m) => heard.push(m), onGroupEmpty: () => undefined });
    expect((await hb({})).heartbeatIntervalMs).toBe(20);
    // m2 heartbeats every 50 ms (well within its 400 ms session, even on a loaded machine) until m1's session ends.
    let epoch = (await hb({ memberId: 'm2' })).memberEpoch;
    for (const deadline = Date.now() + 5000; heard.length === 0 && Date.now() < deadline;) {
      await sleep(50);
      epoch = (await hb({ memberId: 'm2', memberEpoch: epoch, subscribedTopicNames: null })).memberEpoch;
    }
    expect(heard).toEqual(['m1']);
    expect(coordinator.shareGroupDescribe(['sg'], topics)[0]!.members.map((m) => m.memberId)).toEqual(['m2']);
    expect((await hb({ memberEpoch: 3, subscribedTopicNames: null })).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('leaves a partition whose state could not be initialized out of the assignment until a later heartbeat', async () => {
    fresh();
    persister = new MemoryPersister();
    await start();
    persister.failing.add(`sg:${T}:2`);
    const r = await hb({});
    expect(partitionsOf(r)).toEqual([0, 1, 3]);
    persister.failing.clear();
    const r2 = await hb({ memberEpoch: r.memberEpoch, subscribedTopicNames: null });
    expect(r2.memberEpoch).toBe(r.memberEpoch + 2);
    expect(persister.calls.at(-1)).toBe(`initialize sg:${T}:2 epoch=${r.memberEpoch + 1} start=-1`);
    expect(partitionsOf(r2)).toEqual([0, 1, 2, 3]);
  });

  it('drops a deleted topic: its share-partition state goes, and the members lose its partitions', async () => {
    fresh();
    const topic = await start();
    const U = topics.add('u', 1);
    const r = await hb({ subscribedTopicNames: ['t', 'u'] });
    expect(partitionsOf(r)).toHaveLength(5);
    topics.remove('u');
    await coordinator.onTopicDeleted('u');
    expect(persister.calls.at(-1)).toBe(`delete sg:${U}:0`);
    expect(persister.has('sg', U, 0)).toBe(false);
    expect(persister.has('sg', T, 0)).toBe(true);
    const r2 = await hb({ memberEpoch: r.memberEpoch, subscribedTopicNames: null });
    expect(r2.assignment!.topicPartitions).toEqual([{ topicId: T, partitions: [0, 1, 2, 3] }]);
    const state = recordsOf(topic).filter((x) => x.key!.type === RT.StatePartitionMetadata).at(-1)!;
    expect([...decodeShareStatePartitionMetadata(state.value!).keys()]).toEqual([T]);
  });

  it('keeps apart share group ids and consumer or classic group ids', async () => {
    fresh();
    await start();
    await hb({});
    const consumer = await coordinator.consumerGroupHeartbeat({
      groupId: 'sg', memberId: 'c1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 5000, subscribedTopicNames: ['t'],
      subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [], clientId: 'c', clientHost: '/127.0.0.1', apiVersion: 1,
    }, topics);
    expect(consumer).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group sg is not a consumer group.' });
    expect((await coordinator.joinGroup(joinRequest({ groupId: 'sg' }))).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
    expect(coordinator.consumerGroupDescribe(['sg'], topics)[0]!.errorCode).toBe(E.GROUP_ID_NOT_FOUND);

    await coordinator.consumerGroupHeartbeat({
      groupId: 'cg', memberId: 'c1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 5000, subscribedTopicNames: ['t'],
      subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [], clientId: 'c', clientHost: '/127.0.0.1', apiVersion: 1,
    }, topics);
    expect(await hb({ groupId: 'cg' })).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group cg is not a share group.' });
    expect(coordinator.shareGroupDescribe(['cg'], topics)[0]).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group cg is not a share group.' });
  });
});

describe('ListGroups and DeleteGroups of share groups', () => {
  it('lists share groups by type and state', async () => {
    fresh();
    await start();
    await hb({});
    await coordinator.commitOffsets({ groupId: 'classic', memberId: '', generationId: -1, groupInstanceId: null, retentionTimeMs: -1, topics: [] });
    const ids = (states: string[], types: string[]) => coordinator.listGroups(states, types).groups.map((g) => `${g.groupId}:${g.groupType}:${g.groupState}`).sort();
    expect(ids([], ['share'])).toEqual(['sg:share:Stable']);
    expect(ids([], ['Share'])).toEqual(['sg:share:Stable']);
    expect(ids(['empty'], ['share'])).toEqual([]);
    expect(ids([], [])).toContain('sg:share:Stable');
    expect(ids([], ['classic', 'consumer'])).not.toContain('sg:share:Stable');
    expect(coordinator.listGroups([], ['share']).groups[0]!.protocolType).toBe('share');
  });

  it('refuses to delete a share group with members, then deletes it and its share-partition state', async () => {
    fresh();
    const topic = await start();
    await hb({});
    expect(await coordinator.deleteGroups(['sg'])).toEqual([{ groupId: 'sg', errorCode: E.NON_EMPTY_GROUP }]);
    expect(persister.has('sg', T, 0)).toBe(true);
    await hb({ memberEpoch: -1, subscribedTopicNames: null });
    expect(await coordinator.deleteGroups(['sg'])).toEqual([{ groupId: 'sg', errorCode: E.NONE }]);
    expect([0, 1, 2, 3].map((p) => persister.has('sg', T, p))).toEqual([false, false, false, false]);
    expect(coordinator.shareGroupDescribe(['sg'], topics)[0]!.errorCode).toBe(E.GROUP_ID_NOT_FOUND);
    expect(await coordinator.deleteGroups(['sg'])).toEqual([{ groupId: 'sg', errorCode: E.GROUP_ID_NOT_FOUND }]);
    // A restart finds no trace of it.
    coordinator.shutdown();
    await start(topic);
    expect(coordinator.listGroups([], ['share']).groups).toEqual([]);
  });
});

describe('share group records', () => {
  it('survive a restart: members, epochs, assignments and the initialized partitions', async () => {
    fresh();
    const topic = await start();
    await hb({});
    await hb({ memberId: 'm2', rackId: 'r1' });
    const before = coordinator.shareGroupDescribe(['sg'], topics);
    coordinator.shutdown();
    const calls = persister.calls.length;
    await start(topic);
    expect(coordinator.shareGroupDescribe(['sg'], topics)).toEqual(before);
    // m2 goes on at its epoch; nothing is initialized again.
    const b = await hb({ memberId: 'm2', memberEpoch: 4, subscribedTopicNames: null });
    expect(b).toMatchObject({ errorCode: 0, memberEpoch: 4 });
    expect(persister.calls.length).toBe(calls);
  });

  it('retry partitions a restart left initializing only after group.share.initialize.retry.interval.ms', async () => {
    fresh();
    const topic = await start();
    await hb({});
    // The broker stopped after recording the partitions as initializing, before recording them initialized.
    const crashed = new MemoryOffsetsTopic();
    for (const [partition, list] of topic.partitions) {
      const cut = list.findIndex((r) => decodeShareGroupKey(r.key)?.type === RT.StatePartitionMetadata);
      crashed.partitions.set(partition, cut < 0 ? [...list] : list.slice(0, cut + 1));
    }
    coordinator.shutdown();
    persister = new MemoryPersister();
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    ({ coordinator } = await startCoordinator({ shareGroupInitializeRetryIntervalMs: 30_000 }, crashed));
    coordinator.shareGroups.persister = persister;
    // Kafka's subscribedTopicsChangeMap: initializing for less than the interval (counted from the replay) is not sent again.
    const r1 = await hb({});
    expect(partitionsOf(r1)).toEqual([]);
    vi.setSystemTime(t0 + 29_999);
    const r2 = await hb({ memberEpoch: r1.memberEpoch, subscribedTopicNames: null });
    expect(partitionsOf(r2)).toEqual([]);
    expect(r2.memberEpoch).toBe(r1.memberEpoch);
    expect(persister.calls).toEqual([]);
    vi.setSystemTime(t0 + 30_000);
    const r3 = await hb({ memberEpoch: r2.memberEpoch, subscribedTopicNames: null });
    expect(persister.calls).toHaveLength(4);
    expect(partitionsOf(r3)).toEqual([0, 1, 2, 3]);
    // The last record has them initialized and none initializing.
    const states = [...crashed.partitions.values()].flat().filter((r) => decodeShareGroupKey(r.key)?.type === RT.StatePartitionMetadata);
    expect(decodeShareStatePartitionMetadataTopics(states.at(-1)!.value!).initializing.size).toBe(0);
  });

  it('writes the key as the record type and the group id, and the 64-bit metadata hash exactly', () => {
    const rec = shareGroupEpochRecord('g', 7, -0x123456789abcdef0n);
    expect(rec.key.toString('hex')).toBe('000b' + '0001' + Buffer.from('g').toString('hex'));
    expect(decodeShareGroupEpoch(rec.value!)).toEqual({ epoch: 7, metadataHash: -0x123456789abcdef0n });
    expect(rec.value!.subarray(0, 2).toString('hex')).toBe('0000');
  });
});

describe('simple assignor', () => {
  const spec = (members: Record<string, string[]>, partitions: Record<string, number>) => ({
    members: new Map(Object.entries(members).map(([id, t]) => [id, { subscribedTopicIds: new Set(t), assignment: new Map() }])),
    partitions: new Map(Object.entries(partitions).map(([t, n]) => [t, Array.from({ length: n }, (_, i) => i)])),
  });
  const counts = (a: Map<string, Map<string, Set<number>>>) => [...a.values()].map((x) => [...x.values()].reduce((n, s) => n + s.size, 0));

  it('gives each member one partition and shares partitions evenly when members outnumber them', () => {
    const result = assignShareGroup(spec({ a: ['t'], b: ['t'], c: ['t'], d: ['t'], e: ['t'] }, { t: 2 }));
    expect(counts(result)).toEqual([1, 1, 1, 1, 1]);
    const holders = [0, 1].map((p) => [...result.values()].filter((x) => x.get('t')?.has(p)).length);
    expect(holders.sort()).toEqual([2, 3]);
  });

  it('assigns a topic only to its subscribers and every partition to someone', () => {
    const result = assignShareGroup(spec({ a: ['x'], b: ['x'], c: ['x', 'y'] }, { x: 1, y: 1 }));
    expect(result.get('a')!.has('y')).toBe(false);
    expect(result.get('c')!.get('y')).toEqual(new Set([0]));
    expect([...result.values()].some((x) => x.get('x')?.has(0))).toBe(true);
  });
});
