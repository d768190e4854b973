// The reconciliation state machine of KIP-848 (Kafka's CurrentAssignmentBuilder): moves a member
// towards its target assignment. Partitions it must give up are revoked first, at its current epoch;
// only then does it move to the target epoch, and it gets each new partition only once the previous
// owner has released it.
import { addPartition, type Assignment } from './assignors/assignor.js';
import { MemberState, type MemberAssignmentState } from './consumer-group-member.js';

export interface OwnedTopicPartitions {
  readonly topicId: string;
  readonly partitions: ReadonlyArray<number>;
}

export class FencedMemberEpochError extends Error {
  override name = 'FencedMemberEpochError';
}

export interface ReconcileInput {
  /** Topics the member subscribes to: partitions of others are revoked whatever the target says. */
  subscribedTopicIds: ReadonlySet<string>;
  targetEpoch: number;
  target: Assignment;
  /** The epoch of the partition's current owner, or -1 when no member holds it. */
  currentPartitionEpoch: (topicId: string, partition: number) => number;
  /** The partitions the member reported in its heartbeat; null when it did not report them. */
  ownedTopicPartitions: ReadonlyArray<OwnedTopicPartitions> | null;
}

export function reconcile(member: MemberAssignmentState, input: ReconcileInput): MemberAssignmentState {
  switch (member.state) {
    case MemberState.Stable:
      // The target can lag the subscription (KIP-1263 batching): the partitions of topics the member no longer
      // subscribes to are revoked at once, at its epoch (Kafka 4.4's CurrentAssignmentBuilder, hasSubscriptionChanged).
      return member.memberEpoch === input.targetEpoch && !holdsUnsubscribed(member.assignedPartitions, input.subscribedTopicIds)
        ? member
        : computeNextAssignment(member, member.memberEpoch, input);
    case MemberState.UnrevokedPartitions:
      return ownsAnyOf(input.ownedTopicPartitions, member.partitionsPendingRevocation)
        ? member
        : computeNextAssignment(member, member.memberEpoch, input);
    case MemberState.UnreleasedPartitions:
      return computeNextAssignment(member, member.memberEpoch, input);
    default:
      // A state from a newer version: the member must start over without partitions.
      if (input.ownedTopicPartitions === null || input.ownedTopicPartitions.length > 0) {
        throw new FencedMemberEpochError('The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.');
      }
      return computeNextAssignment(member, input.targetEpoch, input);
  }
}

function holdsUnsubscribed(assigned: Assignment, subscribedTopicIds: ReadonlySet<string>): boolean {
  for (const [topicId, partitions] of assigned) if (partitions.size > 0 && !subscribedTopicIds.has(topicId)) return true;
  return false;
}

/** Whether the member still reports any of `partitions`; not knowing counts as yes. */
function ownsAnyOf(owned: ReadonlyArray<OwnedTopicPartitions> | null, partitions: Assignment): boolean {
  if (owned === null) return true;
  return owned.some((tp) => tp.partitions.some((p) => partitions.get(tp.topicId)?.has(p) === true));
}

function computeNextAssignment(member: MemberAssignmentState, memberEpoch: number, input: ReconcileInput): MemberAssignmentState {
  const assigned: Assignment = new Map();
  const pendingRevocation: Assignment = new Map();
  const pendingAssignment: Assignment = new Map();
  let hasUnreleasedPartitions = false;

  for (const topicId of new Set([...input.target.keys(), ...member.assignedPartitions.keys()])) {
    const target = input.subscribedTopicIds.has(topicId) ? input.target.get(topicId) ?? new Set<number>() : new Set<number>();
    const current = member.assignedPartitions.get(topicId) ?? new Set<number>();
    for (const p of current) {
      if (target.has(p)) addPartition(assigned, topicId, p);
      else addPartition(pendingRevocation, topicId, p);
    }
    for (const p of target) {
      if (current.has(p)) continue;
      // The partition is free once no one holds it, or when this member itself is revoking it.
      const heldByOther = input.currentPartitionEpoch(topicId, p) !== -1 && member.partitionsPendingRevocation.get(topicId)?.has(p) !== true;
      if (heldByOther) hasUnreleasedPartitions = true;
      else addPartition(pendingAssignment, topicId, p);
    }
  }

  if (pendingRevocation.size > 0 && ownsAnyOf(input.ownedTopicPartitions, pendingRevocation)) {
    return {
      state: MemberState.UnrevokedPartitions,
      ...bumpedEpoch(member, memberEpoch),
      assignedPartitions: assigned,
      partitionsPendingRevocation: pendingRevocation,
    };
  }
  for (const [topicId, partitions] of pendingAssignment) for (const p of partitions) addPartition(assigned, topicId, p);
  return {
    state: hasUnreleasedPartitions ? MemberState.UnreleasedPartitions : MemberState.Stable,
    ...bumpedEpoch(member, input.targetEpoch),
    assignedPartitions: assigned,
    partitionsPendingRevocation: new Map(),
  };
}

function bumpedEpoch(member: MemberAssignmentState, epoch: number): { memberEpoch: number; previousMemberEpoch: number } {
  return epoch === member.memberEpoch
    ? { memberEpoch: member.memberEpoch, previousMemberEpoch: member.previousMemberEpoch }
    : { memberEpoch: epoch, previousMemberEpoch: member.memberEpoch };
}
