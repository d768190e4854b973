import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OffsetIndex } from '../../storage/offset-index.js';
import { TimeIndex } from '../../storage/time-index.js';
import { tempDir } from './helpers.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('OffsetIndex', () => {
  it('finds the floor entry: before the first, on one, between two, past the last', () => {
    dir = tempDir();
    const index = new OffsetIndex(path.join(dir, 'x.index'), 100, 1024);
    index.openForAppend();
    index.append(110, 500);
    index.append(120, 1000);
    index.append(130, 1500);
    expect(index.lookup(105)).toEqual({ offset: 100, position: 0 });
    expect(index.lookup(120)).toEqual({ offset: 120, position: 1000 });
    expect(index.lookup(125)).toEqual({ offset: 120, position: 1000 });
    expect(index.lookup(999)).toEqual({ offset: 130, position: 1500 });
    expect(index.lookupByPosition(1200)).toEqual({ offset: 120, position: 1000 });
    index.closeForAppend();
    // The file holds exactly the entries: 8 bytes each, relative offset then position, big-endian.
    const file = fs.readFileSync(path.join(dir, 'x.index'));
    expect(file.length).toBe(24);
    expect(file.readInt32BE(8)).toBe(20);
    expect(file.readInt32BE(12)).toBe(1000);
  });

  it('is full at segment.index.bytes and refuses offsets that do not grow', () => {
    dir = tempDir();
    const index = new OffsetIndex(path.join(dir, 'x.index'), 0, 16);
    index.append(1, 10);
    expect(index.isFull).toBe(false);
    expect(() => index.append(1, 30)).toThrow();
    index.append(2, 20);
    expect(index.isFull).toBe(true);
    expect(index.lookup(5)).toEqual({ offset: 2, position: 20 });
  });
});

describe('TimeIndex', () => {
  it('appends only growing timestamps and finds the floor entry', () => {
    dir = tempDir();
    const index = new TimeIndex(path.join(dir, 'x.timeindex'), 50, 1200);
    index.openForAppend();
    index.maybeAppend(1000, 60);
    index.maybeAppend(900, 65); // not larger: skipped
    index.maybeAppend(2000, 70);
    expect(index.entries).toBe(2);
    expect(index.lookup(999)).toEqual({ timestamp: -1, offset: 50 });
    expect(index.lookup(1000)).toEqual({ timestamp: 1000, offset: 60 });
    expect(index.lookup(1500)).toEqual({ timestamp: 1000, offset: 60 });
    expect(index.lookup(5000)).toEqual({ timestamp: 2000, offset: 70 });
    index.closeForAppend();
    const file = fs.readFileSync(path.join(dir, 'x.timeindex'));
    expect(file.length).toBe(24);
    expect(file.readBigInt64BE(12)).toBe(2000n);
    expect(file.readInt32BE(20)).toBe(20);
  });
});
