// kcat produce throughput against kafkite and against librdkafka's in-memory mock cluster, timed
// alternately in one run, and the broker's CPU seconds per GB for produce and consume.
//
//   npx tsc -p . && node dist/bench/produce-vs-mock.js
//   BENCH_RUNS=5 BENCH_PVM_RECORDS_100=2000000 BENCH_PVM_RECORDS_1K=400000 node dist/bench/produce-vs-mock.js
//
// Each round produces the same input file with the same kcat settings (4 partitions, acks=1,
// linger.ms=5, batch.num.messages=10000) to a fresh topic on kafkite and on the mock, in turn
// (the order swaps every round), then consumes kafkite's topic back with kcat. kcat's start-up
// (one-record runs) is subtracted; the figure is the median of the per-round kafkite / mock ratios,
// so the noise of a shared machine hits both sides of each ratio alike. CPU is the broker process's
// (and the mock's) utime + stime from /proc/<pid>/stat, all threads. GB = 10^9 bytes of record values.
// Before each measured produce, either side's, memory freed just then lets the run write into pages the
// VM still holds (bench/lib/guest-memory.ts): otherwise kafkite's page cache, not the mock's bounded
// in-memory log, pays the host's first-touch faults, up to about 2 CPU-s per GB on this machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchBroker } from './lib/broker-process.js';
import { recycleGuestMemory } from './lib/guest-memory.js';
import { KCAT_CONSUME_TO_END, timeKcat, writeInput } from './lib/kcat.js';
import { MockCluster } from './lib/mock-cluster.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { createTopic } from './loadgen.js';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);
const PARTITIONS = 4;
/** Unmeasured kafkite runs per record size before the measured rounds (see runCase). */
const WARMUP_RUNS = Number(process.env.BENCH_PVM_WARMUP_RUNS ?? 4);
const CASES = [
  { recordBytes: 100, records: Number(process.env.BENCH_PVM_RECORDS_100 ?? 2_000_000) },
  { recordBytes: 1024, records: Number(process.env.BENCH_PVM_RECORDS_1K ?? 400_000) },
];
const PRODUCER_SETTINGS = ['acks=1', 'linger.ms=5', 'batch.num.messages=10000', 'queue.buffering.max.messages=1000000'];

const produceArgs = (bootstrap: string, topic: string) => ['-P', '-b', bootstrap, '-t', topic, ...PRODUCER_SETTINGS.flatMap((s) => ['-X', s])];
const consumeArgs = (bootstrap: string, topic: string) => ['-C', '-b', bootstrap, '-t', topic, ...KCAT_CONSUME_TO_END];

interface Side {
  name: 'kafkite' | 'mock';
  bootstrap: string;
  cpuSeconds(): number;
  createTopic(topic: string): Promise<void>;
}

interface Timed {
  seconds: number;
  cpuSeconds: number;
}

export interface RoundRow {
  round: number;
  kafkiteRecordsPerSec: number;
  mockRecordsPerSec: number;
  ratio: number;
  kafkiteProduceCpuPerGb: number;
  mockProduceCpuPerGb: number;
  kafkiteConsumeCpuPerGb: number;
  kafkiteConsumeMbPerSec: number;
}

export interface CaseResult {
  recordBytes: number;
  records: number;
  /** Median of the per-round kafkite / mock produce throughput ratios. */
  ratio: number;
  kafkite: { recordsPerSec: number; mbPerSec: number; produceCpuSecondsPerGb: number; consumeCpuSecondsPerGb: number; consumeMbPerSec: number };
  mock: { recordsPerSec: number; mbPerSec: number; produceCpuSecondsPerGb: number };
  rounds: RoundRow[];
}

async function timed(side: Side, args: string[], input: string | null): Promise<Timed> {
  const cpu = side.cpuSeconds();
  const seconds = await timeKcat(args, input);
  return { seconds, cpuSeconds: side.cpuSeconds() - cpu };
}

async function startup(side: Side, one: string, label: string): Promise<{ produce: number; consume: number }> {
  const produce: number[] = [];
  const consume: number[] = [];
  for (let i = 0; i < 3; i++) {
    const topic = `startup-${label}-${i}`;
    await side.createTopic(topic);
    produce.push((await timed(side, produceArgs(side.bootstrap, topic), one)).seconds);
    consume.push((await timed(side, consumeArgs(side.bootstrap, topic), null)).seconds);
  }
  return { produce: median(produce), consume: median(consume) };
}

async function runCase(kafkite: Side, mock: Side, dir: string, recordBytes: number, records: number): Promise<CaseResult> {
  const input = writeInput(dir, recordBytes, records);
  const one = writeInput(dir, recordBytes, 1);
  const gb = (records * recordBytes) / 1e9;
  const startups = { kafkite: await startup(kafkite, one, String(recordBytes)), mock: await startup(mock, one, String(recordBytes)) };
  // Unmeasured runs first: the figures are a running broker's, not its first seconds'. V8 keeps
  // optimizing the produce path over the first few runs (about 3 CPU-s of TurboFan compilation for the
  // 1 KB case on this machine, `node --trace-opt`), which would otherwise be charged to the first rounds'
  // GB. The mock (C) needs one run for the page cache and its allocator.
  for (const side of [kafkite, mock]) {
    for (let i = 0; i < (side.name === 'kafkite' ? WARMUP_RUNS : 1); i++) {
      await side.createTopic(`warmup-${recordBytes}-${i}`);
      await timeKcat(produceArgs(side.bootstrap, `warmup-${recordBytes}-${i}`), input);
    }
  }
  const rounds: RoundRow[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const produced: Partial<Record<Side['name'], Timed>> = {};
      for (const side of i % 2 === 0 ? [kafkite, mock] : [mock, kafkite]) {
        const topic = `produce-${recordBytes}-${i}`;
        await side.createTopic(topic);
        recycleGuestMemory(dir, Math.ceil(records * recordBytes * 1.25));
        produced[side.name] = await timed(side, produceArgs(side.bootstrap, topic), input);
      }
      const consumed = await timed(kafkite, consumeArgs(kafkite.bootstrap, `produce-${recordBytes}-${i}`), null);
      const rate = (name: Side['name']) => records / Math.max(1e-3, produced[name]!.seconds - startups[name].produce);
      const consumeSeconds = Math.max(1e-3, consumed.seconds - startups.kafkite.consume);
      rounds.push({
        round: i + 1,
        kafkiteRecordsPerSec: Math.round(rate('kafkite')),
        mockRecordsPerSec: Math.round(rate('mock')),
        ratio: round(rate('kafkite') / rate('mock'), 2),
        kafkiteProduceCpuPerGb: round(produced.kafkite!.cpuSeconds / gb, 2),
        mockProduceCpuPerGb: round(produced.mock!.cpuSeconds / gb, 2),
        kafkiteConsumeCpuPerGb: round(consumed.cpuSeconds / gb, 2),
        kafkiteConsumeMbPerSec: round((records * recordBytes) / consumeSeconds / 1e6, 0),
      });
    }
  } finally {
    rmSync(input);
  }
  const med = (key: keyof RoundRow) => median(rounds.map((r) => r[key]));
  return {
    recordBytes,
    records,
    ratio: round(med('ratio'), 2),
    kafkite: {
      recordsPerSec: Math.round(med('kafkiteRecordsPerSec')),
      mbPerSec: round((med('kafkiteRecordsPerSec') * recordBytes) / 1e6, 0),
      produceCpuSecondsPerGb: round(med('kafkiteProduceCpuPerGb'), 2),
      consumeCpuSecondsPerGb: round(med('kafkiteConsumeCpuPerGb'), 2),
      consumeMbPerSec: round(med('kafkiteConsumeMbPerSec'), 0),
    },
    mock: {
      recordsPerSec: Math.round(med('mockRecordsPerSec')),
      mbPerSec: round((med('mockRecordsPerSec') * recordBytes) / 1e6, 0),
      produceCpuSecondsPerGb: round(med('mockProduceCpuPerGb'), 2),
    },
    rounds,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kafkite-bench-pvm-'));
  const results: CaseResult[] = [];
  try {
    for (const { recordBytes, records } of CASES) {
      // Fresh brokers per record size keep the page cache, the log and the mock's memory small.
      const topics = ['startup', 'warmup', 'produce'].flatMap((p) => Array.from({ length: Math.max(3, ROUNDS) }, (_, i) => `${p}-${recordBytes}-${i}`));
      const mockCluster = await MockCluster.start(PARTITIONS, [...topics, `startup-${recordBytes}-mock-0`]);
      const broker = await BenchBroker.start();
      try {
        const kafkite: Side = { name: 'kafkite', bootstrap: broker.bootstrap, cpuSeconds: () => broker.cpuSeconds(), createTopic: (t) => createTopic(broker.bootstrap, t, PARTITIONS) };
        // The mock's topics were created at start-up, with the same partition count.
        const mock: Side = { name: 'mock', bootstrap: mockCluster.bootstrap, cpuSeconds: () => mockCluster.cpuSeconds(), createTopic: async () => {} };
        results.push(await runCase(kafkite, mock, dir, recordBytes, records));
      } finally {
        await broker.stop();
        broker.cleanup();
        await mockCluster.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const r of results) {
    printTable(`kcat produce ${r.recordBytes} B × ${r.records.toLocaleString('en-US')}, ${PARTITIONS} partitions, acks=1: kafkite vs librdkafka mock, alternating rounds`,
      r.rounds as unknown as Array<Record<string, unknown>>);
  }
  printTable(`kafkite / librdkafka mock (median of ${ROUNDS} per-round ratios); broker CPU-s per GB of record values`, results.map((r) => ({
    records: `${r.recordBytes} B`,
    'kafkite rec/s': r.kafkite.recordsPerSec,
    'mock rec/s': r.mock.recordsPerSec,
    ratio: r.ratio,
    'produce CPU-s/GB': r.kafkite.produceCpuSecondsPerGb,
    'mock CPU-s/GB': r.mock.produceCpuSecondsPerGb,
    'consume CPU-s/GB': r.kafkite.consumeCpuSecondsPerGb,
    'consume MB/s': r.kafkite.consumeMbPerSec,
  })));
  printJson('produce-vs-mock', { partitions: PARTITIONS, rounds: ROUNDS, producerSettings: PRODUCER_SETTINGS, results });
}

await main();
