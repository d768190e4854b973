// Produce throughput with kafkite's loadgen: 100 B and 1 KB records, 1 and 8 partitions,
// acks=1 and acks=all (-1), 8 concurrent producers (connections) with 5 requests in flight each
// (the Java producer's max.in.flight.requests.per.connection),
// ~16 KB batches. A fresh broker per run; each figure is the run with the median records/s.
//
//   npx tsc -p . && node dist/bench/produce-matrix.js
//   BENCH_PRODUCE_SECONDS=5 BENCH_RUNS=5 node dist/bench/produce-matrix.js
import { BenchBroker } from './lib/broker-process.js';
import { medianRun, printJson, printTable, round } from './lib/stats.js';
import { createTopic, produceLoad, type LoadResult } from './loadgen.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_PRODUCE_SECONDS ?? 2);
const PRODUCERS = 8;
const IN_FLIGHT = 5;
const BATCH_BYTES = 16384;

interface Case {
  recordBytes: number;
  partitions: number;
  acks: number;
}

interface CaseResult extends Case, LoadResult {
  peakRssMB: number;
  runs: number[];
}

const CASES: Case[] = [100, 1024].flatMap((recordBytes) =>
  [1, 8].flatMap((partitions) => [1, -1].map((acks) => ({ recordBytes, partitions, acks }))));

async function runOnce(c: Case): Promise<LoadResult & { peakRssMB: number }> {
  const broker = await BenchBroker.start();
  try {
    await createTopic(broker.bootstrap, 'produce', c.partitions);
    const stopRss = broker.sampleRss();
    const result = await produceLoad({
      bootstrap: broker.bootstrap, topic: 'produce', connections: PRODUCERS, inFlight: IN_FLIGHT,
      recordBytes: c.recordBytes, batchRecords: Math.floor(BATCH_BYTES / c.recordBytes), partitions: c.partitions, acks: c.acks, seconds: SECONDS,
    });
    return { ...result, peakRssMB: round(stopRss() / 1048576, 1) };
  } finally {
    await broker.stop();
    broker.cleanup();
  }
}

async function main(): Promise<void> {
  const results: CaseResult[] = [];
  for (const c of CASES) results.push({ ...c, ...(await medianRun(RUNS, () => runOnce(c), (r) => r.recordsPerSec)) });
  printTable(`loadgen produce: ${PRODUCERS} producers × ${IN_FLIGHT} in flight, ~${BATCH_BYTES / 1024} KB batches, ${SECONDS} s per run, median of ${RUNS} (latency = request round trip, ms)`,
    results.map((r) => ({
      records: `${r.recordBytes} B`, partitions: r.partitions, acks: r.acks === -1 ? 'all' : String(r.acks),
      'records/s': r.recordsPerSec, 'MB/s': r.mbPerSec, p50Ms: r.latency.p50Ms, p99Ms: r.latency.p99Ms, 'peak RSS MB': r.peakRssMB, 'runs records/s': r.runs,
    })));
  printJson('produce-matrix', { producers: PRODUCERS, inFlight: IN_FLIGHT, batchBytes: BATCH_BYTES, seconds: SECONDS, runs: RUNS, results });
}

await main();
