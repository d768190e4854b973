// The four record batch codecs, with Kafka's framing for each (kafka-docs/implementation.html,
// KIP-57 for LZ4, KIP-110 for ZSTD). All synchronous: the broker decompresses on its request path.
//
// Decompression is bounded. Before any native decoder allocates, the frame headers are walked to
// get an upper bound on the output (snappy and LZ4 record their block sizes, ZSTD its block sizes
// and content size; gzip is capped by zlib's maxOutputLength), so a small hostile batch cannot make
// us allocate gigabytes. The bound may exceed the true size by up to one block per frame (4 MiB at
// most for LZ4). The default cap is 10 × message.max.bytes' default (1048588): far above what
// producers' batch.size makes, so real batches are not refused.
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import type * as Zstd from '@toondepauw/node-zstd';
import type * as Lz4 from 'lz4-napi';
import type * as Snappy from 'snappy';
import { CompressionType } from './batch-header.js';
import { CorruptRecordError, RecordTooLargeError } from './errors.js';

export const DEFAULT_MAX_DECOMPRESSED_BYTES = 10 * 1048588;

/** Kafka's defaults: compression.gzip.level -1 (zlib's 6), compression.zstd.level 3. */
const GZIP_LEVEL = zlib.constants.Z_DEFAULT_COMPRESSION;
const ZSTD_LEVEL = 3;

// The three native codecs are loaded on first use: a broker that never decompresses or compresses a
// batch itself (a topic's compression.type, down-conversion, compaction) never maps them (8-10 MB of an
// idle broker's RSS, bench/startup.ts). require() keeps the codec paths synchronous.
const load = createRequire(import.meta.url);
let snappyModule: typeof Snappy | undefined;
let lz4Module: typeof Lz4 | undefined;
let zstdModule: typeof Zstd | undefined;
const snappy = (): typeof Snappy => (snappyModule ??= load('snappy') as typeof Snappy);
const lz4 = (): typeof Lz4 => (lz4Module ??= load('lz4-napi') as typeof Lz4);
const zstd = (): typeof Zstd => (zstdModule ??= load('@toondepauw/node-zstd') as typeof Zstd);

/** One encoder per zstd level in use: producers' default, and the topics' compression.zstd.level (KIP-390). */
const zstdEncoders = new Map<number, Zstd.Encoder>();
let zstdDecoder: Zstd.Decoder | undefined;

function zstdEncoder(level: number): Zstd.Encoder {
  let encoder = zstdEncoders.get(level);
  if (!encoder) zstdEncoders.set(level, (encoder = new (zstd().Encoder)(level)));
  return encoder;
}

/**
 * `level` is KIP-390's compression.gzip.level / compression.zstd.level (gzip -1: zlib's default). LZ4 is
 * written by lz4_flex, which has a single (fast) mode, so compression.lz4.level does not apply.
 */
export function compress(type: CompressionType, data: Buffer, level?: number): Buffer {
  switch (type) {
    case CompressionType.None:
      return data;
    case CompressionType.Gzip:
      return zlib.gzipSync(data, { level: level ?? GZIP_LEVEL });
    case CompressionType.Snappy:
      return snappy().compressSync(data, { copyOutputData: true });
    case CompressionType.Lz4:
      return lz4().compressFrameSync(data);
    case CompressionType.Zstd:
      return zstdEncoder(level ?? ZSTD_LEVEL).encodeSync(data);
    default:
      throw new CorruptRecordError(`unknown compression type ${type as number}`);
  }
}

/**
 * Decompresses one batch's records. Throws CorruptRecordError on malformed input and
 * RecordTooLargeError when the output would exceed `maxBytes`.
 */
export function decompress(type: CompressionType, data: Buffer, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Buffer {
  if (type === CompressionType.None) return data;
  // Every codec writes a header even for no data, so empty input is always truncated.
  if (data.length === 0) throw new CorruptRecordError(`empty ${CompressionType[type] ?? type} data`);
  if (type === CompressionType.Gzip) return gunzip(data, maxBytes);
  const bound = decompressedSizeBound(type, data);
  if (bound > maxBytes) {
    throw new RecordTooLargeError(`records would decompress to up to ${bound} bytes, more than the ${maxBytes} allowed`);
  }
  let out: Buffer;
  try {
    out = decompressBounded(type, data);
  } catch (e) {
    throw new CorruptRecordError(`invalid ${CompressionType[type]} data: ${(e as Error).message}`, { cause: e });
  }
  if (out.length > bound) throw new CorruptRecordError(`${CompressionType[type]} data larger than its framing declares`);
  return out;
}

function gunzip(data: Buffer, maxBytes: number): Buffer {
  try {
    return zlib.gunzipSync(data, { maxOutputLength: maxBytes });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new RecordTooLargeError(`gzip records decompress to more than the ${maxBytes} bytes allowed`);
    }
    throw new CorruptRecordError(`invalid gzip data: ${(e as Error).message}`, { cause: e });
  }
}

function decompressBounded(type: CompressionType, data: Buffer): Buffer {
  switch (type) {
    case CompressionType.Snappy:
      return isXerialFramed(data) ? xerialSnappyDecompress(data) : snappyUncompress(data);
    case CompressionType.Lz4:
      return lz4().decompressFrameSync(data);
    case CompressionType.Zstd:
      return (zstdDecoder ??= new (zstd().Decoder)()).decodeSync(data);
    default:
      throw new CorruptRecordError(`unknown compression type ${type as number}`);
  }
}

function decompressedSizeBound(type: CompressionType, data: Buffer): number {
  switch (type) {
    case CompressionType.Snappy:
      return isXerialFramed(data) ? xerialSizeBound(data) : snappyUncompressedLength(data, 0, data.length);
    case CompressionType.Lz4:
      return lz4SizeBound(data);
    case CompressionType.Zstd:
      return zstdSizeBound(data);
    default:
      throw new CorruptRecordError(`unknown compression type ${type as number}`);
  }
}

// --- snappy -------------------------------------------------------------------------------------
// The Java client writes snappy-java's "xerial" stream (magic, two int32 versions, then
// int32-length-prefixed raw snappy blocks); librdkafka and kafkajs write one raw snappy block.
// We read both. We write one raw block: every client reads it (snappy-java's SnappyInputStream
// falls back to raw when the magic is absent), while some (@platformatic/kafka) cannot read xerial.

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_SIZE = 16;

function isXerialFramed(data: Buffer): boolean {
  return data.length >= XERIAL_HEADER_SIZE && data.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC);
}

/** Visits each raw snappy block of a xerial stream; lengths are checked against the bytes there. */
function forEachXerialBlock(data: Buffer, visit: (start: number, end: number) => void): void {
  let pos = XERIAL_HEADER_SIZE;
  while (pos < data.length) {
    if (data.length - pos < 4) throw new CorruptRecordError('truncated xerial snappy block length');
    const length = data.readInt32BE(pos);
    pos += 4;
    if (length < 0 || length > data.length - pos) throw new CorruptRecordError(`invalid xerial snappy block length ${length}`);
    visit(pos, pos + length);
    pos += length;
  }
}

function xerialSizeBound(data: Buffer): number {
  let total = 0;
  forEachXerialBlock(data, (start, end) => { total += snappyUncompressedLength(data, start, end); });
  return total;
}

function xerialSnappyDecompress(data: Buffer): Buffer {
  const blocks: Buffer[] = [];
  forEachXerialBlock(data, (start, end) => { blocks.push(snappyUncompress(data.subarray(start, end))); });
  return Buffer.concat(blocks);
}

/** copyOutputData: a V8-owned copy is faster than napi's external buffers, which load the GC. */
function snappyUncompress(block: Buffer): Buffer {
  return snappy().uncompressSync(block, { asBuffer: true, copyOutputData: true }) as Buffer;
}

/** A raw snappy block starts with its uncompressed length as an unsigned varint (at most 32 bits). */
function snappyUncompressedLength(data: Buffer, start: number, end: number): number {
  let value = 0;
  for (let i = 0; i < 5 && start + i < end; i++) {
    const b = data[start + i]!;
    value += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) return value;
  }
  throw new CorruptRecordError('invalid snappy block preamble');
}

// --- LZ4 frame (lz4 frame format 1.6; KIP-57 made Kafka's header checksum standard) ----------------

const LZ4_MAGIC = 0x184d2204;
const LZ4_FLG_DICT_ID = 0x01;
const LZ4_FLG_CONTENT_CHECKSUM = 0x04;
const LZ4_FLG_CONTENT_SIZE = 0x08;
const LZ4_FLG_BLOCK_CHECKSUM = 0x10;
const LZ4_BLOCK_UNCOMPRESSED = 0x80000000;

/** Skippable frames (LZ4 and ZSTD share the range 0x184D2A50..5F) carry no content. */
function isSkippableFrame(magic: number): boolean {
  return (magic & 0xfffffff0) >>> 0 === 0x184d2a50;
}

class FrameCursor {
  pos = 0;
  constructor(private readonly data: Buffer, private readonly codec: string) {}
  get atEnd(): boolean { return this.pos >= this.data.length; }
  private need(n: number): void {
    if (this.data.length - this.pos < n) throw new CorruptRecordError(`truncated ${this.codec} frame`);
  }
  u8(): number { this.need(1); return this.data[this.pos++]!; }
  u24le(): number { this.need(3); const v = this.data.readUIntLE(this.pos, 3); this.pos += 3; return v; }
  u32le(): number { this.need(4); const v = this.data.readUInt32LE(this.pos); this.pos += 4; return v; }
  uintLE(n: number): number {
    this.need(n);
    const v = n === 8 ? Number(this.data.readBigUInt64LE(this.pos)) : n === 0 ? 0 : this.data.readUIntLE(this.pos, n);
    this.pos += n;
    return v;
  }
  skip(n: number): void { this.need(n); this.pos += n; }
}

function lz4SizeBound(data: Buffer): number {
  const cursor = new FrameCursor(data, 'lz4');
  let total = 0;
  while (!cursor.atEnd) {
    const magic = cursor.u32le();
    if (isSkippableFrame(magic)) { cursor.skip(cursor.u32le()); continue; }
    if (magic !== LZ4_MAGIC) throw new CorruptRecordError(`bad lz4 frame magic 0x${magic.toString(16)}`);
    const flg = cursor.u8();
    const blockMaxSizeId = (cursor.u8() >> 4) & 0x07;
    if (blockMaxSizeId < 4) throw new CorruptRecordError(`bad lz4 block maximum size id ${blockMaxSizeId}`);
    const blockMaxSize = 1 << (8 + 2 * blockMaxSizeId);
    cursor.skip((flg & LZ4_FLG_CONTENT_SIZE ? 8 : 0) + (flg & LZ4_FLG_DICT_ID ? 4 : 0) + 1);
    for (let blockSize = cursor.u32le(); blockSize !== 0; blockSize = cursor.u32le()) {
      const storedSize = blockSize & ~LZ4_BLOCK_UNCOMPRESSED;
      total += blockSize & LZ4_BLOCK_UNCOMPRESSED ? storedSize : blockMaxSize;
      cursor.skip(storedSize + (flg & LZ4_FLG_BLOCK_CHECKSUM ? 4 : 0));
    }
    if (flg & LZ4_FLG_CONTENT_CHECKSUM) cursor.skip(4);
  }
  return total;
}

// --- ZSTD frame (RFC 8878) --------------------------------------------------------------------------

const ZSTD_MAGIC = 0xfd2fb528;
const ZSTD_BLOCK_MAX_SIZE = 128 * 1024;
const ZSTD_DICT_ID_SIZES = [0, 1, 2, 4] as const;
const ZSTD_BLOCK_RAW = 0;
const ZSTD_BLOCK_RLE = 1;
const ZSTD_BLOCK_COMPRESSED = 2;

function zstdSizeBound(data: Buffer): number {
  const cursor = new FrameCursor(data, 'zstd');
  let total = 0;
  while (!cursor.atEnd) {
    const magic = cursor.u32le();
    if (isSkippableFrame(magic)) { cursor.skip(cursor.u32le()); continue; }
    if (magic !== ZSTD_MAGIC) throw new CorruptRecordError(`bad zstd frame magic 0x${magic.toString(16)}`);
    const descriptor = cursor.u8();
    const contentSizeFlag = descriptor >> 6;
    const singleSegment = (descriptor & 0x20) !== 0;
    const hasChecksum = (descriptor & 0x04) !== 0;
    if (!singleSegment) cursor.skip(1); // window descriptor
    cursor.skip(ZSTD_DICT_ID_SIZES[descriptor & 0x03]!);
    const contentSizeBytes = contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << contentSizeFlag;
    // A declared content size is what decoders allocate up front, so it is bounded as well.
    const contentSize = cursor.uintLE(contentSizeBytes) + (contentSizeBytes === 2 ? 256 : 0);
    let blocksBound = 0;
    for (let last = false; !last;) {
      const header = cursor.u24le();
      last = (header & 1) !== 0;
      const blockType = (header >> 1) & 0x03;
      const blockSize = header >>> 3;
      if (blockType === ZSTD_BLOCK_RAW) { blocksBound += blockSize; cursor.skip(blockSize); }
      else if (blockType === ZSTD_BLOCK_RLE) { blocksBound += blockSize; cursor.skip(1); }
      else if (blockType === ZSTD_BLOCK_COMPRESSED) { blocksBound += ZSTD_BLOCK_MAX_SIZE; cursor.skip(blockSize); }
      else throw new CorruptRecordError('reserved zstd block type');
    }
    if (hasChecksum) cursor.skip(4);
    total += Math.max(contentSize, blocksBound);
  }
  return total;
}
