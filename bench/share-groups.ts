// Share groups (KIP-932) beside Apache Kafka 4.4 (issues 29 and 32), with Kafka 4.4's own clients
// (bench/peers/ShareBench.java, one JVM per broker and round):
//   - records/s consumed and acknowledged (explicit ACCEPT of each record) by 1, 4 and 16 KafkaShareConsumers of a
//     share group on a 4-partition topic of 100 B records, and as a ratio of a consumer group (KafkaConsumers,
//     group.protocol=consumer) reading the same topic on the same broker in the same round;
//   - the broker's CPU per GB consumed by the share consumers, and its peak RSS;
//   - acknowledgement latency p50 and p99: one KafkaShareConsumer (max.poll.records 100) calls commitSync after
//     each poll's ACCEPTs, timed in the client from the call to the broker's answer;
//   - memory per million in-flight records: the broker's RSS growth while one member holds a million acquired and
//     unacknowledged records (a wire-level member, bench/lib/share-acquirer.ts), both brokers allowing 10,000
//     record locks per share partition (Kafka's ShareGroupConfig maximum) and a 10 min lock, on a topic of enough
//     partitions; measured first, on fresh brokers, so that neither has grown its heap for other work yet. The growth
//     holds what serving the fetches allocated and not yet gave back as well as the state (a check run: kafkite
//     374 MB per million by RSS, where its SharePartitions hold 1.35 MB per million by the in-process measure);
//   - for kafkite alone, the heap one SharePartition holds per million acquired records, measured in this process
//     (in-flight records are ranges: SharePartition's InFlightBatch).
//
//   node scripts/kafka-jars.mjs && npx tsc -p . && node dist/bench/share-groups.js             about 5 minutes, idle machine
//   BENCH_RUNS=1 BENCH_SHARE_RECORDS=50000 BENCH_SHARE_LATENCY_RECORDS=10000 BENCH_SHARE_IN_FLIGHT=100000 \
//     node dist/bench/share-groups.js                                                          a check that it works, ~3 min
//
// Rounds in which the brokers take turns (the order swaps every round): a fresh topic filled by ProducerPerformance
// (acks=1, unmeasured), then read by the phases in a new group each. A phase's rate is the client's own, from its
// first record to the last acknowledgement (or commit) confirmed: the JVM start and the group join are not in it;
// the broker's CPU and RSS are counted over the same span. GB = 10^9 bytes of values.
import { spawn } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SharePartition, type FetchedBatch } from '../src/share/share-partition.js';
import type { Persister, SharePartitionState } from '../src/share/persister.js';
import { cpuTimesOf, rssBytesOf, sampleRssOf } from './lib/broker-process.js';
import { producerPerformance } from './lib/kafka-tools.js';
import { REPO_ROOT } from './lib/kafkite-process.js';
import { brokerOrder, createReadyTopic, startBoth, BROKERS, type Broker, type Side } from './lib/peer-broker.js';
import { figureOf, figureOfValues, type Figure, type PerRound } from './lib/peer-figures.js';
import { acquireWithoutAcknowledging, setGroupConfigs } from './lib/share-acquirer.js';
import { median, printJson, printTable, round } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);
const RECORDS = Number(process.env.BENCH_SHARE_RECORDS ?? 100_000);
const CONSUMERS = (process.env.BENCH_SHARE_CONSUMERS ?? '1,4,16').split(',').map(Number);
const LATENCY_RECORDS = Number(process.env.BENCH_SHARE_LATENCY_RECORDS ?? 30_000);
const IN_FLIGHT = Number(process.env.BENCH_SHARE_IN_FLIGHT ?? 1_000_000);
const RECORD_BYTES = 100;
const PARTITIONS = 4;
const MAX_LOCKS = 10_000;
/** Record locks a partition of the in-flight topic should need at most: ProducerPerformance spreads its batches unevenly. */
const IN_FLIGHT_PER_PARTITION = 8_000;
const LOCK_MS = 600_000;
// Both brokers allow the in-flight group its 10,000 locks and 10 min lock (the group configs are bounded by these).
const BROKER_PROPERTIES = [`group.share.max.partition.max.record.locks=${MAX_LOCKS}`, `group.share.max.record.lock.duration.ms=${LOCK_MS}`];
// The client JVM as kafka-run-class.sh starts Kafka's tools (bench/lib/kafka-tools.ts), the same for both brokers.
const CLIENT_JVM_FLAGS = ['-Xmx512M', '-server', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-Djava.awt.headless=true'];

/** One phase of ShareBench.java against one broker: its rate, the broker's cost over it, and for latency its percentiles. */
interface Phase {
  recordsPerSec: number;
  user: number;
  system: number;
  peakRss: number;
  p50?: number;
  p99?: number;
}

interface Row {
  round: number;
  broker: Broker;
  phase: string;
  recordsPerSec: number;
  cpuPerGb: number;
  peakRssMB: number;
  p50Ms?: number;
  p99Ms?: number;
}

/**
 * Runs ShareBench.java (the source launcher: javac runs before any phase). The broker's cost of each phase is
 * counted from the phase's first record on.
 */
function runClient(side: Side, topic: string, prefix: string, records: number, consumers: number[], latencyRecords: number): Promise<Map<string, Phase>> {
  const source = join(REPO_ROOT, 'bench/peers/ShareBench.java');
  const args = [...CLIENT_JVM_FLAGS, '-cp', join(REPO_ROOT, 'test/kafka/lib/*'), source, side.bootstrap, topic, prefix, String(records), consumers.join(','), String(latencyRecords)];
  return new Promise((resolve, reject) => {
    const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const phases = new Map<string, Phase>();
    let meter: { before: { user: number; system: number }; stopRss: () => number } | undefined;
    let err = '';
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const json = line.startsWith('{"phase"') ? JSON.parse(line) : undefined;
      if (json?.first) {
        meter = { before: cpuTimesOf(side.pid), stopRss: sampleRssOf(side.pid) };
      } else if (json?.records !== undefined && meter) {
        const after = cpuTimesOf(side.pid);
        const peakRss = meter.stopRss();
        phases.set(json.phase, { recordsPerSec: (json.records / json.ms) * 1000, user: after.user - meter.before.user, system: after.system - meter.before.system, peakRss, p50: json.p50, p99: json.p99 });
        meter = undefined;
      } else {
        err = (err + line + '\n').slice(-4096);
      }
    });
    child.stderr!.on('data', (d) => (err = (err + d).slice(-4096)));
    child.on('error', reject);
    child.on('close', (code) => {
      meter?.stopRss();
      if (code !== 0) return reject(new Error(`ShareBench on ${side.name} exited with ${code}: ${err}`));
      resolve(phases);
    });
  });
}

async function fill(side: Side, topic: string, records: number, partitions = PARTITIONS): Promise<void> {
  await createReadyTopic(side, topic, partitions);
  await producerPerformance(side.bootstrap, topic, records, RECORD_BYTES, { acks: '1' });
}

async function rounds(sides: Record<Broker, Side>): Promise<Row[]> {
  const gb = (RECORDS * RECORD_BYTES) / 1e9;
  for (const side of Object.values(sides)) {
    // Warm-up: the JIT's and V8's compilation of the share-fetch path, not counted.
    const warmup = Math.min(RECORDS, 100_000);
    await fill(side, 'share-warmup', warmup);
    await runClient(side, 'share-warmup', 'share-warmup', warmup, [4], 0);
  }
  const rows: Row[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const name of brokerOrder(i)) {
      const side = sides[name];
      const topic = `share-${i}`;
      await fill(side, topic, RECORDS);
      const phases = await runClient(side, topic, `share-bench-${i}`, RECORDS, CONSUMERS, LATENCY_RECORDS);
      for (const [phase, p] of phases) {
        rows.push({
          round: i + 1, broker: name, phase, recordsPerSec: Math.round(p.recordsPerSec), cpuPerGb: round((p.user + p.system) / gb, 2), peakRssMB: round(p.peakRss / 1e6, 1),
          ...(p.p50 !== undefined ? { p50Ms: round(p.p50, 2), p99Ms: round(p.p99!, 2) } : {}),
        });
      }
    }
  }
  return rows;
}

interface InFlight {
  broker: Broker;
  acquired: number;
  partitions: number;
  rssGrowthMB: number;
  mbPerMillion: number;
}

/**
 * The broker's RSS growth while one member holds IN_FLIGHT acquired records: RSS read before the member joins and
 * after its last fetch (once the broker has had a second to drop what answering the fetches took).
 */
async function inFlightRss(side: Side): Promise<InFlight> {
  const partitions = Math.ceil(IN_FLIGHT / IN_FLIGHT_PER_PARTITION);
  await fill(side, 'in-flight', IN_FLIGHT, partitions);
  await setGroupConfigs(side.port, 'in-flight', {
    'share.auto.offset.reset': 'earliest', 'share.partition.max.record.locks': String(MAX_LOCKS), 'share.record.lock.duration.ms': String(LOCK_MS),
  });
  const before = rssBytesOf(side.pid);
  const member = await acquireWithoutAcknowledging(side.port, 'in-flight', 'in-flight', partitions, IN_FLIGHT);
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const growth = rssBytesOf(side.pid) - before;
    return { broker: side.name, acquired: member.acquired, partitions, rssGrowthMB: round(growth / 1e6, 1), mbPerMillion: round((growth / member.acquired) * 1e6 / 1e6, 1) };
  } finally {
    await member.leave();
  }
}

function figures(rows: Row[], inFlight: InFlight[]): Figure[] {
  const perRound = (phase: string, value: (r: Row) => number): PerRound => rows.filter((r) => r.broker === 'kafkite' && r.phase === phase).flatMap((r) => {
    const peer = rows.find((x) => x.round === r.round && x.broker === 'kafka' && x.phase === phase);
    return peer ? [{ kafkite: value(r), kafka: value(peer) }] : [];
  });
  const of = (n: number) => `${n} share consumer${n === 1 ? '' : 's'}, explicit ACCEPT, 100 B`;
  const mem = (b: Broker) => inFlight.find((f) => f.broker === b)!.mbPerMillion;
  return [
    ...CONSUMERS.map((n) => figureOf(`share group consume, ${of(n)} (rec/s)`, perRound(`share-${n}`, (r) => r.recordsPerSec))),
    ...CONSUMERS.map((n) => figureOf(`broker CPU-s per GB consumed (share group), ${of(n)}`, perRound(`share-${n}`, (r) => r.cpuPerGb), 2)),
    figureOf('share acknowledgement latency p50, commitSync of 100 ACCEPTs (ms)', perRound('latency', (r) => r.p50Ms!), 2),
    figureOf('share acknowledgement latency p99, commitSync of 100 ACCEPTs (ms)', perRound('latency', (r) => r.p99Ms!), 2),
    figureOf('RSS under load, peak, share groups (MB)', [Object.fromEntries(BROKERS.map((b) => [b, Math.max(...rows.filter((r) => r.broker === b).map((r) => r.peakRssMB))])) as Record<Broker, number>]),
    ...(inFlight.length === 2 ? [figureOfValues('broker RSS growth per million in-flight share records (MB)', mem('kafkite'), mem('kafka'), 1)] : []),
  ];
}

/** Per consumer count and broker: the share group's rate ÷ the consumer group's, median of the rounds' ratios. */
function versusConsumerGroup(rows: Row[]): Array<Record<string, number>> {
  return CONSUMERS.map((n) => {
    const ratio = (b: Broker) => median(rows.filter((r) => r.broker === b && r.phase === `share-${n}`).flatMap((r) => {
      const group = rows.find((x) => x.round === r.round && x.broker === b && x.phase === `group-${n}`);
      return group ? [r.recordsPerSec / group.recordsPerSec] : [];
    }));
    return { consumers: n, kafkite: round(ratio('kafkite'), 3), kafka: round(ratio('kafka'), 3) };
  });
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
async function sharePartitionHeap(): Promise<{ records: number; heapBytes: number; bytesPerRecord: number; inFlightBatches: number }> {
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
  const heap = await sharePartitionHeap();
  const started = await startBoth({ properties: BROKER_PROPERTIES });
  let rows: Row[];
  const inFlight: InFlight[] = [];
  try {
    for (const name of BROKERS) inFlight.push(await inFlightRss(started[name].side));
    rows = await rounds({ kafkite: started.kafkite.side, kafka: started.kafka.side });
  } finally {
    await Promise.all([started.kafkite.stop(), started.kafka.stop()]);
  }
  printTable(`Share groups, ${RECORDS.toLocaleString('en-US')} × ${RECORD_BYTES} B on ${PARTITIONS} partitions, alternating rounds (share-N: N KafkaShareConsumers; group-N: N KafkaConsumers; CPU-s per GB of record values)`,
    rows as unknown as Array<Record<string, unknown>>);
  const results = figures(rows, inFlight);
  printTable(`kafkite / Kafka 4.4 share groups (medians of ${ROUNDS} rounds; ratio: median of per-round ratios)`, results as unknown as Array<Record<string, unknown>>);
  const vsGroup = versusConsumerGroup(rows);
  printTable('share group ÷ consumer group, records/s on the same broker in the same round (median of the rounds\' ratios)', vsGroup);
  printTable(`In-flight: one member holding ${IN_FLIGHT.toLocaleString('en-US')} acquired records (broker RSS growth)`, inFlight as unknown as Array<Record<string, unknown>>);
  const perMillion = { 'records acquired': heap.records, 'in-flight runs (objects)': heap.inFlightBatches, 'heap MB per million': round((heap.heapBytes / heap.records) * 1e6 / 1e6, 2), 'bytes per record': heap.bytesPerRecord };
  printTable('kafkite: one share partition holding acquired records (SharePartition heap, after GC)', [perMillion]);
  printJson('share-groups', {
    records: RECORDS, recordBytes: RECORD_BYTES, partitions: PARTITIONS, consumers: CONSUMERS, rounds: ROUNDS, latencyRecords: LATENCY_RECORDS,
    results, versusConsumerGroup: vsGroup, inFlight, rows, sharePartitionHeap: heap,
  });
}

await main();
