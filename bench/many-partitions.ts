// Many partitions under RLIMIT_NOFILE 4,096 (issue 13 part 3): TOPICS × PER_TOPIC partitions created
// through CreateTopics (50 topics a request), produce to and fetch from a random 1,000 of them, then a
// restart on that data dir: ready time (spawn → 'kafkite started'), idle RSS, descriptors in use, and the
// latency of produce/fetch requests while the logs load in the background after the restart, to
// partitions not loaded yet ("cold") and to loaded ones.
// Peers, measured in the same run: a bare `node` process's start-up time and RSS; the same requests
// once the background load is over.
//
//   npx tsc -p . && node dist/bench/many-partitions.js                         (1,000 × 100 = 100,000)
//   BENCH_MP_TOPICS=100 node dist/bench/many-partitions.js                     (scaled: 10,000)
//   BENCH_MP_DIR=/dev/shm node dist/bench/many-partitions.js                   (data on tmpfs)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBatch } from '../protocol/records/record-batch.js';
import { spawnKafkite, type KafkiteProcess } from './lib/kafkite-process.js';
import { createReadyTopic, startBroker } from './lib/peer-broker.js';
import { figureOfValues, type Figure } from './lib/peer-figures.js';
import { percentile, printJson, printTable, round } from './lib/stats.js';
import { WireClient } from './lib/wire-client.js';

const TOPICS = Number(process.env.BENCH_MP_TOPICS ?? 1000);
const PER_TOPIC = Number(process.env.BENCH_MP_PER_TOPIC ?? 100);
const SERVED = Math.min(1000, TOPICS * PER_TOPIC);
// Kafka with 100,000 partitions needs more descriptors than a shell's default and a long time to create them: its
// peer run is bounded to 10,000 unless asked for more (BENCH_MP_KAFKA_TOPICS), and serves the same partitions in those topics.
const KAFKA_TOPICS = Math.min(TOPICS, Number(process.env.BENCH_MP_KAFKA_TOPICS ?? 100));
const LIMIT = 4096;
const TOPICS_PER_REQUEST = 50;
const IDLE_SETTLE_MS = 2000;

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A bare node process: start-up to its first line, and its RSS. */
function bareNode(): { readyMs: number; rssMiB: number } {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['-e', "console.log(require('fs').readFileSync('/proc/self/status','utf8').match(/VmRSS:\\s+(\\d+)/)[1])"]);
  return { readyMs: round(performance.now() - started), rssMiB: Math.round(Number(r.stdout.toString().trim()) / 1024) };
}

async function stop(broker: KafkiteProcess): Promise<void> {
  broker.child.kill('SIGTERM');
  await broker.exited;
}

async function produceOne(client: WireClient, topic: string, partition: number, tag: string): Promise<void> {
  const records = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from(`${topic}-${partition}-${tag}`), headers: [] }] });
  const res = await client.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
  const code = res.responses[0].partitionResponses[0].errorCode;
  if (code !== 0) throw new Error(`produce to ${topic}-${partition}: error ${code}`);
}

/** Fetches from offset 0; returns the high watermark. */
async function fetchOne(client: WireClient, topic: string, partition: number): Promise<number> {
  const res = await client.send(1, 12, {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
    isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
    topics: [{ topic, topicId: '0'.repeat(32), partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: '0'.repeat(32) }] }],
  });
  const p = res.responses[0].partitions[0];
  if (p.errorCode !== 0) throw new Error(`fetch ${topic}-${partition}: error ${p.errorCode}`);
  return p.highWatermark;
}

/** Milliseconds of each produce and fetch request, to a partition not used before (cold) and to a loaded one. */
interface Latencies {
  cold: number[];
  loaded: number[];
}

/**
 * Produces to each target and fetches from it. With `latencies`, the produce (the first use of the
 * target since start-up) counts as cold and the fetch as loaded, while `counting()` holds.
 */
async function serve(client: WireClient, targets: Array<[string, number]>, round_: number, latencies?: Latencies, counting = () => true): Promise<number> {
  const started = performance.now();
  for (const [topic, partition] of targets) {
    let t = performance.now();
    await produceOne(client, topic, partition, String(round_));
    if (latencies && counting()) latencies.cold.push(performance.now() - t);
    t = performance.now();
    const hw = await fetchOne(client, topic, partition);
    if (latencies && counting()) latencies.loaded.push(performance.now() - t);
    if (hw < round_ + 1) throw new Error(`fetch ${topic}-${partition}: high watermark ${hw}`);
  }
  return round(performance.now() - started);
}

/**
 * Produce + fetch pairs, alternating between a partition not used yet and one of `loaded`, while
 * `go()` holds (at most `max` pairs of each).
 */
async function probeLatency(client: WireClient, fresh: () => [string, number], loaded: Array<[string, number]>, go: () => boolean, max: number, out: Latencies = { cold: [], loaded: [] }): Promise<Latencies> {
  for (let i = 0; i < max && go(); i++) {
    for (const [kind, [topic, partition]] of [['cold', fresh()], ['loaded', loaded[i % loaded.length]!]] as const) {
      let t = performance.now();
      await produceOne(client, topic, partition, 'probe');
      out[kind].push(performance.now() - t);
      t = performance.now();
      await fetchOne(client, topic, partition);
      out[kind].push(performance.now() - t);
    }
  }
  return out;
}

function p99(values: number[]): number {
  return round(percentile([...values].sort((a, b) => a - b), 0.99), 2);
}

/** Topics mp-0 … mp-(topics-1) of PER_TOPIC partitions each, TOPICS_PER_REQUEST a request. */
async function createTopics(client: WireClient, topics: number): Promise<void> {
  for (let t = 0; t < topics; t += TOPICS_PER_REQUEST) {
    const names = Array.from({ length: Math.min(TOPICS_PER_REQUEST, topics - t) }, (_, i) => `mp-${t + i}`);
    const res = await client.send(19, 7, {
      topics: names.map((name) => ({ name, numPartitions: PER_TOPIC, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 600_000,
      validateOnly: false,
    });
    const failed = (res.topics as Array<{ name: string; errorCode: number; errorMessage: string | null }>).filter((x) => x.errorCode !== 0);
    if (failed.length > 0) throw new Error(`CreateTopics: ${failed[0]!.name} error ${failed[0]!.errorCode} ${failed[0]!.errorMessage}`);
  }
}

/** One record to each target, each retried until its partition has a leader (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION), for 15 minutes at most. */
async function produceUntilLed(client: WireClient, targets: Array<[string, number]>, tag: string): Promise<void> {
  const deadline = Date.now() + 900_000;
  for (const [topic, partition] of targets) {
    for (;;) {
      try {
        await produceOne(client, topic, partition, tag);
        break;
      } catch (err) {
        if (!/error (6|3)$/.test((err as Error).message) || Date.now() > deadline) throw err;
        await sleep(100);
      }
    }
  }
}

/**
 * Apache Kafka 4.4 (as kafka-server-start.sh starts it: 1 GiB heap, the shell's RLIMIT_NOFILE) with KAFKA_TOPICS × PER_TOPIC
 * partitions: create, produce to and fetch from the same random partitions, idle RSS, restart, ready and idle RSS again.
 * Kafka keeps every segment open, so it needs a descriptor per partition and more: it gets the shell's limit, not 4,096.
 */
async function kafkaManyPartitions(targets: Array<[string, number]>) {
  const kafka = await startBroker('kafka');
  let current = kafka;
  try {
    let client = await WireClient.connect(kafka.side.port);
    const createStarted = performance.now();
    await createTopics(client, KAFKA_TOPICS);
    // CreateTopics is answered once the controller has the records; the partitions are made after (Metadata shows their leaders).
    await createReadyTopic(kafka.side, `mp-ready`, 1, {}, 900_000);
    await produceUntilLed(client, targets, 'kafka');
    const createMs = round(performance.now() - createStarted);
    const serveMs = await serve(client, targets, 1);
    client.close();
    await sleep(IDLE_SETTLE_MS);
    const idleRssBeforeRestartMiB = rssMiB(kafka.side.pid);
    current = await kafka.restart();
    const readyMs = round(current.readyMs);
    client = await WireClient.connect(current.side.port);
    // Kafka lists itself in Metadata before it leads its partitions again: until then they answer NOT_LEADER_OR_FOLLOWER.
    const restarted = performance.now();
    await produceUntilLed(client, targets, 'restarted');
    const servingMs = round(readyMs + performance.now() - restarted);
    const serveAfterRestartMs = await serve(client, targets, 3);
    client.close();
    await sleep(IDLE_SETTLE_MS);
    return { partitions: KAFKA_TOPICS * PER_TOPIC, createMs, serveMs, readyMs, servingMs, serveAfterRestartMs, idleRssBeforeRestartMiB, idleRssMiB: rssMiB(current.side.pid), fds: openFds(current.side.pid) };
  } finally {
    await current.stop();
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(process.env.BENCH_MP_DIR ?? tmpdir(), 'kafkite-many-'));
  const overrides = ['kafkite.storage.min.free.bytes=0'];
  try {
    const peer = bareNode();
    let broker = await spawnKafkite({ dataDir, openFileLimit: LIMIT, overrides });
    let client = await WireClient.connect(broker.port);
    const createStarted = performance.now();
    await createTopics(client, TOPICS);
    const createMs = round(performance.now() - createStarted);
    const targets: Array<[string, number]> = [];
    const picked = new Set<string>();
    while (targets.length < SERVED) {
      const t = Math.floor(Math.random() * TOPICS);
      const p = Math.floor(Math.random() * PER_TOPIC);
      if (!picked.has(`${t}-${p}`)) {
        picked.add(`${t}-${p}`);
        targets.push([`mp-${t}`, p]);
      }
    }
    const serveMs = await serve(client, targets, 0);
    const fdsServing = openFds(broker.child.pid!);
    await sleep(IDLE_SETTLE_MS);
    const rssFirst = rssMiB(broker.child.pid!);
    client.close();
    await stop(broker);

    broker = await spawnKafkite({ dataDir, openFileLimit: LIMIT, overrides });
    const readyMs = round(broker.readyMs);
    const rssAtReady = rssMiB(broker.child.pid!);
    client = await WireClient.connect(broker.port);
    // The logs load in the background: request latency meanwhile, then idle RSS once they all have.
    const restarted = broker;
    const loading = () => !restarted.logs.some((l) => /^Loaded \d+ logs in the background/.test(String(l.msg)));
    const duringLoad: Latencies = { cold: [], loaded: [] };
    const serveAfterRestartMs = await serve(client, targets, 1, duringLoad, loading);
    const fdsAfterRestart = openFds(broker.child.pid!);
    const fresh = () => {
      for (;;) {
        const t = Math.floor(Math.random() * TOPICS);
        const p = Math.floor(Math.random() * PER_TOPIC);
        if (!picked.has(`${t}-${p}`)) {
          picked.add(`${t}-${p}`);
          return [`mp-${t}`, p] as [string, number];
        }
      }
    };
    const probesLeft = () => picked.size < TOPICS * PER_TOPIC - 1;
    await probeLatency(client, fresh, targets, () => loading() && probesLeft(), 100_000, duringLoad);
    const loadStarted = Date.now();
    while (loading() && Date.now() - loadStarted < 60_000) await sleep(200);
    for (const l of broker.logs.filter((x) => Number(x.level) >= 40).slice(0, 5)) console.log(`broker ${Number(l.level) >= 50 ? 'error' : 'warning'}: ${String(l.msg).slice(0, 300)}`);
    const backgroundLoad = broker.logs.find((l) => /^Loaded \d+ logs in the background/.test(String(l.msg)))?.msg ?? 'not finished';
    await sleep(IDLE_SETTLE_MS);
    const idleRss = rssMiB(broker.child.pid!);
    const idleFds = openFds(broker.child.pid!);
    const afterLoad = await probeLatency(client, fresh, targets, probesLeft, Math.max(100, duringLoad.cold.length / 2));
    client.close();
    await stop(broker);

    const partitions = TOPICS * PER_TOPIC;
    const rows = [
      { figure: 'partitions', value: partitions, target: '100,000', peer: '' },
      { figure: `create (${TOPICS_PER_REQUEST} topics/request) ms`, value: createMs, target: '', peer: `${round(createMs / partitions, 2)} ms/partition` },
      { figure: `produce+fetch ${SERVED} random partitions ms`, value: serveMs, target: '', peer: '' },
      { figure: 'restart ready ms', value: readyMs, target: '< 3,000', peer: `${round(readyMs / peer.readyMs, 1)}× bare node (${peer.readyMs} ms)` },
      { figure: `produce+fetch after restart ms`, value: serveAfterRestartMs, target: '', peer: '' },
      { figure: 'RSS at ready MiB', value: rssAtReady, target: '', peer: `${round(rssAtReady / peer.rssMiB, 1)}× bare node (${peer.rssMiB} MiB)` },
      { figure: 'idle RSS, all logs loaded, MiB', value: idleRss, target: '< 500', peer: `${round(idleRss / peer.rssMiB, 1)}× bare node` },
      { figure: 'idle RSS before restart MiB', value: rssFirst, target: '', peer: '' },
      { figure: 'fds in use while serving', value: fdsServing, target: `≤ ${LIMIT}`, peer: '' },
      { figure: 'fds in use after restart + serving', value: fdsAfterRestart, target: `≤ ${LIMIT}`, peer: '' },
      { figure: 'fds in use idle', value: idleFds, target: `≤ ${LIMIT}`, peer: '' },
      { figure: `p99 ms, cold partition, during background load (${duringLoad.cold.length} req)`, value: p99(duringLoad.cold), target: '', peer: `${round(p99(duringLoad.cold) / p99(afterLoad.cold), 1)}× after (${p99(afterLoad.cold)} ms)` },
      { figure: `p99 ms, loaded partition, during background load (${duringLoad.loaded.length} req)`, value: p99(duringLoad.loaded), target: '', peer: `${round(p99(duringLoad.loaded) / p99(afterLoad.loaded), 1)}× after (${p99(afterLoad.loaded)} ms)` },
    ];
    printTable(`many partitions, RLIMIT_NOFILE ${LIMIT}, data in ${dataDir} (${String(backgroundLoad)})`, rows);
    // Apache Kafka 4.4 with the same partitions (issue 32; BENCH_MP_PEER=0 leaves it out), up to BENCH_MP_KAFKA_TOPICS topics.
    const kafkaTargets = targets.map(([t, p]): [string, number] => [`mp-${Number(t.slice('mp-'.length)) % KAFKA_TOPICS}`, p]);
    const kafka = process.env.BENCH_MP_PEER === '0' ? null : await kafkaManyPartitions(kafkaTargets);
    const peerFigures: Figure[] = kafka && kafka.partitions === partitions
      ? [
        figureOfValues(`ready after restart, ${partitions.toLocaleString('en-US')} partitions (ms)`, readyMs, kafka.readyMs),
        // kafkite serves a partition whose log is not loaded yet (loading it first); Kafka answers NOT_LEADER_OR_FOLLOWER until it
        // leads it again. kafkite's figure has a fetch from each partition besides the produce, Kafka's the produce only.
        figureOfValues(`serving ${SERVED.toLocaleString('en-US')} random partitions after restart, ${partitions.toLocaleString('en-US')} partitions (ms)`, readyMs + serveAfterRestartMs, kafka.servingMs),
        figureOfValues(`RSS idle after restart, ${partitions.toLocaleString('en-US')} partitions (MB)`, idleRss * 1.048576, kafka.idleRssMiB * 1.048576, 1),
        figureOfValues(`create ${partitions.toLocaleString('en-US')} partitions, ${TOPICS_PER_REQUEST} topics a request (ms)`, createMs, kafka.createMs),
      ]
      : [];
    if (kafka) {
      printTable(`Kafka 4.4, ${kafka.partitions.toLocaleString('en-US')} partitions (create includes the first produce to the ${SERVED} served partitions)`, [kafka as unknown as Record<string, unknown>]);
      printTable('kafkite / Kafka 4.4, many partitions', peerFigures as unknown as Array<Record<string, unknown>>);
    }
    printJson('many-partitions', {
      kafka, peerFigures,
      partitions, createMs, serveMs, readyMs, serveAfterRestartMs, rssAtReadyMiB: rssAtReady, idleRssMiB: idleRss, idleRssBeforeRestartMiB: rssFirst, fdsServing, fdsAfterRestart, idleFds,
      duringLoadP99Ms: { cold: p99(duringLoad.cold), loaded: p99(duringLoad.loaded), requests: duringLoad.cold.length + duringLoad.loaded.length },
      afterLoadP99Ms: { cold: p99(afterLoad.cold), loaded: p99(afterLoad.loaded) },
      peer, readyToBareNode: round(readyMs / peer.readyMs, 1), idleRssToBareNode: round(idleRss / peer.rssMiB, 1),
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
