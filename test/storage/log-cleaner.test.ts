import fs from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CompressionType, batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { OffsetCheckpointFile } from '../../storage/checkpoint-file.js';
import { LogCleaner } from '../../storage/log-cleaner.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { config, openLog, readSlice, silentLogger, tempDir } from './helpers.js';
import path from 'node:path';

let dir: string;
let log: UnifiedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

interface ModelRecord {
  offset: number;
  key: string;
  value: string | null;
  timestamp: number;
}

function cleanerFor(l: UnifiedLog): LogCleaner {
  return new LogCleaner({
    logger: silentLogger,
    backoffMs: 1000,
    checkpointFor: () => new OffsetCheckpointFile(path.join(dir, 'cleaner-offset-checkpoint')),
    logsIn: () => [l],
  });
}

function readAll(l: UnifiedLog): ModelRecord[] {
  const out: ModelRecord[] = [];
  let offset = l.logStartOffset;
  while (offset < l.logEndOffset) {
    const { slices } = l.read(offset, 1 << 20, true);
    if (slices.length === 0) break;
    const buf = readSlice(slices[0]);
    for (const h of batchesIn(buf)) {
      for (const r of decodeBatch(buf.subarray(h.pos, h.pos + h.sizeInBytes)).records) {
        if (r.offset >= offset) out.push({ offset: r.offset, key: r.key!.toString(), value: r.value === null ? null : r.value.toString(), timestamp: r.timestamp });
      }
      offset = h.lastOffset + 1;
    }
  }
  return out;
}

/** The model of one cleaning pass over offsets below `end`: latest per key, old tombstones gone. */
function modelClean(records: ModelRecord[], end: number, deleteHorizon: number): ModelRecord[] {
  const latest = new Map<string, number>();
  for (const r of records) if (r.offset < end) latest.set(r.key, r.offset);
  return records.filter((r) => r.offset >= end || (latest.get(r.key) === r.offset && !(r.value === null && r.timestamp <= deleteHorizon)));
}

const recordArb = fc.record({
  key: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
  tombstone: fc.boolean(),
  ts: fc.integer({ min: 0, max: 1000 }),
});
const batchArb = fc.record({ records: fc.array(recordArb, { minLength: 1, maxLength: 6 }), gzip: fc.boolean() });

describe('LogCleaner', () => {
  it('keeps the latest record per key, offsets intact, like the in-memory model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batchArb, { minLength: 1, maxLength: 25 }), fc.array(batchArb, { maxLength: 15 }), fc.integer({ min: 0, max: 1500 }), async (first, second, now) => {
        dir = tempDir();
        try {
          const cfg = config({ cleanupPolicy: ['compact'], segmentBytes: 400, deleteRetentionMs: 500, minCleanableDirtyRatio: 0 });
          log = openLog(dir, cfg);
          let model: ModelRecord[] = [];
          const append = (b: { records: { key: string; tombstone: boolean; ts: number }[]; gzip: boolean }) => {
            const base = log!.logEndOffset;
            const records = b.records.map((r, i) => ({
              offset: i,
              timestamp: r.ts,
              key: Buffer.from(r.key),
              value: r.tombstone ? null : Buffer.from(`${r.key}@${base + i}`),
              headers: [],
            }));
            log!.appendAsLeader(encodeBatch({ baseOffset: 0, records, compression: b.gzip ? CompressionType.Gzip : CompressionType.None }), 0);
            records.forEach((r, i) => model.push({ offset: base + i, key: r.key.toString(), value: r.value?.toString() ?? null, timestamp: r.timestamp }));
          };
          const cleaner = cleanerFor(log);
          first.forEach(append);
          const r1 = await cleaner.cleanLog(log, now);
          if (r1) model = modelClean(model, r1.firstDirtyOffset, now - 500);
          expect(readAll(log)).toEqual(model);
          second.forEach(append);
          const r2 = await cleaner.cleanLog(log, now);
          if (r2) model = modelClean(model, r2.firstDirtyOffset, now - 500);
          expect(readAll(log)).toEqual(model);
          // The files the cleaner wrote survive a restart (indexes included).
          const end = log.logEndOffset;
          log.segments.values().forEach((s) => s.close());
          log = openLog(dir, cfg, { hadCleanShutdown: false });
          expect(log.logEndOffset).toBe(end);
          expect(readAll(log)).toEqual(model);
        } finally {
          log?.segments.values().forEach((s) => s.close());
          log = undefined;
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });

  it('honours min.cleanable.dirty.ratio and min.compaction.lag.ms', async () => {
    dir = tempDir();
    const cfg = config({ cleanupPolicy: ['compact'], segmentBytes: 300, minCleanableDirtyRatio: 0.5, minCompactionLagMs: 10_000 });
    log = openLog(dir, cfg);
    for (let i = 0; i < 20; i++) {
      log.appendAsLeader(encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: 1000, key: Buffer.from('k'), value: Buffer.from(`v${i}`), headers: [] }] }), 0);
    }
    const cleaner = cleanerFor(log);
    expect(await cleaner.cleanFilthiestLog([log], 5000)).toBeNull(); // too young
    const result = await cleaner.cleanFilthiestLog([log], 20_000);
    expect(result).not.toBeNull();
    expect(result!.bytesAfter).toBeLessThan(result!.bytesBefore);
    // Everything is clean now: the ratio is 0.
    expect(await cleaner.cleanFilthiestLog([log], 20_000)).toBeNull();
    expect(fs.readFileSync(path.join(dir, 'cleaner-offset-checkpoint'), 'utf8')).toBe(`0\n1\ntopic 0 ${result!.firstDirtyOffset}\n`);
  });

  /** ~6 MB over 2 MB segments: 100 keys, each written many times. */
  function bigCompactedLog(): UnifiedLog {
    dir = tempDir();
    const l = openLog(dir, config({ cleanupPolicy: ['compact'], segmentBytes: 2 << 20, minCleanableDirtyRatio: 0 }));
    for (let b = 0; b < 600; b++) {
      const records = Array.from({ length: 10 }, (_, i) => ({
        offset: i, timestamp: 1000, key: Buffer.from(`k${(b * 10 + i) % 100}`), value: Buffer.alloc(1000, b % 256), headers: [],
      }));
      l.appendAsLeader(encodeBatch({ baseOffset: 0, records }), 0);
    }
    return l;
  }

  it('cleans in slices: the event loop keeps turning during a pass', async () => {
    log = bigCompactedLog();
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const result = await cleanerFor(log).cleanLog(log, 2000);
    clearInterval(ticker);
    expect(result).not.toBeNull();
    expect(turns).toBeGreaterThan(2);
    const keys = readAll(log).filter((r) => r.offset < result!.firstDirtyOffset).map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('drops a pass whose segments DeleteRecords removed meanwhile, leaving no cleaned files', async () => {
    log = bigCompactedLog();
    const pass = cleanerFor(log).cleanLog(log, 2000);
    log.deleteRecordsBefore(log.highWatermark);
    expect(await pass).toBeNull();
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.cleaned'))).toEqual([]);
    expect(log.logStartOffset).toBe(6000);
  });
});
