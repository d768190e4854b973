// The record batches a partition holds on disk, read from its .log files (not through the broker), so
// a test checks what was stored rather than what a client gets back.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { batchesIn, CompressionType } from '../../protocol/records/batch-header.js';
import { decodeEndTxnMarker } from '../../protocol/records/end-txn-marker.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';

export interface StoredBatch {
  magic: number;
  compression: CompressionType;
  records: number;
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  isTransactional: boolean;
  isControl: boolean;
  /** A control batch's transaction marker. */
  marker: 'COMMIT' | 'ABORT' | null;
  /** A data batch's record values as text (decoded on call), none for a control batch. */
  values(): string[];
}

export function batchesOnDisk(dataDir: string, topic: string, partition = 0): StoredBatch[] {
  const dir = join(dataDir, `${topic}-${partition}`);
  const batches: StoredBatch[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.log')).sort()) {
    const buf = readFileSync(join(dir, file));
    for (const b of batchesIn(buf)) {
      const bytes = buf.subarray(b.pos, b.pos + b.sizeInBytes);
      const control = b.isControl ? decodeBatch(bytes).records[0]! : null;
      const marker = control ? decodeEndTxnMarker(control.key, control.value) : null;
      batches.push({
        magic: b.magic, compression: b.compression, records: b.recordsCount, baseOffset: b.baseOffset, lastOffset: b.lastOffset,
        maxTimestamp: b.maxTimestamp,
        producerId: b.producerId, producerEpoch: b.producerEpoch, isTransactional: b.isTransactional, isControl: b.isControl,
        marker: marker === null ? null : marker.commit ? 'COMMIT' : 'ABORT',
        values: () => (b.isControl ? [] : decodeBatch(bytes).records.map((r) => r.value?.toString() ?? '')),
      });
    }
  }
  return batches;
}

/** Values that every codec shrinks, even one record alone (librdkafka sends a batch uncompressed when compression does not pay). */
export function compressibleValue(i: number): string {
  return `record ${i} ` + 'the quick brown fox jumps over the lazy dog, '.repeat(12);
}
