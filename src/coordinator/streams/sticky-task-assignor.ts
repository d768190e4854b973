// Kafka 4.4's streams StickyTaskAssignor (group.streams.assignors=sticky), in its structure: each process has a
// capacity (its members) and a load (its tasks over its capacity); each member may take up to a quota of tasks,
// recomputed as members fill up.
// - Active tasks first, in (partition, sub-topology) order: to the member that held the task within its active
//   quota, then to the best ranked member with the task's state, then to the least loaded member of the least
//   loaded process.
// - Then num.standby.replicas standbys of each task of a stateful sub-topology, on processes without a copy of the
//   task: the previous active owner, then the best ranked member with its state, then the least loaded processes.
// - A member ranks higher for a task as its previous standby, then by the offset sum it reported for the task's
//   state in its heartbeats (KIP-1071's TaskOffsets; Kafka 4.4's StandbyCandidate order): the most caught-up state
//   restores least.
// Equal loads are broken as Kafka's heaps break them (priority-queue.ts); where Kafka starts from the order of a hash
// map, kafkite starts from the ids' order, so the same group always gets the same assignment.
import { PriorityQueue } from './priority-queue.js';
import { addTask, emptyTasks, type TaskOffsets, type Tasks, type TasksTuple } from './tasks-tuple.js';

export interface AssignmentMember {
  memberId: string;
  processId: string;
  /** What the member holds now, its stickiness. */
  active: Tasks;
  standby: Tasks;
  /** The task offsets of its last heartbeat that carried them. */
  taskOffsets: TaskOffsets;
}

export interface AssignmentSpec {
  members: ReadonlyArray<AssignmentMember>;
  /** sub-topology id -> number of tasks. */
  subtopologies: ReadonlyMap<string, number>;
  /** The sub-topologies with state stores (changelog topics): only their tasks get standbys. */
  statefulSubtopologies: ReadonlySet<string>;
  numStandbyReplicas: number;
}

export const STICKY_ASSIGNOR = 'sticky';

interface TaskId {
  subtopologyId: string;
  partition: number;
  key: string;
}

interface Member {
  memberId: string;
  process: ProcessState;
}

/** Kafka's ProcessState: the members of one Streams process and the tasks they were given. */
class ProcessState {
  readonly taskCounts = new Map<string, number>();
  private readonly tasks = new Set<string>();
  private taskCount = 0;
  /** Kafka's membersByLoad: kept between least-loaded picks, dropped when a task is given by name. */
  private membersByLoad: PriorityQueue<{ memberId: string; count: number }> | null = null;

  constructor(readonly processId: string) {}

  get load(): number {
    return this.taskCounts.size === 0 ? -1 : this.taskCount / this.taskCounts.size;
  }

  hasTask(task: TaskId): boolean {
    return this.tasks.has(task.key);
  }

  /** Gives the task to the member; returns the member's new task count. */
  addTask(memberId: string, task: TaskId): number {
    this.membersByLoad = null;
    return this.add(memberId, task);
  }

  /** Kafka's addTaskToLeastLoadedMember; returns the member and its new task count. */
  addTaskToLeastLoadedMember(task: TaskId): { memberId: string; count: number } {
    if (!this.membersByLoad) {
      this.membersByLoad = new PriorityQueue((a, b) => a.count - b.count);
      for (const [memberId, count] of this.taskCounts) this.membersByLoad.add({ memberId, count });
    }
    const entry = this.membersByLoad.poll()!;
    entry.count = this.add(entry.memberId, task);
    this.membersByLoad.add(entry);
    return entry;
  }

  private add(memberId: string, task: TaskId): number {
    this.taskCount++;
    this.tasks.add(task.key);
    const count = this.taskCounts.get(memberId)! + 1;
    this.taskCounts.set(memberId, count);
    return count;
  }
}

const compareTasks = (a: TaskId, b: TaskId, first: 'partition' | 'subtopology') => {
  const byPartition = a.partition - b.partition;
  const bySubtopology = a.subtopologyId < b.subtopologyId ? -1 : a.subtopologyId > b.subtopologyId ? 1 : 0;
  return first === 'partition' ? byPartition || bySubtopology : bySubtopology || byPartition;
};

/** Kafka's computeTasksPerMember: tasks over members, rounded up. */
const tasksPerMember = (tasks: number, members: number) => (members === 0 ? 0 : Math.ceil(tasks / members));

export function assignTasks(spec: AssignmentSpec): Map<string, TasksTuple> {
  const members = [...spec.members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const result = new Map(members.map((m) => [m.memberId, emptyTasks()]));
  if (members.length === 0) return result;
  const processIds = [...new Set(members.map((m) => m.processId))].sort();
  const processes = new Map(processIds.map((id) => [id, new ProcessState(id)]));
  const byId = new Map<string, Member>();
  for (const m of members) {
    const process = processes.get(m.processId)!;
    process.taskCounts.set(m.memberId, 0);
    byId.set(m.memberId, { memberId: m.memberId, process });
  }

  const taskIds = (standby: boolean) => {
    const out: TaskId[] = [];
    for (const [s, n] of spec.subtopologies) {
      if (standby && !spec.statefulSubtopologies.has(s)) continue;
      for (let p = 0; p < n; p++) out.push({ subtopologyId: s, partition: p, key: `${p}:${s}` });
    }
    return out;
  };
  const activeTasks = taskIds(false);
  const standbyTasks = spec.numStandbyReplicas > 0 ? taskIds(true) : [];

  // The quotas, as Kafka's LocalState: each shrinks as members reach it.
  let activeLeft = activeTasks.length;
  let totalLeft = activeTasks.length + standbyTasks.length * spec.numStandbyReplicas;
  let membersUnderActiveQuota = members.length;
  let membersUnderTotalQuota = members.length;
  let activeQuota = tasksPerMember(activeLeft, membersUnderActiveQuota);
  let totalQuota = tasksPerMember(totalLeft, membersUnderTotalQuota);
  const counted = (count: number, active: boolean) => {
    if (active && count === activeQuota) {
      membersUnderActiveQuota--;
      activeLeft -= count;
      activeQuota = tasksPerMember(activeLeft, membersUnderActiveQuota);
    }
    if (count === totalQuota) {
      membersUnderTotalQuota--;
      totalLeft -= count;
      totalQuota = tasksPerMember(totalLeft, membersUnderTotalQuota);
    }
  };
  const record = (memberId: string, task: TaskId, active: boolean) => addTask(result.get(memberId)![active ? 'active' : 'standby'], task.subtopologyId, task.partition);
  const give = (memberId: string, process: ProcessState, task: TaskId, active: boolean) => {
    record(memberId, task, active);
    counted(process.addTask(memberId, task), active);
  };
  const giveToLeastLoaded = (process: ProcessState, task: TaskId, active: boolean) => {
    const { memberId, count } = process.addTaskToLeastLoadedMember(task);
    record(memberId, task, active);
    counted(count, active);
  };
  /** Kafka's queue of processes by load, as assignActive and assignStandby build it. */
  const processesByLoad = () => {
    const queue = new PriorityQueue<ProcessState>((a, b) => a.load - b.load);
    for (const process of processes.values()) queue.add(process);
    return queue;
  };
  const underQuota = (m: Member, active: boolean) => m.process.taskCounts.get(m.memberId)! < (active ? activeQuota : totalQuota);

  // Who held each task: its previous active owner, and the members with its state, ranked.
  const previousActive = new Map<string, Member>();
  const candidates = new Map<string, Array<{ member: Member; previousStandby: boolean; offsetSum: number }>>();
  const candidate = (key: string, member: Member, previousStandby: boolean, offsetSum: number) => {
    let list = candidates.get(key);
    if (!list) candidates.set(key, (list = []));
    list.push({ member, previousStandby, offsetSum });
  };
  for (const m of members) {
    const member = byId.get(m.memberId)!;
    for (const [s, ps] of m.active) for (const p of ps) previousActive.set(`${p}:${s}`, member);
    for (const [s, ps] of m.standby) for (const p of ps) candidate(`${p}:${s}`, member, true, m.taskOffsets.get(s)?.get(p) ?? 0);
    for (const [s, offsets] of m.taskOffsets) {
      for (const [p, offsetSum] of offsets) if (!m.standby.get(s)?.has(p)) candidate(`${p}:${s}`, member, false, offsetSum);
    }
  }
  const ranked = new Map([...candidates].map(([key, list]) => [
    key, list.sort((a, b) => Number(b.previousStandby) - Number(a.previousStandby) || b.offsetSum - a.offsetSum).map((c) => c.member),
  ]));
  /** Kafka's findPrevMemberWithLeastLoad: the first ranked member, replaced by one whose process and count are both lower. */
  const bestRanked = (task: TaskId, excludeHolders: boolean) => {
    let best: Member | undefined;
    for (const m of ranked.get(task.key) ?? []) {
      if (excludeHolders && m.process.hasTask(task)) continue;
      const count = m.process.taskCounts.get(m.memberId)!;
      if (!best || (m.process.load < best.process.load && count < best.process.taskCounts.get(best.memberId)!)) best = m;
    }
    return best;
  };

  // 1. Active tasks.
  let unassigned = activeTasks.sort((a, b) => compareTasks(a, b, 'partition'));
  for (const pass of ['previous owner', 'ranked'] as const) {
    unassigned = unassigned.filter((task) => {
      const m = pass === 'previous owner' ? previousActive.get(task.key) : bestRanked(task, false);
      if (!m || !underQuota(m, true)) return true;
      give(m.memberId, m.process, task, true);
      return false;
    });
  }
  const byLoad = processesByLoad();
  for (const task of unassigned.sort((a, b) => compareTasks(a, b, 'subtopology'))) {
    const process = byLoad.poll()!;
    giveToLeastLoaded(process, task, true);
    byLoad.add(process);
  }

  // 2. Standby tasks.
  const toAssign: Array<{ task: TaskId; remaining: number }> = [];
  for (const task of standbyTasks.sort((a, b) => compareTasks(b, a, 'partition'))) {
    for (let replica = 0; replica < spec.numStandbyReplicas; replica++) {
      const owner = previousActive.get(task.key);
      const m = owner && !owner.process.hasTask(task) && underQuota(owner, false) ? owner : bestRanked(task, true);
      if (!m || !underQuota(m, false)) {
        toAssign.push({ task, remaining: spec.numStandbyReplicas - replica });
        break;
      }
      give(m.memberId, m.process, task, false);
    }
  }
  const standbysByLoad = processesByLoad();
  /** Kafka's assignStandbyToMemberWithLeastLoad: the least loaded process without a copy of the task. */
  const assignToLeastLoaded = (task: TaskId): boolean => {
    const process = standbysByLoad.poll();
    if (!process) return false;
    let assigned = false;
    if (!process.hasTask(task)) {
      giveToLeastLoaded(process, task, false);
      assigned = true;
    } else if (standbysByLoad.size > 0) {
      assigned = assignToLeastLoaded(task);
    }
    standbysByLoad.add(process);
    return assigned;
  };
  for (const { task, remaining } of toAssign.sort((a, b) => compareTasks(b.task, a.task, 'subtopology'))) {
    for (let replica = 0; replica < remaining; replica++) if (!assignToLeastLoaded(task)) break;
  }
  return result;
}
