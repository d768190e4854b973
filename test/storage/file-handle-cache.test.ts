// The segment-file descriptor cache: bounded, least recently used closed first, pinned files kept,
// renames followed; and logs with many segments and partitions keep working within a small capacity.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import { FileHandleCache, segmentFiles } from '../../storage/file-handle-cache.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { batch, config, openLog, readSlice, tempDir } from './helpers.js';

let dir: string;
const savedCapacity = segmentFiles.capacity;
afterEach(() => {
  segmentFiles.capacity = savedCapacity;
  fs.rmSync(dir, { recursive: true, force: true });
});

function openFds(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

function files(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const f = path.join(dir, `f${i}`);
    fs.writeFileSync(f, `file ${i}`);
    return f;
  });
}

describe('FileHandleCache', () => {
  it('keeps at most `capacity` files open, closing the least recently used, and reopens on use', () => {
    dir = tempDir();
    const cache = new FileHandleCache(16);
    const handles = files(40).map((f) => cache.file(f, 'r'));
    const before = openFds();
    for (const h of handles) h.fd;
    expect(cache.size).toBe(16);
    expect(openFds() - before).toBe(16);
    // The last 16 used are the open ones.
    expect(handles.map((h) => h.isOpen)).toEqual(handles.map((_, i) => i >= 24));
    const buf = Buffer.alloc(6);
    fs.readSync(handles[0]!.fd, buf, 0, 6, 0);
    expect(buf.toString()).toBe('file 0');
    expect(handles[24]!.isOpen).toBe(false);
    for (const h of handles) h.close();
    expect(cache.size).toBe(0);
    expect(openFds()).toBe(before);
  });

  it('never closes a pinned file; close() waits for the last pin', () => {
    dir = tempDir();
    const cache = new FileHandleCache(16);
    const handles = files(20).map((f) => cache.file(f, 'r'));
    const release = handles[0]!.pin();
    const fd = handles[0]!.fd;
    for (const h of handles.slice(1)) h.fd;
    expect(handles[0]!.isOpen).toBe(true);
    expect(handles[0]!.fd).toBe(fd);
    handles[0]!.close();
    expect(handles[0]!.isOpen).toBe(true);
    release();
    expect(handles[0]!.isOpen).toBe(false);
    for (const h of handles) h.close();
  });

  it('follows a rename: an evicted file reopens under its new name', () => {
    dir = tempDir();
    const cache = new FileHandleCache(16);
    const [first, ...rest] = files(17).map((f) => cache.file(f, 'r'));
    first!.fd;
    fs.renameSync(first!.path, `${first!.path}.deleted`);
    first!.path = `${first!.path}.deleted`;
    for (const h of rest) h.fd; // evicts `first`
    expect(first!.isOpen).toBe(false);
    const buf = Buffer.alloc(6);
    fs.readSync(first!.fd, buf, 0, 6, 0);
    expect(buf.toString()).toBe('file 0');
    for (const h of [first!, ...rest]) h.close();
  });
});

describe('logs under a small descriptor cache', () => {
  it('serves 50 partitions of many segments each, reads byte for byte, with at most `capacity` segment files open', async () => {
    dir = tempDir();
    segmentFiles.capacity = 16;
    const logs: UnifiedLog[] = [];
    const before = openFds();
    for (let p = 0; p < 50; p++) {
      const log = openLog(path.join(dir, `p${p}`), config({ segmentBytes: 600, indexIntervalBytes: 100 }));
      for (let i = 0; i < 30; i++) log.appendAsLeader(batch(2, { value: (r) => Buffer.from(`p${p}-b${i}-r${r}`) }), i);
      logs.push(log);
    }
    expect(logs[0]!.segments.size).toBeGreaterThan(3);
    expect(segmentFiles.size).toBeLessThanOrEqual(16);
    // Plus at most one more: the producer snapshot written at a roll being synced in the background.
    expect(openFds() - before).toBeLessThanOrEqual(16 + 1);
    await Promise.all(logs.map((l) => l.flush()));
    expect(segmentFiles.size).toBeLessThanOrEqual(16);
    for (let p = 0; p < 50; p++) {
      const values: string[] = [];
      let offset = 0;
      while (offset < logs[p]!.logEndOffset) {
        const { slices } = logs[p]!.read(offset, 1 << 20, true);
        for (const s of slices) {
          const bytes = readSlice(s);
          for (const h of batchesIn(bytes)) {
            for (const r of decodeBatch(bytes.subarray(h.pos, h.pos + h.sizeInBytes)).records) {
              values.push(r.value!.toString());
              offset = r.offset + 1;
            }
          }
        }
      }
      expect(values).toEqual(Array.from({ length: 60 }, (_, k) => `p${p}-b${Math.floor(k / 2)}-r${k % 2}`));
    }
    expect(segmentFiles.size).toBeLessThanOrEqual(16);
    await Promise.all(logs.map((l) => l.close()));
    expect(openFds()).toBeLessThanOrEqual(before);
  });
});
