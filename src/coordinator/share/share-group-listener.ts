// Kafka's server.share.ShareGroupListener: the broker's share partitions learn here that a member left the group
// (left, was fenced or timed out), to release the records it had acquired, and that a group has no member left.

export interface ShareGroupListener {
  onMemberLeave(groupId: string, memberId: string): void;
  onGroupEmpty(groupId: string): void;
}
