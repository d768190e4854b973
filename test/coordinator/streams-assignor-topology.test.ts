// The streams group's sticky task assignor and its topology configuration against the topics, as units.
import { describe, expect, it } from 'vitest';
import { assignTasks, type AssignmentMember } from '../../src/coordinator/streams/sticky-task-assignor.js';
import { configureTopology, StreamsStatus, type StreamsTopology } from '../../src/coordinator/streams/streams-topology.js';
import { eachTask, taskOffsetsOf, tasksOf, type TasksTuple } from '../../src/coordinator/streams/tasks-tuple.js';
import type { TopicImageEntry, TopicsImage } from '../../src/coordinator/consumer/consumer-group-coordinator.js';

const member = (
  memberId: string, processId: string, active: Array<[string, number]> = [], standby: Array<[string, number]> = [], offsets: Array<[string, number, number]> = [],
): AssignmentMember => ({
  memberId, processId,
  active: tasksOf(active.map(([s, p]) => ({ subtopologyId: s, partitions: [p] }))),
  standby: tasksOf(standby.map(([s, p]) => ({ subtopologyId: s, partitions: [p] }))),
  taskOffsets: taskOffsetsOf(offsets.map(([subtopologyId, partition, offset]) => ({ subtopologyId, partition, offset }))),
});
const STATEFUL = new Set(['0', '1']);
const ids = (t: TasksTuple['active']) => [...eachTask(t)].map(([s, p]) => `${s}-${p}`).sort();

describe('sticky task assignor', () => {
  it('assigns every active task exactly once, balanced over members', () => {
    const result = assignTasks({ members: [member('a', 'p1'), member('b', 'p2'), member('c', 'p3')], subtopologies: new Map([['0', 4], ['1', 2]]), statefulSubtopologies: STATEFUL, numStandbyReplicas: 0 });
    const all = [...result.values()].flatMap((t) => ids(t.active));
    expect(all.sort()).toEqual(['0-0', '0-1', '0-2', '0-3', '1-0', '1-1']);
    expect([...result.values()].map((t) => ids(t.active).length)).toEqual([2, 2, 2]);
    expect([...result.values()].every((t) => ids(t.standby).length === 0)).toBe(true);
  });

  it('keeps active tasks with their holder, and a newcomer takes the excess', () => {
    const a = member('a', 'p1', [['0', 0], ['0', 1], ['0', 2], ['0', 3]]);
    const result = assignTasks({ members: [a, member('b', 'p2')], subtopologies: new Map([['0', 4]]), statefulSubtopologies: STATEFUL, numStandbyReplicas: 0 });
    const kept = ids(result.get('a')!.active);
    expect(kept).toHaveLength(2);
    expect(kept.every((t) => ['0-0', '0-1', '0-2', '0-3'].includes(t))).toBe(true);
    expect(ids(result.get('b')!.active)).toHaveLength(2);
  });

  it('prefers a previous standby holder for an orphaned active task', () => {
    const result = assignTasks({
      members: [member('a', 'p1', [['0', 0]]), member('b', 'p2', [], [['0', 1]]), member('c', 'p3')],
      subtopologies: new Map([['0', 2]]), statefulSubtopologies: STATEFUL, numStandbyReplicas: 0,
    });
    expect(ids(result.get('a')!.active)).toEqual(['0-0']);
    expect(ids(result.get('b')!.active)).toEqual(['0-1']);
    expect(ids(result.get('c')!.active)).toEqual([]);
  });

  it('places standbys on other processes than the active, never twice on one process', () => {
    const result = assignTasks({
      members: [member('a1', 'p1'), member('a2', 'p1'), member('b', 'p2'), member('c', 'p3')],
      subtopologies: new Map([['0', 3]]), statefulSubtopologies: STATEFUL, numStandbyReplicas: 2,
    });
    const processOf = new Map([['a1', 'p1'], ['a2', 'p1'], ['b', 'p2'], ['c', 'p3']]);
    for (const task of ['0-0', '0-1', '0-2']) {
      const holders = [...result].filter(([, t]) => ids(t.active).includes(task) || ids(t.standby).includes(task)).map(([m]) => processOf.get(m));
      // One active and two standbys, on three different processes.
      expect(holders).toHaveLength(3);
      expect(new Set(holders).size).toBe(3);
    }
  });

  it("gives an orphaned active task to the member whose reported state is furthest along (Kafka 4.4's StandbyCandidate order)", () => {
    // 0-0's owner left; b and c both have state for it, c more (a higher offset sum); a previous standby outranks both.
    const result = assignTasks({
      members: [member('a', 'p1', [['0', 1]]), member('b', 'p2', [], [], [['0', 0, 100]]), member('c', 'p3', [], [], [['0', 0, 900]])],
      subtopologies: new Map([['0', 2]]), statefulSubtopologies: STATEFUL, numStandbyReplicas: 0,
    });
    expect(ids(result.get('c')!.active)).toEqual(['0-0']);
    expect(ids(result.get('b')!.active)).toEqual([]);
    const withStandby = assignTasks({
      members: [member('a', 'p1', [['0', 1]]), member('b', 'p2', [], [['0', 0]], [['0', 0, 100]]), member('c', 'p3', [], [], [['0', 0, 900]])],
      subtopologies: new Map([['0', 2]]), statefulSubtopologies: STATEFUL, numStandbyReplicas: 0,
    });
    expect(ids(withStandby.get('b')!.active)).toEqual(['0-0']);
  });

  it('places a standby with the member that reported the most state for the task, and none for a stateless sub-topology', () => {
    const result = assignTasks({
      members: [member('a', 'p1', [['0', 0]]), member('b', 'p2', [['1', 0]], [], [['0', 0, 5]]), member('c', 'p3', [], [], [['0', 0, 50]])],
      subtopologies: new Map([['0', 1], ['1', 1]]), statefulSubtopologies: new Set(['0']), numStandbyReplicas: 1,
    });
    expect(ids(result.get('a')!.active)).toEqual(['0-0']);
    expect(ids(result.get('b')!.active)).toEqual(['1-0']);
    expect(ids(result.get('c')!.standby)).toEqual(['0-0']);
    expect([...result.values()].flatMap((t) => ids(t.standby))).toEqual(['0-0']);
  });

  it('gives no standby when every process already holds the task', () => {
    const result = assignTasks({ members: [member('a', 'p1')], subtopologies: new Map([['0', 2]]), statefulSubtopologies: STATEFUL, numStandbyReplicas: 1 });
    expect(ids(result.get('a')!.active)).toEqual(['0-0', '0-1']);
    expect(ids(result.get('a')!.standby)).toEqual([]);
  });
});

function image(topics: Record<string, number>): TopicsImage {
  const entries: TopicImageEntry[] = Object.entries(topics).map(([name, partitions], i) => ({ name, partitions, topicId: String(i + 1).padStart(32, '0') }));
  return { get: (n) => entries.find((e) => e.name === n), getById: (id) => entries.find((e) => e.topicId === id), all: () => entries };
}

const info = (name: string, partitions = 0) => ({ name, partitions, replicationFactor: 0, topicConfigs: [{ key: 'cleanup.policy', value: 'compact' }] });

function topology(overrides: Partial<StreamsTopology['subtopologies'][number]> = {}): StreamsTopology {
  return {
    epoch: 1,
    subtopologies: [
      { subtopologyId: '0', sourceTopics: ['in'], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: ['rep'], repartitionSourceTopics: [], copartitionGroups: [] },
      { subtopologyId: '1', sourceTopics: [], sourceTopicRegex: [], stateChangelogTopics: [info('store-changelog')], repartitionSinkTopics: [], repartitionSourceTopics: [info('rep')], copartitionGroups: [], ...overrides },
    ],
  };
}

describe('topology configuration', () => {
  it('sizes repartition topics from their writers and changelogs from their tasks, and asks for the missing ones', () => {
    const configured = configureTopology(topology(), image({ in: 3 }));
    expect(configured.ready).toBe(false);
    expect(configured.status).toEqual({ statusCode: StreamsStatus.MISSING_INTERNAL_TOPICS, statusDetail: 'Internal topics are missing: rep, store-changelog' });
    expect(configured.internalTopicsToCreate).toEqual([
      { name: 'rep', partitions: 3, configs: { 'cleanup.policy': 'compact' } },
      { name: 'store-changelog', partitions: 3, configs: { 'cleanup.policy': 'compact' } },
    ]);
  });

  it('is ready once the internal topics exist, with one task per partition', () => {
    const configured = configureTopology(topology(), image({ in: 3, rep: 3, 'store-changelog': 3 }));
    expect(configured.ready).toBe(true);
    expect([...configured.subtopologies.values()].map((s) => [s.subtopologyId, s.numberOfTasks])).toEqual([['0', 3], ['1', 3]]);
    expect(configured.internalTopicsToCreate).toEqual([]);
  });

  it('a fixed repartition count wins over the writers', () => {
    const configured = configureTopology(topology({ repartitionSourceTopics: [info('rep', 5)] }), image({ in: 3 }));
    expect(configured.internalTopicsToCreate.map((t) => [t.name, t.partitions])).toEqual([['rep', 5], ['store-changelog', 5]]);
  });

  it('missing source topics: MISSING_SOURCE_TOPICS and nothing to create', () => {
    const configured = configureTopology(topology(), image({}));
    expect(configured.status).toEqual({ statusCode: StreamsStatus.MISSING_SOURCE_TOPICS, statusDetail: 'Source topics in are missing.' });
    expect(configured.internalTopicsToCreate).toEqual([]);
  });

  it('an internal topic with another partition count: INCORRECTLY_PARTITIONED_TOPICS', () => {
    const configured = configureTopology(topology(), image({ in: 3, rep: 3, 'store-changelog': 1 }));
    expect(configured.status?.statusCode).toBe(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS);
    expect(configured.internalTopicsToCreate).toEqual([]);
  });

  it('copartitioned source topics must agree', () => {
    const t: StreamsTopology = {
      epoch: 1,
      subtopologies: [{
        subtopologyId: '0', sourceTopics: ['left', 'right'], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [],
        repartitionSourceTopics: [], copartitionGroups: [{ sourceTopics: [0, 1], sourceTopicRegex: [], repartitionSourceTopics: [] }],
      }],
    };
    expect(configureTopology(t, image({ left: 2, right: 3 })).status?.statusCode).toBe(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS);
    expect(configureTopology(t, image({ left: 2, right: 2 })).ready).toBe(true);
  });
});
