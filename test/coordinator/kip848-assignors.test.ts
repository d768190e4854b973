import { describe, expect, it } from 'vitest';
import { partitionCount, type Assignment, type AssignmentMemberSpec, type TopicMetadata } from '../../src/coordinator/consumer/assignors/assignor.js';
import { RangeAssignor } from '../../src/coordinator/consumer/assignors/range.js';
import { UniformAssignor } from '../../src/coordinator/consumer/assignors/uniform.js';

const T1: TopicMetadata = { topicId: 'a'.repeat(32), name: 't1', numPartitions: 6 };
const T2: TopicMetadata = { topicId: 'b'.repeat(32), name: 't2', numPartitions: 3 };
const topics = new Map([T1, T2].map((t) => [t.topicId, t]));

function member(subscribed: TopicMetadata[], assignment: Assignment = new Map()): AssignmentMemberSpec {
  return { subscribedTopicIds: new Set(subscribed.map((t) => t.topicId)), instanceId: null, rackId: null, assignment };
}

/** Every partition of the subscribed topics assigned exactly once. */
function expectComplete(result: Map<string, Assignment>, expected: TopicMetadata[]): void {
  const seen = new Set<string>();
  for (const assignment of result.values()) {
    for (const [topicId, partitions] of assignment) {
      for (const p of partitions) {
        expect(seen.has(`${topicId}:${p}`)).toBe(false);
        seen.add(`${topicId}:${p}`);
      }
    }
  }
  expect(seen.size).toBe(expected.reduce((n, t) => n + t.numPartitions, 0));
}

describe('UniformAssignor', () => {
  const assignor = new UniformAssignor();

  it('balances all partitions within one of each other', () => {
    const members = new Map([['m1', member([T1, T2])], ['m2', member([T1, T2])], ['m3', member([T1, T2])], ['m4', member([T1, T2])]]);
    const result = assignor.assign({ members, topics });
    expectComplete(result, [T1, T2]);
    const counts = [...result.values()].map(partitionCount);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });

  it('keeps current partitions and moves only what balance needs when a member joins', () => {
    const two = new Map([['m1', member([T1])], ['m2', member([T1])]]);
    const first = assignor.assign({ members: two, topics });
    const three = new Map([
      ['m1', member([T1], first.get('m1'))], ['m2', member([T1], first.get('m2'))], ['m3', member([T1])],
    ]);
    const second = assignor.assign({ members: three, topics });
    expectComplete(second, [T1]);
    expect([...second.values()].map(partitionCount)).toEqual([2, 2, 2]);
    // m1 and m2 each gave up one partition and kept the rest.
    for (const id of ['m1', 'm2']) {
      const kept = [...second.get(id)!.get(T1.topicId)!].filter((p) => first.get(id)!.get(T1.topicId)!.has(p));
      expect(kept).toHaveLength(2);
    }
  });

  it('assigns a topic only to its subscribers (heterogeneous subscriptions)', () => {
    const members = new Map([['m1', member([T1])], ['m2', member([T1, T2])]]);
    const result = assignor.assign({ members, topics });
    expectComplete(result, [T1, T2]);
    expect(result.get('m1')!.has(T2.topicId)).toBe(false);
    // 9 partitions, m2 alone takes t2's 3, so t1 goes mostly to m1: 5/4 or better.
    expect(partitionCount(result.get('m1')!)).toBeGreaterThanOrEqual(4);
    expect(Math.abs(partitionCount(result.get('m1')!) - partitionCount(result.get('m2')!))).toBeLessThanOrEqual(1);
  });

  it('drops partitions of topics that shrank away or are no longer subscribed', () => {
    const stale: Assignment = new Map([[T2.topicId, new Set([0, 1, 2])], [T1.topicId, new Set([7])]]);
    const members = new Map([['m1', member([T1], stale)]]);
    const result = assignor.assign({ members, topics });
    expect(result.get('m1')).toEqual(new Map([[T1.topicId, new Set([0, 1, 2, 3, 4, 5])]]));
  });
});

describe('RangeAssignor', () => {
  const assignor = new RangeAssignor();

  it('gives each subscriber a contiguous range per topic, extras to the first members', () => {
    const members = new Map([['m2', member([T1, T2])], ['m1', member([T1, T2])], ['m3', member([T1])]]);
    const result = assignor.assign({ members, topics });
    expectComplete(result, [T1, T2]);
    expect(result.get('m1')).toEqual(new Map([[T1.topicId, new Set([0, 1])], [T2.topicId, new Set([0, 1])]]));
    expect(result.get('m2')).toEqual(new Map([[T1.topicId, new Set([2, 3])], [T2.topicId, new Set([2])]]));
    expect(result.get('m3')).toEqual(new Map([[T1.topicId, new Set([4, 5])]]));
  });

  it('leaves members without partitions when there are more members than partitions', () => {
    const members = new Map(['m1', 'm2', 'm3', 'm4'].map((id) => [id, member([T2])]));
    const result = assignor.assign({ members, topics });
    expect([...result.values()].map(partitionCount)).toEqual([1, 1, 1, 0]);
  });
});
