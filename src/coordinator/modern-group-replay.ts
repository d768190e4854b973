// Rebuilding one modern group type's groups from its __consumer_offsets records at start-up, in log order: the last
// record per key wins, tombstones delete (Kafka's GroupMetadataManager.replay). The five record types consumer, share
// and streams groups all have are replayed here alike; each type replays its own others.
import type { CoordinatorRecord } from './offsets-topic.js';

/** The record types each group type numbers its own way (its *GroupRecordType enum has these names). */
interface ModernGroupRecordTypes {
  readonly Metadata: number;
  readonly MemberMetadata: number;
  readonly TargetAssignmentMetadata: number;
  readonly TargetAssignmentMember: number;
  readonly CurrentMemberAssignment: number;
}

/** A TargetAssignmentMetadata value: the assignment epoch and when it was computed (KIP-1263; 0 for none). */
export interface AssignmentMetadata {
  assignmentEpoch: number;
  assignmentTimestamp: number;
}

interface ReplayedGroup<A> extends AssignmentMetadata {
  readonly targetAssignment: Map<string, A>;
}

/** A group type's record codes and decoders, and where its groups and members take what they decode. */
export interface ModernGroupRecords<G, M, A> {
  readonly types: ModernGroupRecordTypes;
  decodeKey(key: Buffer): { type: number; groupId: string; memberId: string | null } | undefined;
  newGroup(groupId: string): G;
  newMember(memberId: string): M;
  /** The group epoch and metadata hash, and what else the type's metadata record holds. */
  replayMetadata(group: G, value: Buffer): void;
  decodeAssignmentMetadata(value: Buffer): AssignmentMetadata;
  decodeTargetAssignment(value: Buffer): A;
  replayMemberMetadata(member: M, value: Buffer): void;
  replayCurrentAssignment(member: M, value: Buffer): void;
  /** The type's own record types (consumer PartitionMetadata, share StatePartitionMetadata, streams Topology). */
  replayOther(group: G, type: number, value: Buffer | null): void;
  /** Adds a member once all records are in, so that a consumer group computes its partitions' owners once. */
  addMember(group: G, member: M): void;
}

export function replayModernGroups<G extends ReplayedGroup<A>, M, A>(
  records: Iterable<CoordinatorRecord>, type: ModernGroupRecords<G, M, A>,
): Map<string, G> {
  const T = type.types;
  const groups = new Map<string, G>();
  const members = new Map<string, Map<string, M>>();
  for (const record of records) {
    const key = type.decodeKey(record.key);
    if (!key) continue;
    let group = groups.get(key.groupId);
    if (!group) {
      if (record.value === null) continue;
      groups.set(key.groupId, (group = type.newGroup(key.groupId)));
      members.set(key.groupId, new Map());
    }
    const groupMembers = members.get(key.groupId)!;
    const memberId = key.memberId!;
    const member = () => {
      let m = groupMembers.get(memberId);
      if (!m) groupMembers.set(memberId, (m = type.newMember(memberId)));
      return m;
    };
    const value = record.value;
    switch (key.type) {
      case T.Metadata:
        if (value === null) {
          groups.delete(key.groupId);
          members.delete(key.groupId);
        } else {
          type.replayMetadata(group, value);
        }
        break;
      case T.TargetAssignmentMetadata:
        // Kafka's setTargetAssignmentMetadata: the timestamp too, so that a restart keeps the assignment interval.
        ({ assignmentEpoch: group.assignmentEpoch, assignmentTimestamp: group.assignmentTimestamp } =
          value === null ? { assignmentEpoch: 0, assignmentTimestamp: 0 } : type.decodeAssignmentMetadata(value));
        break;
      case T.TargetAssignmentMember:
        if (value === null) group.targetAssignment.delete(memberId);
        else group.targetAssignment.set(memberId, type.decodeTargetAssignment(value));
        break;
      case T.MemberMetadata:
        if (value === null) groupMembers.delete(memberId);
        else type.replayMemberMetadata(member(), value);
        break;
      case T.CurrentMemberAssignment:
        if (value !== null) type.replayCurrentAssignment(member(), value);
        break;
      default:
        type.replayOther(group, key.type, value);
    }
  }
  for (const [groupId, group] of groups) {
    for (const member of members.get(groupId)!.values()) type.addMember(group, member);
  }
  return groups;
}
