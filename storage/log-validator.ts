// Checks a Produce request's records before they are appended (Kafka's LogValidator), from the batch
// headers where it can: records are decoded only for compacted topics (every record needs a key), when
// message.timestamp.before.max.ms bounds CreateTime timestamps, and when a batch's maxTimestamp is past
// message.timestamp.after.max.ms (1 h by default since Kafka 4.0, KIP-1030). The after bound is checked on the
// header's maxTimestamp, so that the default costs no decoding (nor, for a compressed batch, decompression); a
// client whose header understates its records' timestamps gets them stored, where Kafka's per-record check refuses.
import { BATCH_HEADER_SIZE, BATCH_LENGTH, BatchHeader, LOG_OVERHEAD } from '../protocol/records/batch-header.js';
import type { KafkaRecord } from '../protocol/records/record-batch.js';
import { CorruptRecordError, InvalidRecordError, RecordTooLargeError, RecordValidationError, type RejectedRecord } from './errors.js';
import type { LogConfig } from './log-config.js';

/** Who wrote the batches: clients may not write control batches; the transaction coordinator writes markers. */
export type AppendOrigin = 'client' | 'coordinator';

/** Kafka's "unbounded" (Long.MAX_VALUE), as config/ parses it. */
const UNBOUNDED_MS = Number.MAX_SAFE_INTEGER;

export interface ValidationContext {
  /** "topic-partition", as Kafka's messages name it. */
  readonly topicPartition: string;
  readonly now: number;
  /** Decodes one batch's records (decompressing them). */
  readonly readRecords: (batch: Buffer) => ReadonlyArray<KafkaRecord>;
}

export class LogValidator {
  /** Returns the headers of the batches in `records`, or throws the error Kafka would answer. */
  static validate(records: Buffer, config: LogConfig, origin: AppendOrigin, ctx: ValidationContext): BatchHeader[] {
    if (records.length === 0) throw new CorruptRecordError('no record batches');
    const compacted = config.cleanupPolicy.includes('compact');
    const createTime = config.messageTimestampType === 'CreateTime';
    const checkEveryTimestamp = createTime && config.messageTimestampBeforeMaxMs < UNBOUNDED_MS;
    const latest = createTime && config.messageTimestampAfterMaxMs < UNBOUNDED_MS ? ctx.now + config.messageTimestampAfterMaxMs : Infinity;
    const batches: BatchHeader[] = [];
    let pos = 0;
    while (pos < records.length) {
      if (records.length - pos < LOG_OVERHEAD) throw new CorruptRecordError(`${records.length - pos} trailing bytes after the last batch`);
      const size = records.readInt32BE(pos + BATCH_LENGTH) + LOG_OVERHEAD;
      if (size < BATCH_HEADER_SIZE || pos + size > records.length) throw new CorruptRecordError(`batch at ${pos} has impossible size ${size}`);
      const batch = new BatchHeader(records, pos);
      if (batch.magic !== 2) {
        throw new InvalidRecordError(`Produce requests with version 3 or above are only allowed to contain record batches with magic version 2 (found magic ${batch.magic} in ${ctx.topicPartition})`);
      }
      if (size > config.maxMessageBytes) {
        throw new RecordTooLargeError(`batch of ${size} bytes is larger than max.message.bytes ${config.maxMessageBytes}`);
      }
      if (!batch.isCrcValid()) throw new CorruptRecordError(`Record batch is corrupt (CRC mismatch at ${pos}) in topic partition ${ctx.topicPartition}`);
      if (batch.recordsCount <= 0 || batch.lastOffsetDelta !== batch.recordsCount - 1) {
        throw new InvalidRecordError(`recordsCount ${batch.recordsCount} does not match lastOffsetDelta ${batch.lastOffsetDelta}`);
      }
      if (batch.isControl && origin === 'client') throw new InvalidRecordError('Clients are not allowed to write control records'); // Kafka's LogValidator
      if (batch.isTransactional && batch.producerId < 0) throw new InvalidRecordError('transactional batch without a producer id');
      const checkTimestamps = checkEveryTimestamp || batch.maxTimestamp > latest;
      if (!batch.isControl && (compacted || checkTimestamps)) {
        LogValidator.validateRecords(ctx.readRecords(records.subarray(pos, pos + size)), config, compacted, checkTimestamps, ctx);
      }
      batches.push(batch);
      pos += size;
    }
    return batches;
  }

  /** Kafka's validateRecord per record, then processRecordErrors: every bad record is listed by its index. */
  private static validateRecords(
    batchRecords: ReadonlyArray<KafkaRecord>, config: LogConfig, compacted: boolean, checkTimestamps: boolean, ctx: ValidationContext,
  ): void {
    const errors: RejectedRecord[] = [];
    let invalidTimestamp = false;
    batchRecords.forEach((record, batchIndex) => {
      if (compacted && record.key === null) {
        errors.push({ batchIndex, message: `Compacted topic cannot accept message without key in topic partition ${ctx.topicPartition}.` });
        return;
      }
      if (!checkTimestamps || record.timestamp < 0) return;
      const earliest = ctx.now - config.messageTimestampBeforeMaxMs;
      const latest = ctx.now + config.messageTimestampAfterMaxMs;
      if (record.timestamp < earliest || record.timestamp > latest) {
        invalidTimestamp = true;
        errors.push({
          batchIndex,
          message: `Timestamp ${record.timestamp} of message with offset ${record.offset} is out of range. The timestamp should be within [${earliest}, ${latest}]`,
        });
      }
    });
    if (errors.length === 0) return;
    if (invalidTimestamp) throw new RecordValidationError(32, 'One or more records have been rejected due to invalid timestamp', errors);
    const shown = errors.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`).join(', ');
    throw new RecordValidationError(
      87,
      `One or more records have been rejected due to ${errors.length} record errors in total, and only showing the first three errors at most: [${shown}]`,
      errors,
    );
  }
}
