// Rebuilding share groups from their __consumer_offsets records at start-up (GroupMetadataManager.replay of the
// ShareGroup* records), in log order: the last record per key wins, tombstones delete.
import type { CoordinatorRecord } from '../offsets-topic.js';
import { ShareGroup } from './share-group.js';
import { ShareGroupMember } from './share-group-member.js';
import {
  decodeShareCurrentAssignment, decodeShareGroupEpoch, decodeShareGroupKey, decodeShareMemberMetadata, decodeShareStatePartitionMetadata,
  decodeShareTargetAssignment, decodeShareTargetAssignmentEpoch, ShareGroupRecordType as T,
} from './share-group-records.js';

export function replayShareGroups(records: Iterable<CoordinatorRecord>): Map<string, ShareGroup> {
  const groups = new Map<string, ShareGroup>();
  for (const record of records) {
    const key = decodeShareGroupKey(record.key);
    if (!key) continue;
    let group = groups.get(key.groupId);
    if (!group) {
      if (record.value === null) continue;
      groups.set(key.groupId, (group = new ShareGroup(key.groupId)));
    }
    const value = record.value;
    const memberId = key.memberId!;
    switch (key.type) {
      case T.Metadata:
        if (value === null) groups.delete(key.groupId);
        else ({ epoch: group.groupEpoch, metadataHash: group.metadataHash } = decodeShareGroupEpoch(value));
        break;
      case T.TargetAssignmentMetadata:
        group.assignmentEpoch = value === null ? 0 : decodeShareTargetAssignmentEpoch(value);
        break;
      case T.TargetAssignmentMember:
        if (value === null) group.targetAssignment.delete(memberId);
        else group.targetAssignment.set(memberId, decodeShareTargetAssignment(value));
        break;
      case T.MemberMetadata:
        if (value === null) group.members.delete(memberId);
        else Object.assign(memberOf(group, memberId), decodeShareMemberMetadata(value));
        break;
      case T.CurrentMemberAssignment:
        if (value !== null) Object.assign(memberOf(group, memberId), decodeShareCurrentAssignment(value));
        break;
      case T.StatePartitionMetadata:
        group.initializedTopics.clear();
        if (value !== null) for (const [topicId, t] of decodeShareStatePartitionMetadata(value)) group.initializedTopics.set(topicId, t);
        break;
    }
  }
  return groups;
}

function memberOf(group: ShareGroup, memberId: string): ShareGroupMember {
  let member = group.members.get(memberId);
  if (!member) group.members.set(memberId, (member = new ShareGroupMember(memberId)));
  return member;
}
