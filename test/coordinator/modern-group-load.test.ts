// What consumer and streams groups share at a load (ModernGroupCoordinator.load, as Kafka's
// GroupMetadataManager.onLoaded): a member that was still revoking when the coordinator stopped gets its rebalance
// timeout again, and is fenced when it runs out, while the others keep their session.
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import type { StreamsHeartbeatRequest } from '../../src/coordinator/streams/streams-group-coordinator.js';
import { ErrorCode as E } from '../../src/errors.js';
import { MemoryOffsetsTopic, sleep, startCoordinator, streamsHeartbeat, STREAMS_SETTINGS, Topics } from './helpers.js';

const REBALANCE_TIMEOUT_MS = 1000;

let coordinator: GroupCoordinator;
afterEach(() => coordinator?.shutdown());

const topics = new Topics();
const T = topics.add('t', 4);

async function start(topic: MemoryOffsetsTopic): Promise<void> {
  ({ coordinator } = await startCoordinator({}, topic));
  coordinator.useStreamsGroupSettings(() => STREAMS_SETTINGS);
}

/** The member ids of the group, once `gone` left them (a deadline, not a sleep, bounds the wait). */
async function waitUntilGone(members: () => string[], gone: string): Promise<string[]> {
  for (const deadline = Date.now() + 10 * REBALANCE_TIMEOUT_MS; members().includes(gone) && Date.now() < deadline;) await sleep(50);
  return members();
}

/** Each type brings its members to: a revoking (b joined, a must give up half), b waiting for it. */
const TYPES = [
  {
    type: 'consumer',
    async twoMembers(): Promise<void> {
      const hb = (memberId: string, memberEpoch: number, topicPartitions: Array<{ topicId: string; partitions: number[] }>) =>
        coordinator.consumerGroupHeartbeat({
          groupId: 'g', memberId, memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: REBALANCE_TIMEOUT_MS,
          subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions, clientId: memberId,
          clientHost: '/127.0.0.1', apiVersion: 1,
        }, topics);
      const a = await hb('a', 0, []);
      expect(a.assignment!.topicPartitions).toEqual([{ topicId: T, partitions: [0, 1, 2, 3] }]);
      expect((await hb('b', 0, [])).errorCode).toBe(E.NONE);
      expect((await hb('a', a.memberEpoch, a.assignment!.topicPartitions)).errorCode).toBe(E.NONE);
    },
    members: () => coordinator.consumerGroupDescribe(['g'], topics)[0]!.members.map((m) => m.memberId),
    state: () => coordinator.consumerGroupDescribe(['g'], topics)[0]!.groupState,
  },
  {
    type: 'streams',
    async twoMembers(): Promise<void> {
      const hb = (memberId: string, memberEpoch: number, activeTasks: StreamsHeartbeatRequest['activeTasks']) =>
        streamsHeartbeat(coordinator, topics, memberId, memberEpoch, activeTasks, REBALANCE_TIMEOUT_MS);
      const a = await hb('a', 0, []);
      expect(a.activeTasks).toEqual([{ subtopologyId: '0', partitions: [0, 1, 2, 3] }]);
      expect((await hb('b', 0, [])).errorCode).toBe(E.NONE);
      expect((await hb('a', a.memberEpoch, a.activeTasks)).errorCode).toBe(E.NONE);
    },
    members: () => coordinator.streamsGroupDescribe(['g'])[0]!.members.map((m) => m.memberId),
    state: () => coordinator.streamsGroupDescribe(['g'])[0]!.groupState,
  },
];

describe.each(TYPES)('a $type group loaded with a member still revoking', ({ twoMembers, members, state }) => {
  it('fences that member when its rebalance timeout runs out again, and keeps the other', async () => {
    const topic = new MemoryOffsetsTopic();
    await start(topic);
    await twoMembers();
    expect(state()).toBe('Reconciling');
    coordinator.shutdown();

    await start(topic);
    expect(members().sort()).toEqual(['a', 'b']);
    expect(await waitUntilGone(members, 'a')).toEqual(['b']);
  });
});
