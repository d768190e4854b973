// Start-up time (spawn → 'kafkite started') and idle RSS: empty, 100 partitions × 10 segments,
// and 1 partition × 1,000 segments; each after a clean shutdown, median of BENCH_RUNS restarts.
//
//   npx tsc -p . && node dist/bench/startup.js
//
// The data is written through the broker itself with a small segment.bytes: every ~17 KB batch
// rolls a new segment.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ApiKey } from '../protocol/generated/index.js';
import { encodeBatch } from '../protocol/records/record-batch.js';
import { BenchBroker } from './lib/broker-process.js';
import { BenchConnection } from './lib/wire.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { createTopic } from './loadgen.js';

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

async function writeLayout(broker: BenchBroker, layout: Layout): Promise<void> {
  if (layout.partitions === 0) return;
  await createTopic(broker.bootstrap, 'startup', layout.partitions, { 'segment.bytes': String(SEGMENT_BYTES) });
  const records = Array.from({ length: 17 }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.alloc(1000, 0x61), headers: [] }));
  const batch = encodeBatch({ baseOffset: 0, records });
  const connection = await BenchConnection.open(broker.bootstrap);
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

function countSegments(dataDir: string): number {
  let segments = 0;
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name.startsWith('startup-')) {
      segments += readdirSync(join(dataDir, entry.name)).filter((f) => f.endsWith('.log')).length;
    }
  }
  return segments;
}

async function measure(layout: Layout): Promise<StartupResult> {
  const writer = await BenchBroker.start();
  const dataDir = writer.dataDir;
  try {
    await writeLayout(writer, layout);
    await writer.stop();
    const ready: number[] = [];
    let rss = 0;
    for (let i = 0; i < RUNS; i++) {
      const broker = await BenchBroker.start({ dataDir });
      ready.push(broker.readyMs);
      await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
      rss = broker.rssBytes();
      await broker.stop();
    }
    return { layout: layout.name, segments: countSegments(dataDir), readyMs: round(median(ready), 1), idleRssMB: round(rss / 1048576, 1), runs: ready.map((r) => round(r, 1)) };
  } finally {
    writer.cleanup();
  }
}

async function main(): Promise<void> {
  const results: StartupResult[] = [];
  for (const layout of LAYOUTS) results.push(await measure(layout));
  printTable(`start-up: spawn → 'kafkite started' after a clean shutdown (median of ${RUNS}); RSS ${IDLE_SETTLE_MS} ms after ready`,
    results.map((r) => ({ layout: r.layout, segments: r.segments, 'ready ms': r.readyMs, 'idle RSS MB': r.idleRssMB, runs: r.runs })));
  printJson('startup', { runs: RUNS, segmentBytes: SEGMENT_BYTES, results });
}

await main();
