// A member's active, standby and warm-up tasks (Kafka's TasksTuple): sub-topology id -> partitions.
export type Tasks = Map<string, Set<number>>;

export interface TasksTuple {
  active: Tasks;
  standby: Tasks;
  warmup: Tasks;
}

/** The wire and record form of a set of tasks. */
export interface TaskIdList {
  subtopologyId: string;
  partitions: number[];
}

/** sub-topology id -> partition -> the epoch the task was assigned at. */
export type TaskEpochs = Map<string, Map<number, number>>;

/** sub-topology id -> partition -> the offset sum of the task's state stores (a heartbeat's TaskOffsets). */
export type TaskOffsets = Map<string, Map<number, number>>;

export function taskOffsetsOf(list: ReadonlyArray<{ subtopologyId: string; partition: number; offset: number }>): TaskOffsets {
  const out: TaskOffsets = new Map();
  for (const { subtopologyId, partition, offset } of list) {
    let partitions = out.get(subtopologyId);
    if (!partitions) out.set(subtopologyId, (partitions = new Map()));
    partitions.set(partition, offset);
  }
  return out;
}

export const emptyTasks = (): TasksTuple => ({ active: new Map(), standby: new Map(), warmup: new Map() });

export function tasksOf(list: ReadonlyArray<TaskIdList> | null | undefined): Tasks {
  const tasks: Tasks = new Map();
  for (const t of list ?? []) for (const p of t.partitions) addTask(tasks, t.subtopologyId, p);
  return tasks;
}

export function listOf(tasks: Tasks): TaskIdList[] {
  return [...tasks].filter(([, ps]) => ps.size > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([subtopologyId, ps]) => ({ subtopologyId, partitions: [...ps].sort((a, b) => a - b) }));
}

export function addTask(tasks: Tasks, subtopologyId: string, partition: number): void {
  let ps = tasks.get(subtopologyId);
  if (!ps) tasks.set(subtopologyId, (ps = new Set()));
  ps.add(partition);
}

function hasTask(tasks: Tasks, subtopologyId: string, partition: number): boolean {
  return tasks.get(subtopologyId)?.has(partition) === true;
}

export function* eachTask(tasks: Tasks): Generator<[string, number]> {
  for (const [s, ps] of tasks) for (const p of ps) yield [s, p];
}

function countTasks(tasks: Tasks): number {
  let n = 0;
  for (const ps of tasks.values()) n += ps.size;
  return n;
}

/** a ∩ b, or a \ b with `minus`. */
export function filterTasks(a: Tasks, b: Tasks, minus = false): Tasks {
  const out: Tasks = new Map();
  for (const [s, p] of eachTask(a)) if (hasTask(b, s, p) !== minus) addTask(out, s, p);
  return out;
}

function tasksEqual(a: Tasks, b: Tasks): boolean {
  return countTasks(a) === countTasks(b) && countTasks(filterTasks(a, b)) === countTasks(a);
}

export function tuplesEqual(a: TasksTuple, b: TasksTuple): boolean {
  return tasksEqual(a.active, b.active) && tasksEqual(a.standby, b.standby) && tasksEqual(a.warmup, b.warmup);
}

export function isEmptyTuple(t: TasksTuple): boolean {
  return countTasks(t.active) + countTasks(t.standby) + countTasks(t.warmup) === 0;
}
