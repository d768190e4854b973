import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import fc from 'fast-check';
import lz4 from 'lz4-napi';
import snappy from 'snappy';
import { describe, expect, it } from 'vitest';
import { CompressionType } from '../../../protocol/records/batch-header.js';
import { DEFAULT_MAX_DECOMPRESSED_BYTES, compress, decompress } from '../../../protocol/records/compression.js';
import { CorruptRecordError, RecordTooLargeError } from '../../../protocol/records/errors.js';

const CODECS = [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd];
const fixture = (name: string): Buffer => fs.readFileSync(path.join(import.meta.dirname, 'fixtures', name));

/**
 * What the fixtures hold, made with the lz4 1.9.4 and zstd 1.5.4 command line tools:
 *   lz4 -c plain > cli-default.lz4                                  (independent blocks, content checksum)
 *   lz4 -B4 -BD -BX --content-size -c plain > cli-linked-checksums.lz4  (64 KiB linked blocks, all checksums)
 *   zstd -c < plain > cli-stream.zst                                (no content size, as Java's ZstdOutputStream)
 *   zstd -c plain > cli-content-size.zst
 *   cat cli-stream.zst cli-content-size.zst > cli-two-frames.zst
 */
const FIXTURE_PLAINTEXT = Buffer.from(
  Array.from({ length: 10000 }, (_, i) => `offset=${i % 100} key=k${i % 10}\n`).join(''),
);

describe('compress / decompress', () => {
  it('round-trips random data with every codec', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CODECS), fc.uint8Array({ maxLength: 70_000 }), (type, bytes) => {
        const data = Buffer.from(bytes);
        expect(decompress(type, compress(type, data)).equals(data)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('round-trips empty input and input larger than one block of each format', () => {
    const big = Buffer.from('0123456789abcdef'.repeat(300_000)); // 4.8 MB: several lz4 / zstd / snappy blocks
    for (const type of CODECS) {
      expect(decompress(type, compress(type, Buffer.alloc(0))).length).toBe(0);
      expect(decompress(type, compress(type, big)).equals(big)).toBe(true);
    }
  });

  it('passes uncompressed data through untouched', () => {
    const data = Buffer.from('plain');
    expect(compress(CompressionType.None, data)).toBe(data);
    expect(decompress(CompressionType.None, data)).toBe(data);
  });

  it('writes each codec in the framing Kafka clients read', () => {
    const data = Buffer.from('kafkite '.repeat(100));
    expect(compress(CompressionType.Gzip, data).subarray(0, 2).toString('hex')).toBe('1f8b');
    expect(compress(CompressionType.Lz4, data).readUInt32LE(0)).toBe(0x184d2204);
    expect(compress(CompressionType.Zstd, data).readUInt32LE(0)).toBe(0xfd2fb528);
    // Raw snappy: the varint uncompressed length (800 = 0xa0 0x06) comes first.
    expect(compress(CompressionType.Snappy, data).subarray(0, 2).toString('hex')).toBe('a006');
    expect(zlib.gunzipSync(compress(CompressionType.Gzip, data)).equals(data)).toBe(true);
    expect(lz4.decompressFrameSync(compress(CompressionType.Lz4, data)).equals(data)).toBe(true);
  });
});

describe('snappy framings', () => {
  const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => `value-${i}`).join(','));

  it('reads raw snappy, as librdkafka and kafkajs write it', () => {
    expect(decompress(CompressionType.Snappy, snappy.compressSync(data)).equals(data)).toBe(true);
  });

  it('reads the xerial stream the Java client writes, across several blocks', () => {
    const header = Buffer.from('82534e41505059000000000100000001', 'hex');
    const parts: Buffer[] = [header];
    for (let pos = 0; pos < data.length; pos += 8192) {
      const block = snappy.compressSync(data.subarray(pos, pos + 8192));
      const length = Buffer.alloc(4);
      length.writeInt32BE(block.length);
      parts.push(length, block);
    }
    expect(decompress(CompressionType.Snappy, Buffer.concat(parts)).equals(data)).toBe(true);
  });

  it('rejects a xerial block length past the end', () => {
    const stream = Buffer.concat([Buffer.from('82534e41505059000000000100000001', 'hex'), Buffer.from([0, 0, 1, 0, 1, 2])]);
    expect(() => decompress(CompressionType.Snappy, stream)).toThrow(CorruptRecordError);
  });
});

describe('frames written by other implementations', () => {
  it.each(['cli-default.lz4', 'cli-linked-checksums.lz4'])('reads %s', (name) => {
    expect(decompress(CompressionType.Lz4, fixture(name)).equals(FIXTURE_PLAINTEXT)).toBe(true);
  });

  it.each(['cli-stream.zst', 'cli-content-size.zst'])('reads %s', (name) => {
    expect(decompress(CompressionType.Zstd, fixture(name)).equals(FIXTURE_PLAINTEXT)).toBe(true);
  });

  it('reads concatenated zstd frames', () => {
    const out = decompress(CompressionType.Zstd, fixture('cli-two-frames.zst'));
    expect(out.equals(Buffer.concat([FIXTURE_PLAINTEXT, FIXTURE_PLAINTEXT]))).toBe(true);
  });
});

describe('malformed input', () => {
  it('throws CorruptRecordError for garbage, truncation and unknown codecs', () => {
    const data = Buffer.from('some records '.repeat(500));
    for (const type of CODECS) {
      const compressed = compress(type, data);
      expect(() => decompress(type, Buffer.from('definitely not compressed'))).toThrow(CorruptRecordError);
      expect(() => decompress(type, compressed.subarray(0, compressed.length - 3))).toThrow(CorruptRecordError);
      expect(() => decompress(type, Buffer.alloc(0))).toThrow(CorruptRecordError);
    }
    expect(() => decompress(5 as CompressionType, data)).toThrow(CorruptRecordError);
    expect(() => compress(7 as CompressionType, data)).toThrow(CorruptRecordError);
  });

  it('never throws anything but CorruptRecordError or RecordTooLargeError on mutated frames', () => {
    const samples = new Map(CODECS.map((t) => [t, compress(t, Buffer.from('abcdefgh'.repeat(2000)))]));
    fc.assert(
      fc.property(fc.constantFrom(...CODECS), fc.nat(), fc.integer({ min: 1, max: 255 }), (type, at, xor) => {
        const mutated = Buffer.from(samples.get(type)!);
        mutated[at % mutated.length]! ^= xor;
        try {
          decompress(type, mutated);
        } catch (e) {
          expect(e instanceof CorruptRecordError || e instanceof RecordTooLargeError).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('decompression bombs', () => {
  const zeros = Buffer.alloc(DEFAULT_MAX_DECOMPRESSED_BYTES + 1);

  it('refuses real compressed data past the limit, for every codec', () => {
    for (const type of CODECS) {
      const bomb = compress(type, zeros);
      expect(bomb.length).toBeLessThan(zeros.length / 20);
      expect(() => decompress(type, bomb)).toThrow(RecordTooLargeError);
      // The framing bound can exceed the true size by a block, so allow some room.
      expect(decompress(type, bomb, 2 * zeros.length).length).toBe(zeros.length);
    }
  });

  it('refuses a zstd frame declaring a huge content size before decoding it', () => {
    // Frame header: descriptor 0xe0 (8-byte content size, single segment), size 2^40, then one empty raw last block.
    const frame = Buffer.from('28b52ffde0' + '0000000000010000' + '010000', 'hex');
    expect(() => decompress(CompressionType.Zstd, frame)).toThrow(RecordTooLargeError);
  });

  it('bounds zstd RLE blocks, whose 4 bytes each can stand for 128 KiB', () => {
    const rleBlock = (last: boolean): Buffer => {
      const header = (128 * 1024) << 3 | (1 << 1) | (last ? 1 : 0);
      return Buffer.from([header & 0xff, (header >> 8) & 0xff, header >> 16, 0x41]);
    };
    const blocks = Array.from({ length: 100 }, (_, i) => rleBlock(i === 99));
    const frame = Buffer.concat([Buffer.from('28b52ffd0070', 'hex'), ...blocks]); // no content size, 16 MiB window
    expect(() => decompress(CompressionType.Zstd, frame)).toThrow(RecordTooLargeError);
    expect(decompress(CompressionType.Zstd, frame, 100 * 128 * 1024).equals(Buffer.alloc(100 * 128 * 1024, 0x41))).toBe(true);
  });

  it('refuses a raw snappy block whose preamble declares more than the limit', () => {
    const preamble = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]); // 2^32 - 1
    expect(() => decompress(CompressionType.Snappy, Buffer.concat([preamble, Buffer.alloc(10)]))).toThrow(RecordTooLargeError);
  });
});
