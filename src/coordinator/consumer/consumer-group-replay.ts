// Rebuilding consumer groups from their __consumer_offsets records at start-up (the shared modern-group replay, with
// the consumer group's own PartitionMetadata record).
import type { Assignment } from './assignors/assignor.js';
import { ConsumerGroup } from './consumer-group.js';
import { ConsumerGroupMember } from './consumer-group-member.js';
import {
  ConsumerGroupRecordType as T, decodeConsumerGroupKey, decodeCurrentAssignment, decodeAssignmentMetadata, decodeGroupMetadata, decodeMemberMetadata,
  decodeTargetAssignment,
} from './consumer-group-records.js';
import { replayModernGroups, type ModernGroupRecords } from '../modern-group-replay.js';
import type { CoordinatorRecord } from '../offsets-topic.js';

const CONSUMER_GROUP_RECORDS: ModernGroupRecords<ConsumerGroup, ConsumerGroupMember, Assignment> = {
  types: T,
  decodeKey: decodeConsumerGroupKey,
  newGroup: (groupId) => new ConsumerGroup(groupId),
  newMember: (memberId) => new ConsumerGroupMember(memberId),
  replayMetadata(group, value) {
    ({ epoch: group.groupEpoch, metadataHash: group.metadataHash } = decodeGroupMetadata(value));
  },
  decodeAssignmentMetadata,
  decodeTargetAssignment,
  replayMemberMetadata: (member, value) => Object.assign(member, decodeMemberMetadata(value)),
  replayCurrentAssignment: (member, value) => member.setAssignmentState(decodeCurrentAssignment(value)),
  replayOther(group, type, value) {
    // Only its presence counts, as in Kafka 4.1+ (GroupMetadataManager.replay): the hash replaced it.
    if (type === T.PartitionMetadata) group.hasSubscriptionMetadataRecord = value !== null;
  },
  addMember: (group, member) => group.addMember(member),
};

export function replayConsumerGroups(records: Iterable<CoordinatorRecord>): Map<string, ConsumerGroup> {
  return replayModernGroups(records, CONSUMER_GROUP_RECORDS);
}
