// The metadata log's files read as Kafka's KafkaRaftClient loads them at start-up: the latest snapshot
// (<end offset>-<epoch>.checkpoint, Kafka's Snapshots), then the log's batches from the snapshot's end offset on.
// A Kafka node may have snapshotted and moved its log start past the records the snapshot holds. The bootstrap
// checkpoint (0-0, what `kafka-storage format` writes) is not a snapshot of the log: Kafka's controller replays it
// only into an empty log, where it writes the same records, so it is read only when the log is empty. Read-only: nothing is written.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readVotersRecord } from '../../protocol/generated/records/VotersRecord.js';
import { Reader } from '../../protocol/primitives.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import { unframeMetadataRecord, type MetadataRecord } from './metadata-frame.js';

const BOOTSTRAP_CHECKPOINT = '00000000000000000000-0000000000.checkpoint';
const SNAPSHOT_FILE = /^(\d{20})-(\d{10})\.checkpoint$/;
/** Kafka's ControlRecordType.KRAFT_VOTERS: the voter set (kraft.version 1, KIP-853). */
const KRAFT_VOTERS = 6;

export interface MetadataOnDisk {
  /** The latest snapshot's records, then the log's from the snapshot's end offset. */
  records: MetadataRecord[];
  /** The node ids of each VotersRecord, in order. */
  voterSets: number[][];
}

/** The end offset of the latest snapshot past the bootstrap checkpoint, and its file; null without one. */
export function latestSnapshot(dir: string): { endOffset: number; file: string } | null {
  let latest: { endOffset: number; file: string } | null = null;
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const m = SNAPSHOT_FILE.exec(name);
    if (!m) continue;
    const endOffset = Number(m[1]);
    if (endOffset > 0 && (!latest || endOffset > latest.endOffset)) latest = { endOffset, file: join(dir, name) };
  }
  return latest;
}

/** The metadata records (and voter sets) of record batches whose last offset is at least `from`. */
export function collectBatches(buf: Buffer, from: number, into: MetadataOnDisk): void {
  for (const header of batchesIn(buf)) {
    if (header.lastOffset < from) continue;
    const { records } = decodeBatch(buf.subarray(header.pos, header.pos + header.sizeInBytes));
    for (const r of records) {
      if (r.offset < from || r.value === null) continue;
      if (!header.isControl) into.records.push(unframeMetadataRecord(r.value));
      else if (r.key && r.key.length >= 4 && r.key.readInt16BE(2) === KRAFT_VOTERS) {
        into.voterSets.push(readVotersRecord(new Reader(r.value), 0).voters.map((v) => v.voterId));
      }
    }
  }
}

/** The directory `<dir>/__cluster_metadata-0` as Kafka would load it, read without changing a file. */
export function readMetadataOnDisk(dir: string): MetadataOnDisk {
  const out: MetadataOnDisk = { records: [], voterSets: [] };
  const snapshot = latestSnapshot(dir);
  if (snapshot) collectBatches(readFileSync(snapshot.file), 0, out);
  const segments = existsSync(dir) ? readdirSync(dir).filter((f) => /^\d{20}\.log$/.test(f)).sort() : [];
  for (const segment of segments) collectBatches(readFileSync(join(dir, segment)), snapshot?.endOffset ?? 0, out);
  // A formatted directory no node has started on yet: what the controller would write into the empty log.
  const bootstrap = join(dir, BOOTSTRAP_CHECKPOINT);
  if (!snapshot && out.records.length === 0 && existsSync(bootstrap)) collectBatches(readFileSync(bootstrap), 0, out);
  return out;
}
