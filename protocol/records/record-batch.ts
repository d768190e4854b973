// Record batch v2 (magic 2) with its records, per kafka-docs/implementation.html:
//   record: length varint, attributes int8, timestampDelta varlong, offsetDelta varint,
//           key and value as varint-length bytes (-1 = null), headers as a varint count of
//           (varint-length UTF-8 key, varint-length nullable value).
// Decoded keys, values and header values are views into the batch (or into its decompressed
// records), not copies: keep the batch alive as long as them, or copy.
import { DecodeError, Reader, Writer, writeInt64 } from '../primitives.js';
import {
  ATTRIBUTES,
  BASE_SEQUENCE,
  BASE_TIMESTAMP,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  BatchHeader,
  CONTROL_FLAG,
  CRC,
  DELETE_HORIZON_FLAG,
  CompressionType,
  LAST_OFFSET_DELTA,
  LOG_OVERHEAD,
  MAGIC,
  MAX_TIMESTAMP,
  PRODUCER_EPOCH,
  PRODUCER_ID,
  RECORDS_COUNT,
  TIMESTAMP_TYPE_LOG_APPEND,
  TRANSACTIONAL_FLAG,
} from './batch-header.js';
import { DEFAULT_MAX_DECOMPRESSED_BYTES, compress, decompress } from './compression.js';
import { CorruptRecordError } from './errors.js';

const CURRENT_MAGIC = 2;
/** Kafka's RecordBatch.NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, NO_PARTITION_LEADER_EPOCH, NO_TIMESTAMP. */
const NO_PRODUCER_ID = -1;
const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
const NO_PARTITION_LEADER_EPOCH = -1;
const NO_TIMESTAMP = -1;

interface KafkaRecordHeader {
  key: string;
  value: Buffer | null;
}

export interface KafkaRecord {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: KafkaRecordHeader[];
}

export interface BatchOptions {
  baseOffset: number;
  /** Absolute offsets and timestamps; offsets ascending, gaps allowed (compacted batches). */
  records: KafkaRecord[];
  compression?: CompressionType;
  /** The codec's level (compress()); its default when absent. */
  compressionLevel?: number;
  timestampType?: 'CreateTime' | 'LogAppendTime';
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  isTransactional?: boolean;
  isControl?: boolean;
  partitionLeaderEpoch?: number;
  /**
   * Defaults to the last record's offset. The log cleaner keeps a filtered batch's original last
   * offset (Kafka's MemoryRecordsBuilder.overrideLastOffset) so producer sequence numbers stay
   * valid; it also lets an empty batch cover a range of offsets.
   */
  lastOffset?: number;
  /** KIP-534 delete horizon: stored as the base timestamp (record timestamps stay as they are) with its attribute flag. */
  deleteHorizonMs?: number;
}

export interface DecodedBatch {
  header: BatchHeader;
  records: KafkaRecord[];
}

/** The smallest record: length, attributes, timestampDelta, offsetDelta, key, value, header count. */
const MIN_RECORD_SIZE = 7;

/**
 * Decodes one whole batch (exactly `batch.length` bytes), decompressing as needed.
 * Throws CorruptRecordError on malformed data, and RecordTooLargeError when the records would
 * decompress to more than `maxDecompressedBytes`.
 */
export function decodeBatch(batch: Buffer, maxDecompressedBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): DecodedBatch {
  if (batch.length < BATCH_HEADER_SIZE) {
    throw new CorruptRecordError(`batch of ${batch.length} bytes is smaller than the ${BATCH_HEADER_SIZE}-byte header`);
  }
  const header = new BatchHeader(batch, 0);
  if (header.sizeInBytes !== batch.length) {
    throw new CorruptRecordError(`batch length field says ${header.sizeInBytes} bytes, buffer holds ${batch.length}`);
  }
  if (header.magic !== CURRENT_MAGIC) throw new CorruptRecordError(`unsupported record batch magic ${header.magic}`);
  if (!header.isCrcValid()) {
    throw new CorruptRecordError(`record batch CRC mismatch: stored ${header.crc}, computed ${header.computeCrc()}`);
  }
  const count = header.recordsCount;
  if (count < 0) throw new CorruptRecordError(`negative record count ${count}`);
  const payload = decompress(header.compression, batch.subarray(BATCH_HEADER_SIZE), maxDecompressedBytes);
  if (count > payload.length / MIN_RECORD_SIZE) {
    throw new CorruptRecordError(`${count} records cannot fit in ${payload.length} bytes`);
  }
  return { header, records: decodeRecords(payload, count, header) };
}

function decodeRecords(payload: Buffer, count: number, header: BatchHeader): KafkaRecord[] {
  const reader = new Reader(payload);
  const baseOffset = header.baseOffset;
  const baseTimestamp = header.baseTimestamp;
  // With LogAppendTime the broker's time is only in the batch header (Kafka's DefaultRecord.readFrom).
  const logAppendTime = header.isLogAppendTime ? header.maxTimestamp : null;
  const records: KafkaRecord[] = [];
  try {
    for (let i = 0; i < count; i++) records.push(decodeRecord(reader, baseOffset, baseTimestamp, logAppendTime));
  } catch (e) {
    if (e instanceof DecodeError) throw new CorruptRecordError(`record ${records.length}: ${e.message}`, { cause: e });
    throw e;
  }
  if (reader.remaining !== 0) {
    throw new CorruptRecordError(`${reader.remaining} bytes left after the batch's ${count} records`);
  }
  return records;
}

function decodeRecord(reader: Reader, baseOffset: number, baseTimestamp: number, logAppendTime: number | null): KafkaRecord {
  const length = reader.varint();
  if (length < 0 || length > reader.remaining) throw new CorruptRecordError(`invalid record length ${length}`);
  const body = new Reader(reader.buf, reader.offset, reader.offset + length);
  reader.offset += length;
  body.int8(); // attributes: unused in v2
  const timestampDelta = body.varlong();
  const offsetDelta = body.varint();
  const key = varintBytes(body);
  const value = varintBytes(body);
  const headerCount = body.varint();
  if (headerCount < 0 || headerCount > body.remaining) throw new CorruptRecordError(`invalid header count ${headerCount}`);
  const headers: KafkaRecordHeader[] = [];
  for (let i = 0; i < headerCount; i++) {
    const keyBytes = varintBytes(body);
    if (keyBytes === null) throw new CorruptRecordError('null record header key');
    headers.push({ key: keyBytes.toString('utf8'), value: varintBytes(body) });
  }
  if (body.remaining !== 0) throw new CorruptRecordError(`record declares ${length} bytes but uses ${length - body.remaining}`);
  return {
    offset: baseOffset + offsetDelta,
    timestamp: logAppendTime ?? baseTimestamp + timestampDelta,
    key,
    value,
    headers,
  };
}

function varintBytes(reader: Reader): Buffer | null {
  const length = reader.varint();
  if (length === -1) return null;
  if (length < -1) throw new CorruptRecordError(`invalid length ${length}`);
  return reader.raw(length);
}

/** Encodes one v2 batch with a correct CRC32C; baseTimestamp/maxTimestamp come from the records. */
export function encodeBatch(options: BatchOptions): Buffer {
  const { baseOffset, records } = options;
  const compression = options.compression ?? CompressionType.None;
  const lastOffset = options.lastOffset ?? (records.length > 0 ? records[records.length - 1]!.offset : baseOffset);
  const lastOffsetDelta = checkedDelta(lastOffset, baseOffset, 'lastOffset');
  // Kafka's MemoryRecordsBuilder takes the first record's timestamp as the base; deltas may be negative.
  const baseTimestamp = options.deleteHorizonMs ?? (records.length > 0 ? records[0]!.timestamp : NO_TIMESTAMP);
  let maxTimestamp = NO_TIMESTAMP;
  for (const r of records) if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;

  const plainRecords = encodeRecords(records, baseOffset, baseTimestamp, lastOffsetDelta);
  const body = compress(compression, plainRecords, options.compressionLevel);
  const batch = Buffer.allocUnsafe(BATCH_HEADER_SIZE + body.length);
  body.copy(batch, BATCH_HEADER_SIZE);

  const attributes =
    compression |
    (options.timestampType === 'LogAppendTime' ? TIMESTAMP_TYPE_LOG_APPEND : 0) |
    (options.isTransactional ? TRANSACTIONAL_FLAG : 0) |
    (options.isControl ? CONTROL_FLAG : 0) |
    (options.deleteHorizonMs !== undefined ? DELETE_HORIZON_FLAG : 0);
  const header = new BatchHeader(batch, 0);
  header.setBaseOffset(baseOffset);
  batch.writeInt32BE(batch.length - LOG_OVERHEAD, BATCH_LENGTH);
  header.setPartitionLeaderEpoch(options.partitionLeaderEpoch ?? NO_PARTITION_LEADER_EPOCH);
  batch.writeInt8(CURRENT_MAGIC, MAGIC);
  batch.writeInt16BE(attributes, ATTRIBUTES);
  batch.writeInt32BE(lastOffsetDelta, LAST_OFFSET_DELTA);
  writeInt64(batch, baseTimestamp, BASE_TIMESTAMP);
  writeInt64(batch, maxTimestamp, MAX_TIMESTAMP);
  writeInt64(batch, options.producerId ?? NO_PRODUCER_ID, PRODUCER_ID);
  batch.writeInt16BE(options.producerEpoch ?? NO_PRODUCER_EPOCH, PRODUCER_EPOCH);
  batch.writeInt32BE(options.baseSequence ?? NO_SEQUENCE, BASE_SEQUENCE);
  batch.writeInt32BE(records.length, RECORDS_COUNT);
  batch.writeUInt32BE(header.computeCrc(), CRC);
  return batch;
}

function checkedDelta(offset: number, baseOffset: number, what: string): number {
  const delta = offset - baseOffset;
  if (!Number.isSafeInteger(delta) || delta < 0 || delta > 0x7fffffff) {
    throw new RangeError(`${what} ${offset} is not within int32 of baseOffset ${baseOffset}`);
  }
  return delta;
}

/** Header keys as UTF-8, encoded once for both sizing and writing. */
type EncodedHeaders = Array<[key: Buffer, value: Buffer | null]>;

function encodeRecords(records: KafkaRecord[], baseOffset: number, baseTimestamp: number, lastOffsetDelta: number): Buffer {
  const bodies: Array<{ size: number; headers: EncodedHeaders }> = [];
  let total = 0;
  let previousDelta = -1;
  for (const r of records) {
    const offsetDelta = checkedDelta(r.offset, baseOffset, 'record offset');
    if (offsetDelta <= previousDelta || offsetDelta > lastOffsetDelta) {
      throw new RangeError(`record offset ${r.offset} out of order or past the batch's last offset`);
    }
    previousDelta = offsetDelta;
    const headers: EncodedHeaders = r.headers.map((h) => [Buffer.from(h.key, 'utf8'), h.value]);
    let size =
      1 + varlongSize(r.timestamp - baseTimestamp) + varintSize(offsetDelta) +
      bytesSize(r.key) + bytesSize(r.value) + varintSize(headers.length);
    for (const [key, value] of headers) size += bytesSize(key) + bytesSize(value);
    bodies.push({ size, headers });
    total += varintSize(size) + size;
  }
  const writer = new Writer(Math.max(total, 1));
  records.forEach((r, i) => {
    const { size, headers } = bodies[i]!;
    writer.varint(size).int8(0).varlong(r.timestamp - baseTimestamp).varint(r.offset - baseOffset);
    writeVarintBytes(writer, r.key);
    writeVarintBytes(writer, r.value);
    writer.varint(headers.length);
    for (const [key, value] of headers) {
      writeVarintBytes(writer, key);
      writeVarintBytes(writer, value);
    }
  });
  return writer.toBuffer();
}

function writeVarintBytes(writer: Writer, bytes: Uint8Array | null): void {
  if (bytes === null) writer.varint(-1);
  else writer.varint(bytes.length).raw(bytes);
}

function bytesSize(bytes: Uint8Array | null): number {
  return bytes === null ? 1 : varintSize(bytes.length) + bytes.length;
}

function varintSize(v: number): number {
  return uvarintSize(((v << 1) ^ (v >> 31)) >>> 0);
}

function varlongSize(v: number): number {
  return uvarintSize(v >= 0 ? v * 2 : -v * 2 - 1);
}

function uvarintSize(u: number): number {
  let size = 1;
  while (u >= 0x80) {
    u = Math.floor(u / 0x80);
    size++;
  }
  return size;
}
