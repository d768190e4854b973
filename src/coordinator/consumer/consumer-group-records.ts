// The KIP-848 consumer group records of __consumer_offsets (Kafka's ConsumerGroup*Key/Value, record types 3-8), by the
// codecs generated from group-coordinator's definitions: a key is the record type as int16 then the generated key; a
// value is version 0 then the generated value. Tagged fields Kafka added later are skipped on read.
import { readConsumerGroupCurrentMemberAssignmentValue, writeConsumerGroupCurrentMemberAssignmentValue } from '../../../protocol/generated/records/ConsumerGroupCurrentMemberAssignmentValue.js';
import { readConsumerGroupMemberMetadataKey, writeConsumerGroupMemberMetadataKey } from '../../../protocol/generated/records/ConsumerGroupMemberMetadataKey.js';
import { readConsumerGroupMemberMetadataValue, writeConsumerGroupMemberMetadataValue } from '../../../protocol/generated/records/ConsumerGroupMemberMetadataValue.js';
import { readConsumerGroupMetadataKey, writeConsumerGroupMetadataKey } from '../../../protocol/generated/records/ConsumerGroupMetadataKey.js';
import { readConsumerGroupMetadataValue, writeConsumerGroupMetadataValue } from '../../../protocol/generated/records/ConsumerGroupMetadataValue.js';
import { readConsumerGroupTargetAssignmentMemberValue, writeConsumerGroupTargetAssignmentMemberValue } from '../../../protocol/generated/records/ConsumerGroupTargetAssignmentMemberValue.js';
import { readConsumerGroupTargetAssignmentMetadataValue, writeConsumerGroupTargetAssignmentMetadataValue } from '../../../protocol/generated/records/ConsumerGroupTargetAssignmentMetadataValue.js';
import { Reader, Writer } from '../../../protocol/primitives.js';
import { addPartition, type Assignment } from './assignors/assignor.js';
import { memberStateOf, type MemberAssignmentState } from './consumer-group-member.js';
import type { AssignmentMetadata } from '../modern-group-replay.js';
import type { CoordinatorRecord } from '../offsets-topic.js';

export enum ConsumerGroupRecordType {
  Metadata = 3,
  PartitionMetadata = 4,
  MemberMetadata = 5,
  TargetAssignmentMetadata = 6,
  TargetAssignmentMember = 7,
  CurrentMemberAssignment = 8,
}

const MEMBER_KEYED = new Set([
  ConsumerGroupRecordType.MemberMetadata, ConsumerGroupRecordType.TargetAssignmentMember, ConsumerGroupRecordType.CurrentMemberAssignment,
]);
const VERSION = 0;

export interface ConsumerGroupKey {
  type: ConsumerGroupRecordType;
  groupId: string;
  /** Set for the member-keyed types (5, 7, 8). */
  memberId: string | null;
}

/** ConsumerGroupMemberMetadataValue: the member's subscription as it sent it. */
export interface MemberMetadata {
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  rebalanceTimeoutMs: number;
  serverAssignor: string | null;
}

function consumerGroupKey(type: ConsumerGroupRecordType, groupId: string, memberId: string | null = null): Buffer {
  const w = new Writer(64).int16(type);
  // The member-keyed keys are (groupId, memberId), the others (groupId): one generated writer of each shape.
  if (MEMBER_KEYED.has(type)) writeConsumerGroupMemberMetadataKey(w, VERSION, { groupId, memberId: memberId ?? '' });
  else writeConsumerGroupMetadataKey(w, VERSION, { groupId });
  return w.toBuffer();
}

/** The key of a consumer group record, or undefined for other record types. */
export function decodeConsumerGroupKey(buf: Buffer): ConsumerGroupKey | undefined {
  const r = new Reader(buf);
  const type = r.int16();
  if (type < ConsumerGroupRecordType.Metadata || type > ConsumerGroupRecordType.CurrentMemberAssignment) return undefined;
  if (MEMBER_KEYED.has(type)) return { type, ...readConsumerGroupMemberMetadataKey(r, VERSION) };
  return { type, groupId: readConsumerGroupMetadataKey(r, VERSION).groupId, memberId: null };
}

export function tombstone(type: ConsumerGroupRecordType, groupId: string, memberId: string | null = null): CoordinatorRecord {
  return { key: consumerGroupKey(type, groupId, memberId), value: null };
}

function record<M>(key: Buffer, write: (w: Writer, version: number, m: M) => void, m: M): CoordinatorRecord {
  const w = new Writer(64).int16(VERSION);
  write(w, VERSION, m);
  return { key, value: w.toBuffer() };
}

function read<M>(buf: Buffer, readFn: (r: Reader, version: number) => M): M {
  const r = new Reader(buf);
  return readFn(r, r.int16());
}

function toTopicPartitions(assignment: Assignment): Array<{ topicId: string; partitions: number[]; assignmentEpochs: number[] }> {
  // AssignmentEpochs (tagged) left at its default, empty: kafkite keeps no per-partition assignment epochs.
  return [...assignment].map(([topicId, partitions]) => ({ topicId, partitions: [...partitions].sort((a, b) => a - b), assignmentEpochs: [] }));
}

function fromTopicPartitions(list: ReadonlyArray<{ topicId: string; partitions: number[] }>): Assignment {
  const assignment: Assignment = new Map();
  for (const tp of list) for (const p of tp.partitions) addPartition(assignment, tp.topicId, p);
  return assignment;
}

/** The value's int16 version and int32 epoch, then the tagged fields' count, tag 0 and its size, come before the hash. */
const METADATA_HASH_POSITION = 2 + 4 + 3;

// ---- record builders ----

/**
 * ConsumerGroupMetadataValue: the group epoch and, in tag 0, the subscription metadata hash (KIP-1101, Kafka 4.1+;
 * left out when 0, its default). The generated codec carries the int64 hash as a JS number, which cannot hold every
 * 64-bit hash: its 8 bytes are written and read as a bigint at their place (as the share and streams group records
 * do). Kafka 4.1+ writes no ConsumerGroupPartitionMetadata record any more: it loads one and writes its tombstone at
 * the group's next heartbeat.
 */
export function groupEpochRecord(groupId: string, epoch: number, metadataHash: bigint): CoordinatorRecord {
  const rec = record(consumerGroupKey(ConsumerGroupRecordType.Metadata, groupId), writeConsumerGroupMetadataValue, { epoch, metadataHash: metadataHash === 0n ? 0 : 1 });
  if (metadataHash !== 0n) rec.value!.writeBigInt64BE(metadataHash, METADATA_HASH_POSITION);
  return rec;
}

/**
 * ConsumerGroupMemberMetadataValue, its tagged ClassicMemberMetadata an explicit null, as Kafka writes it for a
 * consumer-protocol member (its default is an empty struct: a reader finding no tag 0 takes the member for a classic one).
 */
export function memberMetadataRecord(groupId: string, memberId: string, m: MemberMetadata): CoordinatorRecord {
  return record(consumerGroupKey(ConsumerGroupRecordType.MemberMetadata, groupId, memberId), writeConsumerGroupMemberMetadataValue, { ...m, classicMemberMetadata: null });
}

/** AssignmentTimestamp (tagged, KIP-1263): when the target was computed, 0 for none (the next is computed at once). */
export function targetAssignmentEpochRecord(groupId: string, assignmentEpoch: number, assignmentTimestamp: number): CoordinatorRecord {
  return record(consumerGroupKey(ConsumerGroupRecordType.TargetAssignmentMetadata, groupId), writeConsumerGroupTargetAssignmentMetadataValue, { assignmentEpoch, assignmentTimestamp });
}

export function targetAssignmentRecord(groupId: string, memberId: string, assignment: Assignment): CoordinatorRecord {
  return record(consumerGroupKey(ConsumerGroupRecordType.TargetAssignmentMember, groupId, memberId), writeConsumerGroupTargetAssignmentMemberValue, {
    topicPartitions: toTopicPartitions(assignment),
  });
}

export function currentAssignmentRecord(groupId: string, memberId: string, s: MemberAssignmentState): CoordinatorRecord {
  return record(consumerGroupKey(ConsumerGroupRecordType.CurrentMemberAssignment, groupId, memberId), writeConsumerGroupCurrentMemberAssignmentValue, {
    memberEpoch: s.memberEpoch, previousMemberEpoch: s.previousMemberEpoch, state: s.state,
    assignedPartitions: toTopicPartitions(s.assignedPartitions), partitionsPendingRevocation: toTopicPartitions(s.partitionsPendingRevocation),
  });
}

// ---- value decoders ----

/** The epoch of a TargetAssignmentMetadata value. */
export function decodeAssignmentMetadata(buf: Buffer): AssignmentMetadata {
  return read(buf, readConsumerGroupTargetAssignmentMetadataValue);
}

/** ConsumerGroupMetadataValue: the epoch, and the metadata hash (0 when absent, as in records before Kafka 4.1). */
export function decodeGroupMetadata(buf: Buffer): { epoch: number; metadataHash: bigint } {
  const { epoch, metadataHash } = read(buf, readConsumerGroupMetadataValue);
  return { epoch, metadataHash: metadataHash === 0 ? 0n : buf.readBigInt64BE(METADATA_HASH_POSITION) };
}

export function decodeMemberMetadata(buf: Buffer): MemberMetadata {
  const { classicMemberMetadata: _, ...m } = read(buf, readConsumerGroupMemberMetadataValue);
  return m;
}

export function decodeTargetAssignment(buf: Buffer): Assignment {
  return fromTopicPartitions(read(buf, readConsumerGroupTargetAssignmentMemberValue).topicPartitions);
}

export function decodeCurrentAssignment(buf: Buffer): MemberAssignmentState {
  const v = read(buf, readConsumerGroupCurrentMemberAssignmentValue);
  return {
    state: memberStateOf(v.state), memberEpoch: v.memberEpoch, previousMemberEpoch: v.previousMemberEpoch,
    assignedPartitions: fromTopicPartitions(v.assignedPartitions), partitionsPendingRevocation: fromTopicPartitions(v.partitionsPendingRevocation),
  };
}
