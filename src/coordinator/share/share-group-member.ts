// One member of a KIP-932 share group (Kafka's modern.share.ShareGroupMember): its subscription and the
// partitions it holds. A share member never revokes: it takes its target assignment at once, so its state
// is always Stable (MemberState 0) and its epoch is the assignment epoch it last saw.
import type { Assignment } from '../consumer/assignors/assignor.js';

export class ShareGroupMember {
  memberEpoch = 0;
  previousMemberEpoch = 0;
  rackId: string | null = null;
  clientId = '';
  clientHost = '';
  subscribedTopicNames: string[] = [];
  assignedPartitions: Assignment = new Map();
  sessionTimer: NodeJS.Timeout | undefined;

  constructor(readonly memberId: string) {}

  clearTimers(): void {
    clearTimeout(this.sessionTimer);
    this.sessionTimer = undefined;
  }
}
