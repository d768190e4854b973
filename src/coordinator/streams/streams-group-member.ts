// A member of a streams group (Kafka's StreamsGroupMember): what it sent (process, endpoint, client tags,
// topology epoch) and where it is in reconciliation (its epoch, tasks, tasks pending revocation).
import type { StreamsGroupMemberMetadataValue } from '../../../protocol/generated/records/StreamsGroupMemberMetadataValue.js';
import { emptyTasks, type TaskEpochs, type TaskOffsets, type TasksTuple } from './tasks-tuple.js';

/** Kafka's streams MemberState, with its record codes. */
export enum StreamsMemberState {
  Stable = 0,
  UnrevokedTasks = 1,
  UnreleasedTasks = 2,
  Unknown = 127,
}

export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

/** What a member sent, as StreamsGroupMemberMetadataValue stores it. */
export type StreamsMemberMetadata = StreamsGroupMemberMetadataValue;

export class StreamsGroupMember implements StreamsMemberMetadata {
  instanceId: string | null = null;
  rackId: string | null = null;
  clientId = '';
  clientHost = '';
  rebalanceTimeoutMs = -1;
  topologyEpoch = -1;
  processId = '';
  userEndpoint: { host: string; port: number } | null = null;
  clientTags: Array<{ key: string; value: string }> = [];

  memberEpoch = 0;
  previousMemberEpoch = -1;
  state = StreamsMemberState.Stable;
  assigned: TasksTuple = emptyTasks();
  pendingRevocation: TasksTuple = emptyTasks();
  /** The member epoch at which each active task (assigned or pending revocation) came to the member (KAFKA-19779). */
  activeTaskEpochs: TaskEpochs = new Map();
  /**
   * The offset sums of the tasks whose state the member has, from its last heartbeat that carried them: kept in
   * memory only, as Kafka 4.4's MemberTaskOffsets, for the assignor's ranking.
   */
  taskOffsets: TaskOffsets = new Map();

  sessionTimer: NodeJS.Timeout | undefined;
  rebalanceTimer: NodeJS.Timeout | undefined;

  constructor(readonly memberId: string) {}

  clearTimers(): void {
    clearTimeout(this.sessionTimer);
    clearTimeout(this.rebalanceTimer);
    this.sessionTimer = undefined;
    this.rebalanceTimer = undefined;
  }

  metadata(): StreamsMemberMetadata {
    return {
      instanceId: this.instanceId, rackId: this.rackId, clientId: this.clientId, clientHost: this.clientHost,
      rebalanceTimeoutMs: this.rebalanceTimeoutMs, topologyEpoch: this.topologyEpoch, processId: this.processId,
      userEndpoint: this.userEndpoint, clientTags: this.clientTags,
    };
  }
}

export function sameMetadata(a: StreamsMemberMetadata, b: StreamsMemberMetadata): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
