import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32c as portable } from '@node-rs/crc32';
import { describe, expect, it } from 'vitest';
import { crc32c, crc32cImplementation } from '../../../protocol/records/crc32c.js';

const ADDON = join(import.meta.dirname, '../../../build/Release/kafkite_crc32c.node');

describe('crc32c', () => {
  it('uses the native addon wherever it is built', () => {
    expect(crc32cImplementation).toBe(existsSync(ADDON) ? 'native-sse4.2' : '@node-rs/crc32');
  });

  it('gives the standard check value and 0 for no bytes', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });

  it('equals @node-rs/crc32 at every block boundary of the three-stream loop, on unaligned views', () => {
    const data = randomBytes(3 * 8192 * 3 + 3 * 256 * 2 + 64);
    const lengths = new Set<number>();
    for (const base of [0, 7, 8, 255, 256, 3 * 256, 3 * 8192, 2 * 3 * 8192, 3 * 8192 + 3 * 256]) {
      for (let d = -9; d <= 9; d++) if (base + d >= 0) lengths.add(base + d);
    }
    for (let i = 0; i < 200; i++) lengths.add(Math.floor(Math.random() * (data.length - 8)));
    for (const length of lengths) {
      for (const offset of [0, 1, 3, 5]) {
        const view = data.subarray(offset, offset + length);
        expect(crc32c(view), `length ${length} at offset ${offset}`).toBe(portable(view) >>> 0);
      }
    }
  });

  it('is unsigned and works on a 1 MiB batch-sized buffer', () => {
    const big = randomBytes(1 << 20);
    const value = crc32c(big);
    expect(value).toBeGreaterThanOrEqual(0);
    expect(value).toBe(portable(big) >>> 0);
  });
});
