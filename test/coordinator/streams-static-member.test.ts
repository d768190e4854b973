// Static members of a streams group (group.instance.id; Kafka 4.4's GroupMetadataManager.streamsGroupHeartbeat): one
// leaving with epoch -2 keeps its tasks until its session times out; its next incarnation takes them over without a
// rebalance; a second live member with the same instance id is refused.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import type { StreamsHeartbeatRequest } from '../../src/coordinator/streams/streams-group-coordinator.js';
import { ErrorCode as E } from '../../src/errors.js';
import { MemoryOffsetsTopic, startCoordinator, streamsHeartbeat, STREAMS_SETTINGS, Topics } from './helpers.js';

let coordinator: GroupCoordinator;
afterEach(() => coordinator?.shutdown());

const topics = new Topics();
topics.add('t', 4);

const heartbeat = (memberId: string, instanceId: string, memberEpoch: number, activeTasks: StreamsHeartbeatRequest['activeTasks']) =>
  streamsHeartbeat(coordinator, topics, memberId, memberEpoch, activeTasks, 60_000, instanceId);
const describeGroup = () => coordinator.streamsGroupDescribe(['g'])[0]!;
const memberOf = (memberId: string) => describeGroup().members.find((m) => m.memberId === memberId);

/** Members a (instance ia) and b (instance ib) share t's four tasks, the group stable; b's answer with its tasks. */
async function twoStableMembers(sessionTimeoutMs = STREAMS_SETTINGS.sessionTimeoutMs, topic = new MemoryOffsetsTopic()) {
  ({ coordinator } = await startCoordinator({}, topic));
  coordinator.useStreamsGroupSettings(() => ({ ...STREAMS_SETTINGS, sessionTimeoutMs }));
  const a = await heartbeat('a', 'ia', 0, []);
  const b0 = await heartbeat('b', 'ib', 0, []);
  const revoking = await heartbeat('a', 'ia', a.memberEpoch, a.activeTasks);
  await heartbeat('a', 'ia', revoking.memberEpoch, revoking.activeTasks);
  const b = await heartbeat('b', 'ib', b0.memberEpoch, []);
  await heartbeat('b', 'ib', b.memberEpoch, b.activeTasks);
  expect(describeGroup().groupState).toBe('Stable');
  expect(b.activeTasks![0]!.partitions).toHaveLength(2);
  return { b, topic };
}

describe('a static streams member', () => {
  it('leaving with epoch -2 keeps its tasks; its next incarnation takes them and its epoch back without a rebalance', async () => {
    const { b } = await twoStableMembers();
    const before = describeGroup();

    const left = await heartbeat('b', 'ib', -2, null);
    expect(left).toMatchObject({ errorCode: E.NONE, memberId: 'b', memberEpoch: -2 });
    expect(memberOf('b')).toMatchObject({ memberEpoch: -2, instanceId: 'ib', assignment: { activeTasks: b.activeTasks } });
    expect(describeGroup().groupEpoch).toBe(before.groupEpoch);

    // A second live member with the same instance id while b is away: the instance id is released, so it replaces b.
    const back = await heartbeat('b2', 'ib', 0, []);
    expect(back).toMatchObject({ errorCode: E.NONE, memberId: 'b2', memberEpoch: before.assignmentEpoch, activeTasks: b.activeTasks });
    const after = describeGroup();
    expect(after).toMatchObject({ groupEpoch: before.groupEpoch, assignmentEpoch: before.assignmentEpoch, groupState: 'Stable' });
    expect(after.members.map((m) => m.memberId).sort()).toEqual(['a', 'b2']);
    expect(memberOf('b2')).toMatchObject({ instanceId: 'ib', targetAssignment: { activeTasks: b.activeTasks } });
  });

  it('is refused while its instance id is held: UNRELEASED_INSTANCE_ID to join, FENCED_INSTANCE_ID to the replaced member', async () => {
    const { b } = await twoStableMembers();
    const epoch = describeGroup().groupEpoch;
    expect((await heartbeat('b2', 'ib', 0, [])).errorCode).toBe(E.UNRELEASED_INSTANCE_ID);
    expect(memberOf('b')).toMatchObject({ memberEpoch: b.memberEpoch });

    await heartbeat('b', 'ib', -2, null);
    await heartbeat('b2', 'ib', 0, []);
    // The old incarnation, still running, is fenced both heartbeating and leaving.
    expect((await heartbeat('b', 'ib', b.memberEpoch, null)).errorCode).toBe(E.FENCED_INSTANCE_ID);
    expect((await heartbeat('b', 'ib', -2, null)).errorCode).toBe(E.FENCED_INSTANCE_ID);
    expect((await heartbeat('c', 'ic', 3, null)).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
    expect(describeGroup().groupEpoch).toBe(epoch);
  });

  it('leaving with epoch -1 leaves for good: the group epoch moves and the other member gets its tasks', async () => {
    await twoStableMembers();
    const epoch = describeGroup().groupEpoch;
    await heartbeat('b', 'ib', -1, null);
    expect(memberOf('b')).toBeUndefined();
    expect(describeGroup().groupEpoch).toBe(epoch + 1);
    expect((await heartbeat('a', 'ia', describeGroup().members[0]!.memberEpoch, null)).activeTasks).toEqual([{ subtopologyId: '0', partitions: [0, 1, 2, 3] }]);
  });

  it('is removed when its session times out before it comes back', async () => {
    await twoStableMembers(300);
    const epoch = describeGroup().groupEpoch;
    await heartbeat('b', 'ib', -2, null);
    // a keeps heartbeating (its own session), b does not.
    await vi.waitFor(async () => {
      await heartbeat('a', 'ia', memberOf('a')!.memberEpoch, null);
      expect(memberOf('b')).toBeUndefined();
    }, { timeout: 10_000, interval: 50 });
    expect(describeGroup().groupEpoch).toBeGreaterThan(epoch);
    expect((await heartbeat('b2', 'ib', 0, [])).errorCode).toBe(E.NONE);
  });

  it('is stored as Kafka writes it: a coordinator loading the records has the member away at epoch -2 with its instance id and tasks', async () => {
    const { b, topic } = await twoStableMembers();
    await heartbeat('b', 'ib', -2, null);
    const before = describeGroup();
    coordinator.shutdown();
    ({ coordinator } = await startCoordinator({}, topic));
    coordinator.useStreamsGroupSettings(() => STREAMS_SETTINGS);
    expect(memberOf('b')).toMatchObject({ memberEpoch: -2, instanceId: 'ib', assignment: { activeTasks: b.activeTasks } });
    expect((await heartbeat('b2', 'ib', 0, [])).activeTasks).toEqual(b.activeTasks);
    expect(describeGroup().groupEpoch).toBe(before.groupEpoch);
  });
});
