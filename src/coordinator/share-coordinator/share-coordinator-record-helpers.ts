// The records of __share_group_state in Kafka's format (share-coordinator's ShareSnapshot and ShareUpdate,
// record types 0 and 1): a key is the record type as int16 then the key's fields; a value is version 0.
// ShareCoordinatorRecordHelpers and ShareCoordinatorRecordSerde in Kafka.
import { Reader, Writer } from '../../../protocol/primitives.js';
import { readShareSnapshotKey, writeShareSnapshotKey } from '../../../protocol/generated/records/ShareSnapshotKey.js';
import { readShareSnapshotValue, writeShareSnapshotValue, type ShareSnapshotValue } from '../../../protocol/generated/records/ShareSnapshotValue.js';
import { writeShareUpdateKey } from '../../../protocol/generated/records/ShareUpdateKey.js';
import { readShareUpdateValue, writeShareUpdateValue, type ShareUpdateValue } from '../../../protocol/generated/records/ShareUpdateValue.js';
import type { SharePartitionKey } from '../../share/persister.js';
import type { CoordinatorRecord } from '../offsets-topic.js';

export enum ShareRecordType {
  Snapshot = 0,
  Update = 1,
}

const VALUE_VERSION = 0;

/** What a ShareSnapshot holds, and the state merged from it and its updates (Kafka's ShareGroupOffset). */
export type ShareGroupOffset = ShareSnapshotValue;
export type { ShareUpdateValue };

export type ShareStateRecord =
  | { type: ShareRecordType.Snapshot; key: SharePartitionKey; value: ShareSnapshotValue | null }
  | { type: ShareRecordType.Update; key: SharePartitionKey; value: ShareUpdateValue | null };

function keyBytes(type: ShareRecordType, key: SharePartitionKey): Buffer {
  const w = new Writer(64).int16(type);
  // Both key types have the same fields (GroupId, TopicId, Partition).
  if (type === ShareRecordType.Snapshot) writeShareSnapshotKey(w, 0, key);
  else writeShareUpdateKey(w, 0, key);
  return w.toBuffer();
}

export function newShareSnapshotRecord(key: SharePartitionKey, value: ShareSnapshotValue): CoordinatorRecord {
  const w = new Writer(128).int16(VALUE_VERSION);
  writeShareSnapshotValue(w, VALUE_VERSION, value);
  return { key: keyBytes(ShareRecordType.Snapshot, key), value: w.toBuffer() };
}

export function newShareUpdateRecord(key: SharePartitionKey, value: ShareUpdateValue): CoordinatorRecord {
  const w = new Writer(128).int16(VALUE_VERSION);
  writeShareUpdateValue(w, VALUE_VERSION, value);
  return { key: keyBytes(ShareRecordType.Update, key), value: w.toBuffer() };
}

/** Kafka's deleteState writes a tombstone of the snapshot key. */
export function newShareStateTombstoneRecord(key: SharePartitionKey): CoordinatorRecord {
  return { key: keyBytes(ShareRecordType.Snapshot, key), value: null };
}

/** A record of __share_group_state, or undefined for a record type the share coordinator does not know. */
export function decodeShareStateRecord(record: { key: Buffer; value: Buffer | null }): ShareStateRecord | undefined {
  const r = new Reader(record.key);
  const type = r.int16();
  if (type !== ShareRecordType.Snapshot && type !== ShareRecordType.Update) return undefined;
  const key = readShareSnapshotKey(r, 0);
  if (record.value === null) return { type, key, value: null };
  const v = new Reader(record.value);
  const version = v.int16();
  if (type === ShareRecordType.Snapshot) return { type, key, value: readShareSnapshotValue(v, version) };
  return { type, key, value: readShareUpdateValue(v, version) };
}
