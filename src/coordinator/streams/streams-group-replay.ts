// Rebuilding streams groups from their __consumer_offsets records at start-up (the shared modern-group replay, with
// the streams group's own Topology record).
import { replayModernGroups, type ModernGroupRecords } from '../modern-group-replay.js';
import type { CoordinatorRecord } from '../offsets-topic.js';
import { StreamsGroup } from './streams-group.js';
import { StreamsGroupMember } from './streams-group-member.js';
import {
  StreamsGroupRecordType as T, decodeAssignmentMetadata, decodeCurrentAssignment, decodeGroupMetadata, decodeMemberMetadata,
  decodeStreamsGroupKey, decodeTargetAssignment, decodeTopology,
} from './streams-group-records.js';
import type { TasksTuple } from './tasks-tuple.js';

const STREAMS_GROUP_RECORDS: ModernGroupRecords<StreamsGroup, StreamsGroupMember, TasksTuple> = {
  types: T,
  decodeKey: decodeStreamsGroupKey,
  newGroup: (groupId) => new StreamsGroup(groupId),
  newMember: (memberId) => new StreamsGroupMember(memberId),
  replayMetadata(group, value) {
    ({ epoch: group.groupEpoch, metadataHash: group.metadataHash, validatedTopologyEpoch: group.validatedTopologyEpoch } = decodeGroupMetadata(value));
  },
  decodeAssignmentMetadata,
  decodeTargetAssignment,
  replayMemberMetadata: (member, value) => Object.assign(member, decodeMemberMetadata(value)),
  replayCurrentAssignment: (member, value) => Object.assign(member, decodeCurrentAssignment(value)),
  replayOther(group, type, value) {
    if (type === T.Topology) group.topology = value === null ? null : decodeTopology(value);
  },
  addMember: (group, member) => group.members.set(member.memberId, member),
};

export function replayStreamsGroups(records: Iterable<CoordinatorRecord>): Map<string, StreamsGroup> {
  return replayModernGroups(records, STREAMS_GROUP_RECORDS);
}
