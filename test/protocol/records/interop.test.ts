// Batches built by real clients' own encoders decode with ours, and ours decode with theirs.
// kafkajs ships gzip only; like its codec plugins (kafkajs-snappy: raw snappy, kafkajs-lz4: LZ4
// frames), the other codecs are registered here with plain codec libraries, so kafkajs still
// does all of the batch and record framing itself.
import { createRequire } from 'node:module';
import zstd from '@toondepauw/node-zstd';
import lz4 from 'lz4-napi';
import snappy from 'snappy';
import { Reader as PlatformaticReader, createRecordsBatch, readRecordsBatch } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { BatchHeader, CompressionType } from '../../../protocol/records/batch-header.js';
import { type KafkaRecord, decodeBatch, encodeBatch } from '../../../protocol/records/record-batch.js';

const require = createRequire(import.meta.url);
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0');
const KafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
const decodeKafkajsBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');
const KafkajsDecoder = require('kafkajs/src/protocol/decoder');
const Long = require('kafkajs/src/utils/long');
const { Codecs, Types } = require('kafkajs/src/protocol/message/compression');

const zstdEncoder = new zstd.Encoder(3);
const zstdDecoder = new zstd.Decoder();
Codecs[Types.Snappy] = () => ({
  compress: async (encoder: { buffer: Buffer }) => snappy.compressSync(encoder.buffer),
  decompress: async (buffer: Buffer) => snappy.uncompressSync(buffer, { asBuffer: true }),
});
Codecs[Types.LZ4] = () => ({
  compress: async (encoder: { buffer: Buffer }) => lz4.compressFrameSync(encoder.buffer),
  decompress: async (buffer: Buffer) => lz4.decompressFrameSync(buffer),
});
Codecs[Types.ZSTD] = () => ({
  compress: async (encoder: { buffer: Buffer }) => zstdEncoder.encodeSync(encoder.buffer),
  decompress: async (buffer: Buffer) => zstdDecoder.decodeSync(buffer),
});

const ALL_CODECS = [CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd];
const BASE_TIMESTAMP = 1_700_000_000_000;

/** Records kafkajs can express: headers with distinct keys (it takes them as an object). */
function sampleRecords(baseOffset: number): KafkaRecord[] {
  return Array.from({ length: 25 }, (_, i) => ({
    offset: baseOffset + i * 2, // gaps, as in a compacted batch
    timestamp: BASE_TIMESTAMP + (i % 5) * 1000 - 2000,
    key: i % 4 === 0 ? null : Buffer.from(`key-${i}`),
    value: i % 7 === 0 ? null : Buffer.from(JSON.stringify({ i, text: 'value '.repeat(i) })),
    headers: i % 3 === 0 ? [] : [{ key: 'trace', value: Buffer.from(`t${i}`) }, { key: 'ünïcode', value: null }],
  }));
}

async function encodeWithKafkajs(baseOffset: number, records: KafkaRecord[], compression: CompressionType): Promise<Buffer> {
  const firstTimestamp = records[0]!.timestamp;
  const encoded = await RecordBatch({
    compression,
    firstOffset: Long.fromNumber(baseOffset),
    firstTimestamp,
    maxTimestamp: Math.max(...records.map((r) => r.timestamp)),
    lastOffsetDelta: records[records.length - 1]!.offset - baseOffset,
    producerId: Long.fromNumber(4000),
    producerEpoch: 2,
    firstSequence: 77,
    transactional: true,
    records: records.map((r) =>
      KafkajsRecord({
        offsetDelta: r.offset - baseOffset,
        timestampDelta: r.timestamp - firstTimestamp,
        key: r.key,
        value: r.value,
        headers: Object.fromEntries(r.headers.map((h) => [h.key, h.value])),
      }),
    ),
  });
  return encoded.buffer;
}

describe('kafkajs', () => {
  it.each(ALL_CODECS)('its batches decode with ours (compression %i)', async (compression) => {
    // kafkajs's encoder cannot size a null header value, so these are empty instead.
    const records = sampleRecords(1000).map((r) => ({ ...r, headers: r.headers.map((h) => ({ key: h.key, value: h.value ?? Buffer.alloc(0) })) }));
    const batch = await encodeWithKafkajs(1000, records, compression);
    const { header, records: decoded } = decodeBatch(batch);
    expect(decoded).toEqual(records);
    expect(header.compression).toBe(compression);
    expect([header.producerId, header.producerEpoch, header.baseSequence, header.isTransactional]).toEqual([4000, 2, 77, true]);
  });

  it.each(ALL_CODECS)('our batches decode with its decoder (compression %i)', async (compression) => {
    const records = sampleRecords(2 ** 40);
    const batch = encodeBatch({ baseOffset: 2 ** 40, records, compression, producerId: 9, producerEpoch: 1, baseSequence: 5 });
    const decoded = await decodeKafkajsBatch(new KafkajsDecoder(batch));
    expect(decoded.firstOffset).toBe(String(2 ** 40));
    expect([decoded.producerId, decoded.producerEpoch, decoded.firstSequence]).toEqual(['9', 1, 5]);
    expect(decoded.records.map((r: any) => ({
      offset: Number(r.offset),
      timestamp: Number(r.timestamp),
      key: r.key,
      value: r.value,
      headers: Object.entries(r.headers).map(([key, value]) => ({ key, value })),
    }))).toEqual(records);
  });
});

describe('@platformatic/kafka', () => {
  // Its zstd is node:zlib's (Node 22.15+, every tested line).
  const codecs = [['none', CompressionType.None], ['gzip', CompressionType.Gzip], ['snappy', CompressionType.Snappy], ['lz4', CompressionType.Lz4], ['zstd', CompressionType.Zstd]] as const;

  it.each(codecs)('its batches decode with ours (%s)', (name, compression) => {
    const messages = Array.from({ length: 30 }, (_, i) => ({
      topic: 't',
      key: Buffer.from(`k${i}`),
      value: Buffer.from(`value number ${i} `.repeat(i + 1)),
      headers: new Map([[Buffer.from('h1'), Buffer.from(`x${i}`)]]),
      timestamp: BigInt(BASE_TIMESTAMP + i),
    }));
    const batch: Buffer = createRecordsBatch(messages, { compression: name, producerId: 12n, producerEpoch: 3 }).buffer;
    const { header, records } = decodeBatch(batch);
    expect(header.compression).toBe(compression);
    expect(header.producerId).toBe(12);
    expect(records).toEqual(messages.map((m, i) => ({
      offset: i,
      timestamp: Number(m.timestamp),
      key: m.key,
      value: m.value,
      headers: [{ key: 'h1', value: Buffer.from(`x${i}`) }],
    })));
  });

  it.each(codecs)('our batches decode with its reader (%s)', (_name, compression) => {
    const records = sampleRecords(500);
    const batch = encodeBatch({ baseOffset: 500, records, compression });
    const decoded = readRecordsBatch(PlatformaticReader.from(batch));
    expect(decoded.firstOffset).toBe(500n);
    expect(decoded.crc).toBe(new BatchHeader(batch, 0).crc);
    expect(decoded.records.map((r) => ({
      offset: 500 + r.offsetDelta,
      timestamp: Number(decoded.firstTimestamp + r.timestampDelta),
      key: r.key,
      value: r.value,
      headers: r.headers.map(([key, value]) => ({ key: key!.toString(), value })),
    }))).toEqual(records);
  });
});
