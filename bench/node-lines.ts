// The broker under two Node lines, side by side on the same machine the same day (issue #35): produce and
// consume (bench/produce-vs-mock.ts), end-to-end latency (bench/e2e-latency.ts), start-up and idle RSS
// (bench/startup.ts). Only the broker's node changes (KAFKITE_NODE, bench/lib/kafkite-process.ts); the
// clients, kcat and the bench scripts stay on this process's node. Rounds alternate as produce-vs-mock's
// do: each round runs every bench under both lines back to back, the order swapping every round, so a busy
// spell of the shared machine hits both; the table gives the medians of the rounds and their ratio.
// One node_modules serves both lines: the native addons are N-API.
//
//   npx tsc -p . && node dist/bench/node-lines.js                        ~10 minutes
//   BENCH_NODE_BASE=/usr/bin/node BENCH_NODE_NEW=/path/to/node BENCH_RUNS=3 BENCH_NODE_BENCHES=produce,e2e,startup node dist/bench/node-lines.js
//
// BENCH_NODE_BASE defaults to /usr/bin/node (the machine's Node, 20 here), BENCH_NODE_NEW to this node.
// BENCH_BROKER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles every broker (bench/lib/broker-process.ts).
import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from './lib/kafkite-process.js';
import { runScript } from './lib/run-script.js';
import { median, printJson, printTable, round } from './lib/stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BASE = process.env.BENCH_NODE_BASE ?? '/usr/bin/node';
const NEW = process.env.BENCH_NODE_NEW ?? process.execPath;
const BENCHES = (process.env.BENCH_NODE_BENCHES ?? 'produce,e2e,startup').split(',').filter(Boolean);
const SCALE = Number(process.env.BENCH_NODE_SCALE ?? 1);

/** A figure read from a bench's JSON line; `higher` says which way is better. */
interface Figure {
  name: string;
  higher: boolean;
  read(result: any): number | undefined;
}

interface Bench {
  file: string;
  env: Record<string, string>;
  figures: Figure[];
}

const pvmCase = (r: any, bytes: number) => (r.results as any[]).find((c) => c.recordBytes === bytes);
const e2eRow = (rows: any[] | undefined, pick: (row: any) => boolean) => rows?.find(pick);
const startupLayout = (r: any, layout: string) => (r.results as any[]).find((s) => s.layout === layout);

// One measured round per run of a script: the outer rounds give the medians.
const BENCH_SETS: Record<string, Bench> = {
  produce: {
    file: 'produce-vs-mock.js',
    env: { BENCH_RUNS: '1', BENCH_PVM_RECORDS_100: String(Math.round(1_000_000 * SCALE)), BENCH_PVM_RECORDS_1K: String(Math.round(300_000 * SCALE)) },
    figures: [
      { name: 'kcat produce 100 B, rec/s', higher: true, read: (r) => pvmCase(r, 100)?.kafkite.recordsPerSec },
      { name: 'kcat produce 100 B / librdkafka mock, ×', higher: true, read: (r) => pvmCase(r, 100)?.ratio },
      { name: 'kcat produce 1 KB, MB/s', higher: true, read: (r) => pvmCase(r, 1024)?.kafkite.mbPerSec },
      { name: 'kcat produce 1 KB / librdkafka mock, ×', higher: true, read: (r) => pvmCase(r, 1024)?.ratio },
      { name: 'broker CPU-s/GB, produce 1 KB', higher: false, read: (r) => pvmCase(r, 1024)?.kafkite.produceCpuSecondsPerGb },
      { name: 'kcat consume 1 KB, MB/s', higher: true, read: (r) => pvmCase(r, 1024)?.kafkite.consumeMbPerSec },
      { name: 'broker CPU-s/GB, consume 1 KB', higher: false, read: (r) => pvmCase(r, 1024)?.kafkite.consumeCpuSecondsPerGb },
    ],
  },
  e2e: {
    file: 'e2e-latency.js',
    env: { BENCH_RUNS: '1', BENCH_E2E_SECONDS: String(Math.max(1, Math.round(3 * SCALE))), BENCH_E2E_RATES: '10000,50000' },
    figures: [
      { name: 'e2e p99 at 10k/s, librdkafka (Python), acks=1, ms', higher: false, read: (r) => e2eRow(r.rows, (x) => x.acks === '1' && x.client.startsWith('librdkafka'))?.p99Ms },
      { name: 'e2e p99 at 10k/s, kafkite loadgen, acks=1, ms', higher: false, read: (r) => e2eRow(r.rows, (x) => x.acks === '1' && x.client === 'kafkite loadgen')?.p99Ms },
      { name: 'e2e p99 at 10k/s, librdkafka C, acks=all, ms', higher: false, read: (r) => e2eRow(r.byRate, (x) => x.rate === 10_000)?.p99Ms },
      { name: 'e2e p99 at 50k/s, librdkafka C, acks=all, ms', higher: false, read: (r) => e2eRow(r.byRate, (x) => x.rate === 50_000)?.p99Ms },
      { name: 'e2e p50 at 50k/s, librdkafka C, acks=all, ms', higher: false, read: (r) => e2eRow(r.byRate, (x) => x.rate === 50_000)?.p50Ms },
    ],
  },
  startup: {
    file: 'startup.js',
    env: { BENCH_RUNS: '3' },
    figures: [
      { name: 'ready, empty broker, ms', higher: false, read: (r) => startupLayout(r, 'empty')?.readyMs },
      { name: 'ready, 1 partition × 1,000 segments, ms', higher: false, read: (r) => startupLayout(r, '1 partition × 1,000 segments')?.readyMs },
      { name: 'idle RSS, empty broker, MB', higher: false, read: (r) => startupLayout(r, 'empty')?.idleRssMB },
    ],
  },
};

function nodeVersion(bin: string): string {
  return execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
}

async function main(): Promise<void> {
  const unknown = BENCHES.filter((b) => !BENCH_SETS[b]);
  if (unknown.length > 0) throw new Error(`BENCH_NODE_BENCHES: unknown ${unknown.join(', ')} (known: ${Object.keys(BENCH_SETS).join(', ')})`);
  const lines = [BASE, NEW].map((bin) => ({ bin, version: nodeVersion(bin) }));
  const [base, next] = lines.map((l) => `Node ${l.version.split('.')[0]}`) as [string, string];
  // values[figure][line] = one value per round
  const values = new Map<string, [number[], number[]]>();
  for (let n = 0; n < RUNS; n++) {
    for (const name of BENCHES) {
      const bench = BENCH_SETS[name]!;
      const order = n % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        console.log(`\n=== round ${n + 1}/${RUNS}, ${name}, broker on node ${lines[i]!.version} (${lines[i]!.bin})`);
        const result = await runScript(bench.file, { ...bench.env, KAFKITE_NODE: lines[i]!.bin });
        for (const f of bench.figures) {
          const v = f.read(result);
          if (v === undefined || !Number.isFinite(v)) continue;
          if (!values.has(f.name)) values.set(f.name, [[], []]);
          values.get(f.name)![i]!.push(v);
        }
      }
    }
  }
  const figures = BENCHES.flatMap((b) => BENCH_SETS[b]!.figures).filter((f) => values.has(f.name)).map((f) => {
    const [a, b] = values.get(f.name)!;
    const ma = median(a);
    const mb = median(b);
    const ratio = round(mb / ma, 2);
    // Worse by more than 10% on the new line: the direction depends on the figure.
    const regressed = f.higher ? ratio < 0.9 : ratio > 1.1;
    return { figure: f.name, [base]: ma, [next]: mb, [`ratio ${next.slice(5)}/${base.slice(5)}`]: ratio, better: f.higher ? 'higher' : 'lower', regressed: regressed ? 'YES' : '', rounds: `${a.join(' ')} | ${b.join(' ')}` };
  });
  printTable(`broker on ${base} (${lines[0]!.version}) vs ${next} (${lines[1]!.version}): medians of ${RUNS} alternating rounds; rounds ${base} | ${next}`, figures);
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  printJson('node-lines', { date: new Date().toISOString(), commit, runs: RUNS, scale: SCALE, lines, figures });
}

await main();
