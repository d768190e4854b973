import { crc32 } from '@node-rs/crc32';
import fc from 'fast-check';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BatchHeader, CompressionType, batchesIn } from '../../../protocol/records/batch-header.js';
import { compress } from '../../../protocol/records/compression.js';
import { CorruptRecordError, RecordError, UnsupportedCompressionTypeError } from '../../../protocol/records/errors.js';
import { decodeMessageSet, encodeMessageSet, xxh32 } from '../../../protocol/records/legacy-records.js';
import { downConvertBatches, upConvertMessageSet } from '../../../protocol/records/message-conversion.js';
import { decodeBatch, encodeBatch } from '../../../protocol/records/record-batch.js';

const LEGACY_CODECS = [CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4];

/** A message written field by field from the format description, independently of the encoder. */
function handMessage(offset: bigint, magic: 0 | 1, attributes: number, timestamp: bigint, key: Buffer | null, value: Buffer | null): Buffer {
  const body: Buffer[] = [Buffer.from([magic, attributes])];
  if (magic === 1) { const t = Buffer.alloc(8); t.writeBigInt64BE(timestamp); body.push(t); }
  for (const b of [key, value]) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(b === null ? -1 : b.length);
    body.push(len);
    if (b) body.push(b);
  }
  const content = Buffer.concat(body);
  const head = Buffer.alloc(16);
  head.writeBigInt64BE(offset, 0);
  head.writeInt32BE(content.length + 4, 8);
  head.writeUInt32BE(crc32(content) >>> 0, 12);
  return Buffer.concat([head, content]);
}

describe('message format v0/v1 codec', () => {
  it('decodes hand-written v0 and v1 messages, CRC32 and all', () => {
    const set = Buffer.concat([
      handMessage(0n, 0, 0, 0n, Buffer.from('k0'), Buffer.from('v0')),
      handMessage(1n, 1, 0, 1700000000123n, null, Buffer.from('v1')),
    ]);
    const entries = decodeMessageSet(set);
    expect(entries.map((e) => e.records[0])).toEqual([
      { offset: 0, magic: 0, timestamp: -1, key: Buffer.from('k0'), value: Buffer.from('v0') },
      { offset: 1, magic: 1, timestamp: 1700000000123, key: null, value: Buffer.from('v1') },
    ]);
    expect(encodeMessageSet({ magic: 1, compression: CompressionType.None, records: [{ offset: 1, timestamp: 1700000000123, key: null, value: Buffer.from('v1') }] })[0])
      .toEqual(handMessage(1n, 1, 0, 1700000000123n, null, Buffer.from('v1')));
  });

  it('reads a hand-made gzip wrapper with v1 relative inner offsets', () => {
    const inner = Buffer.concat([0, 1, 2].map((i) => handMessage(BigInt(i), 1, 0, 1000n + BigInt(i), null, Buffer.from(`m${i}`))));
    const wrapper = handMessage(41n, 1, CompressionType.Gzip, 1002n, null, zlib.gzipSync(inner));
    const [entry] = decodeMessageSet(wrapper);
    expect(entry!.compression).toBe(CompressionType.Gzip);
    expect(entry!.records.map((r) => [r.offset, r.timestamp, r.value!.toString()])).toEqual([[39, 1000, 'm0'], [40, 1001, 'm1'], [41, 1002, 'm2']]);
  });

  it('rejects a bad CRC, a truncated message and zstd', () => {
    const good = handMessage(0n, 1, 0, 5n, null, Buffer.from('x'));
    const bad = Buffer.from(good);
    bad[bad.length - 1] ^= 1;
    expect(() => decodeMessageSet(bad)).toThrow(CorruptRecordError);
    expect(() => decodeMessageSet(good.subarray(0, good.length - 1))).toThrow(CorruptRecordError);
    expect(() => decodeMessageSet(handMessage(0n, 1, CompressionType.Zstd, 5n, null, Buffer.from('x')))).toThrow(UnsupportedCompressionTypeError);
  });

  for (const magic of [0, 1] as const) {
    for (const compression of LEGACY_CODECS) {
      it(`round-trips magic ${magic} ${CompressionType[compression]}`, () => {
        const records = [5, 6, 9].map((offset) => ({ offset, timestamp: magic === 1 ? 1000 + offset : -1, key: offset === 6 ? null : Buffer.from(`k${offset}`), value: Buffer.from(`value ${offset} `.repeat(20)) }));
        const entries = encodeMessageSet({ magic, compression, records });
        expect(entries).toHaveLength(compression === CompressionType.None ? 3 : 1);
        const attributes = entries[0]!.readInt8(17);
        expect(attributes & 7).toBe(compression);
        const decoded = decodeMessageSet(Buffer.concat(entries)).flatMap((e) => e.records);
        expect(decoded.map((r) => ({ offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value }))).toEqual(records);
      });
    }
  }

  it('writes the broken pre-KIP-57 LZ4 header checksum under magic 0, the standard one under magic 1', () => {
    const records = [{ offset: 0, timestamp: -1, key: null, value: Buffer.from('lz4 lz4 lz4 lz4') }];
    // Standard XXH32 test vectors, then the header checksums.
    expect(xxh32(Buffer.alloc(0))).toBe(0x02cc5d05);
    expect(xxh32(Buffer.from('abc'))).toBe(0x32d153ff);
    expect(xxh32(Buffer.from('Nobody inspects the spammish repetition'))).toBe(0xe2293b2f);
    const standard = compress(CompressionType.Lz4, Buffer.from('x'));
    expect(standard[6]).toBe((xxh32(standard.subarray(4, 6)) >>> 8) & 0xff);
    const v0 = encodeMessageSet({ magic: 0, compression: CompressionType.Lz4, records })[0]!;
    // entry header 12, crc 4, magic 1, attributes 1, null key 4, value length 4 (+ timestamp 8 in v1)
    const frame0 = v0.subarray(26);
    expect(frame0.readUInt32LE(0)).toBe(0x184d2204);
    expect(frame0[6]).toBe((xxh32(frame0.subarray(0, 6)) >>> 8) & 0xff);
    const v1 = encodeMessageSet({ magic: 1, compression: CompressionType.Lz4, records })[0]!;
    const frame1 = v1.subarray(34);
    expect(frame1.readUInt32LE(0)).toBe(0x184d2204);
    expect(frame1[6]).toBe((xxh32(frame1.subarray(4, 6)) >>> 8) & 0xff);
  });
});

describe('conversion to and from record batch v2', () => {
  it('up-converts: one v2 batch per wrapper with its codec, v0 stamped with the broker clock, v1 keeping timestamps', () => {
    const now = 1_800_000_000_000;
    const set = Buffer.concat([
      handMessage(0n, 0, 0, 0n, Buffer.from('a'), Buffer.from('1')),
      handMessage(0n, 0, 0, 0n, Buffer.from('b'), Buffer.from('2')),
      ...encodeMessageSet({ magic: 1, compression: CompressionType.Snappy, records: [0, 1].map((o) => ({ offset: o, timestamp: 1234 + o, key: null, value: Buffer.from(`s${o}`) })) }),
    ]);
    const v2 = upConvertMessageSet(set, now);
    const headers = [...batchesIn(v2)];
    expect(headers.map((h) => [h.magic, h.compression, h.recordsCount, h.lastOffsetDelta])).toEqual([[2, 0, 2, 1], [2, CompressionType.Snappy, 2, 1]]);
    const first = decodeBatch(v2.subarray(0, headers[0]!.sizeInBytes)).records;
    expect(first.map((r) => [r.offset, r.timestamp, r.key!.toString(), r.value!.toString()])).toEqual([[0, now, 'a', '1'], [1, now, 'b', '2']]);
    const second = decodeBatch(v2.subarray(headers[1]!.pos)).records;
    expect(second.map((r) => [r.offset, r.timestamp, r.value!.toString()])).toEqual([[0, 1234, 's0'], [1, 1235, 's1']]);
  });

  it('down-converts from the fetch offset, drops control batches and headers, keeps codecs, stops at max bytes', () => {
    const rec = (offset: number): { offset: number; timestamp: number; key: Buffer; value: Buffer; headers: Array<{ key: string; value: Buffer }> } =>
      ({ offset, timestamp: 5000 + offset, key: Buffer.from(`k${offset}`), value: Buffer.from(`v${offset}`), headers: [{ key: 'h', value: Buffer.from('x') }] });
    const log = Buffer.concat([
      encodeBatch({ baseOffset: 10, records: [10, 11, 12].map(rec), compression: CompressionType.Gzip }),
      encodeBatch({ baseOffset: 13, records: [13].map(rec), isControl: true, isTransactional: true, producerId: 7 }),
      // Transactional data stays: fetchers below v4 read uncommitted.
      encodeBatch({ baseOffset: 14, records: [14, 15].map(rec), isTransactional: true, producerId: 7, producerEpoch: 0, baseSequence: 0 }),
    ]);
    for (const magic of [0, 1] as const) {
      const result = downConvertBatches(log, magic, 11, 1 << 20, true);
      const entries = decodeMessageSet(result.records);
      expect(entries.map((e) => e.compression)).toEqual([CompressionType.Gzip, CompressionType.None, CompressionType.None]);
      const all = entries.flatMap((e) => e.records);
      expect(all.map((r) => [r.offset, r.magic, r.timestamp, r.value!.toString()])).toEqual(
        [11, 12, 14, 15].map((o) => [o, magic, magic === 1 ? 5000 + o : -1, `v${o}`]));
      expect(result.recordCount).toBe(4);
      expect(result.nextOffset).toBe(16);
      // A limit that fits the wrapper and one plain message only.
      const limited = downConvertBatches(log, magic, 11, result.records.length - 1, true);
      expect(decodeMessageSet(limited.records).flatMap((e) => e.records).map((r) => r.offset)).toEqual([11, 12, 14]);
      expect(limited.nextOffset).toBe(15);
      // At least one message even when the first is bigger than the limit.
      expect(downConvertBatches(log, magic, 14, 1, true).recordCount).toBe(1);
      expect(downConvertBatches(log, magic, 14, 1, false).recordCount).toBe(0);
    }
  });

  it('keeps LogAppendTime on the v1 wrapper and refuses to down-convert zstd', () => {
    const lat = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: 1, key: null, value: Buffer.from('a'), headers: [] }], timestampType: 'LogAppendTime' });
    new BatchHeader(lat, 0).setLogAppendTime(99_000);
    const [entry] = decodeMessageSet(downConvertBatches(lat, 1, 0, 1000, true).records);
    expect(entry!.logAppendTime).toBe(true);
    expect(entry!.records[0]!.timestamp).toBe(99_000);
    const zstd = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: 1, key: null, value: Buffer.from('a'), headers: [] }], compression: CompressionType.Zstd });
    expect(() => downConvertBatches(zstd, 1, 0, 1000, true)).toThrow(UnsupportedCompressionTypeError);
  });
});

describe('hostile message sets', () => {
  const valid = Buffer.concat([
    ...encodeMessageSet({ magic: 1, compression: CompressionType.Gzip, records: [0, 1, 2].map((o) => ({ offset: o, timestamp: 10 + o, key: null, value: Buffer.from(`v${o}`) })) }),
    ...encodeMessageSet({ magic: 0, compression: CompressionType.None, records: [{ offset: 0, timestamp: -1, key: Buffer.from('k'), value: null }] }),
  ]);
  const onlyRecordErrors = (input: Buffer): void => {
    try {
      upConvertMessageSet(input, 1);
    } catch (e) {
      if (!(e instanceof RecordError)) throw e;
    }
  };

  it('random bytes and mutated message sets fail with a record error, never anything else', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => onlyRecordErrors(Buffer.from(bytes))), { numRuns: 500 });
    fc.assert(fc.property(fc.integer({ min: 0, max: valid.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: valid.length }), (at, byte, cut) => {
      const mutated = Buffer.from(valid);
      mutated[at] = byte;
      onlyRecordErrors(mutated);
      onlyRecordErrors(mutated.subarray(0, cut));
      // The same mutation with the first message's CRC made valid again, to reach the parsing behind it.
      const end = 12 + mutated.readInt32BE(8);
      if (end <= mutated.length && end > 16) {
        mutated.writeUInt32BE(crc32(mutated.subarray(16, end)) >>> 0, 12);
        onlyRecordErrors(mutated);
      }
    }), { numRuns: 1000 });
  });
});
