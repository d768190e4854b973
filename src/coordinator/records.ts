// Keys and values of the __consumer_offsets topic, in Kafka's formats, by the codecs generated from group-coordinator's
// OffsetCommitKey/Value and GroupMetadataKey/Value: each starts with an int16 version; the key's version tells the
// record type. We write OffsetCommitValue v3 (v1 when an expire timestamp is set) and GroupMetadataValue v3, as Kafka
// does, and read every version 0-4.
import { readGroupMetadataKey, writeGroupMetadataKey } from '../../protocol/generated/records/GroupMetadataKey.js';
import { readGroupMetadataValue, writeGroupMetadataValue } from '../../protocol/generated/records/GroupMetadataValue.js';
import { readOffsetCommitKey, writeOffsetCommitKey } from '../../protocol/generated/records/OffsetCommitKey.js';
import { readOffsetCommitValue, writeOffsetCommitValue } from '../../protocol/generated/records/OffsetCommitValue.js';
import { Reader, Writer } from '../../protocol/primitives.js';
import type { OffsetAndMetadata } from './offset-store.js';

const OFFSET_COMMIT_KEY_VERSION = 1;
const GROUP_METADATA_KEY_VERSION = 2;
const GROUP_METADATA_VALUE_VERSION = 3;
const MAX_VALUE_VERSION = 4;
/** OffsetCommitValue's TopicId (v4, tagged): kafkite writes v3 and v1, which have none. */
const NO_TOPIC_ID = '0'.repeat(32);

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
  const w = new Writer(64).int16(OFFSET_COMMIT_KEY_VERSION);
  writeOffsetCommitKey(w, OFFSET_COMMIT_KEY_VERSION, { group, topic, partition });
  return w.toBuffer();
}

export function groupMetadataKey(group: string): Buffer {
  const w = new Writer(32).int16(GROUP_METADATA_KEY_VERSION);
  writeGroupMetadataKey(w, GROUP_METADATA_KEY_VERSION, { group });
  return w.toBuffer();
}

export function decodeKey(buf: Buffer): CoordinatorKey {
  const r = new Reader(buf);
  const version = r.int16();
  if (version === 0 || version === 1) return { type: 'offset', ...readOffsetCommitKey(r, version) };
  if (version === GROUP_METADATA_KEY_VERSION) return { type: 'group', group: readGroupMetadataKey(r, version).group };
  return { type: 'other', version };
}

/** Reads a value's int16 version, refusing one past what Kafka 4.4 writes. */
function valueReader(buf: Buffer, what: string): { r: Reader; version: number } {
  const r = new Reader(buf);
  const version = r.int16();
  if (version < 0 || version > MAX_VALUE_VERSION) throw new CoordinatorRecordError(`unknown ${what} version ${version}`);
  return { r, version };
}

export function offsetCommitValue(o: OffsetAndMetadata): Buffer {
  const version = o.expireTimestamp >= 0 ? 1 : 3;
  const w = new Writer(64).int16(version);
  writeOffsetCommitValue(w, version, { ...o, topicId: NO_TOPIC_ID });
  return w.toBuffer();
}

export function decodeOffsetCommitValue(buf: Buffer): OffsetAndMetadata {
  const { r, version } = valueReader(buf, 'OffsetCommitValue');
  const { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp } = readOffsetCommitValue(r, version);
  return { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp };
}

export function groupMetadataValue(g: GroupMetadata): Buffer {
  const w = new Writer(256).int16(GROUP_METADATA_VALUE_VERSION);
  writeGroupMetadataValue(w, GROUP_METADATA_VALUE_VERSION, {
    protocolType: g.protocolType, generation: g.generationId, protocol: g.protocolName, leader: g.leaderId, currentStateTimestamp: g.currentStateTimestamp,
    members: g.members.map((m) => ({ ...m, rebalanceTimeout: m.rebalanceTimeoutMs, sessionTimeout: m.sessionTimeoutMs })),
  });
  return w.toBuffer();
}

export function decodeGroupMetadataValue(buf: Buffer): GroupMetadata {
  const { r, version } = valueReader(buf, 'GroupMetadataValue');
  const v = readGroupMetadataValue(r, version);
  return {
    protocolType: v.protocolType, generationId: v.generation, protocolName: v.protocol, leaderId: v.leader, currentStateTimestamp: v.currentStateTimestamp,
    members: v.members.map((m) => ({
      memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
      // v0 has no rebalance timeout: the session timeout stands for it, as Kafka's GroupMetadataManager reads it.
      rebalanceTimeoutMs: m.rebalanceTimeout < 0 ? m.sessionTimeout : m.rebalanceTimeout, sessionTimeoutMs: m.sessionTimeout,
      // Copied: the value's buffer is a slice of a whole batch read from the log.
      subscription: Buffer.from(m.subscription), assignment: Buffer.from(m.assignment),
    })),
  };
}
