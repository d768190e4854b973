// kafkite beside Apache Kafka 4.4 with Kafka's own perf tools (issue 32, part 2): ProducerPerformance at
// 100 B and 1 KB (acks=1; acks=all at each broker's default durability; acks=all with both durable) and
// ConsumerPerformance from the page cache as a new member of a consumer group, under the classic and
// under the consumer protocol; each broker's CPU per GB (user and system apart) and its peak RSS.
//
//   node scripts/kafka-jars.mjs && npx tsc -p . && node dist/bench/perf-tools.js                about 10 minutes
//   BENCH_RUNS=1 BENCH_PT_RECORDS_100=100000 BENCH_PT_RECORDS_1K=20000 node dist/bench/perf-tools.js      a check that it works
//
// Per record size, fresh brokers, both warmed up with an unmeasured producer run, then rounds; in each the
// brokers take turns (the order swaps every round), each producing to a fresh 4-partition topic per mode,
// then each topic of the round's acks=1 run is read by ConsumerPerformance under either protocol. The
// tools run as their scripts run them (bench/lib/kafka-tools.ts) with the producer's and consumer's
// defaults (linger.ms=5, batch.size=16384; idempotence off at acks=1), so what is compared is what a user
// of these tools sees. The rates are the tools' own (a JVM's start is not in them; the consumer's is from
// its first fetch, so the group join is not in it: it is given apart). Both durable: Kafka's topic has
// flush.messages=1 (LogConfig's topic-level log.flush.interval.messages), so it flushes each append before
// it answers, as kafkite does by default. Memory is recycled before each measured produce
// (bench/lib/guest-memory.ts). GB = 10^9 bytes of record values.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recycleGuestMemory } from './lib/guest-memory.js';
import { consumerPerformance, producerPerformance } from './lib/kafka-tools.js';
import { brokerCost, brokerOrder, createReadyTopic, startBoth, BROKERS, type Broker, type Side } from './lib/peer-broker.js';
import { figureOf, type Figure, type PerRound } from './lib/peer-figures.js';
import { printJson, printTable, round } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);
const PARTITIONS = 4;
const CASES = [
  { recordBytes: 100, records: Number(process.env.BENCH_PT_RECORDS_100 ?? 2_000_000) },
  { recordBytes: 1024, records: Number(process.env.BENCH_PT_RECORDS_1K ?? 400_000) },
];
const MODES = [
  { mode: 'acks=1', acks: '1', kafkaTopicConfigs: {} },
  { mode: 'acks=all, default durability', acks: 'all', kafkaTopicConfigs: {} },
  { mode: 'acks=all, both durable', acks: 'all', kafkaTopicConfigs: { 'flush.messages': '1' } },
] as const;
const PROTOCOLS = ['classic', 'consumer'] as const;

interface Row {
  round: number;
  run: string;
  broker: Broker;
  recordsPerSec: number;
  userCpuPerGb: number;
  systemCpuPerGb: number;
  peakRssMB: number;
  /** The producer's p99 send latency, or the consumer's group join, ms. */
  clientMs: number;
}

async function runCase(sides: Record<Broker, Side>, dir: string, recordBytes: number, records: number): Promise<Row[]> {
  const gb = (records * recordBytes) / 1e9;
  const rows: Row[] = [];
  const push = (n: number, run: string, side: Side, recordsPerSec: number, cost: { user: number; system: number; peakRss: number }, clientMs: number) =>
    rows.push({ round: n, run, broker: side.name, recordsPerSec: Math.round(recordsPerSec), userCpuPerGb: round(cost.user / gb, 2), systemCpuPerGb: round(cost.system / gb, 2), peakRssMB: round(cost.peakRss / 1e6, 1), clientMs });
  for (const side of Object.values(sides)) {
    // Warm-up: V8's and the JIT's compilation of the produce path, not counted.
    await createReadyTopic(side, `warmup-${recordBytes}`, PARTITIONS);
    await producerPerformance(side.bootstrap, `warmup-${recordBytes}`, records, recordBytes, { acks: '1' });
  }
  for (let i = 0; i < ROUNDS; i++) {
    for (const [m, { mode, acks, kafkaTopicConfigs }] of MODES.entries()) {
      for (const name of brokerOrder(i)) {
        const side = sides[name];
        const topic = `produce-${recordBytes}-${i}-${m}`;
        await createReadyTopic(side, topic, PARTITIONS, name === 'kafka' ? kafkaTopicConfigs : {});
        recycleGuestMemory(dir, Math.ceil(records * recordBytes * 1.25));
        const { result, ...cost } = await brokerCost(side, () => producerPerformance(side.bootstrap, topic, records, recordBytes, { acks }));
        push(i + 1, `produce ${mode}`, side, result.recordsPerSec, cost, result.p99LatencyMs);
      }
    }
    for (const protocol of PROTOCOLS) {
      for (const name of brokerOrder(i)) {
        const side = sides[name];
        const { result, ...cost } = await brokerCost(side, () => consumerPerformance(side.bootstrap, `produce-${recordBytes}-${i}-0`, records, `perf-${protocol}-${i}`, protocol));
        push(i + 1, `consume, ${protocol} protocol`, side, result.recordsPerSec, cost, result.rebalanceMs);
      }
    }
  }
  return rows;
}

function figures(recordBytes: number, rows: Row[]): Figure[] {
  const size = recordBytes === 1024 ? '1 KB' : `${recordBytes} B`;
  const perRound = (run: string, value: (r: Row) => number): PerRound => {
    const out: PerRound = [];
    for (const r of rows.filter((x) => x.run === run && x.broker === 'kafkite')) {
      const peer = rows.find((x) => x.run === run && x.round === r.round && x.broker === 'kafka');
      if (peer) out.push({ kafkite: value(r), kafka: value(peer) });
    }
    return out;
  };
  const out: Figure[] = [];
  for (const run of [...new Set(rows.map((r) => r.run))]) {
    const tool = run.startsWith('produce') ? 'ProducerPerformance' : 'ConsumerPerformance';
    out.push(figureOf(`${tool} ${run.replace(/^produce /, 'produce, ')} ${size} (rec/s)`, perRound(run, (r) => r.recordsPerSec)));
    if (run === 'produce acks=1' || run.startsWith('consume')) {
      const dir = run.startsWith('consume') ? `consumed (${run.slice('consume, '.length)})` : 'produced';
      out.push(figureOf(`broker CPU-s per GB ${dir}, ${size}, ${tool}`, perRound(run, (r) => r.userCpuPerGb + r.systemCpuPerGb), 2));
      out.push(figureOf(`  user CPU-s per GB ${dir}, ${size}, ${tool}`, perRound(run, (r) => r.userCpuPerGb), 2));
      out.push(figureOf(`  system CPU-s per GB ${dir}, ${size}, ${tool}`, perRound(run, (r) => r.systemCpuPerGb), 2));
    }
  }
  out.push(figureOf(`RSS under load, peak, ${size}, perf tools (MB)`, [Object.fromEntries(BROKERS.map((b) => [b, Math.max(...rows.filter((r) => r.broker === b).map((r) => r.peakRssMB))])) as Record<Broker, number>]));
  return out;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kafkite-bench-pt-'));
  const cases: Array<{ recordBytes: number; records: number; rows: Row[] }> = [];
  try {
    for (const { recordBytes, records } of CASES) {
      // Fresh brokers per record size keep the logs and the page cache small.
      const started = await startBoth();
      try {
        cases.push({ recordBytes, records, rows: await runCase({ kafkite: started.kafkite.side, kafka: started.kafka.side }, dir, recordBytes, records) });
      } finally {
        await Promise.all([started.kafkite.stop(), started.kafka.stop()]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const c of cases) {
    printTable(`Kafka's perf tools, ${c.recordBytes} B × ${c.records.toLocaleString('en-US')}, ${PARTITIONS} partitions, alternating rounds (CPU-s per GB of record values; clientMs: producer p99 or consumer group join)`,
      c.rows as unknown as Array<Record<string, unknown>>);
  }
  const results = cases.flatMap((c) => figures(c.recordBytes, c.rows));
  printTable(`kafkite / Kafka 4.4 with Kafka's perf tools (medians of ${ROUNDS} rounds; ratio: median of per-round ratios)`, results as unknown as Array<Record<string, unknown>>);
  printJson('perf-tools', { partitions: PARTITIONS, rounds: ROUNDS, results, cases });
}

await main();
