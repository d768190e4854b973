// The metadata log's files read as Kafka's KafkaRaftClient loads them at start-up: the latest snapshot
// (<end offset>-<epoch>.checkpoint, Kafka's Snapshots), then the log's batches from the snapshot's end offset on.
// A Kafka node may have snapshotted and moved its log start past the records the snapshot holds. The bootstrap
// checkpoint (0-0, what `kafka-storage format` writes) is not a snapshot of the log: Kafka's controller replays it
// only into an empty log, where it writes the same records, so it is read only when the log is empty. Read-only: nothing is written.
// A snapshot is read whole or not at all: one cut short or with a batch failing its CRC is refused with an error naming
// the file. Kafka 4.4, tried on copies of a kafkite directory, stops on the CRC (CorruptRecordException in
// KRaftControlRecordStateMachine, a fatal fault, exit 1), but reads a cut snapshot up to the cut without a word, the
// rest of the image lost (it then stopped on the log's next change to a broker the cut had dropped).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readKRaftVersionRecord } from '../../protocol/generated/records/KRaftVersionRecord.js';
import { readVotersRecord } from '../../protocol/generated/records/VotersRecord.js';
import { Reader } from '../../protocol/primitives.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import { unframeMetadataRecord, type MetadataRecord } from './metadata-frame.js';

const BOOTSTRAP_CHECKPOINT = '00000000000000000000-0000000000.checkpoint';
const SNAPSHOT_FILE = /^(\d{20})-(\d{10})\.checkpoint$/;
/** Kafka's ControlRecordType ids: the snapshot's first and last batches, kraft.version and the voter set (KIP-853). */
const SNAPSHOT_HEADER = 3;
const SNAPSHOT_FOOTER = 4;
const KRAFT_VERSION = 5;
const KRAFT_VOTERS = 6;

/** A snapshot that cannot be read whole: kafkite does not start on it (nor does Kafka). */
export class MetadataSnapshotError extends Error {
  override name = 'MetadataSnapshotError';
}

export interface SnapshotFile {
  /** The offset after the last record it holds. */
  endOffset: number;
  epoch: number;
  file: string;
}

export interface MetadataOnDisk {
  /** The latest snapshot's records, then the log's from the snapshot's end offset. */
  records: MetadataRecord[];
  /** The voters (node id, directory id as 32 hex) of each VotersRecord, in order. */
  voterSets: Array<Array<{ id: number; directoryId: string }>>;
  /** kraft.version as the last KRaftVersionRecord left it (absent: 0, a static voter set). */
  kraftVersion?: number;
  /**
   * The last KRaftVersionRecord's and VotersRecord's values, as read: a snapshot at kraft.version 1 holds them after
   * its header (Kafka's RecordsSnapshotWriter), or Kafka, started on it, would not know its voters.
   */
  raftControl?: { kraftVersion: Buffer; voters: Buffer | null };
  /** The offset after the log's last whole batch (0 for an empty log). */
  endOffset?: number;
  /** The records are the bootstrap checkpoint's: the log is empty and has no snapshot. */
  fromBootstrap?: boolean;
  /** A batch failing its CRC ended the read (log recovery truncates there). */
  cut?: boolean;
  /** The size of the batches read past `from` since this was last set to 0 (what a snapshot does not hold yet). */
  bytes?: number;
}

/** The snapshots in the directory, the bootstrap checkpoint included, oldest first (Kafka's Snapshots.parse). */
export function snapshotFiles(dir: string): SnapshotFile[] {
  const out: SnapshotFile[] = [];
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const m = SNAPSHOT_FILE.exec(name);
    if (m) out.push({ endOffset: Number(m[1]), epoch: Number(m[2]), file: join(dir, name) });
  }
  return out.sort((a, b) => a.endOffset - b.endOffset || a.epoch - b.epoch);
}

/** The latest snapshot past the bootstrap checkpoint; null without one. */
export function latestSnapshot(dir: string): SnapshotFile | null {
  const latest = snapshotFiles(dir).at(-1);
  return latest && latest.endOffset > 0 ? latest : null;
}

function controlTypeOf(buf: Buffer, header: { pos: number; sizeInBytes: number; isControl: boolean }): number {
  if (!header.isControl) return -1;
  const key = decodeBatch(buf.subarray(header.pos, header.pos + header.sizeInBytes)).records[0]?.key;
  return key && key.length >= 4 ? key.readInt16BE(2) : -1;
}

/** A snapshot's bytes, once every batch is whole and passes its CRC, between a SnapshotHeader and a SnapshotFooter. */
export function readSnapshot(file: string): Buffer {
  const buf = readFileSync(file);
  const fail = (why: string): never => {
    throw new MetadataSnapshotError(`the metadata snapshot ${file} cannot be read: ${why}. kafkite does not start on it, as Kafka does not; ` +
      'put back an intact copy, or move it aside if the log still holds every record it covers');
  };
  const headers = [...batchesIn(buf)];
  for (const h of headers) if (!h.isCrcValid()) fail(`the batch at byte ${h.pos} (offset ${h.baseOffset}) fails its CRC`);
  const last = headers.at(-1);
  const end = last ? last.pos + last.sizeInBytes : 0;
  if (end !== buf.length) fail(`it is cut short (${buf.length - end} bytes after its last whole batch, at byte ${end})`);
  if (!last || controlTypeOf(buf, headers[0]!) !== SNAPSHOT_HEADER) fail('it does not open with a SnapshotHeader');
  if (controlTypeOf(buf, last!) !== SNAPSHOT_FOOTER) fail('it does not end with a SnapshotFooter (cut short)');
  return buf;
}

/** kraft.version and the voter set, from a control record (the others, LeaderChange and a snapshot's header and footer, say nothing of them). */
function readRaftControl(key: Buffer | null, value: Buffer, into: MetadataOnDisk): void {
  const type = key && key.length >= 4 ? key.readInt16BE(2) : -1;
  if (type === KRAFT_VERSION) {
    into.kraftVersion = readKRaftVersionRecord(new Reader(value), 0).kRaftVersion;
    into.raftControl = { kraftVersion: Buffer.from(value), voters: into.raftControl?.voters ?? null };
  } else if (type === KRAFT_VOTERS) {
    into.voterSets.push(readVotersRecord(new Reader(value), 0).voters.map((v) => ({ id: v.voterId, directoryId: v.voterDirectoryId })));
    if (into.raftControl) into.raftControl.voters = Buffer.from(value);
  }
}

/** The metadata records (and voter sets) of record batches whose last offset is at least `from`; returns the offset after the last batch. */
export function collectBatches(buf: Buffer, from: number, into: MetadataOnDisk): number | undefined {
  let end: number | undefined;
  for (const header of batchesIn(buf)) {
    // Where Kafka's log recovery would truncate: the rest of the log is not read.
    if (!header.isCrcValid()) {
      into.cut = true;
      break;
    }
    end = header.lastOffset + 1;
    if (header.lastOffset < from) continue;
    into.bytes = (into.bytes ?? 0) + header.sizeInBytes;
    const { records } = decodeBatch(buf.subarray(header.pos, header.pos + header.sizeInBytes));
    for (const r of records) {
      if (r.offset < from || r.value === null) continue;
      if (!header.isControl) into.records.push(unframeMetadataRecord(r.value));
      else readRaftControl(r.key, r.value, into);
    }
  }
  return end;
}

/** The directory `<dir>/__cluster_metadata-0` as Kafka would load it, read without changing a file. */
export function readMetadataOnDisk(dir: string): MetadataOnDisk {
  const out: MetadataOnDisk = { records: [], voterSets: [] };
  const snapshot = latestSnapshot(dir);
  if (snapshot) collectBatches(readSnapshot(snapshot.file), 0, out);
  const segments = existsSync(dir) ? readdirSync(dir).filter((f) => /^\d{20}\.log$/.test(f)).sort() : [];
  out.endOffset = 0;
  out.bytes = 0;
  for (const segment of segments) {
    if (out.cut) break;
    out.endOffset = collectBatches(readFileSync(join(dir, segment)), snapshot?.endOffset ?? 0, out) ?? out.endOffset;
  }
  // A formatted directory no node has started on yet: what the controller would write into the empty log.
  const bootstrap = join(dir, BOOTSTRAP_CHECKPOINT);
  if (!snapshot && out.records.length === 0 && existsSync(bootstrap)) {
    collectBatches(readSnapshot(bootstrap), 0, out);
    out.fromBootstrap = true;
  }
  return out;
}
