// kafkite beside Apache Kafka 4.4 on the same machine and disk (issue 32): kcat produce and consume
// throughput, each broker's CPU per GB (user and system apart), its RSS, and start to ready.
//
//   node scripts/kafka-jars.mjs && npx tsc -p . && node dist/bench/kafka-vs-kafkite.js     about 10 minutes
//   BENCH_FULL=1 node dist/bench/kafka-vs-kafkite.js                                       more rounds, bigger inputs
//   BENCH_RUNS=1 BENCH_KVK_STARTS=1 BENCH_KVK_WARMUP_RUNS=1 BENCH_KVK_RECORDS_100=20000 BENCH_KVK_RECORDS_1K=5000 node dist/bench/kafka-vs-kafkite.js
//
// Run it on an idle machine for figures worth publishing. Kafka is a combined-mode KRaft node started as
// kafka-server-start.sh starts it (1 GiB heap, G1 and its flags: bench/lib/reference-kafka.ts), with its
// default configuration and its log dir in the same temporary directory tree as kafkite's.
//
// Per record size, fresh brokers, both warmed up as produce-vs-mock warms kafkite (unmeasured produce runs,
// for V8's and the JIT's compilation), then rounds: each mode produces the same input file with the same kcat
// settings (4 partitions, linger.ms=5, batch.num.messages=10000) to a fresh topic on either broker in turn
// (the order swaps every round), then kcat consumes the round's acks=1 topic from either broker, from the
// page cache. The modes:
//   acks=1;
//   acks=all at each broker's default durability: kafkite fdatasyncs before it answers, Kafka does not;
//   acks=all, both durable: Kafka's topic has flush.messages=1 (the topic-level log.flush.interval.messages,
//     Kafka's LogConfig), so it flushes after every append before the produce is answered, as kafkite does.
// kcat's start-up (one-record runs) is subtracted from a produce, not from a consume (see runCase); figures are medians of the per-round values and ratios
// (kafkite / Kafka: above 1 is kafkite faster for throughput, below 1 is kafkite cheaper for CPU, RSS, start).
// CPU is utime and stime of the broker process, all threads (the JVM's are all in its one process), from
// /proc/<pid>/stat; GB = 10^9 bytes of record values. Memory is recycled before each measured produce, as in
// produce-vs-mock (bench/lib/guest-memory.ts), so neither broker pays the VM's first-touch faults alone.
// Start to ready, empty: spawn to serving (kafkite's 'kafkite started' line; Kafka's Metadata listing itself,
// its storage format not counted), alternating, and the RSS of the idle broker one second after.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rssBytesOf } from './lib/broker-process.js';
import { recycleGuestMemory } from './lib/guest-memory.js';
import { KCAT_CONSUME_TO_END, timeKcat, writeInput } from './lib/kcat.js';
import { brokerCost, brokerOrder, createReadyTopic, type BrokerCost, startBoth, startBroker, type Broker, type Side } from './lib/peer-broker.js';
import { median, printJson, printTable, round } from './lib/stats.js';

const FULL = process.env.BENCH_FULL === '1';
const ROUNDS = Number(process.env.BENCH_RUNS ?? (FULL ? 7 : 5));
const STARTS = Number(process.env.BENCH_KVK_STARTS ?? (FULL ? 5 : 3));
const WARMUP_RUNS = Number(process.env.BENCH_KVK_WARMUP_RUNS ?? 4);
const PARTITIONS = 4;
const CASES = [
  { recordBytes: 100, records: Number(process.env.BENCH_KVK_RECORDS_100 ?? (FULL ? 4_000_000 : 2_000_000)) },
  { recordBytes: 1024, records: Number(process.env.BENCH_KVK_RECORDS_1K ?? (FULL ? 800_000 : 400_000)) },
];
const MODES = [
  { mode: 'acks=1', acks: '1', kafkaTopicConfigs: {} },
  { mode: 'acks=all, default durability', acks: 'all', kafkaTopicConfigs: {} },
  { mode: 'acks=all, both durable', acks: 'all', kafkaTopicConfigs: { 'flush.messages': '1' } },
] as const;
type Mode = (typeof MODES)[number]['mode'];

const produceArgs = (bootstrap: string, topic: string, acks: string) => [
  '-P', '-b', bootstrap, '-t', topic,
  ...[`acks=${acks}`, 'linger.ms=5', 'batch.num.messages=10000', 'queue.buffering.max.messages=1000000'].flatMap((s) => ['-X', s]),
];
const consumeArgs = (bootstrap: string, topic: string) => ['-C', '-b', bootstrap, '-t', topic, ...KCAT_CONSUME_TO_END];

type Measured = BrokerCost & { seconds: number };

async function measure(side: Side, args: string[], input: string | null): Promise<Measured> {
  const { result: seconds, ...cost } = await brokerCost(side, () => timeKcat(args, input));
  return { seconds, ...cost };
}

interface StartRow {
  start: number;
  broker: Broker;
  readyMs: number;
  idleRssMB: number;
}

async function startToReady(): Promise<StartRow[]> {
  const rows: StartRow[] = [];
  for (let i = 0; i < STARTS; i++) {
    for (const name of brokerOrder(i)) {
      const b = await startBroker(name);
      try {
        await new Promise((r) => setTimeout(r, 1000));
        rows.push({ start: i + 1, broker: name, readyMs: Math.round(b.readyMs), idleRssMB: round(rssBytesOf(b.side.pid) / 1e6, 1) });
      } finally {
        await b.stop();
      }
    }
  }
  return rows;
}

interface RoundRow {
  round: number;
  mode: Mode | 'consume';
  kafkiteRecordsPerSec: number;
  kafkaRecordsPerSec: number;
  ratio: number;
  kafkiteUserCpuPerGb: number;
  kafkiteSystemCpuPerGb: number;
  kafkaUserCpuPerGb: number;
  kafkaSystemCpuPerGb: number;
  kafkitePeakRssMB: number;
  kafkaPeakRssMB: number;
}

async function runCase(sides: Record<Broker, Side>, dir: string, recordBytes: number, records: number): Promise<RoundRow[]> {
  const input = writeInput(dir, recordBytes, records);
  const one = writeInput(dir, recordBytes, 1);
  const gb = (records * recordBytes) / 1e9;
  try {
    const kcatStart = {} as Record<Broker, number>;
    for (const side of Object.values(sides)) {
      const produce: number[] = [];
      for (let i = 0; i < 3; i++) {
        const topic = `startup-${recordBytes}-${i}`;
        await createReadyTopic(side, topic, PARTITIONS);
        produce.push((await measure(side, produceArgs(side.bootstrap, topic, '1'), one)).seconds);
      }
      kcatStart[side.name] = median(produce);
    }
    // A consume is timed whole: at 100 B kafkite read the 200 MB in about as long as kcat's one-record
    // consume took under load, so subtracting that start made rounds of 2,000,000,000 rec/s.
    const noStart: Record<Broker, number> = { kafkite: 0, kafka: 0 };
    for (let i = 0; i < WARMUP_RUNS; i++) {
      for (const side of Object.values(sides)) {
        await createReadyTopic(side, `warmup-${recordBytes}-${i}`, PARTITIONS);
        await timeKcat(produceArgs(side.bootstrap, `warmup-${recordBytes}-${i}`, '1'), input);
      }
    }
    const rows: RoundRow[] = [];
    const row = (n: number, mode: RoundRow['mode'], m: Record<Broker, Measured>, start: Record<Broker, number>): RoundRow => {
      const rate = (b: Broker) => records / Math.max(1e-3, m[b].seconds - start[b]);
      return {
        round: n, mode,
        kafkiteRecordsPerSec: Math.round(rate('kafkite')),
        kafkaRecordsPerSec: Math.round(rate('kafka')),
        ratio: round(rate('kafkite') / rate('kafka'), 2),
        kafkiteUserCpuPerGb: round(m.kafkite.user / gb, 2),
        kafkiteSystemCpuPerGb: round(m.kafkite.system / gb, 2),
        kafkaUserCpuPerGb: round(m.kafka.user / gb, 2),
        kafkaSystemCpuPerGb: round(m.kafka.system / gb, 2),
        kafkitePeakRssMB: round(m.kafkite.peakRss / 1e6, 1),
        kafkaPeakRssMB: round(m.kafka.peakRss / 1e6, 1),
      };
    };
    for (let i = 0; i < ROUNDS; i++) {
      const order = brokerOrder(i);
      for (const [m, { mode, acks, kafkaTopicConfigs }] of MODES.entries()) {
        const produced = {} as Record<Broker, Measured>;
        for (const name of order) {
          const topic = `produce-${recordBytes}-${i}-${m}`;
          await createReadyTopic(sides[name], topic, PARTITIONS, name === 'kafka' ? kafkaTopicConfigs : {});
          recycleGuestMemory(dir, Math.ceil(records * recordBytes * 1.25));
          produced[name] = await measure(sides[name], produceArgs(sides[name].bootstrap, topic, acks), input);
        }
        rows.push(row(i + 1, mode, produced, kcatStart));
      }
      const consumed = {} as Record<Broker, Measured>;
      for (const name of order) consumed[name] = await measure(sides[name], consumeArgs(sides[name].bootstrap, `produce-${recordBytes}-${i}-0`), null);
      rows.push(row(i + 1, 'consume', consumed, noStart));
    }
    return rows;
  } finally {
    rmSync(input);
    rmSync(one);
  }
}

interface Figure {
  figure: string;
  kafkite: number;
  kafka: number;
  /** kafkite / Kafka. */
  ratio: number;
}

function figures(recordBytes: number, rows: RoundRow[]): Figure[] {
  const size = recordBytes === 1024 ? '1 KB' : `${recordBytes} B`;
  const out: Figure[] = [];
  for (const mode of [...MODES.map((m) => m.mode), 'consume'] as const) {
    const rs = rows.filter((r) => r.mode === mode);
    const med = (key: keyof RoundRow) => median(rs.map((r) => r[key] as number));
    const what = mode === 'consume' ? `kcat consume ${size}, page cache, kcat's start included` : `kcat produce ${size}, ${mode}`;
    out.push({ figure: `${what} (rec/s)`, kafkite: Math.round(med('kafkiteRecordsPerSec')), kafka: Math.round(med('kafkaRecordsPerSec')), ratio: round(med('ratio'), 2) });
    if (mode === 'acks=1' || mode === 'consume') {
      const dir = mode === 'consume' ? 'consumed' : 'produced';
      const cpu = (b: Broker) => rs.map((r) => (b === 'kafkite' ? r.kafkiteUserCpuPerGb + r.kafkiteSystemCpuPerGb : r.kafkaUserCpuPerGb + r.kafkaSystemCpuPerGb));
      const kafkite = median(cpu('kafkite'));
      const kafka = median(cpu('kafka'));
      out.push({ figure: `broker CPU-s per GB ${dir}, ${size}`, kafkite: round(kafkite, 2), kafka: round(kafka, 2), ratio: round(kafkite / kafka, 2) });
      out.push({ figure: `  user CPU-s per GB ${dir}, ${size}`, kafkite: round(med('kafkiteUserCpuPerGb'), 2), kafka: round(med('kafkaUserCpuPerGb'), 2), ratio: round(med('kafkiteUserCpuPerGb') / med('kafkaUserCpuPerGb'), 2) });
      out.push({ figure: `  system CPU-s per GB ${dir}, ${size}`, kafkite: round(med('kafkiteSystemCpuPerGb'), 2), kafka: round(med('kafkaSystemCpuPerGb'), 2), ratio: round(med('kafkiteSystemCpuPerGb') / med('kafkaSystemCpuPerGb'), 2) });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kafkite-bench-kvk-'));
  const cases: Array<{ recordBytes: number; records: number; rounds: RoundRow[] }> = [];
  let starts: StartRow[];
  try {
    starts = await startToReady();
    for (const { recordBytes, records } of CASES) {
      // Fresh brokers per record size keep the logs and the page cache small.
      const { kafkite, kafka } = await startBoth();
      try {
        cases.push({ recordBytes, records, rounds: await runCase({ kafkite: kafkite.side, kafka: kafka.side }, dir, recordBytes, records) });
      } finally {
        await Promise.all([kafkite.stop(), kafka.stop()]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const c of cases) {
    printTable(`kcat ${c.recordBytes} B × ${c.records.toLocaleString('en-US')}, ${PARTITIONS} partitions: kafkite vs Kafka 4.4, alternating rounds; CPU-s per GB of record values`,
      c.rounds as unknown as Array<Record<string, unknown>>);
  }
  printTable(`start to ready (empty) and idle RSS, alternating starts`, starts as unknown as Array<Record<string, unknown>>);
  const startOf = (b: Broker, key: 'readyMs' | 'idleRssMB') => median(starts.filter((s) => s.broker === b).map((s) => s[key]));
  const peakRss = (b: Broker) => Math.max(...cases.flatMap((c) => c.rounds.map((r) => (b === 'kafkite' ? r.kafkitePeakRssMB : r.kafkaPeakRssMB))));
  const results: Figure[] = [
    ...cases.flatMap((c) => figures(c.recordBytes, c.rounds)),
    { figure: 'RSS idle, empty (MB)', kafkite: startOf('kafkite', 'idleRssMB'), kafka: startOf('kafka', 'idleRssMB'), ratio: round(startOf('kafkite', 'idleRssMB') / startOf('kafka', 'idleRssMB'), 2) },
    { figure: 'RSS under load, peak (MB)', kafkite: peakRss('kafkite'), kafka: peakRss('kafka'), ratio: round(peakRss('kafkite') / peakRss('kafka'), 2) },
    { figure: 'start to ready, empty (ms)', kafkite: startOf('kafkite', 'readyMs'), kafka: startOf('kafka', 'readyMs'), ratio: round(startOf('kafkite', 'readyMs') / startOf('kafka', 'readyMs'), 3) },
  ];
  printTable(`kafkite / Kafka 4.4 (medians of ${ROUNDS} rounds, ${STARTS} starts; ratio of medians for CPU and RSS, median of per-round ratios for throughput)`,
    results as unknown as Array<Record<string, unknown>>);
  printJson('kafka-vs-kafkite', { partitions: PARTITIONS, rounds: ROUNDS, starts: STARTS, results, startRows: starts, cases });
}

await main();
