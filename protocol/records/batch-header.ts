// Record batch v2 header (kafka-docs/implementation.html, "Record Batch"): 61 bytes read in place,
// without decoding the records that follow.
import { crc32c } from './crc32c.js';
import { readInt64, writeInt64 } from '../primitives.js';

const BASE_OFFSET = 0;
export const BATCH_LENGTH = 8;
const PARTITION_LEADER_EPOCH = 12;
export const MAGIC = 16;
export const CRC = 17;
export const ATTRIBUTES = 21;
export const LAST_OFFSET_DELTA = 23;
export const BASE_TIMESTAMP = 27;
export const MAX_TIMESTAMP = 35;
export const PRODUCER_ID = 43;
export const PRODUCER_EPOCH = 51;
export const BASE_SEQUENCE = 53;
export const RECORDS_COUNT = 57;
export const BATCH_HEADER_SIZE = 61;
/** Bytes before batchLength's payload: baseOffset + batchLength. */
export const LOG_OVERHEAD = 12;

export const COMPRESSION_MASK = 0x07;
export const TIMESTAMP_TYPE_LOG_APPEND = 0x08;
export const TRANSACTIONAL_FLAG = 0x10;
export const CONTROL_FLAG = 0x20;
/** KIP-534: the base timestamp holds the time after which the cleaner may drop the batch's tombstones/marker. */
export const DELETE_HORIZON_FLAG = 0x40;

export enum CompressionType {
  None = 0,
  Gzip = 1,
  Snappy = 2,
  Lz4 = 3,
  Zstd = 4,
}

/** The header fields of one batch starting at `pos` in `buf`. */
export class BatchHeader {
  constructor(readonly buf: Buffer, readonly pos: number) {}

  get baseOffset(): number { return readInt64(this.buf, this.pos + BASE_OFFSET); }
  get batchLength(): number { return this.buf.readInt32BE(this.pos + BATCH_LENGTH); }
  /** Whole batch size in bytes, including baseOffset and batchLength. */
  get sizeInBytes(): number { return this.batchLength + LOG_OVERHEAD; }
  get partitionLeaderEpoch(): number { return this.buf.readInt32BE(this.pos + PARTITION_LEADER_EPOCH); }
  get magic(): number { return this.buf.readInt8(this.pos + MAGIC); }
  get crc(): number { return this.buf.readUInt32BE(this.pos + CRC); }
  get attributes(): number { return this.buf.readInt16BE(this.pos + ATTRIBUTES); }
  get compression(): CompressionType { return this.attributes & COMPRESSION_MASK; }
  get isLogAppendTime(): boolean { return (this.attributes & TIMESTAMP_TYPE_LOG_APPEND) !== 0; }
  get isTransactional(): boolean { return (this.attributes & TRANSACTIONAL_FLAG) !== 0; }
  get isControl(): boolean { return (this.attributes & CONTROL_FLAG) !== 0; }
  get hasDeleteHorizon(): boolean { return (this.attributes & DELETE_HORIZON_FLAG) !== 0; }
  get lastOffsetDelta(): number { return this.buf.readInt32BE(this.pos + LAST_OFFSET_DELTA); }
  get lastOffset(): number { return this.baseOffset + this.lastOffsetDelta; }
  get baseTimestamp(): number { return readInt64(this.buf, this.pos + BASE_TIMESTAMP); }
  get maxTimestamp(): number { return readInt64(this.buf, this.pos + MAX_TIMESTAMP); }
  get producerId(): number { return readInt64(this.buf, this.pos + PRODUCER_ID); }
  get producerEpoch(): number { return this.buf.readInt16BE(this.pos + PRODUCER_EPOCH); }
  get baseSequence(): number { return this.buf.readInt32BE(this.pos + BASE_SEQUENCE); }
  get recordsCount(): number { return this.buf.readInt32BE(this.pos + RECORDS_COUNT); }

  /** CRC32C over attributes..end, as stored in the header. */
  computeCrc(): number {
    return crc32c(this.buf.subarray(this.pos + ATTRIBUTES, this.pos + this.sizeInBytes));
  }

  isCrcValid(): boolean {
    return this.computeCrc() === this.crc;
  }

  setBaseOffset(offset: number): void {
    writeInt64(this.buf, offset, this.pos + BASE_OFFSET);
  }

  setPartitionLeaderEpoch(epoch: number): void {
    this.buf.writeInt32BE(epoch, this.pos + PARTITION_LEADER_EPOCH);
  }

  /** Marks the batch LogAppendTime with the broker's clock; the CRC covers both fields, so it is recomputed. */
  setLogAppendTime(timestamp: number): void {
    this.buf.writeInt16BE(this.attributes | TIMESTAMP_TYPE_LOG_APPEND, this.pos + ATTRIBUTES);
    writeInt64(this.buf, timestamp, this.pos + MAX_TIMESTAMP);
    this.buf.writeUInt32BE(this.computeCrc(), this.pos + CRC);
  }
}

/**
 * Iterates the complete batches in `buf[start, end)`. Stops at the first incomplete batch;
 * `validBytes` of the returned iterator state tells the caller where that was.
 */
export function* batchesIn(buf: Buffer, start = 0, end = buf.length): Generator<BatchHeader> {
  let pos = start;
  while (end - pos >= LOG_OVERHEAD) {
    const size = buf.readInt32BE(pos + BATCH_LENGTH) + LOG_OVERHEAD;
    if (size < BATCH_HEADER_SIZE || pos + size > end) return;
    yield new BatchHeader(buf, pos);
    pos += size;
  }
}
