// The online way from kafkite to Apache Kafka 4.4 (#31 part 5): MirrorMaker 2 replicates a kafkite topic while it
// is written to, and its checkpoints carry a consumer group's committed offsets over. The application's consumer
// reads part of the topic on kafkite, committing as it goes, stops, and starts again on Kafka with the same group
// id: it resumes at the offsets MirrorMaker synced to the target group (sync.group.offsets.enabled). Between both
// sides it reads every record; what it reads twice is counted and bounded by MirrorMaker's at-least-once window
// (see translations). The target's records are the source's byte for byte: keys, values, headers, timestamps.
// MirrorMaker is connect-mirror 4.3.1 (the newest Maven serves here), as connectors on a 4.4 Connect worker beside
// the target: its dedicated mode (MirrorMaker.main) calls org.apache.kafka.common.utils.Exit, which 4.4 moved,
// while the connectors need only the AppInfoParser shim that kafka-connect.test.ts uses too.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin, type KafkaMessage } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/free-port.js';
import { brokerForFile } from '../helpers/broker-process.js';
import { compileJava, javaArgs } from '../helpers/java.js';
import { until } from '../helpers/poll.js';
import { referenceForFile } from '../helpers/reference-broker.js';

const TOPIC = 'orders';
// DefaultReplicationPolicy names a remote topic "<source alias>.<topic>".
const REMOTE = `kafkite.${TOPIC}`;
const GROUP = 'orders-app';
const PARTITIONS = 3;
const TOTAL = 900;
const READ_ON_SOURCE = 450;
// MirrorSourceTask writes an offset sync (upstream offset -> downstream offset) once a partition's newest sync is
// this many records behind (OffsetSyncWriter), into mm2-offset-syncs.<target>.internal on the source.
const OFFSET_LAG_MAX = 10;
const OFFSET_SYNCS = 'mm2-offset-syncs.kafka.internal';

const kafkite = brokerForFile({ overrides: ['group.initial.rebalance.delay.ms=0'] });
const target = referenceForFile();
const dir = mkdtempSync(join(tmpdir(), 'kafkite-mm2-'));
let worker: ChildProcessWithoutNullStreams | undefined;
const clients: Array<{ disconnect(): Promise<void> }> = [];

afterAll(async () => {
  for (const c of clients) await c.disconnect().catch(() => undefined);
  if (worker && worker.exitCode === null) {
    const exited = new Promise((r) => worker!.once('exit', r));
    worker.kill('SIGTERM');
    const kill = setTimeout(() => worker!.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(kill);
  }
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

function client(bootstrap: string, clientId: string): Kafka {
  return new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { initialRetryTime: 100, retries: 20 } });
}

async function connected<T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(c: T): Promise<T> {
  await c.connect();
  clients.push(c);
  return c;
}

/** A Connect worker on the target cluster (MirrorMaker's connectors run where they write), its REST URL. */
async function startWorker(bootstrap: string): Promise<string> {
  const port = await freePort();
  const props = join(dir, 'worker.properties');
  writeFileSync(props, [
    `bootstrap.servers=${bootstrap}`,
    'group.id=mm2-connect',
    // Records go through as bytes, as MirrorMaker's dedicated mode (MirrorMakerConfig) sets them.
    ...['key', 'value', 'header'].map((c) => `${c}.converter=org.apache.kafka.connect.converters.ByteArrayConverter`),
    'config.storage.topic=mm2-configs', 'offset.storage.topic=mm2-offsets', 'status.storage.topic=mm2-status',
    'config.storage.replication.factor=1', 'offset.storage.replication.factor=1', 'status.storage.replication.factor=1',
    'offset.flush.interval.ms=500',
    `listeners=http://127.0.0.1:${port}`,
    '',
  ].join('\n'));
  worker = spawn('java', javaArgs('org.apache.kafka.connect.cli.ConnectDistributed', [props], compileJava('AppInfoParser')));
  let stderr = '';
  worker.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  worker.stdout.resume();
  const url = `http://127.0.0.1:${port}`;
  await until(() => {
    if (worker!.exitCode !== null) throw new Error(`the Connect worker exited ${worker!.exitCode}: ${stderr}`);
    return fetch(`${url}/connectors`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.ok, () => false);
  }, 'the Connect worker\'s REST API');
  return url;
}

async function rest(url: string, method: string, body?: unknown): Promise<any> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Record number i: a key, a value with random bytes and two headers (one binary), on partition i % 3. */
function record(i: number) {
  return { partition: i % PARTITIONS, key: `k-${i}`, value: Buffer.concat([Buffer.from(`v-${i}:`), randomBytes(32)]), headers: { seq: String(i), bin: randomBytes(8) } };
}

const seqOf = (m: KafkaMessage) => Number(m.headers!.seq!.toString());

/** Every record of a topic, by partition (a fresh group reads it from the start). */
async function readAll(kafka: Kafka, admin: Admin, topic: string): Promise<KafkaMessage[][]> {
  const ends = await admin.fetchTopicOffsets(topic);
  const total = ends.reduce((n, p) => n + Number(p.high), 0);
  const out: KafkaMessage[][] = ends.map(() => []);
  const consumer = await connected(kafka.consumer({ groupId: `verify-${topic}` }));
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ partition, message }) => void out[partition]!.push(message) });
  await until(() => out.flat().length >= total, `${total} records of ${topic}`, 60_000);
  await consumer.disconnect();
  return out;
}

/** A record as bytes: timestamp, key, value and headers. */
const bytes = (m: KafkaMessage) => [m.timestamp, m.key?.toString('hex'), m.value?.toString('hex'),
  ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k}=${Buffer.from(v as Buffer).toString('hex')}`)].join(' ');

/**
 * MirrorMaker's offset translation (OffsetSyncStore.translateDownstream): a committed offset maps through an offset
 * sync at or below it, to the sync's downstream offset, + 1 unless the offset is the sync's own. The records
 * between the sync and the committed offset are the ones a moved consumer reads again: the at-least-once window.
 * The store keeps fewer syncs the further they are from the newest (powers of two), so the sync used is one MirrorMaker
 * wrote, not always the nearest. Syncs are a Struct: key (topic int16-length string, partition int32), value
 * (upstream int64, downstream int64), as OffsetSync serializes them.
 */
function translations(syncs: KafkaMessage[], partition: number, committed: number): number[] {
  return syncs.flatMap((m) => {
    const topicLength = m.key!.readInt16BE(0);
    if (m.key!.toString('utf8', 2, 2 + topicLength) !== TOPIC || m.key!.readInt32BE(2 + topicLength) !== partition) return [];
    const upstream = Number(m.value!.readBigInt64BE(0));
    const downstream = Number(m.value!.readBigInt64BE(8));
    // A checkpoint of an earlier commit at the sync's own offset may be the last one synced (checkpoints only
    // move forward, MirrorCheckpointTask): the sync's downstream offset itself, as for a commit at the sync.
    return upstream < committed ? [downstream, downstream + 1] : upstream === committed ? [downstream] : [];
  });
}

it('MirrorMaker 2 moves a live topic and a consumer group to Kafka 4.4: every record read, duplicates bounded', async () => {
  const started = performance.now();
  const source = client(kafkite().bootstrap, 'app');
  const dest = client(`127.0.0.1:${target().port}`, 'app');
  const sourceAdmin = await connected(source.admin());
  const destAdmin = await connected(dest.admin());
  await sourceAdmin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });

  const url = await startWorker(`127.0.0.1:${target().port}`);
  const clusters = {
    'source.cluster.alias': 'kafkite', 'source.cluster.bootstrap.servers': kafkite().bootstrap,
    'target.cluster.alias': 'kafka', 'target.cluster.bootstrap.servers': `127.0.0.1:${target().port}`,
    'tasks.max': '1',
  };
  await rest(`${url}/connectors`, 'POST', { name: 'mm2-source', config: {
    ...clusters, 'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
    topics: TOPIC, 'replication.factor': '1', 'offset-syncs.topic.replication.factor': '1',
    'offset.lag.max': String(OFFSET_LAG_MAX), 'refresh.topics.interval.seconds': '1', 'sync.topic.acls.enabled': 'false',
  } });
  await rest(`${url}/connectors`, 'POST', { name: 'mm2-checkpoint', config: {
    ...clusters, 'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
    groups: GROUP, 'checkpoints.topic.replication.factor': '1', 'emit.checkpoints.interval.seconds': '1',
    'sync.group.offsets.enabled': 'true', 'sync.group.offsets.interval.seconds': '1', 'refresh.groups.interval.seconds': '1',
  } });

  // The application writes while MirrorMaker runs: 10 records every 50 ms.
  const producer = await connected(source.producer());
  const produced = (async () => {
    for (let i = 0; i < TOTAL; i += 10) {
      await producer.send({ topic: TOPIC, messages: Array.from({ length: 10 }, (_, j) => record(i + j)) });
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  // Its consumer reads on kafkite, committing after each record, and stops after READ_ON_SOURCE of them.
  const readOnSource = new Set<number>();
  const app = await connected(source.consumer({ groupId: GROUP }));
  await app.subscribe({ topic: TOPIC, fromBeginning: true });
  await app.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      if (readOnSource.size >= READ_ON_SOURCE) return;
      await app.commitOffsets([{ topic: TOPIC, partition, offset: String(Number(message.offset) + 1) }]);
      readOnSource.add(seqOf(message));
    },
  });
  await until(() => readOnSource.size >= READ_ON_SOURCE, `the app to read ${READ_ON_SOURCE} records on kafkite`, 60_000);
  await app.disconnect();
  const committed = await sourceAdmin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
  await produced;

  // MirrorMaker catches up: every record on the target, and the group's offsets synced there and settled.
  await until(async () => (await destAdmin.fetchTopicOffsets(REMOTE).catch(() => [])).reduce((n, p) => n + Number(p.high), 0) === TOTAL, `${TOTAL} records in ${REMOTE}`, 120_000);
  let last = '';
  let stableSince = Date.now();
  await until(async () => {
    const [offsets] = await destAdmin.fetchOffsets({ groupId: GROUP, topics: [REMOTE] });
    const now = JSON.stringify(offsets?.partitions.map((p) => p.offset).sort());
    if (now !== last) [last, stableSince] = [now, Date.now()];
    return !!offsets && offsets.partitions.every((p) => Number(p.offset) >= 0) && Date.now() - stableSince > 4_000;
  }, `the group's offsets synced to ${REMOTE}`, 120_000);

  // The consumer moves: same group id, the remote topic, and no reset policy to fall back on.
  // Where it starts on each partition is the offset it resumed at (MirrorMaker could still sync a later one before
  // the consumer joins); it reads to each partition's end.
  const readOnTarget: number[] = [];
  const resumedAt = new Map<number, number>();
  const lastRead = new Map<number, number>();
  const moved = await connected(dest.consumer({ groupId: GROUP }));
  await moved.subscribe({ topic: REMOTE });
  await moved.run({
    eachMessage: async ({ partition, message }) => {
      if (!resumedAt.has(partition)) resumedAt.set(partition, Number(message.offset));
      lastRead.set(partition, Number(message.offset));
      readOnTarget.push(seqOf(message));
    },
  });
  await until(() => [0, 1, 2].every((p) => lastRead.get(p) === TOTAL / PARTITIONS - 1), `the moved app to read ${REMOTE} to its end`, 60_000);
  await moved.disconnect();

  // Nothing lost: both sides together read every record.
  const all = new Set([...readOnSource, ...readOnTarget]);
  expect(all.size).toBe(TOTAL);
  expect(readOnTarget.length).toBe(new Set(readOnTarget).size);
  // Read twice: exactly the records between the synced offset and the one committed on kafkite, and the synced
  // offset is MirrorMaker's translation of the committed one through an offset sync it wrote (on kafkite).
  const duplicates = readOnTarget.filter((s) => readOnSource.has(s));
  const perPartition = [0, 1, 2].map((p) => duplicates.filter((s) => s % PARTITIONS === p).length);
  const sourceOffsets = Object.fromEntries(committed[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
  const [syncs] = await readAll(source, sourceAdmin, OFFSET_SYNCS);
  const windows: number[] = [];
  for (let p = 0; p < PARTITIONS; p++) {
    const upstream = sourceOffsets[p]!;
    expect(upstream - resumedAt.get(p)!).toBe(perPartition[p]);
    expect(translations(syncs!, p, upstream)).toContain(resumedAt.get(p));
    // The narrowest it could have been: through the newest sync at or below the committed offset.
    windows.push(upstream - Math.max(...translations(syncs!, p, upstream)));
  }

  // Byte for byte: the remote topic holds each partition's records as kafkite stores them.
  const [mirrored, original] = [await readAll(dest, destAdmin, REMOTE), await readAll(source, sourceAdmin, TOPIC)];
  expect(mirrored.map((p) => p.map(bytes))).toEqual(original.map((p) => p.map(bytes)));
  console.log(`mirror-maker: ${TOTAL} records, ${readOnSource.size} read on kafkite, ${readOnTarget.length} on Kafka, ${duplicates.length} twice (per partition ${perPartition.join('/')}; through the nearest sync ${windows.join('/')}, ${syncs!.length} offset syncs), in ${Math.round(performance.now() - started)} ms`);
}, 300_000);
