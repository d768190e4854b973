// Rebuilding share groups from their __consumer_offsets records at start-up (the shared modern-group replay, with the
// share group's own StatePartitionMetadata record).
import type { Assignment } from '../consumer/assignors/assignor.js';
import { replayModernGroups, type ModernGroupRecords } from '../modern-group-replay.js';
import type { CoordinatorRecord } from '../offsets-topic.js';
import { ShareGroup } from './share-group.js';
import { ShareGroupMember } from './share-group-member.js';
import {
  decodeShareCurrentAssignment, decodeShareGroupEpoch, decodeShareGroupKey, decodeShareMemberMetadata, decodeShareStatePartitionMetadataTopics,
  decodeShareTargetAssignment, decodeShareTargetAssignmentMetadata, ShareGroupRecordType as T,
} from './share-group-records.js';

const SHARE_GROUP_RECORDS: ModernGroupRecords<ShareGroup, ShareGroupMember, Assignment> = {
  types: T,
  decodeKey: decodeShareGroupKey,
  newGroup: (groupId) => new ShareGroup(groupId),
  newMember: (memberId) => new ShareGroupMember(memberId),
  replayMetadata(group, value) {
    ({ epoch: group.groupEpoch, metadataHash: group.metadataHash } = decodeShareGroupEpoch(value));
  },
  decodeAssignmentMetadata: decodeShareTargetAssignmentMetadata,
  decodeTargetAssignment: decodeShareTargetAssignment,
  replayMemberMetadata: (member, value) => Object.assign(member, decodeShareMemberMetadata(value)),
  replayCurrentAssignment: (member, value) => Object.assign(member, decodeShareCurrentAssignment(value)),
  replayOther(group, type, value) {
    if (type !== T.StatePartitionMetadata) return;
    group.initializedTopics.clear();
    group.initializingTopics.clear();
    if (value === null) return;
    const { initialized, initializing } = decodeShareStatePartitionMetadataTopics(value);
    for (const [topicId, t] of initialized) group.initializedTopics.set(topicId, t);
    // Kafka's replay stamps initializing topics with the time of the replay: retried once the interval has passed.
    const now = Date.now();
    for (const [topicId, t] of initializing) group.initializingTopics.set(topicId, { ...t, timestamp: now });
  },
  addMember: (group, member) => group.members.set(member.memberId, member),
};

export function replayShareGroups(records: Iterable<CoordinatorRecord>): Map<string, ShareGroup> {
  return replayModernGroups(records, SHARE_GROUP_RECORDS);
}
