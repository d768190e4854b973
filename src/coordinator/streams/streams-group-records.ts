// The streams group records of __consumer_offsets in Kafka's formats (group-coordinator's StreamsGroup*Key and
// Value, record types 17-23, Kafka's StreamsCoordinatorRecordHelpers), through the generated codecs: a key is
// the record type as int16 then its fields; a value is version 0, flexible.
import { Reader, Writer } from '../../../protocol/primitives.js';
import {
  readStreamsGroupCurrentMemberAssignmentValue, writeStreamsGroupCurrentMemberAssignmentValue,
} from '../../../protocol/generated/records/StreamsGroupCurrentMemberAssignmentValue.js';
import { readStreamsGroupMemberMetadataValue, writeStreamsGroupMemberMetadataValue } from '../../../protocol/generated/records/StreamsGroupMemberMetadataValue.js';
import { readStreamsGroupMetadataValue, writeStreamsGroupMetadataValue } from '../../../protocol/generated/records/StreamsGroupMetadataValue.js';
import {
  readStreamsGroupTargetAssignmentMemberValue, writeStreamsGroupTargetAssignmentMemberValue,
} from '../../../protocol/generated/records/StreamsGroupTargetAssignmentMemberValue.js';
import {
  readStreamsGroupTargetAssignmentMetadataValue, writeStreamsGroupTargetAssignmentMetadataValue,
} from '../../../protocol/generated/records/StreamsGroupTargetAssignmentMetadataValue.js';
import { readStreamsGroupTopologyValue, writeStreamsGroupTopologyValue } from '../../../protocol/generated/records/StreamsGroupTopologyValue.js';
import type { AssignmentMetadata } from '../modern-group-replay.js';
import type { CoordinatorRecord } from '../offsets-topic.js';
import type { MemberAssignmentState } from './current-assignment-builder.js';
import type { StreamsMemberMetadata } from './streams-group-member.js';
import type { StreamsTopology } from './streams-topology.js';
import { listOf, tasksOf, type TaskEpochs, type TasksTuple } from './tasks-tuple.js';

export enum StreamsGroupRecordType {
  Metadata = 17,
  MemberMetadata = 19,
  TargetAssignmentMetadata = 20,
  TargetAssignmentMember = 21,
  CurrentMemberAssignment = 22,
  Topology = 23,
}

const T = StreamsGroupRecordType;
const MEMBER_KEYED = new Set([T.MemberMetadata, T.TargetAssignmentMember, T.CurrentMemberAssignment]);

export interface StreamsGroupKey {
  type: StreamsGroupRecordType;
  groupId: string;
  memberId: string | null;
}

function key(type: StreamsGroupRecordType, groupId: string, memberId: string | null = null): Buffer {
  const w = new Writer(64).int16(type).string(groupId, false);
  if (MEMBER_KEYED.has(type)) w.string(memberId ?? '', false);
  return w.toBuffer();
}

/** The key of a streams group record, or undefined for other record types. */
export function decodeStreamsGroupKey(buf: Buffer): StreamsGroupKey | undefined {
  const r = new Reader(buf);
  const type = r.int16();
  if (type < StreamsGroupRecordType.Metadata || type > StreamsGroupRecordType.Topology || type === 18 /* not a group record */) return undefined;
  const groupId = r.string(false);
  return { type, groupId, memberId: MEMBER_KEYED.has(type) ? r.string(false) : null };
}

export function streamsTombstone(type: StreamsGroupRecordType, groupId: string, memberId: string | null = null): CoordinatorRecord {
  return { key: key(type, groupId, memberId), value: null };
}

function value<M>(write: (w: Writer, version: number, m: M) => void, m: M): Buffer {
  const w = new Writer(128).int16(0);
  write(w, 0, m);
  return w.toBuffer();
}

function read<M>(buf: Buffer, readFn: (r: Reader, version: number) => M): M {
  const r = new Reader(buf);
  return readFn(r, r.int16());
}

export interface StreamsGroupMetadata {
  epoch: number;
  metadataHash: bigint;
  validatedTopologyEpoch: number;
}

/** The value's int16 version and int32 epoch come before the int64 metadata hash. */
const METADATA_HASH_POSITION = 2 + 4;

/**
 * StreamsGroupMetadataValue. The generated codec carries the int64 metadata hash as a JS number, which cannot hold
 * every 64-bit hash: its 8 bytes are written and read as a bigint at their place (as the share group records do).
 */
export function groupMetadataRecord(groupId: string, m: StreamsGroupMetadata): CoordinatorRecord {
  const buf = value(writeStreamsGroupMetadataValue, {
    ...m, metadataHash: 0, lastAssignmentConfigs: null, storedDescriptionTopologyEpoch: -1, failedDescriptionTopologyEpoch: -1,
  });
  buf.writeBigInt64BE(m.metadataHash, METADATA_HASH_POSITION);
  return { key: key(T.Metadata, groupId), value: buf };
}

export function decodeGroupMetadata(buf: Buffer): StreamsGroupMetadata {
  const v = read(buf, readStreamsGroupMetadataValue);
  return { epoch: v.epoch, metadataHash: buf.readBigInt64BE(METADATA_HASH_POSITION), validatedTopologyEpoch: v.validatedTopologyEpoch };
}

export function topologyRecord(groupId: string, topology: StreamsTopology): CoordinatorRecord {
  return { key: key(T.Topology, groupId), value: value(writeStreamsGroupTopologyValue, topology) };
}

export function decodeTopology(buf: Buffer): StreamsTopology {
  return read(buf, readStreamsGroupTopologyValue);
}

export function memberMetadataRecord(groupId: string, memberId: string, m: StreamsMemberMetadata): CoordinatorRecord {
  return { key: key(T.MemberMetadata, groupId, memberId), value: value(writeStreamsGroupMemberMetadataValue, m) };
}

export function decodeMemberMetadata(buf: Buffer): StreamsMemberMetadata {
  return read(buf, readStreamsGroupMemberMetadataValue);
}

export function targetAssignmentRecord(groupId: string, memberId: string, t: TasksTuple): CoordinatorRecord {
  return {
    key: key(T.TargetAssignmentMember, groupId, memberId),
    value: value(writeStreamsGroupTargetAssignmentMemberValue, { activeTasks: listOf(t.active), standbyTasks: listOf(t.standby), warmupTasks: listOf(t.warmup) }),
  };
}

export function decodeTargetAssignment(buf: Buffer): TasksTuple {
  const v = read(buf, readStreamsGroupTargetAssignmentMemberValue);
  return { active: tasksOf(v.activeTasks), standby: tasksOf(v.standbyTasks), warmup: tasksOf(v.warmupTasks) };
}

/** AssignmentTimestamp (KIP-1263): when the target was computed, 0 for none (the next is computed at once). */
export function targetAssignmentEpochRecord(groupId: string, assignmentEpoch: number, assignmentTimestamp: number): CoordinatorRecord {
  return {
    key: key(T.TargetAssignmentMetadata, groupId),
    value: value(writeStreamsGroupTargetAssignmentMetadataValue, { assignmentEpoch, assignmentTimestamp }),
  };
}

export function decodeAssignmentMetadata(buf: Buffer): AssignmentMetadata {
  return read(buf, readStreamsGroupTargetAssignmentMetadataValue);
}

const withoutEpochs = (tasks: TasksTuple['active']) => listOf(tasks).map((t) => ({ ...t, assignmentEpochs: [] }));
/** Active tasks carry the epoch each was assigned at, as Kafka 4.4 writes them (KAFKA-19779). */
const withEpochs = (tasks: TasksTuple['active'], epochs: TaskEpochs, fallback: number) =>
  listOf(tasks).map((t) => ({ ...t, assignmentEpochs: t.partitions.map((p) => epochs.get(t.subtopologyId)?.get(p) ?? fallback) }));

function epochsOf(lists: ReadonlyArray<{ subtopologyId: string; partitions: number[]; assignmentEpochs: number[] | null }>, fallback: number): TaskEpochs {
  const epochs: TaskEpochs = new Map();
  for (const t of lists) {
    const byPartition = new Map<number, number>();
    t.partitions.forEach((p, i) => byPartition.set(p, t.assignmentEpochs?.[i] ?? fallback));
    epochs.set(t.subtopologyId, new Map([...(epochs.get(t.subtopologyId) ?? []), ...byPartition]));
  }
  return epochs;
}

export function currentAssignmentRecord(groupId: string, memberId: string, s: MemberAssignmentState): CoordinatorRecord {
  return {
    key: key(T.CurrentMemberAssignment, groupId, memberId),
    value: value(writeStreamsGroupCurrentMemberAssignmentValue, {
      memberEpoch: s.memberEpoch,
      previousMemberEpoch: s.previousMemberEpoch,
      state: s.state,
      activeTasks: withEpochs(s.assigned.active, s.activeTaskEpochs, s.memberEpoch),
      standbyTasks: withoutEpochs(s.assigned.standby),
      warmupTasks: withoutEpochs(s.assigned.warmup),
      activeTasksPendingRevocation: withEpochs(s.pendingRevocation.active, s.activeTaskEpochs, s.memberEpoch),
      standbyTasksPendingRevocation: withoutEpochs(s.pendingRevocation.standby),
      warmupTasksPendingRevocation: withoutEpochs(s.pendingRevocation.warmup),
    }),
  };
}

export function decodeCurrentAssignment(buf: Buffer): MemberAssignmentState {
  const v = read(buf, readStreamsGroupCurrentMemberAssignmentValue);
  return {
    memberEpoch: v.memberEpoch,
    previousMemberEpoch: v.previousMemberEpoch,
    state: v.state,
    assigned: { active: tasksOf(v.activeTasks), standby: tasksOf(v.standbyTasks), warmup: tasksOf(v.warmupTasks) },
    pendingRevocation: {
      active: tasksOf(v.activeTasksPendingRevocation), standby: tasksOf(v.standbyTasksPendingRevocation), warmup: tasksOf(v.warmupTasksPendingRevocation),
    },
    // A record without epochs (written before Kafka 4.2) counts its tasks as held since the member's epoch.
    activeTaskEpochs: epochsOf([...v.activeTasks, ...v.activeTasksPendingRevocation], v.memberEpoch),
  };
}
