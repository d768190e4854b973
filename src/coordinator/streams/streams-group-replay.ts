// Rebuilding streams groups from their __consumer_offsets records at start-up, in log order: the last record
// per key wins, tombstones delete (Kafka's GroupMetadataManager.replay for the StreamsGroup* records).
import type { CoordinatorRecord } from '../offsets-topic.js';
import { StreamsGroup } from './streams-group.js';
import { StreamsGroupMember } from './streams-group-member.js';
import {
  StreamsGroupRecordType as T, decodeAssignmentEpoch, decodeCurrentAssignment, decodeGroupMetadata, decodeMemberMetadata,
  decodeStreamsGroupKey, decodeTargetAssignment, decodeTopology,
} from './streams-group-records.js';

export function replayStreamsGroups(records: Iterable<CoordinatorRecord>): Map<string, StreamsGroup> {
  const groups = new Map<string, StreamsGroup>();
  for (const record of records) {
    const key = decodeStreamsGroupKey(record.key);
    if (!key) continue;
    let group = groups.get(key.groupId);
    if (!group) {
      if (record.value === null) continue;
      groups.set(key.groupId, (group = new StreamsGroup(key.groupId)));
    }
    const value = record.value;
    const member = () => {
      let m = group.members.get(key.memberId!);
      if (!m) group.members.set(key.memberId!, (m = new StreamsGroupMember(key.memberId!)));
      return m;
    };
    switch (key.type) {
      case T.Metadata:
        if (value === null) groups.delete(key.groupId);
        else ({ epoch: group.groupEpoch, metadataHash: group.metadataHash, validatedTopologyEpoch: group.validatedTopologyEpoch } = decodeGroupMetadata(value));
        break;
      case T.Topology:
        group.topology = value === null ? null : decodeTopology(value);
        break;
      case T.TargetAssignmentMetadata:
        group.assignmentEpoch = value === null ? 0 : decodeAssignmentEpoch(value);
        break;
      case T.TargetAssignmentMember:
        if (value === null) group.targetAssignment.delete(key.memberId!);
        else group.targetAssignment.set(key.memberId!, decodeTargetAssignment(value));
        break;
      case T.MemberMetadata:
        if (value === null) group.members.delete(key.memberId!);
        else Object.assign(member(), decodeMemberMetadata(value));
        break;
      case T.CurrentMemberAssignment:
        if (value !== null) Object.assign(member(), decodeCurrentAssignment(value));
        break;
    }
  }
  return groups;
}
