// acks=all against acks=1 with many partitions (issue 14, target 3): what making every answer durable
// costs. Two brokers run side by side: one flushes through the log dir's commit rounds (the default: one
// syncfs(2) per round, or an fdatasync per log when that times faster) and one with
// kafkite.log.flush.syncfs.enable=false, which fdatasyncs each partition file on its own (as kafkite did
// before the commit rounds). Each round times, in alternating order, acks=1 and acks=all on the first and
// acks=all on the second; each figure is the median of rounds. 1 KB records, ~16 KB batches; loadgen
// producers (connections) with requests in flight. Before each run the filesystem is synced, so that no
// run pays for writing back what the one before left dirty (syncfs would, and so would the disk).
// Where a produce request's time goes, as each broker timed it (its /metrics, medians of the runs' means):
// the append, the wait until durable (acks=all; of which one flush's own duration: syncfs or fdatasync,
// begin → complete) and the response's queueing and sending.
//
//   npx tsc -p . && node dist/bench/acks-all.js
//   BENCH_ACKS_ROUNDS=5 BENCH_ACKS_SECONDS=3 node dist/bench/acks-all.js
import { execFileSync } from 'node:child_process';
import { probeStorageAddon } from '../storage/native-storage.js';
import { producePhases, scrapeMetrics, type ProducePhases } from './lib/broker-metrics.js';
import { BenchBroker } from './lib/broker-process.js';
import { freePort } from './lib/free-port.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { createTopic, produceLoad, type LoadResult } from './loadgen.js';

const ROUNDS = Number(process.env.BENCH_ACKS_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_ACKS_SECONDS ?? 1.5);
const RECORD_BYTES = 1024;
const BATCH_RECORDS = 16;

interface Case {
  name: string;
  producers: number;
  partitions: number;
  inFlight: number;
  /** acks=all / acks=1 to reach. */
  target: number;
}

const ALL_CASES: Case[] = [
  { name: '8 producers × 8 partitions', producers: 8, partitions: 8, inFlight: 5, target: 0.7 },
  { name: '64 producers × 64 partitions', producers: 64, partitions: 64, inFlight: 2, target: 0.7 },
  { name: '8 producers × 1 partition', producers: 8, partitions: 1, inFlight: 5, target: 0.8 },
];

// BENCH_ACKS_CASES=0,2 runs only those cases (by index), e.g. to profile one.
const CASES = process.env.BENCH_ACKS_CASES ? process.env.BENCH_ACKS_CASES.split(',').map((i) => ALL_CASES[Number(i)]!) : ALL_CASES;

type Mode = 'acks=1' | 'acks=all syncfs' | 'acks=all fdatasync';
const MODES: Mode[] = ['acks=1', 'acks=all syncfs', 'acks=all fdatasync'];

function syncFilesystem(dir: string): void {
  const addon = probeStorageAddon().addon;
  if (addon) addon.syncfsSync(dir);
  else execFileSync('sync', ['-f', dir]);
}

/** Medians over the runs of the broker's mean per-request phases, ms. */
function phaseColumns(runs: ProducePhases[]): Record<string, number> {
  const med = (f: (p: ProducePhases) => number) => round(median(runs.map(f).filter((x) => !Number.isNaN(x))), 3);
  return {
    'append ms': med((p) => p.appendMs), 'durable wait ms': med((p) => p.durableWaitMs), 'flush ms': med((p) => p.flushMs),
    'response ms': med((p) => p.responseMs),
  };
}

async function main(): Promise<void> {
  const admins = [`http://127.0.0.1:${await freePort()}`, `http://127.0.0.1:${await freePort()}`] as const;
  const syncfsBroker = await BenchBroker.start({ overrides: [`admin.listener=${admins[0]}`] });
  const fdatasyncBroker = await BenchBroker.start({ overrides: [`admin.listener=${admins[1]}`, 'kafkite.log.flush.syncfs.enable=false'] });
  const rows: Array<Record<string, unknown>> = [];
  const results: Array<Case & Record<Mode, number> & { syncfsRatio: number; fdatasyncRatio: number; runs: Record<Mode, number[]>; phases: Record<Mode, Record<string, number>> }> = [];
  try {
    for (const [n, c] of CASES.entries()) {
      const topic = `acks-${n}`;
      await createTopic(syncfsBroker.bootstrap, topic, c.partitions);
      await createTopic(fdatasyncBroker.bootstrap, topic, c.partitions);
      const runs: Record<Mode, number[]> = { 'acks=1': [], 'acks=all syncfs': [], 'acks=all fdatasync': [] };
      const latency: Record<Mode, LoadResult['latency'][]> = { 'acks=1': [], 'acks=all syncfs': [], 'acks=all fdatasync': [] };
      const phases: Record<Mode, ProducePhases[]> = { 'acks=1': [], 'acks=all syncfs': [], 'acks=all fdatasync': [] };
      for (let r = 0; r < ROUNDS; r++) {
        // Alternating order, so that neither mode always runs first (warm caches, a neighbour's load).
        const order = r % 2 === 0 ? MODES : [...MODES].reverse();
        for (const mode of order) {
          const broker = mode === 'acks=all fdatasync' ? fdatasyncBroker : syncfsBroker;
          const admin = mode === 'acks=all fdatasync' ? admins[1] : admins[0];
          syncFilesystem(broker.dataDir);
          const before = await scrapeMetrics(admin);
          const result = await produceLoad({
            bootstrap: broker.bootstrap, topic, connections: c.producers, inFlight: c.inFlight, recordBytes: RECORD_BYTES,
            batchRecords: BATCH_RECORDS, partitions: c.partitions, acks: mode === 'acks=1' ? 1 : -1, seconds: SECONDS,
          });
          runs[mode].push(result.recordsPerSec);
          latency[mode].push(result.latency);
          phases[mode].push(producePhases(before, await scrapeMetrics(admin)));
        }
      }
      const med = (mode: Mode) => round(median(runs[mode]));
      const syncfsRatio = round(median(runs['acks=all syncfs'].map((v, i) => v / runs['acks=1'][i]!)), 2);
      const fdatasyncRatio = round(median(runs['acks=all fdatasync'].map((v, i) => v / runs['acks=1'][i]!)), 2);
      results.push({
        ...c, 'acks=1': med('acks=1'), 'acks=all syncfs': med('acks=all syncfs'), 'acks=all fdatasync': med('acks=all fdatasync'), syncfsRatio, fdatasyncRatio, runs,
        phases: Object.fromEntries(MODES.map((m) => [m, phaseColumns(phases[m])])) as Record<Mode, Record<string, number>>,
      });
      for (const mode of MODES) {
        rows.push({
          case: c.name, mode, 'records/s': med(mode), 'MB/s': round((med(mode) * RECORD_BYTES) / 1e6, 1),
          p99Ms: round(median(latency[mode].map((l) => l.p99Ms)), 2),
          ...phaseColumns(phases[mode]),
          'ratio to acks=1': mode === 'acks=1' ? 1 : mode === 'acks=all syncfs' ? syncfsRatio : fdatasyncRatio,
          'runs records/s': runs[mode].map((v) => round(v)),
        });
      }
    }
  } finally {
    await syncfsBroker.stop();
    await fdatasyncBroker.stop();
    syncfsBroker.cleanup();
    fdatasyncBroker.cleanup();
  }
  printTable(`acks=all vs acks=1, ${RECORD_BYTES} B records, ${BATCH_RECORDS} per batch, ${SECONDS} s per run, median of ${ROUNDS} alternating rounds (ratio: median of per-round ratios)`, rows);
  printJson('acks-all', { recordBytes: RECORD_BYTES, batchRecords: BATCH_RECORDS, seconds: SECONDS, rounds: ROUNDS, results });
}

await main();
