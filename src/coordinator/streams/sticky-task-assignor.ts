// Kafka's streams StickyTaskAssignor (group.streams.assignors=sticky): active tasks stay with the member that
// holds them while its share allows, then go to a member that held them as standby, then to the least loaded
// member of the least loaded process; each task gets up to num.standby.replicas standbys, each on a process
// holding no copy of it, previous standby holders first. A process's members share its load.
import { addTask, emptyTasks, hasTask, type Tasks, type TasksTuple } from './tasks-tuple.js';

export interface AssignmentMember {
  memberId: string;
  processId: string;
  /** What the member holds now, its stickiness. */
  active: Tasks;
  standby: Tasks;
}

export interface AssignmentSpec {
  members: ReadonlyArray<AssignmentMember>;
  /** sub-topology id -> number of tasks. */
  subtopologies: ReadonlyMap<string, number>;
  numStandbyReplicas: number;
}

export const STICKY_ASSIGNOR = 'sticky';

interface MemberLoad {
  member: AssignmentMember;
  tasks: TasksTuple;
  load: number;
}

export function assignTasks(spec: AssignmentSpec): Map<string, TasksTuple> {
  const members = [...spec.members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const loads = new Map<string, MemberLoad>(members.map((m) => [m.memberId, { member: m, tasks: emptyTasks(), load: 0 }]));
  const result = new Map([...loads].map(([id, l]) => [id, l.tasks]));
  if (members.length === 0) return result;
  const tasks: Array<[string, number]> = [];
  for (const [s, n] of [...spec.subtopologies].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) for (let p = 0; p < n; p++) tasks.push([s, p]);
  const maxActivePerMember = Math.ceil(tasks.length / members.length);
  const processLoad = (processId: string) => {
    let load = 0;
    let size = 0;
    for (const l of loads.values()) if (l.member.processId === processId) { load += l.load; size++; }
    return load / size;
  };
  const give = (l: MemberLoad, kind: 'active' | 'standby', s: string, p: number) => {
    addTask(l.tasks[kind], s, p);
    l.load++;
  };
  const leastLoaded = (candidates: MemberLoad[]) => candidates.reduce((best, l) => {
    const d = processLoad(l.member.processId) - processLoad(best.member.processId);
    return d < 0 || (d === 0 && l.load < best.load) ? l : best;
  });

  // 1. Active tasks stay where they are, within each member's share.
  const unassigned: Array<[string, number]> = [];
  for (const [s, p] of tasks) {
    const owner = [...loads.values()].find((l) => hasTask(l.member.active, s, p) && l.load < maxActivePerMember);
    if (owner) give(owner, 'active', s, p);
    else unassigned.push([s, p]);
  }
  // 2. Then to a previous standby holder under its share, else to the least loaded.
  for (const [s, p] of unassigned) {
    const standby = [...loads.values()].filter((l) => hasTask(l.member.standby, s, p) && l.load < maxActivePerMember);
    give(standby.length > 0 ? leastLoaded(standby) : leastLoaded([...loads.values()]), 'active', s, p);
  }
  // 3. Standbys, on processes without a copy of the task.
  for (let r = 0; r < spec.numStandbyReplicas; r++) {
    for (const [s, p] of tasks) {
      const holding = new Set([...loads.values()].filter((l) => hasTask(l.tasks.active, s, p) || hasTask(l.tasks.standby, s, p)).map((l) => l.member.processId));
      const candidates = [...loads.values()].filter((l) => !holding.has(l.member.processId));
      if (candidates.length === 0) continue;
      const previous = candidates.filter((l) => hasTask(l.member.standby, s, p) || hasTask(l.member.active, s, p));
      give(leastLoaded(previous.length > 0 ? previous : candidates), 'standby', s, p);
    }
  }
  return result;
}

