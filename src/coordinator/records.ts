// Keys and values of the __consumer_offsets topic, in Kafka's formats (group-coordinator's
// OffsetCommitKey/Value and GroupMetadataKey/Value): each starts with an int16 version; the key's
// version tells the record type. We write OffsetCommitValue v3 (v1 when an expire timestamp is set)
// and GroupMetadataValue v3, as Kafka does, and read every version 0-4.
import { Reader, Writer } from '../../protocol/primitives.js';
import type { OffsetAndMetadata } from './offset-store.js';

const OFFSET_COMMIT_KEY_VERSION = 1;
const GROUP_METADATA_KEY_VERSION = 2;
const FIRST_FLEXIBLE_VALUE_VERSION = 4;

class CoordinatorRecordError extends Error {
  override name = 'CoordinatorRecordError';
}

export type CoordinatorKey =
  | { type: 'offset'; group: string; topic: string; partition: number }
  | { type: 'group'; group: string }
  /** A record type this broker does not manage (e.g. KIP-848 consumer groups); skipped on load. */
  | { type: 'other'; version: number };

interface GroupMetadataMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  subscription: Buffer;
  assignment: Buffer;
}

export interface GroupMetadata {
  protocolType: string;
  generationId: number;
  protocolName: string | null;
  leaderId: string | null;
  currentStateTimestamp: number;
  members: GroupMetadataMember[];
}

export function offsetCommitKey(group: string, topic: string, partition: number): Buffer {
  return new Writer(64).int16(OFFSET_COMMIT_KEY_VERSION).string(group, false).string(topic, false).int32(partition).toBuffer();
}

export function groupMetadataKey(group: string): Buffer {
  return new Writer(32).int16(GROUP_METADATA_KEY_VERSION).string(group, false).toBuffer();
}

export function decodeKey(buf: Buffer): CoordinatorKey {
  const r = new Reader(buf);
  const version = r.int16();
  if (version === 0 || version === 1) {
    return { type: 'offset', group: r.string(false), topic: r.string(false), partition: r.int32() };
  }
  if (version === 2) return { type: 'group', group: r.string(false) };
  return { type: 'other', version };
}

export function offsetCommitValue(o: OffsetAndMetadata): Buffer {
  const w = new Writer(64);
  if (o.expireTimestamp >= 0) {
    w.int16(1).int64(o.offset).string(o.metadata, false).int64(o.commitTimestamp).int64(o.expireTimestamp);
  } else {
    w.int16(3).int64(o.offset).int32(o.leaderEpoch).string(o.metadata, false).int64(o.commitTimestamp);
  }
  return w.toBuffer();
}

export function decodeOffsetCommitValue(buf: Buffer): OffsetAndMetadata {
  const r = new Reader(buf);
  const version = r.int16();
  if (version < 0 || version > 4) throw new CoordinatorRecordError(`unknown OffsetCommitValue version ${version}`);
  const flexible = version >= FIRST_FLEXIBLE_VALUE_VERSION;
  const offset = r.int64();
  const leaderEpoch = version >= 3 ? r.int32() : -1;
  const metadata = r.string(flexible);
  const commitTimestamp = r.int64();
  const expireTimestamp = version === 1 ? r.int64() : -1;
  if (flexible) r.skipTaggedFields();
  return { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp };
}

export function groupMetadataValue(g: GroupMetadata): Buffer {
  const version = 3;
  const w = new Writer(256)
    .int16(version)
    .string(g.protocolType, false)
    .int32(g.generationId)
    .nullableString(g.protocolName, false)
    .nullableString(g.leaderId, false)
    .int64(g.currentStateTimestamp)
    .arrayLength(g.members.length, false);
  for (const m of g.members) {
    w.string(m.memberId, false)
      .nullableString(m.groupInstanceId, false)
      .string(m.clientId, false)
      .string(m.clientHost, false)
      .int32(m.rebalanceTimeoutMs)
      .int32(m.sessionTimeoutMs)
      .bytes(m.subscription, false)
      .bytes(m.assignment, false);
  }
  return w.toBuffer();
}

export function decodeGroupMetadataValue(buf: Buffer): GroupMetadata {
  const r = new Reader(buf);
  const version = r.int16();
  if (version < 0 || version > 4) throw new CoordinatorRecordError(`unknown GroupMetadataValue version ${version}`);
  const flexible = version >= FIRST_FLEXIBLE_VALUE_VERSION;
  const protocolType = r.string(flexible);
  const generationId = r.int32();
  const protocolName = r.nullableString(flexible);
  const leaderId = r.nullableString(flexible);
  const currentStateTimestamp = version >= 2 ? r.int64() : -1;
  const n = r.arrayLength(flexible, false);
  const members: GroupMetadataMember[] = [];
  for (let i = 0; i < n; i++) {
    const memberId = r.string(flexible);
    const groupInstanceId = version >= 3 ? r.nullableString(flexible) : null;
    const clientId = r.string(flexible);
    const clientHost = r.string(flexible);
    const rebalanceTimeoutMs = version >= 1 ? r.int32() : -1;
    const sessionTimeoutMs = r.int32();
    const subscription = Buffer.from(r.bytes(flexible));
    const assignment = Buffer.from(r.bytes(flexible));
    if (flexible) r.skipTaggedFields();
    members.push({
      memberId, groupInstanceId, clientId, clientHost,
      rebalanceTimeoutMs: rebalanceTimeoutMs < 0 ? sessionTimeoutMs : rebalanceTimeoutMs,
      sessionTimeoutMs, subscription, assignment,
    });
  }
  if (flexible) r.skipTaggedFields();
  return { protocolType, generationId, protocolName, leaderId, currentStateTimestamp, members };
}
