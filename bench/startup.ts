// Start-up time (spawn → 'kafkite started') and idle RSS: empty, 100 partitions × 10 segments,
// and 1 partition × 1,000 segments; each after a clean shutdown, median of BENCH_RUNS restarts.
// Apache Kafka 4.4 takes the same layouts and restarts, in turn with kafkite (issue 32; BENCH_STARTUP_PEER=0
// leaves it out): ready is its Metadata listing itself as a broker (its logs loaded, registered, unfenced).
//
//   npx tsc -p . && node dist/bench/startup.js
//
// The data is written through the broker itself with a small internal.segment.bytes: every ~17 KB batch
// rolls a new segment.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ApiKey } from '../protocol/generated/index.js';
import { encodeBatch } from '../protocol/records/record-batch.js';
import { rssBytesOf } from './lib/broker-process.js';
import { brokerOrder, BROKERS, createReadyTopic, startBroker, type Broker, type Side, type Started } from './lib/peer-broker.js';
import { figureOf, figureOfValues, type Figure } from './lib/peer-figures.js';
import { BenchConnection } from './lib/wire.js';
import { median, printJson, printTable, round } from './lib/stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SEGMENT_BYTES = 16384;
const IDLE_SETTLE_MS = 1000;

interface Layout {
  name: string;
  partitions: number;
  segmentsPerPartition: number;
}

interface StartupResult {
  layout: string;
  segments: number;
  readyMs: number;
  idleRssMB: number;
  runs: number[];
}

const LAYOUTS: Layout[] = [
  { name: 'empty', partitions: 0, segmentsPerPartition: 0 },
  { name: '100 partitions × 10 segments', partitions: 100, segmentsPerPartition: 10 },
  { name: '1 partition × 1,000 segments', partitions: 1, segmentsPerPartition: 1000 },
];

async function writeLayout(side: Side, layout: Layout): Promise<void> {
  if (layout.partitions === 0) return;
  // Kafka 4.4 refuses a segment.bytes under 1 MiB (1,000 segments would be 1 GB). It also rolls when a segment's
  // time index is full (LogSegment.shouldRoll): with segment.index.bytes=12 each holds one entry, so each batch
  // (one index entry per 4 KB, index.interval.bytes) rolls a segment, as kafkite's 16 KB internal.segment.bytes does.
  await createReadyTopic(side, 'startup', layout.partitions, side.name === 'kafka' ? { 'segment.index.bytes': '12' } : { 'internal.segment.bytes': String(SEGMENT_BYTES) });
  const records = Array.from({ length: 17 }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.alloc(1000, 0x61), headers: [] }));
  const batch = encodeBatch({ baseOffset: 0, records });
  const connection = await BenchConnection.open(side.bootstrap);
  try {
    const sends: Promise<unknown>[] = [];
    for (let s = 0; s < layout.segmentsPerPartition; s++) {
      for (let p = 0; p < layout.partitions; p++) {
        sends.push(connection.send(ApiKey.Produce, 8, {
          transactionalId: null, acks: 1, timeoutMs: 30_000,
          topicData: [{ name: 'startup', partitionData: [{ index: p, records: batch }] }],
        }));
        if (sends.length >= 64) await Promise.all(sends.splice(0));
      }
    }
    await Promise.all(sends);
  } finally {
    connection.close();
  }
}

/** .log files under the partition directories of topic 'startup' (kafkite's log.dirs, or Kafka's data/ in its node dir). */
function countSegments(started: Started): number {
  const logDir = started.side.name === 'kafka' ? join(started.dir, 'data') : started.dir;
  let segments = 0;
  for (const entry of readdirSync(logDir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name.startsWith('startup-')) {
      segments += readdirSync(join(logDir, entry.name)).filter((f) => f.endsWith('.log')).length;
    }
  }
  return segments;
}

/** Writes the layout into each broker, then restarts them RUNS times, taking turns. */
async function measure(layout: Layout, names: readonly Broker[]): Promise<Record<Broker, StartupResult>> {
  const current = {} as Record<Broker, Started>;
  try {
    for (const name of names) {
      current[name] = await startBroker(name);
      await writeLayout(current[name].side, layout);
    }
    const ready: Record<Broker, number[]> = { kafkite: [], kafka: [] };
    const rss: Record<Broker, number> = { kafkite: 0, kafka: 0 };
    for (let i = 0; i < RUNS; i++) {
      for (const name of brokerOrder(i).filter((n) => names.includes(n))) {
        current[name] = await current[name].restart();
        ready[name].push(current[name].readyMs);
        await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
        rss[name] = rssBytesOf(current[name].side.pid);
      }
    }
    const result = (name: Broker): StartupResult => ({
      layout: layout.name, segments: countSegments(current[name]), readyMs: round(median(ready[name]), 1), idleRssMB: round(rss[name] / 1048576, 1), runs: ready[name].map((r) => round(r, 1)),
    });
    return Object.fromEntries(names.map((n) => [n, result(n)])) as Record<Broker, StartupResult>;
  } finally {
    await Promise.all(Object.values(current).map((b) => b.stop()));
  }
}

async function main(): Promise<void> {
  // Apache Kafka 4.4 beside kafkite (issue 32) unless BENCH_STARTUP_PEER=0.
  const names: readonly Broker[] = process.env.BENCH_STARTUP_PEER === '0' ? ['kafkite'] : BROKERS;
  const byLayout: Array<Record<Broker, StartupResult>> = [];
  for (const layout of LAYOUTS) byLayout.push(await measure(layout, names));
  const results = byLayout.map((r) => r.kafkite);
  const row = (broker: Broker, r: StartupResult) => ({ broker, layout: r.layout, segments: r.segments, 'ready ms': r.readyMs, 'idle RSS MB': r.idleRssMB, runs: r.runs });
  printTable(`start-up: spawn → ready (kafkite's 'kafkite started', Kafka's Metadata listing itself) after a clean shutdown (median of ${RUNS}); RSS ${IDLE_SETTLE_MS} ms after ready`,
    byLayout.flatMap((r) => names.map((n) => row(n, r[n]))));
  const peer: Figure[] = names.includes('kafka')
    ? byLayout.flatMap((r) => [
      figureOf(`start to ready after restart, ${r.kafkite.layout} (ms)`, r.kafkite.runs.map((v, i) => ({ kafkite: v, kafka: r.kafka.runs[i]! })), 1),
      figureOfValues(`RSS idle after restart, ${r.kafkite.layout} (MB)`, r.kafkite.idleRssMB, r.kafka.idleRssMB, 1),
    ])
    : [];
  if (peer.length > 0) printTable(`kafkite / Kafka 4.4, start-up (ratio: median of per-restart ratios)`, peer as unknown as Array<Record<string, unknown>>);
  printJson('startup', { runs: RUNS, segmentBytes: SEGMENT_BYTES, results, kafkaResults: names.includes('kafka') ? byLayout.map((r) => r.kafka) : [], peer });
}

await main();
