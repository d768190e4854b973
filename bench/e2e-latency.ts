// End-to-end latency (producer send → consumer receive) of 100 B records, 1 partition:
//  - at BENCH_E2E_RATE (10,000 records/s) with librdkafka (bench/e2e_latency.py on Debian's
//    python3-confluent-kafka, installed with apt-get when missing and possible) and with kafkite's own
//    loadgen, acks=1 and acks=all;
//  - with librdkafka's C API (bench/peers/e2e-client.c: the same protocol as the Python script, without an
//    interpreter competing with the broker for the 2 cores) and acks=all at each of BENCH_E2E_RATES (10k,
//    50k, 100k records/s; issue 14 targets p99 ≤ 5 ms at 50k/s and ≤ 10 ms at 100k/s), each rate split over
//    enough producer processes (BENCH_E2E_PER_PRODUCER records/s each, 50,000 by default) that the rate
//    asked for is met; the rate achieved is reported next to it.
// The producers use linger.ms=0, so librdkafka's batching delay is not in the figures (librdkafka's
// default linger.ms is 5 ms); the consumer uses fetch.wait.max.ms=500 and fetch.min.bytes=1, so its Fetch
// waits in the broker and is answered as soon as data is appended.
//
// Each librdkafka row also says where a tail goes as the broker saw it during that run (its /metrics,
// bench/lib/broker-metrics.ts): the produce requests' total and flush-wait p99 (bucket upper bounds),
// the fetches' total p99, the event loop's longest delay and the GC pauses over 10 ms. A broker-side
// p99 far below the end-to-end one puts the tail in the clients (or the machine), not in kafkite.
//
// Apache Kafka 4.4 takes the rows by rate too, in runs alternating with kafkite's (issue 32; BENCH_E2E_PEER=0
// leaves it out), with the same C clients: p50, p99 and p99.9 of both, and their ratios.
//
//   npx tsc -p . && node dist/bench/e2e-latency.js
//   BENCH_E2E_RATE=10000 BENCH_E2E_SECONDS=10 BENCH_RUNS=3 BENCH_E2E_RATES=10000,50000,100000 node dist/bench/e2e-latency.js
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { brokerTimes, scrapeMetrics, type BrokerTimes } from './lib/broker-metrics.js';
import { BenchBroker, REPO_ROOT } from './lib/broker-process.js';
import { buildPeer } from './lib/c-peer.js';
import { freePort } from './lib/free-port.js';
import { brokerOrder, createReadyTopic, startBroker, type Broker, type Started } from './lib/peer-broker.js';
import { figureOf, type Figure } from './lib/peer-figures.js';
import { printJson, printTable, medianRun } from './lib/stats.js';
import { createTopic, latencyLoad, type LatencySummary } from './loadgen.js';

const RATE = Number(process.env.BENCH_E2E_RATE ?? 10_000);
const SECONDS = Number(process.env.BENCH_E2E_SECONDS ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const RATES = (process.env.BENCH_E2E_RATES ?? '10000,50000,100000').split(',').map(Number).filter((r) => r > 0);
const PER_PRODUCER = Number(process.env.BENCH_E2E_PER_PRODUCER ?? 50_000);
const RECORD_BYTES = 100;
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(REPO_ROOT, 'bench/e2e_latency.py');

export class E2eError extends Error {
  override name = 'E2eError';
}

/** Whether the C peers can be built (librdkafka-dev, installed by buildPeer when missing and root). */
function haveLibrdkafkaDev(): boolean {
  try {
    buildPeer('e2e-client');
    return true;
  } catch {
    return false;
  }
}

/** Whether python3-confluent-kafka is importable, installing it with apt-get if it is not (as root). */
function ensureConfluentKafka(): boolean {
  const importable = () => {
    try {
      execFileSync(PYTHON, ['-c', 'import confluent_kafka'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (importable()) return true;
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('apt-get', ['install', '-y', 'python3-confluent-kafka'], { stdio: 'ignore' });
  } catch {
    return false;
  }
  return importable();
}

/** The librdkafka clients: the Python script, or the same protocol in C (bench/peers/e2e-client.c). */
type ClientKind = 'python' | 'c';

/** Runs a client child to its end, collecting its JSON output line; 'ready' resolves `onReady`. */
function clientProcess(kind: ClientKind, args: string[], onReady?: () => void): { done: Promise<any>; kill(): void } {
  const child = kind === 'python' ? spawn(PYTHON, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(buildPeer('e2e-client'), args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let json: any = null;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'ready') onReady?.();
    else if (line.startsWith('{')) json = JSON.parse(line);
  });
  const done = new Promise((resolve, reject) => child.once('close', (code) => (code === 0 && json ? resolve(json) : reject(new E2eError(`${kind === 'python' ? 'e2e_latency.py' : 'e2e-client'} ${args[0]} exited with ${code}`)))));
  return { done, kill: () => child.exitCode === null && child.kill() };
}

interface LibrdkafkaRun extends LatencySummary {
  records: number;
  /** Records/s the producers achieved (all of them together). */
  achievedRate: number;
  producers: number;
  /** kafkite's side of the run (its /metrics); none for Kafka. */
  broker?: BrokerTimes;
}

async function librdkafkaRun(kind: ClientKind, bootstrap: string, admin: string | null, topic: string, acks: string, rate: number): Promise<LibrdkafkaRun> {
  const warmup = rate; // the first second
  const producers = Math.max(1, Math.ceil(rate / PER_PRODUCER));
  let ready!: () => void;
  const consumerReady = new Promise<void>((resolve) => (ready = resolve));
  const consumer = clientProcess(kind, ['consume', bootstrap, topic, String(rate * SECONDS), String(warmup)], ready);
  await Promise.race([consumerReady, consumer.done]);
  const before = admin ? await scrapeMetrics(admin) : null;
  const producing = Array.from({ length: producers }, () =>
    clientProcess(kind, ['produce', bootstrap, topic, String(rate / producers), String(SECONDS + 1), String(RECORD_BYTES), acks]));
  let produced: any[];
  try {
    produced = await Promise.all(producing.map((p) => p.done));
  } catch (err) {
    // A producer that failed leaves the consumer waiting for records that will not come.
    for (const p of [...producing, consumer]) p.kill();
    throw err;
  }
  const latency = await consumer.done;
  const broker = admin && before ? brokerTimes(before, await scrapeMetrics(admin)) : undefined;
  const sent = produced.reduce((s, p) => s + p.sent, 0);
  const achievedRate = Math.round(sent / Math.max(...produced.map((p) => p.seconds)));
  return { ...latency, achievedRate, producers, broker };
}

interface Row {
  client: string;
  acks: string;
  /** Records/s asked for and achieved. */
  rate: number;
  achievedRate: number;
  records: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  p99Runs: number[];
  /** Broker-side figures of the run with the median p99 (librdkafka rows). */
  broker?: BrokerTimes;
}

async function main(): Promise<void> {
  const admin = `http://127.0.0.1:${await freePort()}`;
  const broker = await BenchBroker.start({ overrides: [`admin.listener=${admin}`] });
  const rows: Row[] = [];
  const byRate: Row[] = [];
  const peerByRate: Row[] = [];
  const peer: Figure[] = [];
  let kafka: Started | null = null;
  let topicCount = 0;
  const newTopic = async () => {
    const topic = `e2e-${topicCount++}`;
    await createTopic(broker.bootstrap, topic, 1);
    return topic;
  };
  try {
    const haveLibrdkafka = ensureConfluentKafka();
    // An unmeasured run first: the first seconds of a fresh broker (JIT, page faults) are not steady state.
    await latencyLoad({ bootstrap: broker.bootstrap, topic: await newTopic(), rate: RATE, recordBytes: RECORD_BYTES, seconds: 2, acks: 1 });
    for (const acks of ['1', 'all']) {
      if (haveLibrdkafka) {
        const r = await medianRun(RUNS, async () => librdkafkaRun('python', broker.bootstrap, admin, await newTopic(), acks, RATE), (x) => x.p99Ms);
        rows.push({ client: 'librdkafka (confluent-kafka)', acks, rate: RATE, achievedRate: r.achievedRate, records: r.records, p50Ms: r.p50Ms, p99Ms: r.p99Ms, p999Ms: r.p999Ms, maxMs: r.maxMs, p99Runs: r.runs, broker: r.broker });
      }
      const r = await medianRun(RUNS, async () => {
        const result = await latencyLoad({ bootstrap: broker.bootstrap, topic: await newTopic(), rate: RATE, recordBytes: RECORD_BYTES, seconds: SECONDS, acks: acks === 'all' ? -1 : 1 });
        return { records: result.records, ...result.latency };
      }, (x) => x.p99Ms);
      rows.push({ client: 'kafkite loadgen', acks, rate: RATE, achievedRate: Math.round(r.records / SECONDS), records: r.records, p50Ms: r.p50Ms, p99Ms: r.p99Ms, p999Ms: r.p999Ms, maxMs: r.maxMs, p99Runs: r.runs });
    }
    // The targets' rows, with C clients: no interpreter competing with the broker for the 2 cores. With
    // Kafka 4.4 beside kafkite (issue 32; BENCH_E2E_PEER=0 leaves it out), the brokers take turns run by run.
    const withKafka = process.env.BENCH_E2E_PEER !== '0';
    kafka = withKafka && haveLibrdkafkaDev() ? await startBroker('kafka') : null;
    // Kafka's warm-up, unmeasured, one run at each rate (kafkite has had the rows above): Kafka serves one
    // request per connection at a time, so with linger.ms=0 a JVM not yet compiled falls behind and the
    // backlog stays for the run (p50 ≈ p99 ≈ 0.7-3.9 s at 10k/s in the first runs after a start, load ~9).
    for (const rate of kafka ? RATES : []) {
      const topic = `e2e-${topicCount++}`;
      await createReadyTopic(kafka!.side, topic, 1);
      await librdkafkaRun('c', kafka!.side.bootstrap, null, topic, 'all', rate);
    }
    for (const rate of haveLibrdkafkaDev() ? RATES : []) {
      const runs: Record<Broker, LibrdkafkaRun[]> = { kafkite: [], kafka: [] };
      for (let run = 0; run < RUNS; run++) {
        for (const name of brokerOrder(run)) {
          if (name === 'kafkite') runs.kafkite.push(await librdkafkaRun('c', broker.bootstrap, admin, await newTopic(), 'all', rate));
          else if (kafka) {
            const topic = `e2e-${topicCount++}`;
            await createReadyTopic(kafka.side, topic, 1);
            runs.kafka.push(await librdkafkaRun('c', kafka.side.bootstrap, null, topic, 'all', rate));
          }
        }
      }
      const rowOf = (name: Broker, list: LibrdkafkaRun[]): Row => {
        const r = [...list].sort((a, b) => a.p99Ms - b.p99Ms)[Math.floor((list.length - 1) / 2)]!;
        return {
          client: `librdkafka C client, ${r.producers} producer${r.producers > 1 ? 's' : ''}${name === 'kafka' ? ', Kafka 4.4' : ''}`, acks: 'all', rate, achievedRate: r.achievedRate,
          records: r.records, p50Ms: r.p50Ms, p99Ms: r.p99Ms, p999Ms: r.p999Ms, maxMs: r.maxMs, p99Runs: list.map((x) => x.p99Ms), broker: r.broker,
        };
      };
      byRate.push(rowOf('kafkite', runs.kafkite));
      if (runs.kafka.length > 0) {
        peerByRate.push(rowOf('kafka', runs.kafka));
        const perRun = (key: 'p50Ms' | 'p99Ms' | 'p999Ms') => runs.kafkite.map((r, i) => ({ kafkite: r[key], kafka: runs.kafka[i]![key] }));
        for (const [key, name] of [['p50Ms', 'p50'], ['p99Ms', 'p99'], ['p999Ms', 'p99.9']] as const) {
          peer.push(figureOf(`e2e ${name} at ${rate / 1000}k rec/s, acks=all, 100 B (ms)`, perRun(key), 2));
        }
      }
    }
    if (!haveLibrdkafka) console.log('python3-confluent-kafka not available (apt-get install -y python3-confluent-kafka): its rows skipped');
    if (!haveLibrdkafkaDev()) console.log('librdkafka-dev not available (apt-get install -y librdkafka-dev): the rows by rate skipped');
  } finally {
    await Promise.all([broker.stop().then(() => broker.cleanup()), kafka?.stop()]);
  }
  const flat = ({ broker: b, ...r }: Row) => ({
    ...r,
    ...(b && {
      'broker produce p99≤': b.produceTotalP99Ms, 'flush wait p99≤': b.produceRemoteP99Ms, 'fetch p99≤': b.fetchTotalP99Ms,
      'loop delay max': b.eventLoopMaxMs, 'GCs >10ms': b.gcOver10Ms,
    }),
  });
  printTable(`end-to-end latency at ${RATE} records/s of ${RECORD_BYTES} B, ${SECONDS} s after a 1 s warm-up, 1 partition (ms; run with the median p99 of ${RUNS}; broker-side p99s are histogram bucket bounds)`, rows.map(flat));
  printTable(`end-to-end latency by rate, acks=all, librdkafka linger.ms=0, 1 partition, ${SECONDS} s after a 1 s warm-up (ms; median p99 of ${RUNS}; targets p99 ≤ 5 ms at 50k/s, ≤ 10 ms at 100k/s)`, byRate.map(flat));
  if (peer.length > 0) {
    printTable(`Kafka 4.4, the same clients by rate, runs alternating with kafkite's (ms)`, peerByRate.map(flat));
    printTable(`kafkite / Kafka 4.4, end-to-end latency (medians of ${RUNS} runs; ratio: median of per-run ratios)`, peer as unknown as Array<Record<string, unknown>>);
  }
  printJson('e2e-latency', { rate: RATE, seconds: SECONDS, recordBytes: RECORD_BYTES, runs: RUNS, rows, byRate, peerByRate, peer });
}

await main();
