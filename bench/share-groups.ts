// Share groups (KIP-932) beside Apache Kafka 4.4 (issues 29 and 32): records/s consumed and acknowledged by
// Kafka 4.4's KafkaShareConsumer (bench/peers/ShareBench.java: BENCH_SHARE_CONSUMERS consumers in one share group,
// explicit ACCEPT of each record) from a pre-filled topic of 100 B records, each broker's CPU per GB consumed (user
// and system apart) and its peak RSS; and for kafkite alone the memory a share partition holds per million
// acquired records, to check that in-flight records are kept as ranges (SharePartition's InFlightBatch).
//
//   node scripts/kafka-jars.mjs && npx tsc -p . && node dist/bench/share-groups.js             about 5 minutes, idle machine
//   BENCH_RUNS=1 BENCH_SHARE_RECORDS=100000 node dist/bench/share-groups.js                     a check that it works
//
// Fresh brokers with their default share-group settings (lock 30 s, 2,000 record locks per partition), both warmed
// up with one unmeasured run; then rounds in which the brokers take turns (the order swaps every round): a fresh
// 4-partition topic filled by ProducerPerformance (acks=1, unmeasured), then read by a new share group. The rate is
// the consumer program's own, from its first record to the last acknowledgement confirmed (its JVM's start and the
// group join are not in it); the broker's CPU and RSS are counted over the same span. GB = 10^9 bytes of values.
//
// In-flight memory is measured in this process on kafkite's SharePartition itself (one partition, a persister that
// keeps nothing): group.share.partition.max.record.locks is at most 10,000 on either broker (Kafka's
// ShareGroupConfig bounds), so a live broker cannot hold a million records in one share partition.
import { spawn } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SharePartition, type FetchedBatch } from '../src/share/share-partition.js';
import type { Persister, SharePartitionState } from '../src/share/persister.js';
import { cpuTimesOf, sampleRssOf } from './lib/broker-process.js';
import { producerPerformance } from './lib/kafka-tools.js';
import { REPO_ROOT } from './lib/kafkite-process.js';
import { brokerOrder, createReadyTopic, startBoth, BROKERS, type Broker, type Side } from './lib/peer-broker.js';
import { figureOf, type Figure, type PerRound } from './lib/peer-figures.js';
import { printJson, printTable, round } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);
const RECORDS = Number(process.env.BENCH_SHARE_RECORDS ?? 1_000_000);
const CONSUMERS = Number(process.env.BENCH_SHARE_CONSUMERS ?? 2);
const IN_FLIGHT = Number(process.env.BENCH_SHARE_IN_FLIGHT ?? 1_000_000);
const RECORD_BYTES = 100;
const PARTITIONS = 4;
// The client JVM as kafka-run-class.sh starts Kafka's tools (bench/lib/kafka-tools.ts), the same for both brokers.
const CLIENT_JVM_FLAGS = ['-Xmx512M', '-server', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-Djava.awt.headless=true'];

interface Row {
  round: number;
  broker: Broker;
  recordsPerSec: number;
  userCpuPerGb: number;
  systemCpuPerGb: number;
  peakRssMB: number;
}

interface ConsumeRun {
  recordsPerSec: number;
  /** The broker's CPU seconds and peak RSS from the first record received to the program's end. */
  user: number;
  system: number;
  peakRss: number;
}

/**
 * Runs ShareBench.java (the source launcher: javac runs before the timed part). The broker's cost is counted from
 * the program's first record on: its JVM start, javac, and the group join would otherwise outweigh a small run.
 */
function shareConsume(side: Side, topic: string, group: string): Promise<ConsumeRun> {
  const source = join(REPO_ROOT, 'bench/peers/ShareBench.java');
  const args = [...CLIENT_JVM_FLAGS, '-cp', join(REPO_ROOT, 'test/kafka/lib/*'), source, side.bootstrap, topic, group, String(CONSUMERS), String(RECORDS)];
  return new Promise((resolve, reject) => {
    const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let before: { user: number; system: number } | undefined;
    let stopRss: (() => number) | undefined;
    let result: { records: number; ms: number } | undefined;
    let err = '';
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{"first"')) {
        before = cpuTimesOf(side.pid);
        stopRss = sampleRssOf(side.pid);
      } else if (line.startsWith('{"records"')) {
        result = JSON.parse(line);
      } else {
        err = (err + line + '\n').slice(-4096);
      }
    });
    child.stderr!.on('data', (d) => (err = (err + d).slice(-4096)));
    child.on('error', reject);
    child.on('close', (code) => {
      const peakRss = stopRss?.() ?? NaN;
      if (code !== 0 || !result || !before) return reject(new Error(`ShareBench on ${side.name} exited with ${code}: ${err}`));
      const after = cpuTimesOf(side.pid);
      resolve({ recordsPerSec: (result.records / result.ms) * 1000, user: after.user - before.user, system: after.system - before.system, peakRss });
    });
  });
}

async function fill(side: Side, topic: string): Promise<void> {
  await createReadyTopic(side, topic, PARTITIONS);
  await producerPerformance(side.bootstrap, topic, RECORDS, RECORD_BYTES, { acks: '1' });
}

async function consumeRounds(sides: Record<Broker, Side>): Promise<Row[]> {
  const gb = (RECORDS * RECORD_BYTES) / 1e9;
  for (const side of Object.values(sides)) {
    // Warm-up: the JIT's and V8's compilation of the share-fetch path, not counted.
    await fill(side, 'share-warmup');
    await shareConsume(side, 'share-warmup', 'share-warmup');
  }
  const rows: Row[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const name of brokerOrder(i)) {
      const side = sides[name];
      const topic = `share-${i}`;
      await fill(side, topic);
      const { recordsPerSec, user, system, peakRss } = await shareConsume(side, topic, `share-bench-${i}`);
      rows.push({ round: i + 1, broker: name, recordsPerSec: Math.round(recordsPerSec), userCpuPerGb: round(user / gb, 2), systemCpuPerGb: round(system / gb, 2), peakRssMB: round(peakRss / 1e6, 1) });
    }
  }
  return rows;
}

function figures(rows: Row[]): Figure[] {
  const perRound = (value: (r: Row) => number): PerRound => rows.filter((r) => r.broker === 'kafkite').flatMap((r) => {
    const peer = rows.find((x) => x.round === r.round && x.broker === 'kafka');
    return peer ? [{ kafkite: value(r), kafka: value(peer) }] : [];
  });
  const run = `${CONSUMERS} share consumers, explicit ACCEPT, 100 B`;
  return [
    figureOf(`share group consume, ${run} (rec/s)`, perRound((r) => r.recordsPerSec)),
    figureOf(`broker CPU-s per GB consumed (share group), ${run}`, perRound((r) => r.userCpuPerGb + r.systemCpuPerGb), 2),
    figureOf(`  user CPU-s per GB consumed (share group), ${run}`, perRound((r) => r.userCpuPerGb), 2),
    figureOf(`  system CPU-s per GB consumed (share group), ${run}`, perRound((r) => r.systemCpuPerGb), 2),
    figureOf(`RSS under load, peak, share group, ${run} (MB)`, [Object.fromEntries(BROKERS.map((b) => [b, Math.max(...rows.filter((r) => r.broker === b).map((r) => r.peakRssMB))])) as Record<Broker, number>]),
  ];
}

/** A persister that keeps nothing: the in-memory state alone is measured. */
const NULL_PERSISTER: Persister = {
  initializeState: async () => {},
  readState: async (): Promise<SharePartitionState> => ({ stateEpoch: 1, leaderEpoch: 0, startOffset: 0, deliveryCompleteCount: 0, stateBatches: [] }),
  writeState: async () => {},
  readSummary: async () => undefined,
  deleteState: async () => {},
};

/**
 * Heap held by one share partition with IN_FLIGHT records acquired, as a share fetch acquires them: log batches of
 * 160 records (what ProducerPerformance's 16 KB batches hold at 100 B), 500 records per fetch (max.poll.records).
 */
async function inFlightMemory(): Promise<{ records: number; heapBytes: number; bytesPerRecord: number; inFlightBatches: number }> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const sp = new SharePartition({ groupId: 'g', topicId: 't', partition: 0 }, NULL_PERSISTER, {
    lockDurationMs: () => 3_600_000, deliveryCountLimit: () => 5, maxInFlightRecords: () => IN_FLIGHT, autoOffsetReset: () => 'earliest',
  });
  await sp.initialize({ logStartOffset: 0, highWatermark: IN_FLIGHT, offsetForTimestamp: () => undefined });
  const LOG_BATCH = 160;
  const PER_FETCH = 500;
  gc();
  const before = process.memoryUsage().heapUsed;
  let acquired = 0;
  for (let next = 0; acquired < IN_FLIGHT;) {
    const fetched: FetchedBatch[] = [];
    for (let n = 0; n < PER_FETCH && next < IN_FLIGHT; n += LOG_BATCH, next += LOG_BATCH) fetched.push({ baseOffset: next, lastOffset: Math.min(next + LOG_BATCH, IN_FLIGHT) - 1 });
    const got = sp.acquire(`member-${acquired % 2}`, fetched, PER_FETCH, PER_FETCH, false);
    if (got.length === 0) throw new Error(`acquisition stopped at ${acquired}`);
    acquired += got.reduce((n, r) => n + r.lastOffset - r.firstOffset + 1, 0);
  }
  gc();
  const heapBytes = process.memoryUsage().heapUsed - before;
  const inFlightBatches = sp.inFlightBatchCount;
  sp.close();
  return { records: acquired, heapBytes, bytesPerRecord: round(heapBytes / acquired, 2), inFlightBatches };
}

async function main(): Promise<void> {
  const memory = await inFlightMemory();
  const started = await startBoth();
  let rows: Row[];
  try {
    rows = await consumeRounds({ kafkite: started.kafkite.side, kafka: started.kafka.side });
  } finally {
    await Promise.all([started.kafkite.stop(), started.kafka.stop()]);
  }
  printTable(`Share groups, ${RECORDS.toLocaleString('en-US')} × ${RECORD_BYTES} B on ${PARTITIONS} partitions, ${CONSUMERS} KafkaShareConsumers, alternating rounds (CPU-s per GB of record values)`,
    rows as unknown as Array<Record<string, unknown>>);
  const results = figures(rows);
  printTable(`kafkite / Kafka 4.4 share groups (medians of ${ROUNDS} rounds; ratio: median of per-round ratios)`, results as unknown as Array<Record<string, unknown>>);
  const perMillion = { 'records acquired': memory.records, 'in-flight runs (objects)': memory.inFlightBatches, 'heap MB per million': round((memory.heapBytes / memory.records) * 1e6 / 1e6, 2), 'bytes per record': memory.bytesPerRecord };
  printTable('kafkite: one share partition holding acquired records (SharePartition heap, after GC)', [perMillion]);
  printJson('share-groups', { records: RECORDS, recordBytes: RECORD_BYTES, partitions: PARTITIONS, consumers: CONSUMERS, rounds: ROUNDS, results, rows, inFlightMemory: memory });
}

await main();
