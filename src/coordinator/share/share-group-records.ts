// The share group records of __consumer_offsets (Kafka's ShareGroup*Key/Value, record types 10-15, written by
// GroupCoordinatorRecordHelpers.newShareGroup*Record): a key is the record type as int16 then the generated key;
// a value is version 0 then the generated value.
import { Reader, Writer } from '../../../protocol/primitives.js';
import { readShareGroupCurrentMemberAssignmentValue, writeShareGroupCurrentMemberAssignmentValue } from '../../../protocol/generated/records/ShareGroupCurrentMemberAssignmentValue.js';
import { readShareGroupMemberMetadataKey, writeShareGroupMemberMetadataKey } from '../../../protocol/generated/records/ShareGroupMemberMetadataKey.js';
import { readShareGroupMemberMetadataValue, writeShareGroupMemberMetadataValue, type ShareGroupMemberMetadataValue } from '../../../protocol/generated/records/ShareGroupMemberMetadataValue.js';
import { readShareGroupMetadataKey, writeShareGroupMetadataKey } from '../../../protocol/generated/records/ShareGroupMetadataKey.js';
import { readShareGroupMetadataValue, writeShareGroupMetadataValue } from '../../../protocol/generated/records/ShareGroupMetadataValue.js';
import {
  readShareGroupStatePartitionMetadataValue, writeShareGroupStatePartitionMetadataValue, type ShareGroupStatePartitionMetadataValue,
} from '../../../protocol/generated/records/ShareGroupStatePartitionMetadataValue.js';
import { readShareGroupTargetAssignmentMemberValue, writeShareGroupTargetAssignmentMemberValue } from '../../../protocol/generated/records/ShareGroupTargetAssignmentMemberValue.js';
import { readShareGroupTargetAssignmentMetadataValue, writeShareGroupTargetAssignmentMetadataValue } from '../../../protocol/generated/records/ShareGroupTargetAssignmentMetadataValue.js';
import { addPartition, type Assignment } from '../consumer/assignors/assignor.js';
import type { AssignmentMetadata } from '../modern-group-replay.js';
import type { CoordinatorRecord } from '../offsets-topic.js';
import type { InitializedTopic } from './share-group.js';

export enum ShareGroupRecordType {
  MemberMetadata = 10,
  Metadata = 11,
  TargetAssignmentMetadata = 12,
  TargetAssignmentMember = 13,
  CurrentMemberAssignment = 14,
  StatePartitionMetadata = 15,
}

const T = ShareGroupRecordType;
const MEMBER_KEYED = new Set([T.MemberMetadata, T.TargetAssignmentMember, T.CurrentMemberAssignment]);
const VERSION = 0;
/** ShareGroupCurrentMemberAssignmentValue.State: share members are always Stable (MemberState.STABLE). */
const MEMBER_STATE_STABLE = 0;

export interface ShareGroupKey {
  type: ShareGroupRecordType;
  groupId: string;
  memberId: string | null;
}

function key(type: ShareGroupRecordType, groupId: string, memberId: string | null = null): Buffer {
  const w = new Writer(64).int16(type);
  // The member-keyed keys are (groupId, memberId), the others (groupId): one generated writer of each shape.
  if (MEMBER_KEYED.has(type)) writeShareGroupMemberMetadataKey(w, VERSION, { groupId, memberId: memberId ?? '' });
  else writeShareGroupMetadataKey(w, VERSION, { groupId });
  return w.toBuffer();
}

/** The key of a share group record, or undefined for other record types. */
export function decodeShareGroupKey(buf: Buffer): ShareGroupKey | undefined {
  const r = new Reader(buf);
  const type = r.int16();
  if (type < T.MemberMetadata || type > T.StatePartitionMetadata) return undefined;
  if (MEMBER_KEYED.has(type)) return { type, ...readShareGroupMemberMetadataKey(r, VERSION) };
  return { type, groupId: readShareGroupMetadataKey(r, VERSION).groupId, memberId: null };
}

export function shareTombstone(type: ShareGroupRecordType, groupId: string, memberId: string | null = null): CoordinatorRecord {
  return { key: key(type, groupId, memberId), value: null };
}

function record(type: ShareGroupRecordType, groupId: string, memberId: string | null, write: (w: Writer) => void): CoordinatorRecord {
  const w = new Writer(64).int16(VERSION);
  write(w);
  return { key: key(type, groupId, memberId), value: w.toBuffer() };
}

function toTopicPartitions(assignment: Assignment): Array<{ topicId: string; partitions: number[] }> {
  return [...assignment].map(([topicId, partitions]) => ({ topicId, partitions: [...partitions].sort((a, b) => a - b) }));
}

function fromTopicPartitions(list: ReadonlyArray<{ topicId: string; partitions: number[] }>): Assignment {
  const assignment: Assignment = new Map();
  for (const tp of list) for (const p of tp.partitions) addPartition(assignment, tp.topicId, p);
  return assignment;
}

function valueReader(buf: Buffer): Reader {
  const r = new Reader(buf);
  r.int16();
  return r;
}

// ---- builders ----

/**
 * ShareGroupMetadataValue. The generated codec carries the int64 metadata hash as a JS number, which cannot hold
 * every 64-bit hash: the hash's 8 bytes are written (and read) as a bigint at their place after the epoch.
 */
export function shareGroupEpochRecord(groupId: string, epoch: number, metadataHash: bigint): CoordinatorRecord {
  const rec = record(T.Metadata, groupId, null, (w) => writeShareGroupMetadataValue(w, VERSION, { epoch, metadataHash: 0 }));
  rec.value!.writeBigInt64BE(metadataHash, 2 + 4);
  return rec;
}

export function shareMemberMetadataRecord(groupId: string, memberId: string, m: ShareGroupMemberMetadataValue): CoordinatorRecord {
  return record(T.MemberMetadata, groupId, memberId, (w) => writeShareGroupMemberMetadataValue(w, VERSION, m));
}

export function shareTargetAssignmentRecord(groupId: string, memberId: string, assignment: Assignment): CoordinatorRecord {
  return record(T.TargetAssignmentMember, groupId, memberId,
    (w) => writeShareGroupTargetAssignmentMemberValue(w, VERSION, { topicPartitions: toTopicPartitions(assignment) }));
}

export function shareTargetAssignmentEpochRecord(groupId: string, assignmentEpoch: number, assignmentTimestamp: number): CoordinatorRecord {
  return record(T.TargetAssignmentMetadata, groupId, null,
    (w) => writeShareGroupTargetAssignmentMetadataValue(w, VERSION, { assignmentEpoch, assignmentTimestamp }));
}

export function shareCurrentAssignmentRecord(
  groupId: string, memberId: string, m: { memberEpoch: number; previousMemberEpoch: number; assignedPartitions: Assignment },
): CoordinatorRecord {
  return record(T.CurrentMemberAssignment, groupId, memberId, (w) => writeShareGroupCurrentMemberAssignmentValue(w, VERSION, {
    memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: MEMBER_STATE_STABLE,
    assignedPartitions: toTopicPartitions(m.assignedPartitions),
  }));
}

/** ShareGroupStatePartitionMetadataValue; kafkite deletes a group's state with the group, so nothing is left deleting. */
export function shareStatePartitionMetadataRecord(
  groupId: string, initialized: ReadonlyMap<string, InitializedTopic>, initializing: ReadonlyMap<string, InitializedTopic> = new Map(),
): CoordinatorRecord {
  const topics = (m: ReadonlyMap<string, InitializedTopic>) => [...m].map(([topicId, t]) => ({
    topicId, topicName: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b),
  }));
  return record(T.StatePartitionMetadata, groupId, null, (w) => writeShareGroupStatePartitionMetadataValue(w, VERSION, {
    initializingTopics: topics(initializing), initializedTopics: topics(initialized), deletingTopics: [],
  }));
}

// ---- decoders ----

export function decodeShareGroupEpoch(buf: Buffer): { epoch: number; metadataHash: bigint } {
  const { epoch } = readShareGroupMetadataValue(valueReader(buf), VERSION);
  return { epoch, metadataHash: buf.readBigInt64BE(2 + 4) };
}

export function decodeShareMemberMetadata(buf: Buffer): ShareGroupMemberMetadataValue {
  return readShareGroupMemberMetadataValue(valueReader(buf), VERSION);
}

export function decodeShareTargetAssignment(buf: Buffer): Assignment {
  return fromTopicPartitions(readShareGroupTargetAssignmentMemberValue(valueReader(buf), VERSION).topicPartitions);
}

export function decodeShareTargetAssignmentMetadata(buf: Buffer): AssignmentMetadata {
  return readShareGroupTargetAssignmentMetadataValue(valueReader(buf), VERSION);
}

export function decodeShareCurrentAssignment(buf: Buffer): { memberEpoch: number; previousMemberEpoch: number; assignedPartitions: Assignment } {
  const v = readShareGroupCurrentMemberAssignmentValue(valueReader(buf), VERSION);
  return { memberEpoch: v.memberEpoch, previousMemberEpoch: v.previousMemberEpoch, assignedPartitions: fromTopicPartitions(v.assignedPartitions) };
}

/**
 * The initialized topics. Partitions Kafka left initializing (its Persister call did not finish) count as not
 * initialized: the next heartbeat initializes them again, as Kafka retries them.
 */
export function decodeShareStatePartitionMetadata(buf: Buffer): Map<string, InitializedTopic> {
  return decodeShareStatePartitionMetadataTopics(buf).initialized;
}

/** Both the initialized topics and those still initializing. */
export function decodeShareStatePartitionMetadataTopics(buf: Buffer): { initialized: Map<string, InitializedTopic>; initializing: Map<string, InitializedTopic> } {
  const v: ShareGroupStatePartitionMetadataValue = readShareGroupStatePartitionMetadataValue(valueReader(buf), VERSION);
  const topics = (list: ShareGroupStatePartitionMetadataValue['initializedTopics']) =>
    new Map(list.map((t) => [t.topicId, { topicName: t.topicName, partitions: new Set(t.partitions) }]));
  return { initialized: topics(v.initializedTopics), initializing: topics(v.initializingTopics) };
}
