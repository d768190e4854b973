// OffsetsTopic on the broker's logs: coordinator records are appended as v2 batches to the
// partitions of __consumer_offsets and read back, batch by batch, at start-up.
import { readSync } from 'node:fs';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import type { CoordinatorRecord, OffsetsTopic, TransactionalProducer } from './offsets-topic.js';

/** How the broker hands out the logs of __consumer_offsets (it owns topic creation). */
export interface OffsetsTopicLogs {
  readonly numPartitions: number;
  /** The partition's log, or undefined while __consumer_offsets does not exist. */
  get(partition: number): UnifiedLog | undefined;
  /** The partition's log, creating the compacted __consumer_offsets topic first if needed. */
  getOrCreate(partition: number): UnifiedLog;
}

const READ_CHUNK_BYTES = 1024 * 1024;

export class LogOffsetsTopic implements OffsetsTopic {
  constructor(private readonly logs: OffsetsTopicLogs) {}

  get numPartitions(): number {
    return this.logs.numPartitions;
  }

  async append(partition: number, records: ReadonlyArray<CoordinatorRecord>, producer?: TransactionalProducer): Promise<void> {
    await this.write(partition, records, producer).flush();
  }

  /** Appends the records as one batch without waiting for the disk; returns the partition's log. */
  write(partition: number, records: ReadonlyArray<CoordinatorRecord>, producer?: TransactionalProducer): UnifiedLog {
    const now = Date.now();
    const batch = encodeBatch({
      baseOffset: 0,
      records: records.map((r, i) => ({ offset: i, timestamp: now, key: r.key, value: r.value, headers: [] })),
      // Kafka's TxnOffsetCommit batches: transactional, no sequence.
      ...(producer ? { producerId: producer.producerId, producerEpoch: producer.producerEpoch, baseSequence: -1, isTransactional: true } : {}),
    });
    const log = this.logs.getOrCreate(partition);
    log.appendAsLeader(batch, now, 'coordinator');
    return log;
  }

  /** `from` (the schema registry's catch-up) starts at that offset instead of the log start. */
  async readAll(partition: number, from = 0): Promise<CoordinatorRecord[]> {
    const log = this.logs.get(partition);
    if (!log) return [];
    const out: CoordinatorRecord[] = [];
    /** Transactional records per producer, until their marker. */
    const open = new Map<number, CoordinatorRecord[]>();
    let offset = Math.max(from, log.logStartOffset);
    while (offset < log.logEndOffset) {
      const { slices } = log.read(offset, READ_CHUNK_BYTES, true);
      if (slices.length === 0) break;
      let lastOffset = offset - 1;
      for (const slice of slices) {
        const buf = Buffer.allocUnsafe(slice.length);
        readSync(slice.fd, buf, 0, slice.length, slice.position);
        for (const header of batchesIn(buf)) {
          lastOffset = header.lastOffset;
          if (header.lastOffset < offset) continue;
          const { records } = decodeBatch(buf.subarray(header.pos, header.pos + header.sizeInBytes));
          if (header.isControl) {
            // Control record key: version int16, type int16 (0 ABORT, 1 COMMIT).
            const committed = records[0]?.key?.readInt16BE(2) === 1;
            const pending = open.get(header.producerId) ?? [];
            open.delete(header.producerId);
            if (committed) out.push(...pending);
            continue;
          }
          const target = header.isTransactional ? open.get(header.producerId) ?? [] : out;
          if (header.isTransactional) open.set(header.producerId, target);
          for (const r of records) {
            if (r.offset >= offset && r.key !== null) target.push({ key: r.key, value: r.value, offset: r.offset });
          }
        }
      }
      if (lastOffset < offset) break;
      offset = lastOffset + 1;
    }
    for (const [producerId, records] of open) for (const r of records) out.push({ ...r, pendingProducerId: producerId });
    return out;
  }
}
