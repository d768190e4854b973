import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode as E } from '../../src/errors.js';
import { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import type { JoinGroupRequest } from '../../src/coordinator/types.js';
import { joinRequest, MemoryOffsetsTopic, sleep, startCoordinator, subscription, TEST_CONFIG } from './helpers.js';

let coordinator: GroupCoordinator;
afterEach(() => coordinator?.shutdown());

async function start(overrides = {}, topic?: MemoryOffsetsTopic) {
  const started = await startCoordinator(overrides, topic);
  coordinator = started.coordinator;
  return started.topic;
}

/** Joins as a new member (v4+ two-step join) and returns the JoinGroup result. */
async function join(overrides: Partial<JoinGroupRequest> = {}) {
  const first = await coordinator.joinGroup(joinRequest({ requireKnownMemberId: true, ...overrides }));
  if (first.errorCode !== E.MEMBER_ID_REQUIRED) return first;
  return coordinator.joinGroup(joinRequest({ ...overrides, memberId: first.memberId }));
}

function sync(memberId: string, generationId: number, assignments: Array<{ memberId: string; assignment: Buffer }> = []) {
  return coordinator.syncGroup({
    groupId: 'g', generationId, memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments,
  });
}

function describeState(groupId = 'g') {
  return coordinator.describeGroups([groupId])[0].groupState;
}

describe('JoinGroup / SyncGroup', () => {
  it('makes a lone member leader of generation 1 and hands out its assignment', async () => {
    await start();
    const joined = await join();
    expect(joined).toMatchObject({ errorCode: E.NONE, generationId: 1, protocolType: 'consumer', protocolName: 'range' });
    expect(joined.leader).toBe(joined.memberId);
    expect(joined.members.map((m) => m.memberId)).toEqual([joined.memberId]);
    expect(joined.memberId).toMatch(/^client-[0-9a-f-]{36}$/);
    expect(describeState()).toBe('CompletingRebalance');

    const synced = await sync(joined.memberId, 1, [{ memberId: joined.memberId, assignment: Buffer.from('A') }]);
    expect(synced).toMatchObject({ errorCode: E.NONE, assignment: Buffer.from('A') });
    expect(describeState()).toBe('Stable');
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: joined.memberId, groupInstanceId: null })).toBe(E.NONE);
  });

  it('asks a v4+ new member to rejoin with the member id it is given', async () => {
    await start();
    const first = await coordinator.joinGroup(joinRequest({ requireKnownMemberId: true }));
    expect(first.errorCode).toBe(E.MEMBER_ID_REQUIRED);
    expect(first.memberId).not.toBe('');
    const second = await coordinator.joinGroup(joinRequest({ memberId: first.memberId }));
    expect(second).toMatchObject({ errorCode: E.NONE, memberId: first.memberId, generationId: 1 });
  });

  it('rebalances when a second member joins; the follower waits for the leader to sync', async () => {
    await start();
    const a = await join();
    await sync(a.memberId, 1, [{ memberId: a.memberId, assignment: Buffer.from('a1') }]);

    const bJoin = join({ clientId: 'b' });
    await sleep(5);
    expect(describeState()).toBe('PreparingRebalance');
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null })).toBe(E.REBALANCE_IN_PROGRESS);
    const aRejoin = await coordinator.joinGroup(joinRequest({ memberId: a.memberId }));
    const b = await bJoin;
    expect(aRejoin).toMatchObject({ errorCode: E.NONE, generationId: 2, leader: a.memberId });
    expect(aRejoin.members.map((m) => m.memberId).sort()).toEqual([a.memberId, b.memberId].sort());
    expect(b).toMatchObject({ errorCode: E.NONE, generationId: 2, leader: a.memberId, members: [] });

    const followerSync = sync(b.memberId, 2);
    let followerDone = false;
    void followerSync.then(() => { followerDone = true; });
    await sleep(5);
    expect(followerDone).toBe(false);
    const leaderSync = await sync(a.memberId, 2, [
      { memberId: a.memberId, assignment: Buffer.from('a2') },
      { memberId: b.memberId, assignment: Buffer.from('b2') },
    ]);
    expect(leaderSync.assignment).toEqual(Buffer.from('a2'));
    expect((await followerSync).assignment).toEqual(Buffer.from('b2'));
    expect(describeState()).toBe('Stable');
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null })).toBe(E.ILLEGAL_GENERATION);
  });

  it('rejects bad session timeouts, unknown members and mismatched protocols', async () => {
    await start({ groupMinSessionTimeoutMs: 100, groupMaxSessionTimeoutMs: 2000 });
    expect((await join({ sessionTimeoutMs: 99 })).errorCode).toBe(E.INVALID_SESSION_TIMEOUT);
    expect((await join({ sessionTimeoutMs: 2001 })).errorCode).toBe(E.INVALID_SESSION_TIMEOUT);
    expect((await join({ memberId: 'nobody' })).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
    expect((await join({ groupId: '' })).errorCode).toBe(E.INVALID_GROUP_ID);
    await join();
    expect((await join({ protocolType: 'connect' })).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
    expect((await join({ protocols: [{ name: 'roundrobin', metadata: Buffer.alloc(0) }] })).errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('selects the protocol all members support with the most first-choice votes', async () => {
    await start({ groupInitialRebalanceDelayMs: 30 });
    const p = (name: string) => ({ name, metadata: Buffer.from(name) });
    const results = await Promise.all([
      join({ protocols: [p('sticky'), p('range'), p('roundrobin')] }),
      join({ protocols: [p('roundrobin'), p('range')] }),
      join({ protocols: [p('roundrobin'), p('range')] }),
      join({ protocols: [p('roundrobin'), p('range'), p('sticky')] }),
    ]);
    expect(new Set(results.map((r) => r.protocolName))).toEqual(new Set(['roundrobin']));
    expect(new Set(results.map((r) => r.generationId))).toEqual(new Set([1]));
    const leader = results.find((r) => r.members.length > 0)!;
    expect(leader.members).toHaveLength(4);
    // sticky, the first member's favourite, is not supported by all; its vote goes to range and loses 1-3.
    expect(leader.members.find((m) => m.memberId === results[0].memberId)!.metadata).toEqual(Buffer.from('roundrobin'));
  });

  it('waits group.initial.rebalance.delay.ms so starting members share the first generation', async () => {
    await start({ groupInitialRebalanceDelayMs: 60 });
    const started = Date.now();
    const a = join();
    await sleep(20);
    const b = join({ clientId: 'b' });
    const [ra, rb] = await Promise.all([a, b]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(ra.generationId).toBe(1);
    expect(rb.generationId).toBe(1);
    expect(ra.leader).toBe(ra.memberId);
  });

  it('removes a member that does not rejoin within the rebalance timeout', async () => {
    await start();
    const a = await join({ rebalanceTimeoutMs: 80, sessionTimeoutMs: 5000 });
    await sync(a.memberId, 1);
    const b = await join({ clientId: 'b', rebalanceTimeoutMs: 80, sessionTimeoutMs: 5000 });
    expect(b).toMatchObject({ errorCode: E.NONE, generationId: 2, leader: b.memberId });
    expect(b.members.map((m) => m.memberId)).toEqual([b.memberId]);
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null })).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('expires a member whose session times out, and the group becomes Empty', async () => {
    await start();
    const a = await join({ sessionTimeoutMs: 40 });
    await sync(a.memberId, 1);
    await sleep(100);
    expect(describeState()).toBe('Empty');
    expect(coordinator.describeGroups(['g'])[0].members).toEqual([]);
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null })).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('fails sync with REBALANCE_IN_PROGRESS for followers when a rebalance starts before the leader syncs', async () => {
    await start({ groupInitialRebalanceDelayMs: 20 });
    const [a, b] = await Promise.all([join(), join({ clientId: 'b' })]);
    const follower = a.members.length === 0 ? a : b;
    const followerSync = sync(follower.memberId, 1);
    void join({ clientId: 'c' });
    expect((await followerSync).errorCode).toBe(E.REBALANCE_IN_PROGRESS);
  });

  it('gives members the leader left out an empty assignment', async () => {
    await start({ groupInitialRebalanceDelayMs: 20 });
    const [a, b] = await Promise.all([join(), join({ clientId: 'b' })]);
    const leader = a.members.length > 0 ? a : b;
    const follower = leader === a ? b : a;
    const followerSync = sync(follower.memberId, 1);
    await sync(leader.memberId, 1, [{ memberId: leader.memberId, assignment: Buffer.from('all') }]);
    expect(await followerSync).toMatchObject({ errorCode: E.NONE, assignment: Buffer.alloc(0) });
  });

  it('rejects SyncGroup v5 with another protocol name', async () => {
    await start();
    const a = await join();
    const result = await coordinator.syncGroup({
      groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null, protocolType: 'consumer',
      protocolName: 'roundrobin', assignments: [],
    });
    expect(result.errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('enforces group.max.size', async () => {
    await start({ groupMaxSize: 1 });
    const a = await join();
    await sync(a.memberId, 1);
    expect((await join({ clientId: 'b' })).errorCode).toBe(E.GROUP_MAX_SIZE_REACHED);
  });
});

describe('static membership', () => {
  it('replaces a rejoining static member without a rebalance and fences the old member id', async () => {
    await start();
    const a = await join({ groupInstanceId: 'i-a' });
    expect(a.memberId).toMatch(/^i-a-/);
    await sync(a.memberId, 1, [{ memberId: a.memberId, assignment: Buffer.from('x') }]);

    const again = await join({ groupInstanceId: 'i-a' });
    expect(again).toMatchObject({ errorCode: E.NONE, generationId: 1, skipAssignment: true, leader: again.memberId });
    expect(again.memberId).not.toBe(a.memberId);
    expect(describeState()).toBe('Stable');
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: 'i-a' })).toBe(E.FENCED_INSTANCE_ID);
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: again.memberId, groupInstanceId: 'i-a' })).toBe(E.NONE);
    const synced = await coordinator.syncGroup({
      groupId: 'g', generationId: 1, memberId: again.memberId, groupInstanceId: 'i-a', protocolType: null, protocolName: null, assignments: [],
    });
    expect(synced.assignment).toEqual(Buffer.from('x'));
  });

  it('rejects an instance id the group does not know', async () => {
    await start();
    const a = await join({ groupInstanceId: 'i-a' });
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: 'i-other' })).toBe(E.UNKNOWN_MEMBER_ID);
  });

  it('returns the old leader id before JoinGroup v9 so the rejoined leader does not reassign', async () => {
    await start();
    const a = await join({ groupInstanceId: 'i-a' });
    await sync(a.memberId, 1);
    const again = await join({ groupInstanceId: 'i-a', supportSkippingAssignment: false });
    expect(again).toMatchObject({ errorCode: E.NONE, skipAssignment: false, leader: a.memberId, members: [] });
  });

  it('rebalances when a static member rejoins with a different protocol', async () => {
    await start();
    const a = await join({ groupInstanceId: 'i-a' });
    await sync(a.memberId, 1);
    const again = await join({ groupInstanceId: 'i-a', protocols: [{ name: 'sticky', metadata: Buffer.alloc(0) }, { name: 'range', metadata: Buffer.alloc(0) }] });
    expect(again).toMatchObject({ errorCode: E.NONE, generationId: 2, protocolName: 'sticky' });
  });

  it('lets an admin remove static members by instance id in one LeaveGroup', async () => {
    await start({ groupInitialRebalanceDelayMs: 20 });
    const [a, b] = await Promise.all([join({ groupInstanceId: 'i-a' }), join({ groupInstanceId: 'i-b', clientId: 'b' })]);
    const result = coordinator.leaveGroup('g', [
      { memberId: '', groupInstanceId: 'i-a' },
      { memberId: b.memberId, groupInstanceId: 'i-b' },
      { memberId: '', groupInstanceId: 'i-zzz' },
      { memberId: a.memberId, groupInstanceId: 'i-a' },
    ]);
    expect(result.errorCode).toBe(E.NONE);
    expect(result.members.map((m) => m.errorCode)).toEqual([E.NONE, E.NONE, E.UNKNOWN_MEMBER_ID, E.UNKNOWN_MEMBER_ID]);
    expect(describeState()).toBe('Empty');
  });
});

describe('LeaveGroup', () => {
  it('rebalances the remaining members', async () => {
    await start({ groupInitialRebalanceDelayMs: 20 });
    const [a, b] = await Promise.all([join(), join({ clientId: 'b' })]);
    await Promise.all([sync(a.memberId, 1), sync(b.memberId, 1)]);
    expect(coordinator.leaveGroup('g', [{ memberId: b.memberId, groupInstanceId: null }]).members[0].errorCode).toBe(E.NONE);
    expect(describeState()).toBe('PreparingRebalance');
    const rejoined = await coordinator.joinGroup(joinRequest({ memberId: a.memberId }));
    expect(rejoined).toMatchObject({ errorCode: E.NONE, generationId: 2 });
    expect(coordinator.leaveGroup('nope', [{ memberId: 'x', groupInstanceId: null }]).members[0].errorCode).toBe(E.UNKNOWN_MEMBER_ID);
  });
});

describe('offsets', () => {
  const commit = (overrides: Record<string, unknown> = {}, offset = 42, metadata: string | null = 'meta') =>
    coordinator.commitOffsets({
      groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: 5, commitTimestamp: -1, committedMetadata: metadata }] }],
      ...overrides,
    });

  it('accepts a standalone consumer commit and fetches it back exactly', async () => {
    await start();
    expect(await commit({}, 42, 'ünïcode ✓')).toEqual([{ name: 't', partitions: [{ partitionIndex: 0, errorCode: E.NONE }] }]);
    const fetched = coordinator.fetchOffsets('g', [{ name: 't', partitionIndexes: [0, 1] }]);
    expect(fetched.topics[0].partitions).toEqual([
      { partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: 5, metadata: 'ünïcode ✓', errorCode: E.NONE },
      { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: E.NONE },
    ]);
    expect(coordinator.fetchOffsets('g', null).topics).toHaveLength(1);
    expect(coordinator.fetchOffsets('other', null).topics).toEqual([]);
    expect(coordinator.listGroups([], []).groups).toEqual([{ groupId: 'g', protocolType: '', groupState: 'Empty', groupType: 'classic' }]);
  });

  it('checks generation and member of a consumer group commit', async () => {
    await start();
    expect((await commit({ generationId: 1, memberId: 'm' }))[0].partitions[0].errorCode).toBe(E.ILLEGAL_GENERATION);
    const a = await join();
    expect((await commit({ generationId: 1, memberId: a.memberId }))[0].partitions[0].errorCode).toBe(E.REBALANCE_IN_PROGRESS);
    await sync(a.memberId, 1);
    expect((await commit({ generationId: 1, memberId: a.memberId }))[0].partitions[0].errorCode).toBe(E.NONE);
    expect((await commit({ generationId: 0, memberId: a.memberId }))[0].partitions[0].errorCode).toBe(E.ILLEGAL_GENERATION);
    expect((await commit({ generationId: 1, memberId: 'who' }))[0].partitions[0].errorCode).toBe(E.UNKNOWN_MEMBER_ID);
    expect((await commit())[0].partitions[0].errorCode).toBe(E.UNKNOWN_MEMBER_ID);
    coordinator.leaveGroup('g', [{ memberId: a.memberId, groupInstanceId: null }]);
    // Once the group is Empty again, the admin client's generation -1 commit is allowed.
    expect((await commit())[0].partitions[0].errorCode).toBe(E.NONE);
  });

  it('rejects metadata over offset.metadata.max.bytes', async () => {
    await start({ offsetMetadataMaxBytes: 4 });
    expect((await commit({}, 1, 'too long'))[0].partitions[0].errorCode).toBe(E.OFFSET_METADATA_TOO_LARGE);
  });

  it('deletes offsets only of topics the group does not subscribe to', async () => {
    await start();
    const a = await join({ protocols: [{ name: 'range', metadata: subscription('t') }] });
    await sync(a.memberId, 1);
    await coordinator.commitOffsets({
      groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null, retentionTimeMs: -1,
      topics: ['t', 'old'].map((name) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] })),
    });
    const result = await coordinator.deleteOffsets('g', [{ name: 't', partitions: [0] }, { name: 'old', partitions: [0] }]);
    expect(result).toEqual({
      errorCode: E.NONE,
      topics: [
        { name: 't', partitions: [{ partitionIndex: 0, errorCode: E.GROUP_SUBSCRIBED_TO_TOPIC }] },
        { name: 'old', partitions: [{ partitionIndex: 0, errorCode: E.NONE }] },
      ],
    });
    expect(coordinator.fetchOffsets('g', null).topics.map((t) => t.name)).toEqual(['t']);
    expect((await coordinator.deleteOffsets('missing', [])).errorCode).toBe(E.GROUP_ID_NOT_FOUND);
  });

  it('expires the offsets of an Empty group after offsets.retention and then the group', async () => {
    await start({ offsetsRetentionMs: 50 });
    await commit();
    await coordinator.cleanupExpiredOffsets(Date.now());
    expect(coordinator.fetchOffsets('g', null).topics).toHaveLength(1);
    await coordinator.cleanupExpiredOffsets(Date.now() + 60);
    expect(coordinator.fetchOffsets('g', null).topics).toEqual([]);
    expect(describeState()).toBe('Dead');
  });
});

describe('topic deletion', () => {
  it("drops the deleted topic's offsets, and groups left empty without offsets", async () => {
    await start();
    const commitTo = (groupId: string, names: string[]) => coordinator.commitOffsets({
      groupId, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: names.map((name) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] })),
    });
    await commitTo('both', ['gone', 'kept']);
    await commitTo('only-gone', ['gone']);
    await coordinator.onTopicDeleted('gone');
    expect(coordinator.fetchOffsets('both', null).topics.map((t) => t.name)).toEqual(['kept']);
    expect(coordinator.listGroups([], []).groups.map((g) => g.groupId)).toEqual(['both']);
  });
});

describe('group administration', () => {
  it('describes, lists with a states filter, and deletes groups', async () => {
    await start();
    const a = await join({ groupId: 'live' });
    await coordinator.syncGroup({ groupId: 'live', generationId: 1, memberId: a.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [{ memberId: a.memberId, assignment: Buffer.from('as') }] });
    await coordinator.commitOffsets({
      groupId: 'idle', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });
    const [live, missing] = coordinator.describeGroups(['live', 'missing']);
    expect(live).toMatchObject({ errorCode: E.NONE, groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
    expect(live.members[0]).toMatchObject({ memberId: a.memberId, clientId: 'client', memberAssignment: Buffer.from('as') });
    expect(missing).toMatchObject({ errorCode: E.NONE, groupState: 'Dead', members: [] });

    expect(coordinator.listGroups(['stable'], []).groups.map((g) => g.groupId)).toEqual(['live']);
    expect(coordinator.listGroups(['Empty', 'Stable'], ['classic']).groups).toHaveLength(2);
    expect(coordinator.listGroups([], ['consumer']).groups).toEqual([]);

    expect(await coordinator.deleteGroups(['live', 'idle', 'missing', ''])).toEqual([
      { groupId: 'live', errorCode: E.NON_EMPTY_GROUP },
      { groupId: 'idle', errorCode: E.NONE },
      { groupId: 'missing', errorCode: E.GROUP_ID_NOT_FOUND },
      { groupId: '', errorCode: E.GROUP_ID_NOT_FOUND },
    ]);
    expect(coordinator.fetchOffsets('idle', null).topics).toEqual([]);
  });
});

describe('persistence in __consumer_offsets', () => {
  it('answers COORDINATOR_LOAD_IN_PROGRESS until loaded', async () => {
    coordinator = new GroupCoordinator(TEST_CONFIG, new MemoryOffsetsTopic());
    expect((await coordinator.joinGroup(joinRequest())).errorCode).toBe(E.COORDINATOR_LOAD_IN_PROGRESS);
    expect(coordinator.fetchOffsets('g', null).errorCode).toBe(E.COORDINATOR_LOAD_IN_PROGRESS);
    // As Kafka: heartbeats pass blindly, and SyncGroup sends the member back to JoinGroup.
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null })).toBe(E.NONE);
    const synced = await coordinator.syncGroup({ groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] });
    expect(synced.errorCode).toBe(E.REBALANCE_IN_PROGRESS);
  });

  it('restores offsets, groups and deletions after a restart', async () => {
    const topic = await start();
    const a = await join({ sessionTimeoutMs: 5000 });
    await sync(a.memberId, 1, [{ memberId: a.memberId, assignment: Buffer.from('as') }]);
    await coordinator.commitOffsets({
      groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 3, committedOffset: 77, committedLeaderEpoch: 2, commitTimestamp: -1, committedMetadata: 'm' }] }],
    });
    await coordinator.commitOffsets({
      groupId: 'gone', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });
    await coordinator.deleteGroups(['gone']);
    coordinator.shutdown();

    await start({}, topic);
    expect(coordinator.fetchOffsets('g', [{ name: 't', partitionIndexes: [3] }]).topics[0].partitions[0])
      .toMatchObject({ committedOffset: 77, committedLeaderEpoch: 2, metadata: 'm' });
    const [g] = coordinator.describeGroups(['g']);
    expect(g).toMatchObject({ groupState: 'Stable', protocolData: 'range' });
    expect(g.members[0]).toMatchObject({ memberId: a.memberId, memberAssignment: Buffer.from('as') });
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null })).toBe(E.NONE);
    expect(coordinator.describeGroups(['gone'])[0].groupState).toBe('Dead');
    expect(coordinator.fetchOffsets('gone', null).topics).toEqual([]);
  });

  it('fails commits with COORDINATOR_NOT_AVAILABLE when the write fails, keeping the old offset', async () => {
    const topic = await start();
    await coordinator.commitOffsets({
      groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });
    topic.failAppends = true;
    const result = await coordinator.commitOffsets({
      groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 2, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });
    expect(result[0].partitions[0].errorCode).toBe(E.COORDINATOR_NOT_AVAILABLE);
    expect(coordinator.fetchOffsets('g', null).topics[0].partitions[0].committedOffset).toBe(1);
  });
});

describe('commits wait for their flush', () => {
  const txnCommit = (offset: number) => coordinator.commitTransactionalOffsets({
    groupId: 'g', producerId: 7, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
  });
  const stable = () => coordinator.fetchOffsets('g', [{ name: 't', partitionIndexes: [0] }], undefined, true).topics[0].partitions[0];
  /** Holds every flush of `topic` until the returned function is called. */
  const holdFlushes = (topic: MemoryOffsetsTopic): (() => void) => {
    let release!: () => void;
    topic.flushGate = new Promise<void>((resolve) => (release = resolve));
    return release;
  };

  it('an offset commit is answered, and its offset fetched, only once __consumer_offsets is flushed', async () => {
    const topic = await start();
    const release = holdFlushes(topic);
    let answered = false;
    const committing = coordinator.commitOffsets({
      groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 9, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    }).then((r) => ((answered = true), r));
    await new Promise(setImmediate);
    expect(topic.partitions.get(coordinator.partitionFor('g'))).toHaveLength(1);
    expect(answered).toBe(false);
    expect(stable().committedOffset).toBe(-1);
    release();
    expect((await committing)[0].partitions[0].errorCode).toBe(E.NONE);
    expect(stable().committedOffset).toBe(9);
  });

  it('a COMMIT marker written while a TxnOffsetCommit waits for its flush takes its offsets: nothing stays pending', async () => {
    const topic = await start();
    const release = holdFlushes(topic);
    const committing = txnCommit(5);
    await new Promise(setImmediate);
    // Appended, not yet flushed: pending already, so requireStable waits for the transaction.
    expect(stable().errorCode).toBe(E.UNSTABLE_OFFSET_COMMIT);
    coordinator.onTransactionCompleted(7, coordinator.partitionFor('g'), true);
    release();
    expect((await committing)[0].partitions[0].errorCode).toBe(E.NONE);
    expect(stable()).toMatchObject({ committedOffset: 5, errorCode: E.NONE });
  });

  it("a topic deleted while a transaction's offsets are pending keeps their group: its COMMIT marker's offsets stay", async () => {
    await start();
    expect((await txnCommit(5))[0].partitions[0].errorCode).toBe(E.NONE);
    await coordinator.onTopicDeleted('other');
    coordinator.onTransactionCompleted(7, coordinator.partitionFor('g'), true);
    expect(stable()).toMatchObject({ committedOffset: 5, errorCode: E.NONE });
    expect(coordinator.listGroups([], []).groups.map((g) => g.groupId)).toEqual(['g']);
  });

  it('a topic deleted while the first commit of a new group waits for its flush leaves the group alone', async () => {
    const topic = await start();
    const release = holdFlushes(topic);
    const committing = coordinator.commitOffsets({
      groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 9, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });
    await new Promise(setImmediate);
    const deleting = coordinator.onTopicDeleted('other');
    release();
    await Promise.all([committing, deleting]);
    // Only the commit was written: no tombstone for the group.
    expect(topic.partitions.get(coordinator.partitionFor('g'))!.map((r) => r.value === null)).toEqual([false]);
    expect(coordinator.listGroups([], []).groups.map((g) => g.groupId)).toEqual(['g']);
    expect(stable().committedOffset).toBe(9);
  });

  it('a marker committing offsets while the group is being removed keeps the group and its offsets', async () => {
    const topic = await start();
    await coordinator.commitOffsets({
      groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 'gone', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });
    // The offset tombstones of the deleted topic pass; the group's own tombstone is held.
    const releaseOffsets = holdFlushes(topic);
    const deleting = coordinator.onTopicDeleted('gone');
    await new Promise(setImmediate);
    const releaseGroup = holdFlushes(topic);
    releaseOffsets();
    const written = () => topic.partitions.get(coordinator.partitionFor('g'))!.length;
    const before = written();
    for (let i = 0; i < 100 && written() === before; i++) await new Promise(setImmediate);
    expect(written()).toBe(before + 1);
    const committing = txnCommit(5);
    await new Promise(setImmediate);
    coordinator.onTransactionCompleted(7, coordinator.partitionFor('g'), true);
    releaseGroup();
    await deleting;
    expect((await committing)[0].partitions[0].errorCode).toBe(E.NONE);
    expect(stable()).toMatchObject({ committedOffset: 5, errorCode: E.NONE });
  });
});
