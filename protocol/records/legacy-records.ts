// Message formats v0 and v1 (magic 0 and 1), which clients older than Kafka 0.11 still write and read
// (kafka-docs/implementation.html, "Old Message Format"; Kafka's LegacyRecord and AbstractLegacyRecordBatch):
//   entry:   offset int64, message_size int32, message
//   message: crc int32 (CRC32, not CRC32C, over magic..end), magic int8, attributes int8,
//            timestamp int64 (v1 only), key and value as int32-length bytes (-1 = null).
// A compressed message set travels as one wrapper message whose value is the compressed inner
// message set. The wrapper's offset is the offset of its last inner message; v1 inner messages carry
// offsets relative to the first (0..n-1), v0 inner messages carry absolute offsets.
import { crc32 } from '@node-rs/crc32';
import { readInt64, writeInt64 } from '../primitives.js';
import { COMPRESSION_MASK, CompressionType } from './batch-header.js';
import { DEFAULT_MAX_DECOMPRESSED_BYTES, compress, decompress } from './compression.js';
import { CorruptRecordError, InvalidRecordError, UnsupportedCompressionTypeError } from './errors.js';

const MAGIC_V0 = 0;
const MAGIC_V1 = 1;
export type LegacyMagic = typeof MAGIC_V0 | typeof MAGIC_V1;

/** offset + message_size, as for batches. */
const ENTRY_OVERHEAD = 12;
const CRC_OFFSET = ENTRY_OVERHEAD;
const MAGIC_OFFSET = CRC_OFFSET + 4;
const ATTRIBUTES_OFFSET = MAGIC_OFFSET + 1;
const TIMESTAMP_OFFSET = ATTRIBUTES_OFFSET + 1;
/** Bytes of a message without key and value: crc, magic, attributes, [timestamp], key and value lengths. */
const MESSAGE_OVERHEAD = [4 + 1 + 1 + 4 + 4, 4 + 1 + 1 + 8 + 4 + 4] as const;
const TIMESTAMP_TYPE_LOG_APPEND = 0x08;
/** v0 messages have no timestamp (Kafka's RecordBatch.NO_TIMESTAMP). */
const NO_TIMESTAMP = -1;

interface LegacyRecord {
  offset: number;
  magic: LegacyMagic;
  /** NO_TIMESTAMP (-1) for v0. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
}

/** One top-level entry: a plain message, or a compressed wrapper with its inner messages. */
export interface LegacyEntry {
  compression: CompressionType;
  logAppendTime: boolean;
  records: LegacyRecord[];
}

/**
 * Decodes a whole message set (as a v0-2 Produce request carries it), checking every CRC and
 * decompressing wrappers (bounded by `maxDecompressedBytes`). A trailing partial message is an error:
 * producers never send one.
 */
export function decodeMessageSet(buf: Buffer, maxDecompressedBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): LegacyEntry[] {
  const entries: LegacyEntry[] = [];
  for (let pos = 0; pos < buf.length;) {
    const message = readMessage(buf, pos);
    pos = message.end;
    if (message.compression === CompressionType.None) {
      entries.push({ compression: CompressionType.None, logAppendTime: message.logAppendTime, records: [message.record] });
      continue;
    }
    entries.push({ compression: message.compression, logAppendTime: message.logAppendTime, records: innerRecords(message, maxDecompressedBytes) });
  }
  if (entries.length === 0) throw new CorruptRecordError('empty message set');
  return entries;
}

interface RawMessage {
  record: LegacyRecord;
  compression: CompressionType;
  logAppendTime: boolean;
  end: number;
}

function readMessage(buf: Buffer, pos: number): RawMessage {
  if (buf.length - pos < ENTRY_OVERHEAD) throw new CorruptRecordError(`${buf.length - pos} trailing bytes after the last message`);
  const size = buf.readInt32BE(pos + 8);
  const end = pos + ENTRY_OVERHEAD + size;
  if (size < MESSAGE_OVERHEAD[0] || end > buf.length) throw new CorruptRecordError(`message at ${pos} has impossible size ${size}`);
  const magic = buf.readInt8(pos + MAGIC_OFFSET);
  if (magic !== MAGIC_V0 && magic !== MAGIC_V1) throw new InvalidRecordError(`message at ${pos} has magic ${magic}, expected 0 or 1`);
  if (size < MESSAGE_OVERHEAD[magic]) throw new CorruptRecordError(`message at ${pos} is too small for magic ${magic}`);
  const stored = buf.readUInt32BE(pos + CRC_OFFSET);
  const computed = crc32(buf.subarray(pos + MAGIC_OFFSET, end)) >>> 0;
  if (stored !== computed) throw new CorruptRecordError(`message CRC mismatch at ${pos}: stored ${stored}, computed ${computed}`);
  const attributes = buf.readInt8(pos + ATTRIBUTES_OFFSET);
  const compression = (attributes & COMPRESSION_MASK) as CompressionType;
  if (compression > CompressionType.Lz4) {
    throw new UnsupportedCompressionTypeError(`compression type ${compression} needs message format v2, the message has magic ${magic}`);
  }
  let cursor = pos + (magic === MAGIC_V1 ? TIMESTAMP_OFFSET + 8 : TIMESTAMP_OFFSET);
  const timestamp = magic === MAGIC_V1 ? readInt64(buf, TIMESTAMP_OFFSET + pos) : NO_TIMESTAMP;
  const key = readBytes(buf, cursor, end);
  cursor += 4 + (key?.length ?? 0);
  const value = readBytes(buf, cursor, end);
  cursor += 4 + (value?.length ?? 0);
  if (cursor !== end) throw new CorruptRecordError(`message at ${pos} declares ${size} bytes but uses ${cursor - pos - ENTRY_OVERHEAD}`);
  return {
    record: { offset: readInt64(buf, pos), magic, timestamp, key, value },
    compression,
    logAppendTime: magic === MAGIC_V1 && (attributes & TIMESTAMP_TYPE_LOG_APPEND) !== 0,
    end,
  };
}

function readBytes(buf: Buffer, pos: number, end: number): Buffer | null {
  if (end - pos < 4) throw new CorruptRecordError('truncated message');
  const length = buf.readInt32BE(pos);
  if (length === -1) return null;
  if (length < -1 || pos + 4 + length > end) throw new CorruptRecordError(`invalid length ${length}`);
  return buf.subarray(pos + 4, pos + 4 + length);
}

/** The inner messages of a wrapper, with absolute offsets and the wrapper's LogAppendTime applied. */
function innerRecords(wrapper: RawMessage, maxDecompressedBytes: number): LegacyRecord[] {
  const { record } = wrapper;
  if (record.value === null) throw new CorruptRecordError('compressed wrapper message without a value');
  const compressed = record.magic === MAGIC_V0 && wrapper.compression === CompressionType.Lz4 ? fixLz4HeaderChecksum(record.value) : record.value;
  const inner = decompress(wrapper.compression, compressed, maxDecompressedBytes);
  const records: LegacyRecord[] = [];
  for (let pos = 0; pos < inner.length;) {
    const message = readMessage(inner, pos);
    if (message.compression !== CompressionType.None) throw new CorruptRecordError('nested compressed message');
    if (message.record.magic !== record.magic) throw new CorruptRecordError(`inner magic ${message.record.magic} in a magic ${record.magic} wrapper`);
    records.push(message.record);
    pos = message.end;
  }
  if (records.length === 0) throw new CorruptRecordError('compressed wrapper without messages');
  if (record.magic === MAGIC_V1) {
    // Kafka's AbstractLegacyRecordBatch: absolute = wrapper offset - last relative offset + relative offset.
    const lastRelative = records[records.length - 1]!.offset;
    for (const r of records) r.offset = record.offset - lastRelative + r.offset;
    if (wrapper.logAppendTime) for (const r of records) r.timestamp = record.timestamp;
  }
  return records;
}

export interface LegacyEncodeOptions {
  magic: LegacyMagic;
  compression: CompressionType;
  /** Absolute offsets, ascending. */
  records: ReadonlyArray<{ offset: number; timestamp: number; key: Buffer | null; value: Buffer | null }>;
  /** v1: the wrapper carries this LogAppendTime (and the inner messages their create times, ignored by readers). */
  logAppendTime?: number;
}

/**
 * Encodes records as top-level entries of a message set: one entry per message when uncompressed,
 * a single wrapper when compressed. Returned per entry so a caller can stop at a byte limit.
 */
export function encodeMessageSet(options: LegacyEncodeOptions): Buffer[] {
  const { magic, compression, records } = options;
  if (records.length === 0) return [];
  if (compression > CompressionType.Lz4) throw new UnsupportedCompressionTypeError(`compression type ${compression} cannot be written with magic ${magic}`);
  const logAppendTime = magic === MAGIC_V1 && options.logAppendTime !== undefined;
  if (compression === CompressionType.None) {
    const attributes = logAppendTime ? TIMESTAMP_TYPE_LOG_APPEND : 0;
    return writeMessages(magic, records, (r) => r.offset, attributes, (r) => (logAppendTime ? options.logAppendTime! : r.timestamp));
  }
  const first = records[0]!.offset;
  const messages = writeMessages(magic, records, (r) => (magic === MAGIC_V1 ? r.offset - first : r.offset), 0, (r) => r.timestamp);
  // The messages are consecutive views of one buffer: the whole inner message set.
  const inner = Buffer.from(messages[0]!.buffer, messages[0]!.byteOffset, messages.reduce((n, m) => n + m.length, 0));
  let value = compress(compression, inner);
  if (magic === MAGIC_V0 && compression === CompressionType.Lz4) value = breakLz4HeaderChecksum(value);
  const last = records[records.length - 1]!;
  let wrapperTimestamp = NO_TIMESTAMP;
  for (const r of records) if (r.timestamp > wrapperTimestamp) wrapperTimestamp = r.timestamp;
  const attributes = compression | (logAppendTime ? TIMESTAMP_TYPE_LOG_APPEND : 0);
  const wrapper = { offset: last.offset, timestamp: logAppendTime ? options.logAppendTime! : wrapperTimestamp, key: null, value };
  return writeMessages(magic, [wrapper], (r) => r.offset, attributes, (r) => r.timestamp);
}

type MessageFields = LegacyEncodeOptions['records'][number];

/** Writes the messages into one buffer (one allocation for the lot) and returns a view of each. */
function writeMessages(
  magic: LegacyMagic, records: ReadonlyArray<MessageFields>, offsetOf: (r: MessageFields) => number, attributes: number,
  timestampOf: (r: MessageFields) => number,
): Buffer[] {
  let total = 0;
  for (const r of records) total += ENTRY_OVERHEAD + MESSAGE_OVERHEAD[magic] + (r.key?.length ?? 0) + (r.value?.length ?? 0);
  const buf = Buffer.allocUnsafe(total);
  const views: Buffer[] = [];
  let start = 0;
  for (const r of records) {
    const size = MESSAGE_OVERHEAD[magic] + (r.key?.length ?? 0) + (r.value?.length ?? 0);
    writeInt64(buf, offsetOf(r), start);
    buf.writeInt32BE(size, start + 8);
    buf.writeInt8(magic, start + MAGIC_OFFSET);
    buf.writeInt8(attributes, start + ATTRIBUTES_OFFSET);
    let pos = start + TIMESTAMP_OFFSET;
    if (magic === MAGIC_V1) {
      writeInt64(buf, timestampOf(r), pos);
      pos += 8;
    }
    pos = writeBytes(buf, pos, r.key);
    writeBytes(buf, pos, r.value);
    const end = start + ENTRY_OVERHEAD + size;
    buf.writeUInt32BE(crc32(buf.subarray(start + MAGIC_OFFSET, end)) >>> 0, start + CRC_OFFSET);
    views.push(buf.subarray(start, end));
    start = end;
  }
  return views;
}

function writeBytes(buf: Buffer, pos: number, bytes: Buffer | null): number {
  if (bytes === null) {
    buf.writeInt32BE(-1, pos);
    return pos + 4;
  }
  buf.writeInt32BE(bytes.length, pos);
  bytes.copy(buf, pos + 4);
  return pos + 4 + bytes.length;
}

// --- LZ4 under magic 0 ------------------------------------------------------------------------------
// Before KIP-57, Kafka computed the LZ4 frame's header checksum over the magic number as well as the
// frame descriptor, and magic-0 messages keep that broken checksum (Kafka's KafkaLZ4BlockOutputStream
// with useBrokenFlagDescriptorChecksum; librdkafka writes it too). Reading, we put the standard checksum
// back so any LZ4 decoder accepts the frame; writing for magic 0, we break it as old readers expect.

const LZ4_MAGIC_SIZE = 4;

function lz4DescriptorEnd(frame: Buffer): number {
  if (frame.length < LZ4_MAGIC_SIZE + 3) throw new CorruptRecordError('truncated lz4 frame');
  const flg = frame[LZ4_MAGIC_SIZE]!;
  return LZ4_MAGIC_SIZE + 2 + (flg & 0x08 ? 8 : 0) + (flg & 0x01 ? 4 : 0);
}

function withHeaderChecksum(frame: Buffer, from: number): Buffer {
  const end = lz4DescriptorEnd(frame);
  if (end >= frame.length) throw new CorruptRecordError('truncated lz4 frame');
  const out = Buffer.from(frame);
  out[end] = (xxh32(frame.subarray(from, end)) >>> 8) & 0xff;
  return out;
}

function fixLz4HeaderChecksum(frame: Buffer): Buffer {
  return withHeaderChecksum(frame, LZ4_MAGIC_SIZE);
}

function breakLz4HeaderChecksum(frame: Buffer): Buffer {
  return withHeaderChecksum(frame, 0);
}

const P1 = 2654435761;
const P2 = 2246822519;
const P3 = 3266489917;
const P4 = 668265263;
const P5 = 374761393;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** XXH32 with seed 0: the checksum of LZ4 frame headers. */
export function xxh32(data: Buffer): number {
  const len = data.length;
  let pos = 0;
  let h: number;
  if (len >= 16) {
    let v1 = (P1 + P2) | 0;
    let v2 = P2 | 0;
    let v3 = 0;
    let v4 = -P1 | 0;
    const round = (v: number, input: number): number => Math.imul(rotl((v + Math.imul(input, P2)) | 0, 13), P1);
    for (; pos + 16 <= len; pos += 16) {
      v1 = round(v1, data.readUInt32LE(pos));
      v2 = round(v2, data.readUInt32LE(pos + 4));
      v3 = round(v3, data.readUInt32LE(pos + 8));
      v4 = round(v4, data.readUInt32LE(pos + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = P5 | 0;
  }
  h = (h + len) | 0;
  for (; pos + 4 <= len; pos += 4) h = Math.imul(rotl((h + Math.imul(data.readUInt32LE(pos), P3)) | 0, 17), P4);
  for (; pos < len; pos++) h = Math.imul(rotl((h + Math.imul(data[pos]!, P5)) | 0, 11), P1);
  h ^= h >>> 15;
  h = Math.imul(h, P2);
  h ^= h >>> 13;
  h = Math.imul(h, P3);
  h ^= h >>> 16;
  return h >>> 0;
}
