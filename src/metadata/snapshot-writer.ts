// A KRaft snapshot file (Kafka's RecordsSnapshotWriter): `<end offset, 20 digits>-<epoch, 10 digits>.checkpoint`
// in the metadata log's directory, holding a SnapshotHeader control batch, the records, and a SnapshotFooter.
// The bootstrap checkpoint that `kafka-storage format` writes is the snapshot at offset 0, epoch 0.
import { join } from 'node:path';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { writeFileAtomically, writeFileAtomicallyAsync } from '../../storage/checkpoint-file.js';
import type { MetadataRecord } from './metadata-frame.js';
import { snapshotFooterBatch, snapshotHeaderBatch, type RaftControlValues } from './control-records.js';
import { frameMetadataRecord } from './metadata-frame.js';

/** Records go into batches of about this size, well below the 8 MiB a KRaft batch may have (KafkaRaftClient.MAX_BATCH_SIZE_BYTES). */
const BATCH_BYTES = 1024 * 1024;

function snapshotFileName(endOffset: number, epoch: number): string {
  return `${String(endOffset).padStart(20, '0')}-${String(epoch).padStart(10, '0')}.checkpoint`;
}

/** `lastContainedLogTimestamp`: the append time of the last record the snapshot holds (its header's, which retention reads). */
function encodeSnapshot(epoch: number, records: readonly MetadataRecord[], lastContainedLogTimestamp: number, raft?: RaftControlValues): Buffer {
  const batches = [snapshotHeaderBatch(0, epoch, lastContainedLogTimestamp, raft)];
  let offset = raft ? (raft.voters ? 3 : 2) : 1;
  for (let i = 0; i < records.length;) {
    const values: Buffer[] = [];
    for (let bytes = 0; i < records.length && (values.length === 0 || bytes < BATCH_BYTES); i++) {
      values.push(frameMetadataRecord(records[i]!));
      bytes += values.at(-1)!.length;
    }
    const baseOffset = offset;
    batches.push(encodeBatch({
      baseOffset,
      records: values.map((value, j) => ({ offset: baseOffset + j, timestamp: lastContainedLogTimestamp, key: null, value, headers: [] })),
      partitionLeaderEpoch: epoch,
    }));
    offset += values.length;
  }
  batches.push(snapshotFooterBatch(offset, epoch, lastContainedLogTimestamp));
  return Buffer.concat(batches);
}

export function writeSnapshot(dir: string, endOffset: number, epoch: number, records: readonly MetadataRecord[], lastContainedLogTimestamp = Date.now()): string {
  const file = join(dir, snapshotFileName(endOffset, epoch));
  writeFileAtomically(file, encodeSnapshot(epoch, records, lastContainedLogTimestamp));
  return file;
}

/** writeSnapshot with its writes and fsyncs on the libuv pool (a large image's fsync would stall the event loop). */
export async function writeSnapshotAsync(dir: string, endOffset: number, epoch: number, records: readonly MetadataRecord[], lastContainedLogTimestamp: number, raft?: RaftControlValues): Promise<string> {
  const file = join(dir, snapshotFileName(endOffset, epoch));
  await writeFileAtomicallyAsync(file, encodeSnapshot(epoch, records, lastContainedLogTimestamp, raft));
  return file;
}
