// A KRaft snapshot file (Kafka's RecordsSnapshotWriter): `<end offset, 20 digits>-<epoch, 10 digits>.checkpoint`
// in the metadata log's directory, holding a SnapshotHeader control batch, the records, and a SnapshotFooter.
// The bootstrap checkpoint that `kafka-storage format` writes is the snapshot at offset 0, epoch 0.
import { join } from 'node:path';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { writeFileAtomically } from '../../storage/checkpoint-file.js';
import type { MetadataRecord } from './metadata-frame.js';
import { snapshotFooterBatch, snapshotHeaderBatch } from './control-records.js';
import { frameMetadataRecord } from './metadata-frame.js';

function snapshotFileName(endOffset: number, epoch: number): string {
  return `${String(endOffset).padStart(20, '0')}-${String(epoch).padStart(10, '0')}.checkpoint`;
}

export function writeSnapshot(dir: string, endOffset: number, epoch: number, records: readonly MetadataRecord[], now = Date.now()): string {
  const file = join(dir, snapshotFileName(endOffset, epoch));
  const body = encodeBatch({
    baseOffset: 1,
    records: records.map((r, i) => ({ offset: 1 + i, timestamp: now, key: null, value: frameMetadataRecord(r), headers: [] })),
    partitionLeaderEpoch: epoch,
  });
  writeFileAtomically(file, Buffer.concat([snapshotHeaderBatch(0, epoch, now), body, snapshotFooterBatch(records.length + 1, epoch, now)]));
  return file;
}
