// Replaying __consumer_offsets at start-up: the last record per key wins, tombstones delete.
import type { OffsetAndMetadata } from './offset-store.js';
import type { CoordinatorRecord, OffsetsTopic } from './offsets-topic.js';
import { decodeGroupMetadataValue, decodeKey, decodeOffsetCommitValue, type GroupMetadata } from './records.js';

interface LoadedOffset {
  group: string;
  topic: string;
  partition: number;
  value: OffsetAndMetadata;
}

export interface CoordinatorState {
  offsets: LoadedOffset[];
  groups: Map<string, GroupMetadata>;
  /** TxnOffsetCommit offsets whose transaction had no marker yet. */
  pendingTransactionalOffsets: Array<LoadedOffset & { producerId: number }>;
}

/** Every record of every partition, read once at start-up for both group protocols' replays. */
export async function readOffsetsTopic(topic: OffsetsTopic): Promise<CoordinatorRecord[]> {
  const records: CoordinatorRecord[] = [];
  for (let p = 0; p < topic.numPartitions; p++) for (const record of await topic.readAll(p)) records.push(record);
  return records;
}

/** Committed offsets and classic group metadata; records of other kinds are left to their own replay. */
export function replayOffsetsTopic(records: ReadonlyArray<CoordinatorRecord>): CoordinatorState {
  const offsets = new Map<string, { group: string; topic: string; partition: number; value: OffsetAndMetadata | null }>();
  const groups = new Map<string, GroupMetadata | null>();
  const pendingTransactionalOffsets: CoordinatorState['pendingTransactionalOffsets'] = [];
  for (const record of records) {
    const key = decodeKey(record.key);
    if (record.pendingProducerId !== undefined) {
      if (key.type === 'offset' && record.value !== null) {
        pendingTransactionalOffsets.push({ ...key, value: decodeOffsetCommitValue(record.value), producerId: record.pendingProducerId });
      }
      continue;
    }
    if (key.type === 'offset') {
      const value = record.value === null ? null : decodeOffsetCommitValue(record.value);
      offsets.set(`${key.group}\0${key.topic}\0${key.partition}`, { ...key, value });
    } else if (key.type === 'group') {
      groups.set(key.group, record.value === null ? null : decodeGroupMetadataValue(record.value));
    }
  }
  return {
    offsets: [...offsets.values()].filter((o): o is LoadedOffset => o.value !== null),
    groups: new Map([...groups].filter((g): g is [string, GroupMetadata] => g[1] !== null)),
    pendingTransactionalOffsets,
  };
}
