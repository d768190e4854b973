// Checks a Produce request's records before they are appended (Kafka's LogValidator), from the batch
// headers only: no record is decoded on this path except for compacted topics, whose records need keys.
import { BATCH_HEADER_SIZE, BATCH_LENGTH, BatchHeader, LOG_OVERHEAD } from '../protocol/records/batch-header.js';
import { CorruptRecordError, InvalidRecordError, RecordTooLargeError } from './errors.js';
import type { LogConfig } from './log-config.js';

/** Who wrote the batches: clients may not write control batches; the transaction coordinator writes markers. */
export type AppendOrigin = 'client' | 'coordinator';

export class LogValidator {
  /**
   * Returns the headers of the batches in `records`. `recordKeysPresent` is asked, for compacted topics
   * only, whether every record of a batch has a key.
   */
  static validate(
    records: Buffer,
    config: LogConfig,
    origin: AppendOrigin,
    recordKeysPresent: (batch: Buffer) => boolean,
  ): BatchHeader[] {
    if (records.length === 0) throw new CorruptRecordError('no record batches');
    const compacted = config.cleanupPolicy.includes('compact');
    const batches: BatchHeader[] = [];
    let pos = 0;
    while (pos < records.length) {
      if (records.length - pos < LOG_OVERHEAD) throw new CorruptRecordError(`${records.length - pos} trailing bytes after the last batch`);
      const size = records.readInt32BE(pos + BATCH_LENGTH) + LOG_OVERHEAD;
      if (size < BATCH_HEADER_SIZE || pos + size > records.length) throw new CorruptRecordError(`batch at ${pos} has impossible size ${size}`);
      const batch = new BatchHeader(records, pos);
      if (batch.magic !== 2) throw new InvalidRecordError(`unsupported magic ${batch.magic}`);
      if (size > config.maxMessageBytes) {
        throw new RecordTooLargeError(`batch of ${size} bytes is larger than max.message.bytes ${config.maxMessageBytes}`);
      }
      if (!batch.isCrcValid()) throw new CorruptRecordError(`CRC mismatch in batch at ${pos}`);
      if (batch.recordsCount <= 0 || batch.lastOffsetDelta !== batch.recordsCount - 1) {
        throw new InvalidRecordError(`recordsCount ${batch.recordsCount} does not match lastOffsetDelta ${batch.lastOffsetDelta}`);
      }
      if (batch.isControl && origin === 'client') throw new InvalidRecordError('Clients are not allowed to write control records'); // Kafka's LogValidator
      if (batch.isTransactional && batch.producerId < 0) throw new InvalidRecordError('transactional batch without a producer id');
      if (compacted && !batch.isControl && !recordKeysPresent(records.subarray(pos, pos + size))) {
        throw new InvalidRecordError('compacted topic: every record needs a key');
      }
      batches.push(batch);
      pos += size;
    }
    return batches;
  }
}
