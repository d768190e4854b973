// The active segment's recent batches (storage/recent-batches.ts): lookups at the tail answer as the
// index and the header scan would, without reading headers from the file.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { scanCounters } from '../../storage/file-records.js';
import { RECENT_BATCH_CAPACITY } from '../../storage/recent-batches.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { batch, config, openLog, readSlice, tempDir } from './helpers.js';

let dir: string;
let log: UnifiedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

// Small segments, so the log rolls a few times and the ring is dropped and started again.
const cfg = config({ segmentBytes: 48 * 1024, indexIntervalBytes: 4096 });
const MAX_BYTES = [1, 200, 1000, 5000, 1 << 20];

/** Batches of 1-5 records of 20-219 bytes each: 88 to 1,196 bytes a batch. */
function fill(target: UnifiedLog, batches: number): number[] {
  const lastOffsets: number[] = [];
  for (let i = 0; i < batches; i++) lastOffsets.push(target.appendAsLeader(batch(1 + (i % 5), { valueSize: 20 + ((i * 37) % 200) }), 1).lastOffset);
  return lastOffsets;
}

/** What a fetch at every offset returns, for each size limit, with and without minOneBatch. */
function readEverything(target: UnifiedLog): string[] {
  const out: string[] = [];
  for (let offset = 0; offset <= target.logEndOffset; offset++) {
    for (const maxBytes of MAX_BYTES) {
      for (const minOneBatch of [true, false]) {
        const { slices } = target.read(offset, maxBytes, minOneBatch);
        out.push(`${offset}/${maxBytes}/${minOneBatch}: ${slices.map((s) => `${s.position}+${s.length}:${readSlice(s).toString('hex')}`).join(',')}`);
      }
    }
  }
  return out;
}

describe('recent batches of the active segment', () => {
  it('answer every fetch as the index and header scan of the reopened log do', async () => {
    dir = tempDir();
    log = openLog(dir, cfg);
    fill(log, 400);
    expect(log.segments.size).toBeGreaterThan(3);
    const withRecent = readEverything(log);
    const end = log.logEndOffset;
    await log.close();
    // Reopened, the log has no recent batches: every lookup goes through the index and the scan.
    log = openLog(dir, cfg, { recoveryPoint: end, hadCleanShutdown: true });
    expect(readEverything(log)).toEqual(withRecent);
  });

  it('read no batch header for a fetch among the last batches, and the scan reads them for older ones', async () => {
    dir = tempDir();
    log = openLog(dir, cfg);
    const lastOffsets = fill(log, 60);
    const headerReadsFor = (offset: number): number => {
      const before = scanCounters.headerReads;
      log!.read(offset, 1000, true);
      return scanCounters.headerReads - before;
    };
    const recent = lastOffsets.slice(-RECENT_BATCH_CAPACITY);
    for (const lastOffset of recent) expect(headerReadsFor(lastOffset)).toBe(0);
    // Older than the ring: found through the index entry before it and a scan of the headers after it.
    expect(headerReadsFor(lastOffsets[lastOffsets.length - RECENT_BATCH_CAPACITY - 6]!)).toBeGreaterThan(0);

    const end = log.logEndOffset;
    await log.close();
    log = openLog(dir, cfg, { recoveryPoint: end, hadCleanShutdown: true });
    expect(headerReadsFor(recent[RECENT_BATCH_CAPACITY - 1]!)).toBeGreaterThan(0);
    // Appends after the reopening are remembered again.
    const appended = fill(log, 3);
    for (const lastOffset of appended) expect(headerReadsFor(lastOffset)).toBe(0);
  });
});
