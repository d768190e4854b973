// Rebuilding consumer groups from their __consumer_offsets records at start-up, in log order: the
// last record per key wins, tombstones delete.
import { ConsumerGroup } from './consumer-group.js';
import { ConsumerGroupMember } from './consumer-group-member.js';
import {
  ConsumerGroupRecordType as T, decodeConsumerGroupKey, decodeCurrentAssignment, decodeEpoch, decodeGroupMetadata, decodeMemberMetadata,
  decodeTargetAssignment,
} from './consumer-group-records.js';
import type { CoordinatorRecord } from '../offsets-topic.js';

export function replayConsumerGroups(records: Iterable<CoordinatorRecord>): Map<string, ConsumerGroup> {
  const groups = new Map<string, ConsumerGroup>();
  // Members are added to their group once all records are in, so partition owners are computed once.
  const members = new Map<string, Map<string, ConsumerGroupMember>>();
  for (const record of records) {
    const key = decodeConsumerGroupKey(record.key);
    if (!key) continue;
    let group = groups.get(key.groupId);
    if (!group) {
      if (record.value === null) continue;
      groups.set(key.groupId, (group = new ConsumerGroup(key.groupId)));
      members.set(key.groupId, new Map());
    }
    const groupMembers = members.get(key.groupId)!;
    const value = record.value;
    switch (key.type) {
      case T.Metadata:
        if (value === null) {
          groups.delete(key.groupId);
          members.delete(key.groupId);
        } else {
          ({ epoch: group.groupEpoch, metadataHash: group.metadataHash } = decodeGroupMetadata(value));
        }
        break;
      case T.PartitionMetadata:
        // Only its presence counts, as in Kafka 4.1+ (GroupMetadataManager.replay): the hash replaced it.
        group.hasSubscriptionMetadataRecord = value !== null;
        break;
      case T.TargetAssignmentMetadata:
        group.assignmentEpoch = value === null ? 0 : decodeEpoch(value);
        break;
      case T.TargetAssignmentMember:
        if (value === null) group.targetAssignment.delete(key.memberId!);
        else group.targetAssignment.set(key.memberId!, decodeTargetAssignment(value));
        break;
      case T.MemberMetadata:
        if (value === null) groupMembers.delete(key.memberId!);
        else Object.assign(memberOf(groupMembers, key.memberId!), decodeMemberMetadata(value));
        break;
      case T.CurrentMemberAssignment:
        if (value !== null) memberOf(groupMembers, key.memberId!).setAssignmentState(decodeCurrentAssignment(value));
        break;
    }
  }
  for (const [groupId, group] of groups) {
    for (const member of members.get(groupId)!.values()) group.addMember(member);
  }
  return groups;
}

function memberOf(members: Map<string, ConsumerGroupMember>, memberId: string): ConsumerGroupMember {
  let member = members.get(memberId);
  if (!member) members.set(memberId, (member = new ConsumerGroupMember(memberId)));
  return member;
}
