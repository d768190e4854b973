// A Python stream processor against kafkite (#30): a quixstreams application (test/clients/python/
// quixstreams_app.py, from its own virtualenv that test/clients/install.sh builds) with
// processing_guarantee="exactly-once" counts an input topic's records per key in a RocksDB store backed by a
// changelog topic it creates, and writes each key's running count to an output topic. It is SIGKILLed in the
// middle and started again on an empty state dir, so that it restores its counts from the changelog and
// resumes from its committed offsets. The output, read with read_committed, then holds for each key exactly
// the counts 1..n, n being that key's records in the input: nothing lost, nothing counted twice.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigResourceTypes, Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { CLIENTS_DIR } from '../helpers/current-clients.js';
import { runJsonClient } from '../helpers/json-client.js';
import { until } from '../helpers/poll.js';

const PYTHON = join(homedir(), '.cache', 'kafkite', 'venv-quixstreams', 'bin', 'python');
const APP = join(CLIENTS_DIR, 'python', 'quixstreams_app.py');
const KEYS = 12;
const PHASE_RECORDS = 600;

let broker: BrokerProcess;
let admin: Admin;
const apps = new Set<ChildProcessWithoutNullStreams>();
const dirs: string[] = [];

beforeAll(async () => {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run bash test/clients/install.sh`);
  broker = await startBroker({
    overrides: ['offsets.topic.num.partitions=3', 'transaction.state.log.num.partitions=3', 'group.initial.rebalance.delay.ms=0',
      // The killed instance's transaction (10 s timeout) is aborted within a second of timing out.
      'transaction.abort.timed.out.transaction.cleanup.interval.ms=1000'],
  });
  admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

afterAll(async () => {
  for (const app of apps) app.kill('SIGKILL');
  await admin?.disconnect();
  if (broker) {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface App {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Starts the application on a fresh state dir (so that it restores its store from the changelog). */
function startApp(group: string, input: string, output: string, delayMs: number): App {
  const stateDir = mkdtempSync(join(tmpdir(), 'kafkite-quix-'));
  dirs.push(stateDir);
  const child = spawn(PYTHON, [APP, broker.bootstrap, 'run', group, input, output, stateDir, String(delayMs)]);
  apps.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    apps.delete(child);
    resolve(code);
  }));
  return { child, exited, stderr: () => stderr };
}

/** The output's records: [partition, key, count]. */
async function read(topic: string, isolation = 'read_committed'): Promise<Array<[number, string, number]>> {
  return (await runJsonClient(PYTHON, [APP, broker.bootstrap, 'read', topic, isolation], { timeoutMs: 90_000 })).records;
}

async function produce(kafka: Kafka, topic: string, from: number, expected: Map<string, number>): Promise<void> {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const messages = Array.from({ length: PHASE_RECORDS }, (_, j) => {
    const key = `word-${(from + j) * 7 % KEYS}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
    return { key, value: `record-${from + j}` };
  });
  for (let i = 0; i < messages.length; i += 100) await producer.send({ topic, messages: messages.slice(i, i + 100) });
  await producer.disconnect();
}

/** Each key's counts in the output, in the order read. */
function countsByKey(records: Array<[number, string, number]>): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const [, key, n] of records) byKey.set(key, [...(byKey.get(key) ?? []), n]);
  return byKey;
}

async function outputEnd(topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic).catch(() => []);
  return offsets.reduce((sum, o) => sum + Number(o.high), 0);
}

it('a stateful count under exactly-once, through a SIGKILL and a restore from the changelog', async () => {
  const started = performance.now();
  const [group, input, output] = ['quix-counter', 'quix-words', 'quix-counts'];
  const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  await admin.createTopics({ topics: [{ topic: input, numPartitions: 3 }, { topic: output, numPartitions: 2 }] });
  const expected = new Map<string, number>();
  await produce(kafka, input, 0, expected);

  // The first instance, slowed down to 5 ms a record (its transactions commit every 0.5 s), is killed once it
  // has written part of the output: in the middle of a transaction.
  const first = startApp(group, input, output, 5);
  await until(async () => {
    if (first.child.exitCode !== null) throw new Error(`the app exited ${first.child.exitCode}: ${first.stderr()}`);
    return (await outputEnd(output)) >= PHASE_RECORDS / 3;
  }, 'the first instance to write some counts', 90_000);
  first.child.kill('SIGKILL');
  await first.exited;

  await produce(kafka, input, PHASE_RECORDS, expected);
  const second = startApp(group, input, output, 0);
  const want = [...expected.entries()].sort();
  let got: Map<string, number[]> = new Map();
  await until(async () => {
    if (second.child.exitCode !== null) throw new Error(`the app exited ${second.child.exitCode}: ${second.stderr()}`);
    got = countsByKey(await read(output));
    return want.every(([key, n]) => got.get(key)?.at(-1) === n);
  }, 'the second instance to count every record', 120_000);
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);

  // Exactly once: every key's counts are 1..n, none repeated, none skipped, none from an aborted transaction.
  got = countsByKey(await read(output));
  expect([...got.keys()].sort()).toEqual(want.map(([key]) => key));
  for (const [key, n] of want) expect(got.get(key), key).toEqual(Array.from({ length: n }, (_, i) => i + 1));

  // The store's changelog: created by the application, compacted, one partition per input partition.
  const topics = (await admin.listTopics()).filter((t) => t.startsWith('changelog__'));
  expect(topics).toHaveLength(1);
  const { topics: [changelog] } = await admin.fetchTopicMetadata({ topics });
  expect(changelog!.partitions).toHaveLength(3);
  const { resources: [config] } = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topics[0]!, configNames: ['cleanup.policy'] }] });
  expect(config!.configEntries[0]?.configValue).toBe('compact');
  const aborted = (await read(output, 'read_uncommitted')).length - (await read(output)).length;
  console.log(`quixstreams: ${2 * PHASE_RECORDS} records, ${KEYS} keys, ${aborted} counts aborted by the kill, in ${Math.round(performance.now() - started)} ms`);
}, 300_000);
