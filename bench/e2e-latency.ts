// End-to-end latency (producer send → consumer receive) at a fixed rate, default 10,000 records/s
// of 100 B: with librdkafka (bench/e2e_latency.py on Debian's python3-confluent-kafka, installed
// with apt-get when missing and possible) and with kafkite's own loadgen, acks=1 and acks=all.
//
//   npx tsc -p . && node dist/bench/e2e-latency.js
//   BENCH_E2E_RATE=10000 BENCH_E2E_SECONDS=10 BENCH_RUNS=3 node dist/bench/e2e-latency.js
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BenchBroker, REPO_ROOT } from './lib/broker-process.js';
import { printJson, printTable, medianRun } from './lib/stats.js';
import { createTopic, latencyLoad, type LatencySummary } from './loadgen.js';

const RATE = Number(process.env.BENCH_E2E_RATE ?? 10_000);
const SECONDS = Number(process.env.BENCH_E2E_SECONDS ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const RECORD_BYTES = 100;
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(REPO_ROOT, 'bench/e2e_latency.py');

export class E2eError extends Error {
  override name = 'E2eError';
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

async function librdkafkaRun(bootstrap: string, topic: string, acks: string): Promise<LatencySummary & { records: number }> {
  const warmup = RATE; // the first second
  const consumer = spawn(PYTHON, [SCRIPT, 'consume', bootstrap, topic, String(RATE * SECONDS), String(warmup)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: consumer.stdout! });
  const output: string[] = [];
  const ready = new Promise<void>((resolve) => lines.on('line', (line) => (line === 'ready' ? resolve() : output.push(line))));
  const consumerExit = new Promise<number | null>((resolve) => consumer.once('close', resolve));
  await ready;
  const producer = spawn(PYTHON, [SCRIPT, 'produce', bootstrap, topic, String(RATE), String(SECONDS + 1), String(RECORD_BYTES), acks], { stdio: 'inherit' });
  const producerExit = new Promise<number | null>((resolve) => producer.once('close', resolve));
  const [consumerCode, producerCode] = await Promise.all([consumerExit, producerExit]);
  if (consumerCode !== 0 || producerCode !== 0) throw new E2eError(`e2e_latency.py exited with ${consumerCode}/${producerCode}`);
  return JSON.parse(output.find((l) => l.startsWith('{'))!);
}

interface Row {
  client: string;
  acks: string;
  records: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  p99Runs: number[];
}

async function main(): Promise<void> {
  const broker = await BenchBroker.start();
  const rows: Row[] = [];
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
        const r = await medianRun(RUNS, async () => librdkafkaRun(broker.bootstrap, await newTopic(), acks), (x) => x.p99Ms);
        rows.push({ client: 'librdkafka (confluent-kafka)', acks, records: r.records, p50Ms: r.p50Ms, p99Ms: r.p99Ms, p999Ms: r.p999Ms, maxMs: r.maxMs, p99Runs: r.runs });
      }
      const r = await medianRun(RUNS, async () => {
        const result = await latencyLoad({ bootstrap: broker.bootstrap, topic: await newTopic(), rate: RATE, recordBytes: RECORD_BYTES, seconds: SECONDS, acks: acks === 'all' ? -1 : 1 });
        return { records: result.records, ...result.latency };
      }, (x) => x.p99Ms);
      rows.push({ client: 'kafkite loadgen', acks, records: r.records, p50Ms: r.p50Ms, p99Ms: r.p99Ms, p999Ms: r.p999Ms, maxMs: r.maxMs, p99Runs: r.runs });
    }
    if (!haveLibrdkafka) console.log('python3-confluent-kafka not available (apt-get install -y python3-confluent-kafka): librdkafka rows skipped');
  } finally {
    await broker.stop();
    broker.cleanup();
  }
  printTable(`end-to-end latency at ${RATE} records/s of ${RECORD_BYTES} B, ${SECONDS} s after a 1 s warm-up, 1 partition (ms; run with the median p99 of ${RUNS})`, rows.map((r) => ({ ...r })));
  printJson('e2e-latency', { rate: RATE, seconds: SECONDS, recordBytes: RECORD_BYTES, runs: RUNS, rows });
}

await main();
