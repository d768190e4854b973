// Requests to and results from the GroupCoordinator, independent of wire versions.
/** One protocol a classic-group member supports (an assignor name and its subscription metadata). */
export interface Protocol {
  readonly name: string;
  readonly metadata: Buffer;
}

export interface JoinGroupRequest {
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: ReadonlyArray<Protocol>;
  sessionTimeoutMs: number;
  /** -1 (v0) means: same as the session timeout. */
  rebalanceTimeoutMs: number;
  reason: string | null;
  /** JoinGroup v4+: a new member must first learn its member id (MEMBER_ID_REQUIRED). */
  requireKnownMemberId: boolean;
  /** JoinGroup v9+ (KIP-814): a rejoining static leader is told to skip the assignment. */
  supportSkippingAssignment: boolean;
  clientId: string;
  clientHost: string;
}

export interface JoinGroupResultMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

export interface JoinGroupResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  skipAssignment: boolean;
  memberId: string;
  members: JoinGroupResultMember[];
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** v5+; null when not sent. */
  protocolType: string | null;
  protocolName: string | null;
  assignments: ReadonlyArray<{ memberId: string; assignment: Buffer }>;
}

export interface SyncGroupResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeavingMember {
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeaveGroupResult {
  errorCode: number;
  members: Array<LeavingMember & { errorCode: number }>;
}

/** TxnOffsetCommit as the group coordinator sees it; partitions carry commitTimestamp -1. */
export interface TxnOffsetCommitRequest extends Omit<OffsetCommitRequest, 'retentionTimeMs'> {
  producerId: number;
  producerEpoch: number;
}

export interface OffsetCommitRequest {
  groupId: string;
  /** -1 with an empty member id: a standalone (simple) consumer's commit. */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** OffsetCommit v2-v4 retention_time_ms; -1 means the broker's offsets.retention.minutes. */
  retentionTimeMs: number;
  topics: ReadonlyArray<{
    name: string;
    partitions: ReadonlyArray<{
      partitionIndex: number;
      committedOffset: number;
      committedLeaderEpoch: number;
      /** OffsetCommit v1 only; -1 means now. */
      commitTimestamp: number;
      committedMetadata: string | null;
    }>;
  }>;
}

interface PartitionError {
  partitionIndex: number;
  errorCode: number;
}

export interface TopicPartitionErrors {
  name: string;
  partitions: PartitionError[];
}

export interface FetchedOffset {
  partitionIndex: number;
  committedOffset: number;
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResult {
  errorCode: number;
  topics: Array<{ name: string; partitions: FetchedOffset[] }>;
}

export interface OffsetDeleteResult {
  errorCode: number;
  topics: TopicPartitionErrors[];
}

export interface DescribedGroup {
  errorCode: number;
  groupId: string;
  groupState: string;
  protocolType: string;
  protocolData: string;
  members: Array<{
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    memberMetadata: Buffer;
    memberAssignment: Buffer;
  }>;
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  groupState: string;
  groupType: string;
}
