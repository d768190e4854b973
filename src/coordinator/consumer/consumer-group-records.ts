// The KIP-848 consumer group records of __consumer_offsets, in Kafka's formats (group-coordinator's
// ConsumerGroup*Key/Value, record types 3-8): a key is the record type as int16 then non-flexible
// fields; a value is version 0, flexible. Tagged fields Kafka added later are skipped on read.
import { Reader, Writer } from '../../../protocol/primitives.js';
import { addPartition, type Assignment } from './assignors/assignor.js';
import { memberStateOf, type MemberAssignmentState } from './consumer-group-member.js';
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
const VALUE_VERSION = 0;
/** A nullable struct's null in a tagged field (Kafka's generated writers): unsigned varint 0. */
const CLASSIC_MEMBER_METADATA_NULL = Buffer.from([0]);

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
  const w = new Writer(64).int16(type).string(groupId, false);
  if (MEMBER_KEYED.has(type)) w.string(memberId ?? '', false);
  return w.toBuffer();
}

/** The key of a consumer group record, or undefined for other record types. */
export function decodeConsumerGroupKey(buf: Buffer): ConsumerGroupKey | undefined {
  const r = new Reader(buf);
  const type = r.int16();
  if (type < ConsumerGroupRecordType.Metadata || type > ConsumerGroupRecordType.CurrentMemberAssignment) return undefined;
  const groupId = r.string(false);
  return { type, groupId, memberId: MEMBER_KEYED.has(type) ? r.string(false) : null };
}

export function tombstone(type: ConsumerGroupRecordType, groupId: string, memberId: string | null = null): CoordinatorRecord {
  return { key: consumerGroupKey(type, groupId, memberId), value: null };
}

function value(): Writer {
  return new Writer(64).int16(VALUE_VERSION);
}

function writeTopicPartitions(w: Writer, assignment: Assignment): void {
  w.arrayLength(assignment.size, true);
  for (const [topicId, partitions] of assignment) {
    w.uuid(topicId).arrayLength(partitions.size, true);
    for (const p of [...partitions].sort((a, b) => a - b)) w.int32(p);
    w.taggedFields();
  }
}

function readTopicPartitions(r: Reader): Assignment {
  const assignment: Assignment = new Map();
  const n = r.arrayLength(true, false);
  for (let i = 0; i < n; i++) {
    const topicId = r.uuid();
    const count = r.arrayLength(true, false);
    for (let j = 0; j < count; j++) addPartition(assignment, topicId, r.int32());
    r.skipTaggedFields();
  }
  return assignment;
}

function readValueHeader(buf: Buffer): Reader {
  const r = new Reader(buf);
  r.int16();
  return r;
}

// ---- record builders ----

/**
 * ConsumerGroupMetadataValue: the group epoch and, in tag 0, the subscription metadata hash (KIP-1101, Kafka 4.1+;
 * left out when 0, its default, as Kafka's generated writer does). Kafka 4.1+ writes no ConsumerGroupPartitionMetadata
 * record any more: it loads one and writes its tombstone at the group's next heartbeat.
 */
export function groupEpochRecord(groupId: string, epoch: number, metadataHash: bigint): CoordinatorRecord {
  const hash = metadataHash === 0n ? [] : [[0, Buffer.alloc(8)]] as Array<[number, Buffer]>;
  hash[0]?.[1].writeBigInt64BE(metadataHash);
  return { key: consumerGroupKey(ConsumerGroupRecordType.Metadata, groupId), value: value().int32(epoch).taggedFields(hash).toBuffer() };
}

export function memberMetadataRecord(groupId: string, memberId: string, m: MemberMetadata): CoordinatorRecord {
  const w = value()
    .nullableString(m.instanceId, true)
    .nullableString(m.rackId, true)
    .string(m.clientId, true)
    .string(m.clientHost, true)
    .arrayLength(m.subscribedTopicNames.length, true);
  for (const t of m.subscribedTopicNames) w.string(t, true);
  // Tagged field 0, ClassicMemberMetadata, written as an explicit null as Kafka's generated writer does (its
  // default is an empty struct, not null): a reader that finds no tag 0 takes the member for a classic one.
  w.nullableString(m.subscribedTopicRegex, true).int32(m.rebalanceTimeoutMs).nullableString(m.serverAssignor, true)
    .taggedFields([[0, CLASSIC_MEMBER_METADATA_NULL]]);
  return { key: consumerGroupKey(ConsumerGroupRecordType.MemberMetadata, groupId, memberId), value: w.toBuffer() };
}

export function targetAssignmentEpochRecord(groupId: string, assignmentEpoch: number): CoordinatorRecord {
  return {
    key: consumerGroupKey(ConsumerGroupRecordType.TargetAssignmentMetadata, groupId),
    value: value().int32(assignmentEpoch).taggedFields().toBuffer(),
  };
}

export function targetAssignmentRecord(groupId: string, memberId: string, assignment: Assignment): CoordinatorRecord {
  const w = value();
  writeTopicPartitions(w, assignment);
  return { key: consumerGroupKey(ConsumerGroupRecordType.TargetAssignmentMember, groupId, memberId), value: w.taggedFields().toBuffer() };
}

export function currentAssignmentRecord(groupId: string, memberId: string, s: MemberAssignmentState): CoordinatorRecord {
  const w = value().int32(s.memberEpoch).int32(s.previousMemberEpoch).int8(s.state);
  writeTopicPartitions(w, s.assignedPartitions);
  writeTopicPartitions(w, s.partitionsPendingRevocation);
  return { key: consumerGroupKey(ConsumerGroupRecordType.CurrentMemberAssignment, groupId, memberId), value: w.taggedFields().toBuffer() };
}

// ---- value decoders ----

export function decodeEpoch(buf: Buffer): number {
  return readValueHeader(buf).int32();
}

/** ConsumerGroupMetadataValue: the epoch, and the metadata hash (0 when absent, as in records before Kafka 4.1). */
export function decodeGroupMetadata(buf: Buffer): { epoch: number; metadataHash: bigint } {
  const r = readValueHeader(buf);
  const epoch = r.int32();
  let metadataHash = 0n;
  for (let n = r.uvarint(); n > 0; n--) {
    const tag = r.uvarint();
    const data = r.raw(r.uvarint());
    if (tag === 0 && data.length === 8) metadataHash = data.readBigInt64BE(0);
  }
  return { epoch, metadataHash };
}

export function decodeMemberMetadata(buf: Buffer): MemberMetadata {
  const r = readValueHeader(buf);
  const instanceId = r.nullableString(true);
  const rackId = r.nullableString(true);
  const clientId = r.string(true);
  const clientHost = r.string(true);
  const subscribedTopicNames: string[] = [];
  const n = r.arrayLength(true, false);
  for (let i = 0; i < n; i++) subscribedTopicNames.push(r.string(true));
  const subscribedTopicRegex = r.nullableString(true);
  const rebalanceTimeoutMs = r.int32();
  const serverAssignor = r.nullableString(true);
  return { instanceId, rackId, clientId, clientHost, subscribedTopicNames, subscribedTopicRegex, rebalanceTimeoutMs, serverAssignor };
}

export function decodeTargetAssignment(buf: Buffer): Assignment {
  return readTopicPartitions(readValueHeader(buf));
}

export function decodeCurrentAssignment(buf: Buffer): MemberAssignmentState {
  const r = readValueHeader(buf);
  const memberEpoch = r.int32();
  const previousMemberEpoch = r.int32();
  const state = memberStateOf(r.int8());
  const assignedPartitions = readTopicPartitions(r);
  const partitionsPendingRevocation = readTopicPartitions(r);
  return { state, memberEpoch, previousMemberEpoch, assignedPartitions, partitionsPendingRevocation };
}
