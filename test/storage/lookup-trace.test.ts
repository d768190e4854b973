// The lookup trace comes from the read path itself: its segment, index entry, batch position and byte range
// must match what `kafkite dump-log` prints for the same files, and tracing must not change what is read.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/broker-process.js';
import { LookupTrace } from '../../storage/lookup-trace.js';
import type { LookupResult } from '../../storage/tools/lookup.js';
import { batch, config, openLog, tempDir } from './helpers.js';

let dir: string;
let partitionDir: string;
const MAX_BYTES = 700;

function cli(args: string[]) {
  return spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin/kafkite.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 20_000 });
}

interface DumpedBatch {
  baseOffset: number;
  lastOffset: number;
  position: number;
  size: number;
  maxTimestamp: number;
}

type Dumped = Map<number, { batches: DumpedBatch[]; entries: Array<{ offset: number; position: number }> }>;

/** Segments as one `kafkite dump-log` run prints them: batches of each .log, entries of each .index. */
function dumpSegments(): Dumped {
  const bases = fs.readdirSync(partitionDir).filter((f) => f.endsWith('.log')).map((f) => f.slice(0, 20)).sort();
  const files = bases.flatMap((b) => [`${path.join(partitionDir, b)}.log`, `${path.join(partitionDir, b)}.index`]);
  const res = cli(['dump-log', '--files', files.join(',')]);
  expect(res.status).toBe(0);
  const out: Dumped = new Map(bases.map((b) => [Number(b), { batches: [], entries: [] }]));
  let current = out.get(0)!;
  for (const line of res.stdout.split('\n')) {
    const file = /^Dumping .*\/(\d{20})\.(log|index)$/.exec(line);
    if (file) current = out.get(Number(file[1]))!;
    const b = /^baseOffset: (\d+) lastOffset: (\d+) .* position: (\d+) CreateTime: (\d+) size: (\d+)/.exec(line);
    if (b) current.batches.push({ baseOffset: +b[1], lastOffset: +b[2], position: +b[3], maxTimestamp: +b[4], size: +b[5] });
    const e = /^offset: (\d+) position: (\d+)$/.exec(line);
    if (e) current.entries.push({ offset: +e[1], position: +e[2] });
  }
  return out;
}

let segments: Dumped;

beforeAll(async () => {
  dir = tempDir();
  const log = openLog(dir, config({ segmentBytes: 3000, indexIntervalBytes: 150 }));
  let ts = 1_700_000_000_000;
  for (let i = 0; i < 60; i++) {
    const count = 1 + (i % 4);
    log.appendAsLeader(batch(count, { timestamp: ts, valueSize: 20 + ((i * 37) % 90) }), ts);
    ts += 1000;
  }
  await log.close();
  partitionDir = path.join(dir, 'topic-0');
  segments = dumpSegments();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('kafkite lookup', () => {
  it("matches dump-log's segment, index entry, batch position and byte range for several offsets", () => {
    const bases = [...segments.keys()].sort((a, b) => a - b);
    expect(bases.length).toBeGreaterThan(3);
    const lastBatch = segments.get(bases[bases.length - 1])!.batches.at(-1)!;
    const targets = [0, 1, bases[1], bases[1] - 1, bases[2] + 3, Math.floor(lastBatch.lastOffset / 2), lastBatch.lastOffset];
    for (const offset of targets) {
      const res = cli(['lookup', '--dir', partitionDir, '--offset', String(offset), '--max-bytes', String(MAX_BYTES), '--json']);
      expect(res.status, res.stderr).toBe(0);
      const trace = JSON.parse(res.stdout) as LookupResult;

      const base = bases.filter((b) => b <= offset).at(-1)!;
      const { batches, entries } = segments.get(base)!;
      const entry = entries.filter((e) => e.offset <= offset).at(-1) ?? { offset: base, position: 0 };
      const target = batches.find((b) => b.lastOffset >= offset)!;
      const limit = target.position + Math.max(MAX_BYTES, target.size);
      const end = Math.max(...batches.map((b) => b.position + b.size).filter((e) => e <= limit));

      const floor = trace.steps.find((s) => s.kind === 'segment-floor');
      expect(floor).toMatchObject({ chosen: base, segments: bases.length });
      const index = trace.steps.find((s) => s.kind === 'offset-index' && s.purpose === 'offset');
      expect(index).toMatchObject({ found: { offset: entry.offset, position: entry.position }, entries: entries.length });
      const scan = trace.steps.find((s) => s.kind === 'scan' && s.purpose === 'offset');
      expect(scan).toMatchObject({ from: entry.position, found: { baseOffset: target.baseOffset, position: target.position, size: target.size } });
      expect(trace.range).toEqual({ file: path.join(partitionDir, `${String(base).padStart(20, '0')}.log`), position: target.position, length: end - target.position });
    }
  });

  it('searches the time index first for a timestamp', () => {
    const all = [...segments.values()].flatMap((s) => s.batches);
    const wanted = all[25];
    const res = cli(['lookup', '--dir', partitionDir, '--timestamp', String(wanted.maxTimestamp), '--json']);
    expect(res.status, res.stderr).toBe(0);
    const trace = JSON.parse(res.stdout) as LookupResult;
    const firstIndexStep = trace.steps.find((s) => s.kind === 'time-index' || s.kind === 'offset-index');
    expect(firstIndexStep?.kind).toBe('time-index');
    // Batch i holds 1 + (i % 4) records with timestamps ts, ts+1, ...; its max timestamp is its last record's.
    expect(trace.offset).toBe(wanted.lastOffset);
    expect(trace.range?.position).toBe(wanted.position);
  });

  it('prints a readable trace and rejects bad arguments', () => {
    const res = cli(['lookup', '--dir', partitionDir, '--offset', '5']);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/segment floor search for 5/);
    expect(res.stdout).toMatch(/sendfile: .*00000000000000000000\.log position: \d+ length: \d+/);
    expect(cli(['lookup', '--dir', partitionDir]).status).toBe(2);
    expect(cli(['lookup', '--dir', partitionDir, '--offset', 'x']).status).toBe(2);
    const out = cli(['lookup', '--dir', partitionDir, '--offset', '999999']);
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/out of range/);
  });

  it('tracing does not change what the log reads', async () => {
    const log = openLog(dir, config({ segmentBytes: 3000, indexIntervalBytes: 150 }), { hadCleanShutdown: true, recoveryPoint: Number.MAX_SAFE_INTEGER });
    try {
      for (const offset of [0, 7, 40, log.logEndOffset - 1]) {
        const plain = log.read(offset, MAX_BYTES, true);
        const trace = new LookupTrace();
        const traced = log.read(offset, MAX_BYTES, true, trace);
        expect(traced.bytes).toBe(plain.bytes);
        expect(traced.slices[0].position).toBe(plain.slices[0].position);
        expect(trace.range?.length).toBe(plain.bytes);
      }
    } finally {
      await log.close();
    }
  });
});
