// kafkite's streams sticky task assignor against Kafka 4.4's own StickyTaskAssignor class (run from the 4.4 jar by
// test/clients/java/StreamsAssignorOracle.java) on generated groups: members and processes, stateful and stateless
// sub-topologies, previous active and standby tasks, reported task offsets and standby replicas. Kafka breaks ties
// in its hash maps' order, so only the cases whose Kafka answer is unique (the same under several renamings of the
// ids) are compared; every one of them must match.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { assignTasks } from '../../src/coordinator/streams/sticky-task-assignor.js';
import { taskOffsetsOf, tasksOf, type Tasks } from '../../src/coordinator/streams/tasks-tuple.js';
import { compileJava, javaArgs } from '../helpers/java.js';

interface Case {
  numStandbyReplicas: number;
  subtopologies: Array<{ id: string; tasks: number; stateful: boolean }>;
  members: Array<{
    memberId: string; processId: string;
    active: Record<string, number[]>; standby: Record<string, number[]>; taskOffsets: Record<string, Record<string, number>>;
  }>;
}
type Assignment = Record<string, { active: Record<string, number[]>; standby: Record<string, number[]> }>;

/** A small deterministic generator (mulberry32), so a failure names a case that comes back. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(seed: number): Case {
  const rnd = random(seed);
  const int = (min: number, max: number) => min + Math.floor(rnd() * (max - min + 1));
  const subtopologies = Array.from({ length: int(1, 3) }, (_, i) => ({ id: String(i), tasks: int(1, 6), stateful: rnd() < 0.6 }));
  const processes = int(1, 4);
  const members: Case['members'] = Array.from({ length: int(1, 6) }, (_, i) => ({
    memberId: `member-${i}`, processId: `process-${int(0, processes - 1)}`, active: {}, standby: {}, taskOffsets: {},
  }));
  const add = (tasks: Record<string, number[]>, s: string, p: number) => (tasks[s] ??= []).push(p);
  for (const s of subtopologies) {
    for (let p = 0; p < s.tasks; p++) {
      // Previous owners (some tasks orphaned), a standby elsewhere, and state reported with distinct offsets.
      const owner = rnd() < 0.6 ? members[int(0, members.length - 1)] : undefined;
      if (owner) add(owner.active, s.id, p);
      const standby = s.stateful && rnd() < 0.4 ? members[int(0, members.length - 1)] : undefined;
      if (standby && standby.processId !== owner?.processId) add(standby.standby, s.id, p);
      if (s.stateful) {
        for (const m of members) if (m !== owner && rnd() < 0.3) (m.taskOffsets[s.id] ??= {})[p] = int(1, 1_000_000);
      }
    }
  }
  return { numStandbyReplicas: int(0, 2), subtopologies, members };
}

const plain = (tasks: Tasks) => Object.fromEntries([...tasks].filter(([, ps]) => ps.size > 0).sort(([a], [b]) => a.localeCompare(b))
  .map(([s, ps]) => [s, [...ps].sort((a, b) => a - b)]));

function kafkite(c: Case): Assignment {
  const toTasks = (t: Record<string, number[]>) => tasksOf(Object.entries(t).map(([subtopologyId, partitions]) => ({ subtopologyId, partitions })));
  const result = assignTasks({
    members: c.members.map((m) => ({
      memberId: m.memberId, processId: m.processId, active: toTasks(m.active), standby: toTasks(m.standby),
      taskOffsets: taskOffsetsOf(Object.entries(m.taskOffsets).flatMap(([subtopologyId, ps]) => Object.entries(ps).map(([p, offset]) => ({ subtopologyId, partition: Number(p), offset })))),
    })),
    subtopologies: new Map(c.subtopologies.map((s) => [s.id, s.tasks])),
    statefulSubtopologies: new Set(c.subtopologies.filter((s) => s.stateful).map((s) => s.id)),
    numStandbyReplicas: c.numStandbyReplicas,
  });
  return Object.fromEntries([...result].sort(([a], [b]) => a.localeCompare(b)).map(([id, t]) => [id, { active: plain(t.active), standby: plain(t.standby) }]));
}

describe("the streams sticky task assignor against Kafka 4.4's StickyTaskAssignor", () => {
  it('gives the same assignment wherever Kafka 4.4 gives a unique one', () => {
    const cases = Array.from({ length: 400 }, (_, i) => generate(i + 1));
    const classes = compileJava('StreamsAssignorOracle');
    const [cmd, ...args] = ['java', ...javaArgs('StreamsAssignorOracle', [], classes)];
    // Kafka's assignor warns of every standby it cannot place (on stderr, which is kept out of the test log).
    const run = { input: JSON.stringify(cases), maxBuffer: 64 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'] };
    const answers = JSON.parse(execFileSync(cmd!, args, run).toString()) as Array<{ unique: boolean; assignment: Assignment }>;
    const compared = answers.map((a, i) => ({ ...a, i })).filter((a) => a.unique);
    const differing = compared.filter((a) => JSON.stringify(kafkite(cases[a.i]!)) !== JSON.stringify(a.assignment));
    console.log(`streams assignor: ${compared.length} of ${cases.length} generated groups have a unique Kafka 4.4 assignment; ${differing.length} differ`);
    // Enough of them to mean something: the generator's ties (equal loads, equal counts) leave about half.
    expect(compared.length).toBeGreaterThan(100);
    expect(differing.slice(0, 3).map((a) => ({ case: cases[a.i], kafka: a.assignment, kafkite: kafkite(cases[a.i]!) }))).toEqual([]);
  }, 120_000);
});
