// OffsetsTopic on the broker's logs: coordinator records are appended as v2 batches to the
// partitions of __consumer_offsets and read back, batch by batch, at start-up.
import { readSync } from 'node:fs';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import type { CoordinatorRecord, OffsetsTopic } from './offsets-topic.js';

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

  async append(partition: number, records: ReadonlyArray<CoordinatorRecord>): Promise<void> {
    const now = Date.now();
    const batch = encodeBatch({
      baseOffset: 0,
      records: records.map((r, i) => ({ offset: i, timestamp: now, key: r.key, value: r.value, headers: [] })),
    });
    this.logs.getOrCreate(partition).appendAsLeader(batch, now, 'coordinator');
  }

  async readAll(partition: number): Promise<CoordinatorRecord[]> {
    const log = this.logs.get(partition);
    if (!log) return [];
    const out: CoordinatorRecord[] = [];
    let offset = log.logStartOffset;
    while (offset < log.logEndOffset) {
      const { slices } = log.read(offset, READ_CHUNK_BYTES, true);
      if (slices.length === 0) break;
      let lastOffset = offset - 1;
      for (const slice of slices) {
        const buf = Buffer.allocUnsafe(slice.length);
        readSync(slice.fd, buf, 0, slice.length, slice.position);
        for (const header of batchesIn(buf)) {
          lastOffset = header.lastOffset;
          if (header.isControl || header.lastOffset < offset) continue;
          const { records } = decodeBatch(buf.subarray(header.pos, header.pos + header.sizeInBytes));
          for (const r of records) {
            if (r.offset >= offset && r.key !== null) out.push({ key: r.key, value: r.value });
          }
        }
      }
      if (lastOffset < offset) break;
      offset = lastOffset + 1;
    }
    return out;
  }
}
