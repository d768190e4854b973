// Kafka Streams 4.4 beside Apache Kafka 4.4 (issue 30's benchmarks, issue 32's side by side): an exactly-once word
// count (bench/peers/StreamsBench.java: input -> words -> repartition -> count with a RocksDB store -> output),
// - rebalance time when a second instance joins a running one and when it leaves again (close with LEAVE_GROUP),
//   under group.protocol=classic and under streams (KIP-1071): from the second instance's start until both are
//   RUNNING, each with active tasks and together all of them; from its close until the first is RUNNING with all;
// - records per second end to end: BENCH_STREAMS_RECORDS lines of three words produced beforehand, one instance
//   (classic) started, until a read_committed consumer of the output has seen each word's count reach the count of
//   its occurrences in the input (a count too high, one that does not rise, or an unknown word fails the round); and
//   each broker's CPU over that span.
//
//   node scripts/kafka-jars.mjs && npx tsc -p . && node dist/bench/streams.js            3-5 minutes
//   BENCH_RUNS=1 BENCH_STREAMS_RECORDS=20000 node dist/bench/streams.js                  a check that it works
//
// Both brokers get the same group settings: heartbeat every 500 ms, sessions of 6 s (classic: the members ask for
// them, within group.min.session.timeout.ms's 6 s; streams: the broker's group.streams.heartbeat.interval.ms and
// group.streams.session.timeout.ms, with their minimums lowered to allow them), no initial rebalance delay. The
// Streams instances of a broker run in one JVM (each with its own state dir, so its own process id), so that
// their JVM's start is outside the spans; each round is a new application (its group and internal topics new) on
// a 4-partition input, so 8 tasks. The brokers take turns, the order swapping every round, after one unmeasured
// round of each kind per broker (its first transactions and groups create __transaction_state and
// __consumer_offsets, and the JITs warm up).
import { brokerCost, brokerOrder, createReadyTopic, startBoth, type Broker, type Side } from './lib/peer-broker.js';
import { figureOf, roundPairs, type Figure } from './lib/peer-figures.js';
import { printJson, printTable, round } from './lib/stats.js';
import { StreamsPeer } from './lib/streams-peer.js';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);
const RECORDS = Number(process.env.BENCH_STREAMS_RECORDS ?? 100_000);
const PARTITIONS = 4;
const PROTOCOLS = ['classic', 'streams'] as const;
type Protocol = (typeof PROTOCOLS)[number];
const GROUP = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 };
const PROPERTIES = [
  'group.initial.rebalance.delay.ms=0',
  'group.streams.initial.rebalance.delay.ms=0',
  `group.streams.session.timeout.ms=${GROUP.sessionTimeoutMs}`, `group.streams.min.session.timeout.ms=${GROUP.sessionTimeoutMs}`,
  `group.streams.heartbeat.interval.ms=${GROUP.heartbeatIntervalMs}`, `group.streams.min.heartbeat.interval.ms=${GROUP.heartbeatIntervalMs}`,
];

interface Rebalance {
  joinMs: number;
  leaveMs: number;
  /** From the close of the second instance until it returned (its last commit, its threads stopped, the group left). */
  closeMs: number;
  /** Active tasks of the first instance / the second, once both had some. */
  split: string;
}

interface WordCount {
  records: number;
  words: number;
  ms: number;
  firstOutputMs: number;
}

type RebalanceRow = Rebalance & { round: number; broker: Broker; protocol: Protocol };
type WordCountRow = { round: number; broker: Broker; recordsPerSec: number; ms: number; firstOutputMs: number; brokerCpuSeconds: number };

function rebalance(peer: StreamsPeer, app: string, protocol: Protocol): Promise<Rebalance> {
  return peer.run<Rebalance>('rebalance', app, protocol, 'rebalance-in', 'rebalance-out', PARTITIONS);
}

async function wordCount(side: Side, peer: StreamsPeer, name: string, records: number): Promise<Omit<WordCountRow, 'round' | 'broker'>> {
  await createReadyTopic(side, `${name}-in`, PARTITIONS);
  await createReadyTopic(side, `${name}-out`, PARTITIONS);
  await peer.run('fill', `${name}-in`, records);
  const { result, user, system } = await brokerCost(side, () => peer.run<WordCount>('wordcount', name, `${name}-in`, `${name}-out`, records));
  return { recordsPerSec: Math.round((result.records / result.ms) * 1000), ms: result.ms, firstOutputMs: result.firstOutputMs, brokerCpuSeconds: round(user + system, 2) };
}

async function rounds(sides: Record<Broker, Side>, peers: Record<Broker, StreamsPeer>): Promise<{ rebalances: RebalanceRow[]; counts: WordCountRow[] }> {
  for (const name of Object.keys(sides) as Broker[]) {
    await createReadyTopic(sides[name], 'rebalance-in', PARTITIONS);
    await createReadyTopic(sides[name], 'rebalance-out', PARTITIONS);
    for (const protocol of PROTOCOLS) await rebalance(peers[name], `warmup-${protocol}`, protocol);
    await wordCount(sides[name], peers[name], 'warmup-count', Math.ceil(RECORDS / 10));
  }
  const rebalances: RebalanceRow[] = [];
  const counts: WordCountRow[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const protocol of PROTOCOLS) {
      for (const name of brokerOrder(i)) rebalances.push({ round: i + 1, broker: name, protocol, ...(await rebalance(peers[name], `rebalance-${protocol}-${i}`, protocol)) });
    }
    for (const name of brokerOrder(i)) counts.push({ round: i + 1, broker: name, ...(await wordCount(sides[name], peers[name], `count-${i}`, RECORDS)) });
  }
  return { rebalances, counts };
}

function figures(rebalances: RebalanceRow[], counts: WordCountRow[]): Figure[] {
  const app = `2-instance Streams app, ${PARTITIONS * 2} tasks`;
  return [
    ...PROTOCOLS.flatMap((protocol) => {
      const rows = rebalances.filter((r) => r.protocol === protocol);
      return [
        figureOf(`Streams rebalance, instance joins, ${protocol} protocol, ${app} (ms)`, roundPairs(rows, (r) => r.joinMs)),
        figureOf(`Streams rebalance, instance leaves, ${protocol} protocol, ${app} (ms)`, roundPairs(rows, (r) => r.leaveMs)),
      ];
    }),
    figureOf(`exactly-once word count end to end, ${RECORDS.toLocaleString('en-US')} records, classic protocol (rec/s)`, roundPairs(counts, (r) => r.recordsPerSec)),
    figureOf(`broker CPU-s per million records, exactly-once word count`, roundPairs(counts, (r) => (r.brokerCpuSeconds / RECORDS) * 1e6), 2),
  ];
}

async function main(): Promise<void> {
  const started = await startBoth({ properties: PROPERTIES });
  const sides = { kafkite: started.kafkite.side, kafka: started.kafka.side };
  const peers = { kafkite: new StreamsPeer(sides.kafkite, GROUP), kafka: new StreamsPeer(sides.kafka, GROUP) };
  let result: Awaited<ReturnType<typeof rounds>>;
  try {
    result = await rounds(sides, peers);
  } finally {
    await Promise.all([peers.kafkite.close(), peers.kafka.close()]);
    await Promise.all([started.kafkite.stop(), started.kafka.stop()]);
  }
  const { rebalances, counts } = result;
  printTable(`Streams rebalances, ${PARTITIONS}-partition input, ${PARTITIONS * 2} tasks, heartbeat ${GROUP.heartbeatIntervalMs} ms, session ${GROUP.sessionTimeoutMs} ms (ms; split: tasks of the first / the joining instance)`,
    rebalances as unknown as Array<Record<string, unknown>>);
  printTable(`Exactly-once word count, ${RECORDS.toLocaleString('en-US')} lines of 3 words, one instance, start to every count read_committed`,
    counts as unknown as Array<Record<string, unknown>>);
  const results = figures(rebalances, counts);
  printTable(`kafkite / Kafka 4.4, Kafka Streams (medians of ${ROUNDS} rounds; ratio: median of per-round ratios)`, results as unknown as Array<Record<string, unknown>>);
  printJson('streams', { records: RECORDS, partitions: PARTITIONS, rounds: ROUNDS, group: GROUP, results, rebalances, counts });
}

await main();
