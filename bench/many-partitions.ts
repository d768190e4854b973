// Many partitions under RLIMIT_NOFILE 4,096 (issue 13 part 3): TOPICS × PER_TOPIC partitions created
// through CreateTopics (50 topics a request), produce to and fetch from a random 1,000 of them, then a
// restart on that data dir: ready time (spawn → 'kafkite started'), idle RSS, descriptors in use.
// Peer, measured in the same run: a bare `node` process's start-up time and RSS.
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
import { printJson, printTable, round } from './lib/stats.js';
import { WireClient } from './lib/wire-client.js';

const TOPICS = Number(process.env.BENCH_MP_TOPICS ?? 1000);
const PER_TOPIC = Number(process.env.BENCH_MP_PER_TOPIC ?? 100);
const SERVED = Math.min(1000, TOPICS * PER_TOPIC);
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

async function serve(client: WireClient, targets: Array<[string, number]>, round_: number): Promise<number> {
  const started = performance.now();
  for (const [topic, partition] of targets) {
    const records = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from(`${topic}-${partition}-${round_}`), headers: [] }] });
    const res = await client.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
    const code = res.responses[0].partitionResponses[0].errorCode;
    if (code !== 0) throw new Error(`produce to ${topic}-${partition}: error ${code}`);
  }
  for (const [topic, partition] of targets) {
    const res = await client.send(1, 12, {
      clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
      isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
      topics: [{ topic, topicId: '0'.repeat(32), partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: '0'.repeat(32) }] }],
    });
    const p = res.responses[0].partitions[0];
    if (p.errorCode !== 0 || p.highWatermark < round_ + 1) throw new Error(`fetch ${topic}-${partition}: error ${p.errorCode}, high watermark ${p.highWatermark}`);
  }
  return round(performance.now() - started);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(process.env.BENCH_MP_DIR ?? tmpdir(), 'kafkite-many-'));
  const overrides = ['kafkite.storage.min.free.bytes=0'];
  try {
    const peer = bareNode();
    let broker = await spawnKafkite({ dataDir, openFileLimit: LIMIT, overrides });
    let client = await WireClient.connect(broker.port);
    const createStarted = performance.now();
    for (let t = 0; t < TOPICS; t += TOPICS_PER_REQUEST) {
      const names = Array.from({ length: Math.min(TOPICS_PER_REQUEST, TOPICS - t) }, (_, i) => `mp-${t + i}`);
      const res = await client.send(19, 7, {
        topics: names.map((name) => ({ name, numPartitions: PER_TOPIC, replicationFactor: 1, assignments: [], configs: [] })),
        timeoutMs: 600_000,
        validateOnly: false,
      });
      const failed = (res.topics as Array<{ name: string; errorCode: number; errorMessage: string | null }>).filter((x) => x.errorCode !== 0);
      if (failed.length > 0) throw new Error(`CreateTopics: ${failed[0]!.name} error ${failed[0]!.errorCode} ${failed[0]!.errorMessage}`);
    }
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
    const serveAfterRestartMs = await serve(client, targets, 1);
    const fdsAfterRestart = openFds(broker.child.pid!);
    // The rest of the logs load in the background; idle RSS once they all have.
    const loadStarted = Date.now();
    while (!broker.logs.some((l) => /^Loaded \d+ logs in the background/.test(String(l.msg))) && Date.now() - loadStarted < 30_000) await sleep(200);
    for (const l of broker.logs.filter((x) => Number(x.level) >= 40).slice(0, 5)) console.log(`broker ${Number(l.level) >= 50 ? 'error' : 'warning'}: ${String(l.msg).slice(0, 300)}`);
    const backgroundLoad = broker.logs.find((l) => /^Loaded \d+ logs in the background/.test(String(l.msg)))?.msg ?? 'not finished';
    await sleep(IDLE_SETTLE_MS);
    const idleRss = rssMiB(broker.child.pid!);
    const idleFds = openFds(broker.child.pid!);
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
    ];
    printTable(`many partitions, RLIMIT_NOFILE ${LIMIT}, data in ${dataDir} (${String(backgroundLoad)})`, rows);
    printJson('many-partitions', {
      partitions, createMs, serveMs, readyMs, serveAfterRestartMs, rssAtReadyMiB: rssAtReady, idleRssMiB: idleRss, fdsServing, fdsAfterRestart, idleFds,
      peer, readyToBareNode: round(readyMs / peer.readyMs, 1), idleRssToBareNode: round(idleRss / peer.rssMiB, 1),
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
