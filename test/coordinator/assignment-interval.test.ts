// KIP-1263's assignment interval for share and streams groups, as Kafka 4.4's GroupMetadataManager applies it
// (canComputeNextTargetAssignment in the share and streams maybeUpdateTargetAssignment): a member joining within
// share/streams.assignment.interval.ms of the last target gets that target's epoch and nothing new; the first heartbeat
// once the interval has passed computes the next one; the time of the last one is in TargetAssignmentMetadata, so a
// coordinator reloaded from __consumer_offsets keeps waiting for it. The clock is faked (Date only; timers stay real).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResult } from '../../src/coordinator/share/share-group-coordinator.js';
import type { StreamsHeartbeatRequest } from '../../src/coordinator/streams/streams-group-coordinator.js';
import { ErrorCode as E } from '../../src/errors.js';
import { MemoryPersister } from '../helpers/memory-persister.js';
import { MemoryOffsetsTopic, startCoordinator, streamsHeartbeat, STREAMS_SETTINGS, Topics } from './helpers.js';

const INTERVAL_MS = 1000;
const T0 = Date.UTC(2026, 0, 1);

let coordinator: GroupCoordinator;
let topic: MemoryOffsetsTopic;
const topics = new Topics();
topics.add('t', 4);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
  topic = new MemoryOffsetsTopic();
});
afterEach(() => {
  coordinator?.shutdown();
  vi.useRealTimers();
});

const at = (ms: number) => vi.setSystemTime(T0 + ms);

describe('a share group with share.assignment.interval.ms', () => {
  const persister = new MemoryPersister();

  /** A coordinator on `topic` (loading what it holds), its share groups batching assignments. */
  async function start(): Promise<void> {
    coordinator?.shutdown();
    ({ coordinator } = await startCoordinator({}, topic));
    coordinator.shareGroups.persister = persister;
    coordinator.shareGroupTimeoutsOf = () => ({ sessionTimeoutMs: 45_000, heartbeatIntervalMs: 5000, assignmentIntervalMs: INTERVAL_MS });
  }

  const hb = (memberId: string, memberEpoch: number): Promise<ShareGroupHeartbeatResult> => coordinator.shareGroupHeartbeat({
    groupId: 'sg', memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? ['t'] : null, clientId: memberId,
    clientHost: '/127.0.0.1',
  } satisfies ShareGroupHeartbeatRequest, topics);
  const partitionsOf = (r: ShareGroupHeartbeatResult) => r.assignment?.topicPartitions.flatMap((tp) => tp.partitions).sort() ?? null;
  const described = () => coordinator.shareGroupDescribe(['sg'], topics)[0]!;

  it('gives a second member its partitions only at the first heartbeat after the interval', async () => {
    await start();
    const a = await hb('a', 0);
    // The group's first target is computed at once (epoch 3: joined, partitions initializing, initialized).
    expect(a).toMatchObject({ errorCode: E.NONE, memberEpoch: 3 });
    expect(partitionsOf(a)).toEqual([0, 1, 2, 3]);

    at(100);
    const b = await hb('b', 0);
    expect(b).toMatchObject({ errorCode: E.NONE, memberEpoch: 3 });
    expect(partitionsOf(b)).toEqual([]);
    at(INTERVAL_MS - 1);
    const a2 = await hb('a', 3);
    expect(a2).toMatchObject({ errorCode: E.NONE, memberEpoch: 3, assignment: null });
    expect(described()).toMatchObject({ groupEpoch: 4, assignmentEpoch: 3 });
    expect(described().members.find((m) => m.memberId === 'a')!.assignment.topicPartitions[0]!.partitions).toEqual([0, 1, 2, 3]);

    at(INTERVAL_MS);
    const a3 = await hb('a', 3);
    expect(a3.memberEpoch).toBe(4);
    expect(partitionsOf(a3)).toHaveLength(2);
    const b2 = await hb('b', 3);
    expect(b2.memberEpoch).toBe(4);
    expect([...partitionsOf(a3)!, ...partitionsOf(b2)!].sort()).toEqual([0, 1, 2, 3]);
    expect(described()).toMatchObject({ groupEpoch: 4, assignmentEpoch: 4 });
  });

  it('keeps the time of the last target across a reload from __consumer_offsets', async () => {
    await start();
    await hb('a', 0);
    at(500);
    await start();
    // Loaded at 500 ms: the interval since the target at 0 still runs, so c waits as b would have.
    const c = await hb('c', 0);
    expect(c.memberEpoch).toBe(3);
    expect(partitionsOf(c)).toEqual([]);
    at(INTERVAL_MS);
    const c2 = await hb('c', 3);
    expect(c2.memberEpoch).toBe(4);
    expect(partitionsOf(c2)).toHaveLength(2);
  });

  it('assigns the next member of an emptied group at once', async () => {
    await start();
    await hb('a', 0);
    expect((await hb('a', -1)).errorCode).toBe(E.NONE);
    at(100);
    const b = await hb('b', 0);
    expect(partitionsOf(b)).toEqual([0, 1, 2, 3]);
    expect(b.memberEpoch).toBe(described().groupEpoch);
  });
});

describe('a streams group with streams.assignment.interval.ms', () => {
  async function start(): Promise<void> {
    coordinator?.shutdown();
    ({ coordinator } = await startCoordinator({}, topic));
    coordinator.useStreamsGroupSettings(() => ({ ...STREAMS_SETTINGS, assignmentIntervalMs: INTERVAL_MS }));
  }
  const hb = (memberId: string, memberEpoch: number, activeTasks: StreamsHeartbeatRequest['activeTasks']) =>
    streamsHeartbeat(coordinator, topics, memberId, memberEpoch, activeTasks);
  const described = () => coordinator.streamsGroupDescribe(['g'])[0]!;
  const delayedStatus = { statusCode: 5, statusDetail: 'Assignment delayed due to the configured assignment interval.' };

  it('gives a second member its tasks only after the interval, saying the assignment is delayed meanwhile', async () => {
    await start();
    const a = await hb('a', 0, []);
    expect(a).toMatchObject({ errorCode: E.NONE, memberEpoch: 1, status: [], activeTasks: [{ subtopologyId: '0', partitions: [0, 1, 2, 3] }] });

    at(100);
    const b = await hb('b', 0, []);
    expect(b).toMatchObject({ errorCode: E.NONE, memberEpoch: 1, activeTasks: [], status: [delayedStatus] });
    at(INTERVAL_MS - 1);
    const a2 = await hb('a', 1, null);
    expect(a2).toMatchObject({ memberEpoch: 1, activeTasks: null, status: [delayedStatus] });
    expect(described()).toMatchObject({ groupEpoch: 2, assignmentEpoch: 1, groupState: 'Assigning' });

    at(INTERVAL_MS);
    // The new target gives b two of a's tasks: a gives them up first, then b takes them.
    const revoking = await hb('a', 1, null);
    expect(revoking).toMatchObject({ memberEpoch: 1, status: [] });
    expect(revoking.activeTasks![0]!.partitions).toHaveLength(2);
    expect(described()).toMatchObject({ groupEpoch: 2, assignmentEpoch: 2 });
    const a3 = await hb('a', 1, revoking.activeTasks);
    expect(a3.memberEpoch).toBe(2);
    const b2 = await hb('b', 1, []);
    expect(b2.memberEpoch).toBe(2);
    expect(b2.activeTasks![0]!.partitions).toHaveLength(2);
    expect(described().groupState).not.toBe('Assigning');
  });

  it('keeps the time of the last target across a reload from __consumer_offsets', async () => {
    await start();
    await hb('a', 0, []);
    at(500);
    await start();
    const c = await hb('c', 0, []);
    expect(c).toMatchObject({ memberEpoch: 1, activeTasks: [], status: [delayedStatus] });
    at(INTERVAL_MS);
    await hb('a', 1, [{ subtopologyId: '0', partitions: [0, 1, 2, 3] }]);
    expect(described()).toMatchObject({ groupEpoch: 2, assignmentEpoch: 2 });
  });
});
