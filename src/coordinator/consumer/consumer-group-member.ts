// One member of a KIP-848 consumer group (Kafka's ConsumerGroupMember): its subscription, as the
// member sent it, and where it stands in reconciling its assignment.
import type { Assignment } from './assignors/assignor.js';

/** Kafka's MemberState, with its persisted int8 values. */
export enum MemberState {
  /** Reconciled to the target assignment of its epoch. */
  Stable = 0,
  /** Must first give up partitions (it stays at its epoch until it does). */
  UnrevokedPartitions = 1,
  /** At the target epoch, waiting for partitions other members still have to release. */
  UnreleasedPartitions = 2,
  Unknown = 127,
}

export function memberStateOf(value: number): MemberState {
  return value in MemberState ? (value as MemberState) : MemberState.Unknown;
}

/** The reconciliation part of a member: what CurrentAssignmentBuilder computes and what is persisted. */
export interface MemberAssignmentState {
  state: MemberState;
  memberEpoch: number;
  /** The epoch before the last bump: a member whose response was lost may retry with it. */
  previousMemberEpoch: number;
  assignedPartitions: Assignment;
  partitionsPendingRevocation: Assignment;
}

/** Member epoch of a static member that left temporarily and keeps its assignment (KIP-848). */
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;
export const LEAVE_GROUP_MEMBER_EPOCH = -1;

export class ConsumerGroupMember implements MemberAssignmentState {
  state = MemberState.Stable;
  memberEpoch = 0;
  previousMemberEpoch = -1;
  assignedPartitions: Assignment = new Map();
  partitionsPendingRevocation: Assignment = new Map();
  instanceId: string | null = null;
  rackId: string | null = null;
  clientId = '';
  clientHost = '';
  subscribedTopicNames: string[] = [];
  subscribedTopicRegex: string | null = null;
  rebalanceTimeoutMs = -1;
  serverAssignor: string | null = null;
  sessionTimer: NodeJS.Timeout | undefined;
  /** Fences the member if it does not revoke its partitions within its rebalance timeout. */
  rebalanceTimer: NodeJS.Timeout | undefined;

  constructor(public memberId: string) {}

  setAssignmentState(s: MemberAssignmentState): void {
    this.state = s.state;
    this.memberEpoch = s.memberEpoch;
    this.previousMemberEpoch = s.previousMemberEpoch;
    this.assignedPartitions = s.assignedPartitions;
    this.partitionsPendingRevocation = s.partitionsPendingRevocation;
  }

  clearTimers(): void {
    clearTimeout(this.sessionTimer);
    clearTimeout(this.rebalanceTimer);
    this.sessionTimer = undefined;
    this.rebalanceTimer = undefined;
  }
}
