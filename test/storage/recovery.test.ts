import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { batch, config, openLog, readSlice, tempDir } from './helpers.js';

let dir: string;
let log: UnifiedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()).msg);
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const flushLogger = () => new Promise((r) => setImmediate(r));

async function writeLog(cfg = config(), batches = 10): Promise<string> {
  dir = tempDir();
  const l = openLog(dir, cfg);
  for (let i = 0; i < batches; i++) l.appendAsLeader(batch(3, { valueSize: 50, timestamp: 1000 + i }), 0);
  await l.close();
  return path.join(dir, 'topic-0');
}

function expectReadable(l: UnifiedLog): void {
  for (let o = l.logStartOffset; o < l.logEndOffset; o++) {
    const h = decodeBatch(readSlice(l.read(o, 1, true).slices[0])).header;
    expect(o).toBeGreaterThanOrEqual(h.baseOffset);
    expect(o).toBeLessThanOrEqual(h.lastOffset);
  }
}

describe('recovery', () => {
  it('truncates a torn tail and names file and position', async () => {
    const partitionDir = await writeLog();
    const file = path.join(partitionDir, '00000000000000000000.log');
    const size = fs.statSync(file).size;
    const batchSize = size / 10;
    fs.truncateSync(file, size - 7);
    const { logger, lines } = capturingLogger();
    log = openLog(dir, config(), { recoveryPoint: 0, hadCleanShutdown: false }, logger);
    await flushLogger();
    expect(log.logEndOffset).toBe(27);
    expect(fs.statSync(file).size).toBe(batchSize * 9);
    expect(lines.filter((l) => l.includes('truncated'))).toHaveLength(1);
    expect(lines.find((l) => l.includes('truncated'))).toContain(`${file} at position ${batchSize * 9}`);
    expectReadable(log);
    expect(log.appendAsLeader(batch(1), 0).firstOffset).toBe(27);
  });

  it('truncates a garbage tail (zeros, random bytes, a bad CRC)', async () => {
    for (const garbage of [Buffer.alloc(4096), Buffer.from('definitely not a record batch, but long enough to look like one'.repeat(3))]) {
      const partitionDir = await writeLog();
      const file = path.join(partitionDir, '00000000000000000000.log');
      const size = fs.statSync(file).size;
      fs.appendFileSync(file, garbage);
      log = openLog(dir, config(), { hadCleanShutdown: false });
      expect(log.logEndOffset).toBe(30);
      expect(fs.statSync(file).size).toBe(size);
      await log.close();
      log = undefined;
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const partitionDir = await writeLog();
    const file = path.join(partitionDir, '00000000000000000000.log');
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from([0xde, 0xad]), 0, 2, size - 5);
    fs.closeSync(fd);
    log = openLog(dir, config(), { hadCleanShutdown: false });
    expect(log.logEndOffset).toBe(27);
  });

  it('does not re-validate below the recovery point after a clean shutdown', async () => {
    const partitionDir = await writeLog();
    const file = path.join(partitionDir, '00000000000000000000.log');
    log = openLog(dir, config(), { recoveryPoint: 30, hadCleanShutdown: true });
    expect(log.logEndOffset).toBe(30);
    expect(fs.statSync(file).size).toBeGreaterThan(0);
  });

  it('drops the segments after a truncated one', async () => {
    const partitionDir = await writeLog(config({ segmentBytes: 600 }), 12);
    const logs = fs.readdirSync(partitionDir).filter((f) => f.endsWith('.log')).sort();
    expect(logs.length).toBeGreaterThan(2);
    const second = path.join(partitionDir, logs[1]);
    fs.truncateSync(second, fs.statSync(second).size - 1);
    log = openLog(dir, config({ segmentBytes: 600 }), { recoveryPoint: 0, hadCleanShutdown: false });
    expect(log.segments.size).toBe(2);
    expectReadable(log);
  });
});

describe('index repair', () => {
  async function inactiveSegmentLog(): Promise<string> {
    const partitionDir = await writeLog(config({ segmentBytes: 1200, indexIntervalBytes: 100 }), 20);
    return partitionDir;
  }

  for (const [name, damage] of [
    ['deleted', (f: string) => fs.rmSync(f)],
    ['cut mid-entry', (f: string) => fs.truncateSync(f, fs.statSync(f).size - 3)],
    ['missing its last entries', (f: string) => fs.truncateSync(f, fs.statSync(f).size - 16)],
    ['pointing past the log', (f: string) => {
      const buf = fs.readFileSync(f);
      buf.writeInt32BE(0x7000000, 4);
      fs.writeFileSync(f, buf);
    }],
  ] as const) {
    it(`rebuilds an offset index ${name} from its log`, async () => {
      const partitionDir = await inactiveSegmentLog();
      const indexFile = path.join(partitionDir, '00000000000000000000.index');
      const original = fs.readFileSync(indexFile);
      expect(original.length).toBeGreaterThan(16);
      damage(indexFile);
      const { logger, lines } = capturingLogger();
      log = openLog(dir, config({ segmentBytes: 1200, indexIntervalBytes: 100 }), { recoveryPoint: 60, hadCleanShutdown: true }, logger);
      expectReadable(log);
      await flushLogger();
      expect(lines.some((l) => l.includes('Rebuilt indexes') && l.includes('00000000000000000000'))).toBe(true);
      expect(fs.readFileSync(indexFile)).toEqual(original);
    });
  }

  it('rebuilds a deleted time index', async () => {
    const partitionDir = await inactiveSegmentLog();
    const timeIndexFile = path.join(partitionDir, '00000000000000000000.timeindex');
    const original = fs.readFileSync(timeIndexFile);
    fs.rmSync(timeIndexFile);
    log = openLog(dir, config({ segmentBytes: 1200, indexIntervalBytes: 100 }), { recoveryPoint: 60, hadCleanShutdown: true });
    expect(log.fetchOffsetByTimestamp(1003)).toEqual({ offset: 5, timestamp: 1003, leaderEpoch: 0 });
    expect(fs.readFileSync(timeIndexFile)).toEqual(original);
  });

  it('loads indexes of inactive segments lazily', async () => {
    await inactiveSegmentLog();
    log = openLog(dir, config({ segmentBytes: 1200, indexIntervalBytes: 100 }), { recoveryPoint: 60, hadCleanShutdown: true });
    const segments = log.segments.values();
    expect(segments.length).toBeGreaterThan(2);
    expect(segments.slice(0, -1).every((s) => !s.indexesLoaded)).toBe(true);
    log.read(0, 1, true);
    expect(segments[0].indexesLoaded).toBe(true);
    expect(segments[1].indexesLoaded).toBe(false);
  });
});
