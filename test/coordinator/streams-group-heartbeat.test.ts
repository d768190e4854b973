// StreamsGroupHeartbeat answers against the coordinator: a member whose answer with new tasks was lost (the broker
// killed between writing the assignment and answering; seen in kafka-streams.test.ts, where the instance stayed idle
// while the group counted its tasks as held) gets them again when it next reports the tasks it holds.
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import type { StreamsHeartbeatRequest } from '../../src/coordinator/streams/streams-group-coordinator.js';
import { ErrorCode as E } from '../../src/errors.js';
import { MemoryOffsetsTopic, startCoordinator, streamsHeartbeat, STREAMS_SETTINGS, Topics } from './helpers.js';

let coordinator: GroupCoordinator;
afterEach(() => coordinator?.shutdown());

const topics = new Topics();
topics.add('t', 4);

const heartbeat = (memberId: string, memberEpoch: number, activeTasks: StreamsHeartbeatRequest['activeTasks']) =>
  streamsHeartbeat(coordinator, topics, memberId, memberEpoch, activeTasks);

describe('a streams member that missed the answer giving it tasks', () => {
  it('gets its tasks again when it reports holding others, and not when it reports nothing or what it holds', async () => {
    ({ coordinator } = await startCoordinator({}, new MemoryOffsetsTopic()));
    coordinator.useStreamsGroupSettings(() => STREAMS_SETTINGS);
    const a = await heartbeat('a', 0, []);
    expect(a.activeTasks).toEqual([{ subtopologyId: '0', partitions: [0, 1, 2, 3] }]);
    // b joins; its tasks are still a's, so it gets none yet; a gives up two, then reports the two it keeps.
    const b = await heartbeat('b', 0, []);
    expect(b.activeTasks).toEqual([]);
    const revoking = await heartbeat('a', a.memberEpoch, a.activeTasks);
    expect(revoking.activeTasks).toHaveLength(1);
    expect((await heartbeat('a', revoking.memberEpoch, revoking.activeTasks)).errorCode).toBe(E.NONE);

    // The answer that gives b its two tasks is lost.
    const lost = await heartbeat('b', b.memberEpoch, null);
    expect(lost.activeTasks).toEqual([{ subtopologyId: '0', partitions: expect.any(Array) }]);
    const given = lost.activeTasks!;
    expect(given[0]!.partitions).toHaveLength(2);

    // b's next heartbeats: one reporting nothing (tasks unchanged since the last sent) gets no tasks, as from Kafka;
    // the full one after its failed request reports none held and gets its two again, at the same epoch.
    expect((await heartbeat('b', b.memberEpoch, null)).activeTasks).toBeNull();
    const again = await heartbeat('b', b.memberEpoch, []);
    expect(again).toMatchObject({ errorCode: E.NONE, memberEpoch: lost.memberEpoch, activeTasks: given, standbyTasks: [], warmupTasks: [] });
    // Once b reports them held, its heartbeats carry no tasks again.
    expect((await heartbeat('b', b.memberEpoch, given)).activeTasks).toBeNull();
    expect(coordinator.streamsGroupDescribe(['g'])[0]!.members.find((m) => m.memberId === 'b')!.assignment.activeTasks).toEqual(given);
  });
});

describe('a topology with a regex source topic', () => {
  it('is refused as Kafka 4.4 refuses it (INVALID_REQUEST), and no group is created', async () => {
    ({ coordinator } = await startCoordinator({}, new MemoryOffsetsTopic()));
    coordinator.useStreamsGroupSettings(() => STREAMS_SETTINGS);
    const joined = await heartbeat('a', 0, []);
    const request = { groupId: 'g2', memberId: 'r', memberEpoch: 0, ...regexJoin };
    const refused = await coordinator.streamsGroupHeartbeat(request, topics);
    expect(refused).toMatchObject({ errorCode: E.INVALID_REQUEST, errorMessage: 'Regular expressions for source topics are not supported yet.', activeTasks: null });
    expect(coordinator.streamsGroupDescribe(['g2'])[0]!.errorCode).toBe(E.GROUP_ID_NOT_FOUND);
    // Checked before the member's other fields, as Kafka does: an existing group's member gets the same error.
    expect((await coordinator.streamsGroupHeartbeat({ ...request, groupId: 'g', memberId: '' }, topics)).errorCode).toBe(E.INVALID_REQUEST);
    expect(coordinator.streamsGroupDescribe(['g'])[0]!.members.map((m) => m.memberEpoch)).toEqual([joined.memberEpoch]);
  });
});

/** A join as a client would send `builder.stream(Pattern.compile("t.*"))` if it sent its regex (Kafka Streams 4.4 does not). */
const regexJoin = {
  endpointInformationEpoch: -1, instanceId: null, rackId: null, rebalanceTimeoutMs: 60_000,
  topology: {
    epoch: 0,
    subtopologies: [{
      subtopologyId: '0', sourceTopics: [], sourceTopicRegex: ['t.*'], stateChangelogTopics: [], repartitionSinkTopics: [],
      repartitionSourceTopics: [], copartitionGroups: [],
    }],
  },
  activeTasks: [], standbyTasks: [], warmupTasks: [], processId: 'p', userEndpoint: null, clientTags: [], taskOffsets: null,
  taskEndOffsets: null, shutdownApplication: false, clientId: 'c', clientHost: '/127.0.0.1', apiVersion: 1,
};
