import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BatchHeader, CRC, CompressionType, RECORDS_COUNT } from '../../../protocol/records/batch-header.js';
import { CorruptRecordError, RecordTooLargeError } from '../../../protocol/records/errors.js';
import { type KafkaRecord, decodeBatch, encodeBatch } from '../../../protocol/records/record-batch.js';

const CODECS = [CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd];

const nullableBytes = fc.option(fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)), { nil: null });

/** Records with ascending offsets (gaps allowed) and timestamps in any order, around now or far from it. */
const recordsArb = fc
  .record({
    baseOffset: fc.integer({ min: 0, max: 2 ** 52 }),
    firstTimestamp: fc.oneof(fc.integer({ min: 0, max: 2 ** 45 }), fc.constant(-1)),
    entries: fc.array(
      fc.record({
        gap: fc.integer({ min: 1, max: 1000 }),
        timestampDelta: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        key: nullableBytes,
        value: nullableBytes,
        headers: fc.array(fc.record({ key: fc.string({ unit: 'grapheme', maxLength: 20 }), value: nullableBytes }), { maxLength: 4 }),
      }),
      { maxLength: 40 },
    ),
  })
  .map(({ baseOffset, firstTimestamp, entries }) => {
    let offset = baseOffset - 1;
    const records: KafkaRecord[] = entries.map((e, i) => {
      offset += i === 0 ? 1 : e.gap;
      return { offset, timestamp: firstTimestamp + (i === 0 ? 0 : e.timestampDelta), key: e.key, value: e.value, headers: e.headers };
    });
    return { baseOffset, records };
  });

const record = (offset: number, value: string | null, timestamp = 1_700_000_000_000 + offset): KafkaRecord => ({
  offset,
  timestamp,
  key: Buffer.from(`k${offset}`),
  value: value === null ? null : Buffer.from(value),
  headers: [],
});

/** Rewrites the CRC so a test can reach the record parser with a deliberately broken body. */
function fixCrc(batch: Buffer): Buffer {
  batch.writeUInt32BE(new BatchHeader(batch, 0).computeCrc(), CRC);
  return batch;
}

describe('encodeBatch / decodeBatch', () => {
  it('round-trips arbitrary records with every codec', () => {
    fc.assert(
      fc.property(recordsArb, fc.constantFrom(...CODECS), ({ baseOffset, records }, compression) => {
        const batch = encodeBatch({ baseOffset, records, compression });
        const { header, records: decoded } = decodeBatch(batch);
        expect(decoded).toEqual(records);
        expect(header.isCrcValid()).toBe(true);
        expect(header.compression).toBe(compression);
        expect(header.baseOffset).toBe(baseOffset);
        expect(header.recordsCount).toBe(records.length);
        if (records.length > 0) {
          expect(header.lastOffset).toBe(records[records.length - 1]!.offset);
          expect(header.baseTimestamp).toBe(records[0]!.timestamp);
          expect(header.maxTimestamp).toBe(Math.max(...records.map((r) => r.timestamp)));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('keeps null and empty keys, values and header values apart', () => {
    const records: KafkaRecord[] = [
      { offset: 0, timestamp: 5, key: null, value: null, headers: [] },
      { offset: 1, timestamp: 5, key: Buffer.alloc(0), value: Buffer.alloc(0), headers: [{ key: '', value: null }] },
      { offset: 2, timestamp: 5, key: null, value: Buffer.from('v'), headers: [{ key: 'h', value: Buffer.alloc(0) }, { key: 'h', value: Buffer.from('é') }] },
    ];
    for (const compression of CODECS) {
      expect(decodeBatch(encodeBatch({ baseOffset: 0, records, compression })).records).toEqual(records);
    }
  });

  it('writes the producer, transaction, control and timestamp-type fields', () => {
    const batch = encodeBatch({
      baseOffset: 100,
      records: [record(100, 'a'), record(101, 'b')],
      compression: CompressionType.Zstd,
      producerId: 2 ** 40,
      producerEpoch: 7,
      baseSequence: 42,
      isTransactional: true,
      isControl: true,
      partitionLeaderEpoch: 3,
    });
    const header = new BatchHeader(batch, 0);
    expect(header.sizeInBytes).toBe(batch.length);
    expect(header.magic).toBe(2);
    expect([header.producerId, header.producerEpoch, header.baseSequence]).toEqual([2 ** 40, 7, 42]);
    expect([header.isTransactional, header.isControl, header.isLogAppendTime]).toEqual([true, true, false]);
    expect(header.partitionLeaderEpoch).toBe(3);
    expect(header.attributes).toBe(CompressionType.Zstd | 0x10 | 0x20);
  });

  it('uses Kafka\'s "none" values when producer fields are absent', () => {
    const header = new BatchHeader(encodeBatch({ baseOffset: 0, records: [record(0, 'a')] }), 0);
    expect([header.producerId, header.producerEpoch, header.baseSequence, header.partitionLeaderEpoch]).toEqual([-1, -1, -1, -1]);
  });

  it('gives every record the batch max timestamp under LogAppendTime', () => {
    const batch = encodeBatch({
      baseOffset: 0,
      records: [record(0, 'a', 1000), record(1, 'b', 3000), record(2, 'c', 2000)],
      timestampType: 'LogAppendTime',
    });
    expect(decodeBatch(batch).records.map((r) => r.timestamp)).toEqual([3000, 3000, 3000]);
    new BatchHeader(batch, 0).setLogAppendTime(9999);
    expect(decodeBatch(batch).records.map((r) => r.timestamp)).toEqual([9999, 9999, 9999]);
  });

  it('keeps an overridden last offset, also for an empty batch', () => {
    const filtered = encodeBatch({ baseOffset: 10, records: [record(12, 'x')], lastOffset: 19 });
    expect(new BatchHeader(filtered, 0).lastOffset).toBe(19);
    expect(decodeBatch(filtered).records.map((r) => r.offset)).toEqual([12]);

    const empty = encodeBatch({ baseOffset: 10, records: [], lastOffset: 19, producerId: 5, baseSequence: 3 });
    const { header, records } = decodeBatch(empty);
    expect(records).toEqual([]);
    expect([header.lastOffset, header.recordsCount, header.baseTimestamp, header.maxTimestamp]).toEqual([19, 0, -1, -1]);
  });

  it('rejects records out of order or outside the batch', () => {
    expect(() => encodeBatch({ baseOffset: 0, records: [record(1, 'a'), record(1, 'b')] })).toThrow(RangeError);
    expect(() => encodeBatch({ baseOffset: 5, records: [record(4, 'a')] })).toThrow(RangeError);
    expect(() => encodeBatch({ baseOffset: 0, records: [record(3, 'a')], lastOffset: 2 })).toThrow(RangeError);
    expect(() => encodeBatch({ baseOffset: 0, records: [record(2 ** 31, 'a')] })).toThrow(RangeError);
  });
});

describe('decodeBatch on malformed batches', () => {
  const good = encodeBatch({ baseOffset: 0, records: [record(0, 'hello'), record(1, null), record(2, 'world')] });

  it('rejects a corrupt CRC', () => {
    const batch = Buffer.from(good);
    batch[batch.length - 2]! ^= 0x01;
    expect(() => decodeBatch(batch)).toThrow(/CRC/);
    expect(() => decodeBatch(batch)).toThrow(CorruptRecordError);
  });

  it('rejects every truncation and any trailing bytes', () => {
    for (let length = 0; length < good.length; length++) {
      expect(() => decodeBatch(good.subarray(0, length))).toThrow(CorruptRecordError);
    }
    expect(() => decodeBatch(Buffer.concat([good, Buffer.alloc(1)]))).toThrow(CorruptRecordError);
  });

  it('rejects truncated compressed batches', () => {
    for (const compression of CODECS.slice(1)) {
      const batch = encodeBatch({ baseOffset: 0, records: [record(0, 'x'.repeat(500))], compression });
      const truncated = Buffer.from(batch.subarray(0, batch.length - 4));
      truncated.writeInt32BE(truncated.length - 12, 8);
      expect(() => decodeBatch(fixCrc(truncated))).toThrow(CorruptRecordError);
    }
  });

  it('rejects a record count that does not match the records, with a valid CRC', () => {
    for (const count of [2, 4, -1, 0x7fffffff]) {
      const batch = Buffer.from(good);
      batch.writeInt32BE(count, RECORDS_COUNT);
      expect(() => decodeBatch(fixCrc(batch))).toThrow(CorruptRecordError);
    }
  });

  it('rejects an unsupported magic', () => {
    const batch = Buffer.from(good);
    batch.writeInt8(1, 16);
    expect(() => decodeBatch(batch)).toThrow(/magic/);
  });

  it('rejects hostile record lengths without reading past the batch', () => {
    // First record starts right after the 61-byte header with its length varint.
    const batch = Buffer.from(good);
    batch[61] = 0x7e; // record length 63: longer than the rest of the record
    expect(() => decodeBatch(fixCrc(batch))).toThrow(CorruptRecordError);
  });

  it('passes the decompression limit through', () => {
    const big = encodeBatch({ baseOffset: 0, records: [record(0, 'z'.repeat(100_000))], compression: CompressionType.Gzip });
    expect(() => decodeBatch(big, 50_000)).toThrow(RecordTooLargeError);
    expect(decodeBatch(big, 200_000).records[0]!.value!.length).toBe(100_000);
  });

  it('throws only CorruptRecordError for any byte flipped under a valid CRC', () => {
    const samples = CODECS.map((compression) =>
      encodeBatch({ baseOffset: 0, records: [record(0, 'a'), { ...record(1, 'bb'), headers: [{ key: 'h', value: Buffer.from('v') }] }], compression }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), fc.integer({ min: 1, max: 255 }), (sample, at, xor) => {
        const batch = Buffer.from(sample);
        const pos = 21 + (at % (batch.length - 21)); // attributes onwards: the CRC-covered bytes
        batch[pos]! ^= xor;
        try {
          decodeBatch(fixCrc(batch));
        } catch (e) {
          expect(e instanceof CorruptRecordError || e instanceof RecordTooLargeError).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
