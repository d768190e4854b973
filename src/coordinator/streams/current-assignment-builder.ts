// Kafka's streams CurrentAssignmentBuilder: moves a member towards its target tasks. Tasks leaving the member
// are revoked first (UNREVOKED_TASKS, the epoch held back); an active task still held by another member, or a
// task another member of the same process still holds, is given once released (UNRELEASED_TASKS); otherwise
// the member reaches its target at the target epoch (STABLE).
import type { StreamsGroup } from './streams-group.js';
import { StreamsMemberState, type StreamsGroupMember } from './streams-group-member.js';
import {
  addTask, eachTask, emptyTasks, filterTasks, isEmptyTuple, type TaskEpochs, type Tasks, type TasksTuple,
} from './tasks-tuple.js';

export interface MemberAssignmentState {
  memberEpoch: number;
  previousMemberEpoch: number;
  state: StreamsMemberState;
  assigned: TasksTuple;
  pendingRevocation: TasksTuple;
  activeTaskEpochs: TaskEpochs;
}

const KINDS = ['active', 'standby', 'warmup'] as const;

function mapTuple(f: (kind: (typeof KINDS)[number]) => Tasks): TasksTuple {
  return { active: f('active'), standby: f('standby'), warmup: f('warmup') };
}

/** The member's next state, or undefined when it does not change. `owned`: what the member reports holding (null: unchanged). */
export function reconcile(
  group: StreamsGroup, member: StreamsGroupMember, targetEpoch: number, target: TasksTuple, owned: TasksTuple | null,
): MemberAssignmentState | undefined {
  if (member.state === StreamsMemberState.UnrevokedTasks) {
    // Still holding tasks it was asked to revoke: nothing moves until it reports them gone.
    const stillOwned = owned === null || KINDS.some((k) => [...eachTask(filterTasks(member.pendingRevocation[k], owned[k]))].length > 0);
    if (stillOwned) return undefined;
  } else if (member.memberEpoch === targetEpoch && member.state === StreamsMemberState.Stable) {
    return undefined;
  }
  const kept = mapTuple((k) => filterTasks(member.assigned[k], target[k]));
  const revoke = mapTuple((k) => filterTasks(member.assigned[k], target[k], true));
  if (!isEmptyTuple(revoke)) {
    return {
      memberEpoch: member.memberEpoch, previousMemberEpoch: member.previousMemberEpoch, state: StreamsMemberState.UnrevokedTasks,
      assigned: kept, pendingRevocation: revoke, activeTaskEpochs: member.activeTaskEpochs,
    };
  }
  let unreleased = false;
  const next = mapTuple((k) => {
    const tasks: Tasks = new Map();
    for (const [s, p] of eachTask(target[k])) {
      const busy = k === 'active' ? group.activeOwner(s, p, member.memberId) !== undefined : group.heldInProcess(s, p, member);
      if (busy && !member.assigned[k].get(s)?.has(p)) unreleased = true;
      else addTask(tasks, s, p);
    }
    return tasks;
  });
  const state = unreleased ? StreamsMemberState.UnreleasedTasks : StreamsMemberState.Stable;
  const sameEpoch = member.memberEpoch === targetEpoch;
  const sameTasks = KINDS.every((k) => [...eachTask(filterTasks(next[k], member.assigned[k], true))].length === 0 &&
    [...eachTask(filterTasks(member.assigned[k], next[k], true))].length === 0);
  if (sameEpoch && sameTasks && state === member.state && isEmptyTuple(member.pendingRevocation)) return undefined;
  // A task kept keeps the epoch it came at; a new one gets the epoch it comes with.
  const activeTaskEpochs: TaskEpochs = new Map();
  for (const [s, p] of eachTask(next.active)) {
    const epoch = member.assigned.active.get(s)?.has(p) ? member.activeTaskEpochs.get(s)?.get(p) ?? member.memberEpoch : targetEpoch;
    let epochs = activeTaskEpochs.get(s);
    if (!epochs) activeTaskEpochs.set(s, (epochs = new Map()));
    epochs.set(p, epoch);
  }
  return {
    memberEpoch: targetEpoch, previousMemberEpoch: sameEpoch ? member.previousMemberEpoch : member.memberEpoch, state,
    assigned: next, pendingRevocation: emptyTasks(), activeTaskEpochs,
  };
}
