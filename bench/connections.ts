// Many connections to one broker (issue 14, target 4): CONNECTIONS concurrent connections, each doing
// what a client does on connecting (ApiVersions, then Metadata for the bench topic) and then staying
// idle; then PRODUCERS of them produce small acks=1 batches in a closed loop (one request in flight
// each) for PRODUCE_SECONDS. Reported, each with its peer from the same run:
//  - the broker's RSS with every connection idle and its peak while producing, against its RSS before
//    any connection (the per-connection cost is the difference over CONNECTIONS) (target < 400 MB);
//  - the broker's event-loop p99 delay while the connections are made (prom-client's
//    monitorEventLoopDelay on the admin /metrics, reset by each scrape), against the same broker idle
//    for as long (target < 20 ms); and while the producers run;
//  - the peer: a bare node TCP server (accepts, answers every request with a small canned frame, no
//    Kafka) taking the same storm from the same clients just before, with its event-loop p99 measured
//    the same way and its RSS with every connection open: what node and the kernel cost by themselves.
// The clients are raw sockets on prebuilt frames spread over WORKERS processes, so the load generator
// stays cheap; the records acknowledged are checked against the partitions' end offsets.
//
//   npx tsc -p . && node dist/bench/connections.js
//   BENCH_CONN_CONNECTIONS=10000 BENCH_CONN_PRODUCERS=1000 BENCH_CONN_WORKERS=2 BENCH_CONN_PRODUCE_SECONDS=5 node dist/bench/connections.js
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKey } from '../protocol/generated/index.js';
import { encodeBatch } from '../protocol/records/record-batch.js';
import { spawnKafkite } from './lib/kafkite-process.js';
import { createReadyTopic, startBroker } from './lib/peer-broker.js';
import { figureOfValues, type Figure } from './lib/peer-figures.js';
import { percentile, printJson, printTable, round, seconds } from './lib/stats.js';
import { WireClient, encodeRequest } from './lib/wire-client.js';

const CONNECTIONS = Number(process.env.BENCH_CONN_CONNECTIONS ?? 10_000);
const PRODUCERS = Number(process.env.BENCH_CONN_PRODUCERS ?? 1_000);
const WORKERS = Number(process.env.BENCH_CONN_WORKERS ?? 2);
const PRODUCE_SECONDS = Number(process.env.BENCH_CONN_PRODUCE_SECONDS ?? 5);
/** Connections each worker has being set up at once (TCP connect + ApiVersions + Metadata). */
const CONNECTING_PER_WORKER = Number(process.env.BENCH_CONN_CONCURRENCY ?? 100);
const TOPIC = 'connections-bench';
const PARTITIONS = 8;
const RECORDS_PER_BATCH = 10;
const RECORD_BYTES = 100;
/** prom-client samples the event loop every 10 ms and reports the sampling interval within each delay. */
const SAMPLING_MS = 10;

// ---- the worker: raw sockets on prebuilt frames ----

type ToWorker = { cmd: 'connect'; port: number; count: number; first: number } | { cmd: 'produce'; count: number; seconds: number } | { cmd: 'drop' } | { cmd: 'close' };
type FromWorker =
  | { kind: 'connected'; connected: number; failed: number; connectMsP99: number }
  | { kind: 'dropped' }
  | { kind: 'produced'; requests: number; latenciesMs: { p50: number; p99: number; max: number }; errors: number }
  | { kind: 'closed' };

/** Counts whole response frames arriving on a socket; resolves the pending wait when one completes. */
class FrameCounter {
  private need = -1;
  private header = Buffer.alloc(0);
  private onFrame: ((frame: Buffer | null) => void) | null = null;
  private body: Buffer[] = [];
  private keepBody = false;
  private have = 0;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.feed(chunk));
    socket.on('error', () => this.settle(null));
    socket.on('close', () => this.settle(null));
  }

  /** Resolves with the next response (its body only if `keepBody`), or null if the socket fails. */
  next(keepBody = false): Promise<Buffer | null> {
    this.keepBody = keepBody;
    return new Promise((resolve) => (this.onFrame = resolve));
  }

  private settle(frame: Buffer | null): void {
    const f = this.onFrame;
    this.onFrame = null;
    f?.(frame);
  }

  private feed(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.need < 0) {
        const take = Math.min(4 - this.header.length, chunk.length - pos);
        this.header = Buffer.concat([this.header, chunk.subarray(pos, pos + take)]);
        pos += take;
        if (this.header.length < 4) return;
        this.need = this.header.readInt32BE(0);
        this.header = Buffer.alloc(0);
        this.have = 0;
        this.body = [];
      }
      const take = Math.min(this.need - this.have, chunk.length - pos);
      if (this.keepBody) this.body.push(chunk.subarray(pos, pos + take));
      this.have += take;
      pos += take;
      if (this.have === this.need) {
        this.need = -1;
        this.settle(this.keepBody ? Buffer.concat(this.body) : Buffer.alloc(0));
      }
    }
  }
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

async function runWorker(): Promise<void> {
  const sockets: FrameCounter[] = [];
  const send = (m: FromWorker) => process.send!(m);
  process.on('message', async (m: ToWorker) => {
    if (m.cmd === 'connect') {
      const connectMs: number[] = [];
      let failed = 0;
      let next = 0;
      const one = async (): Promise<void> => {
        while (next < m.count) {
          const i = m.first + next++;
          const clientId = `conn-bench-${i}`;
          const started = process.hrtime.bigint();
          try {
            const counter = new FrameCounter(await open(m.port));
            // As a client connects: ApiVersions, then Metadata for the topic it will use.
            const versions = counter.next();
            counter.socket.write(encodeRequest(ApiKey.ApiVersions, 3, 1, { clientSoftwareName: 'conn-bench', clientSoftwareVersion: '1' }, clientId));
            if ((await versions) === null) throw new Error('closed');
            const metadata = counter.next();
            counter.socket.write(encodeRequest(ApiKey.Metadata, 12, 2, {
              topics: [{ topicId: '00000000-0000-0000-0000-000000000000', name: TOPIC }],
              allowAutoTopicCreation: false,
              includeTopicAuthorizedOperations: false,
            }, clientId));
            if ((await metadata) === null) throw new Error('closed');
            sockets.push(counter);
            connectMs.push(seconds(started) * 1000);
          } catch {
            failed++;
          }
        }
      };
      await Promise.all(Array.from({ length: CONNECTING_PER_WORKER }, one));
      connectMs.sort((a, b) => a - b);
      send({ kind: 'connected', connected: sockets.length, failed, connectMsP99: round(percentile(connectMs, 0.99), 1) });
    } else if (m.cmd === 'produce') {
      const latencies: number[] = [];
      let errors = 0;
      const deadline = Date.now() + m.seconds * 1000;
      const loop = async (counter: FrameCounter, n: number): Promise<void> => {
        const batch = encodeBatch({
          baseOffset: 0,
          records: Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.alloc(RECORD_BYTES, 0x61 + (i % 26)), headers: [] })),
        });
        const frame = encodeRequest(ApiKey.Produce, 9, 3, {
          transactionalId: null, acks: 1, timeoutMs: 30_000,
          topicData: [{ name: TOPIC, partitionData: [{ index: n % PARTITIONS, records: batch }] }],
        }, `conn-bench-producer-${n}`);
        while (Date.now() < deadline) {
          const t0 = process.hrtime.bigint();
          const reply = counter.next(true);
          counter.socket.write(frame);
          const body = await reply;
          if (body === null) {
            errors++;
            return;
          }
          // Produce v9 response: correlation id, header tags, one topic, one partition: its error code.
          if (body.readInt16BE(4 + 1 + 1 + 1 + TOPIC.length + 1 + 4) !== 0) errors++;
          latencies.push(seconds(t0) * 1000);
        }
      };
      await Promise.all(sockets.slice(0, m.count).map((c, i) => loop(c, i)));
      latencies.sort((a, b) => a - b);
      send({
        kind: 'produced', requests: latencies.length, errors,
        latenciesMs: { p50: round(percentile(latencies, 0.5), 2), p99: round(percentile(latencies, 0.99), 2), max: round(percentile(latencies, 1), 2) },
      });
    } else if (m.cmd === 'drop') {
      for (const c of sockets.splice(0)) c.socket.destroy();
      send({ kind: 'dropped' });
    } else {
      for (const c of sockets) c.socket.destroy();
      send({ kind: 'closed' });
      process.disconnect?.();
    }
  });
}

// ---- the peer: a bare node server, no Kafka ----

type ToPeer = { cmd: 'eventLoopP99' } | { cmd: 'stop' };

/** Answers every request frame with an 8-byte frame carrying its correlation id; reports its event-loop p99 (reset on each ask) over IPC. */
async function runPeer(): Promise<void> {
  const delay = monitorEventLoopDelay({ resolution: SAMPLING_MS });
  delay.enable();
  const server = createServer({ noDelay: true }, (socket) => {
    let pending: Buffer = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const response = Buffer.alloc(12);
        response.writeInt32BE(8, 0);
        pending.copy(response, 4, 8, 12); // the correlation id, after api key and version
        socket.write(response);
        pending = pending.subarray(4 + pending.readInt32BE(0));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!({ port: (server.address() as AddressInfo).port });
  process.on('message', (m: ToPeer) => {
    if (m.cmd === 'eventLoopP99') {
      process.send!({ p99Ms: round(delay.percentile(99) / 1e6 - SAMPLING_MS, 1), rssMB: round(process.memoryUsage.rss() / 2 ** 20, 1) });
      delay.reset();
    } else {
      process.exit(0);
    }
  });
}

// ---- the driver ----

function rssMB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return kb ? round(Number(kb[1]) / 1024, 1) : NaN;
}

/** The broker's event-loop delay p99 (ms) since the previous scrape: prom-client resets it on each scrape. */
async function eventLoopP99Ms(adminAddress: string): Promise<number> {
  const text = await (await fetch(`${adminAddress}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('kafkite_nodejs_eventloop_lag_p99_seconds'));
  return line ? round(Number(line.split(' ').pop()) * 1000 - SAMPLING_MS, 1) : NaN;
}

function ask<T extends FromWorker['kind']>(workers: ChildProcess[], messages: ToWorker[], kind: T): Promise<Array<Extract<FromWorker, { kind: T }>>> {
  return Promise.all(workers.map((w, i) => new Promise<Extract<FromWorker, { kind: T }>>((resolve, reject) => {
    const onMessage = (m: FromWorker) => {
      if (m.kind !== kind) return;
      w.off('message', onMessage);
      resolve(m as Extract<FromWorker, { kind: T }>);
    };
    w.on('message', onMessage);
    w.once('exit', (code) => reject(new Error(`connections worker exited with ${code}`)));
    w.send(messages[i]!);
  })));
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkite-bench-conn-'));
  const broker = await spawnKafkite({ dataDir, nodeArgs: process.env.BENCH_BROKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [] });
  const pid = broker.child.pid!;
  const adminAddress = String(broker.logs.find((l) => l.msg === 'admin http started')?.address);
  const workers = Array.from({ length: WORKERS }, () => fork(process.argv[1]!, ['worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const peer = fork(process.argv[1]!, ['peer'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const askPeer = (m: ToPeer) => new Promise<any>((resolve) => {
    peer.once('message', resolve);
    peer.send(m);
  });
  try {
    const perWorker = Math.ceil(CONNECTIONS / WORKERS);
    const connectAll = (port: number) =>
      ask(workers, workers.map((_, i) => ({ cmd: 'connect', port, first: i * perWorker, count: Math.min(perWorker, CONNECTIONS - i * perWorker) })), 'connected');
    // The peer's storm: the same clients against a bare node server.
    const peerPort = (await new Promise<any>((resolve) => peer.once('message', resolve))).port as number;
    await new Promise((r) => setTimeout(r, 1000));
    await askPeer({ cmd: 'eventLoopP99' });
    const p0 = process.hrtime.bigint();
    const peerConnected = await connectAll(peerPort);
    const peerStormSeconds = seconds(p0);
    const peerStorm = await askPeer({ cmd: 'eventLoopP99' });
    const peerOpen = peerConnected.reduce((s, c) => s + c.connected, 0);
    await new Promise((r) => setTimeout(r, 1000));
    const peerIdle = await askPeer({ cmd: 'eventLoopP99' });
    await ask(workers, workers.map(() => ({ cmd: 'drop' })), 'dropped');
    peer.send({ cmd: 'stop' });

    const admin = await WireClient.connect(broker.port);
    const created = await admin.send(ApiKey.CreateTopics, 4, {
      topics: [{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false,
    });
    if (created.topics[0].errorCode !== 0) throw new Error(`CreateTopics: error ${created.topics[0].errorCode}`);

    // The peers: the same broker with no client connections, idle for about as long as the storm takes.
    await new Promise((r) => setTimeout(r, 1000));
    const rssBefore = rssMB(pid);
    await eventLoopP99Ms(adminAddress);
    await new Promise((r) => setTimeout(r, 3000));
    const idleP99 = await eventLoopP99Ms(adminAddress);

    const cpu0 = cpuSeconds(pid);
    const t0 = process.hrtime.bigint();
    const connected = await connectAll(broker.port);
    const stormSeconds = seconds(t0);
    const stormP99 = await eventLoopP99Ms(adminAddress);
    const stormCpuMsPerConnection = ((cpuSeconds(pid) - cpu0) * 1000) / CONNECTIONS;
    const open = connected.reduce((s, c) => s + c.connected, 0);
    const failed = connected.reduce((s, c) => s + c.failed, 0);
    await new Promise((r) => setTimeout(r, 2000));
    const rssIdle = rssMB(pid);
    await eventLoopP99Ms(adminAddress);

    let rssPeak = rssIdle;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMB(pid))), 100);
    const produced = await ask(workers, workers.map((_, i) => ({ cmd: 'produce', seconds: PRODUCE_SECONDS, count: Math.floor(PRODUCERS / WORKERS) + (i < PRODUCERS % WORKERS ? 1 : 0) })), 'produced');
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, rssMB(pid));
    const produceP99 = await eventLoopP99Ms(adminAddress);
    const requests = produced.reduce((s, p) => s + p.requests, 0);
    const errors = produced.reduce((s, p) => s + p.errors, 0);

    // The outcome, not the echo: every acknowledged record is in the log.
    const offsets = await admin.send(ApiKey.ListOffsets, 7, {
      replicaId: -1, isolationLevel: 0,
      topics: [{ name: TOPIC, partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: -1 })) }],
    });
    const stored = (offsets.topics[0].partitions as Array<{ offset: bigint | number }>).reduce((s, p) => s + Number(p.offset), 0);
    admin.close();
    await ask(workers, workers.map(() => ({ cmd: 'drop' })), 'dropped');
    // Apache Kafka 4.4 takes the same storm and produce from the same clients (issue 32; BENCH_CONN_PEER=0 leaves it out).
    const kafka = process.env.BENCH_CONN_PEER === '0' ? null : await kafkaStorm(workers, connectAll);
    await ask(workers, workers.map(() => ({ cmd: 'close' })), 'closed');

    const result = {
      connections: CONNECTIONS, open, failed, workers: WORKERS,
      stormSeconds: round(stormSeconds, 2), connectionsPerSec: Math.round(open / stormSeconds),
      connectMsP99: Math.max(...connected.map((c) => c.connectMsP99)), brokerCpuMsPerConnection: round(stormCpuMsPerConnection, 3),
      brokerEventLoopP99Ms: stormP99, idleEventLoopP99Ms: idleP99, produceEventLoopP99Ms: produceP99,
      rssBeforeMB: rssBefore, rssIdleMB: rssIdle, rssPeakMB: rssPeak,
      kbPerIdleConnection: round(((rssIdle - rssBefore) * 1024) / Math.max(1, open), 1),
      producers: PRODUCERS, produceSeconds: PRODUCE_SECONDS, produceRequests: requests, produceErrors: errors,
      producedRecordsPerSec: Math.round((requests * RECORDS_PER_BATCH) / PRODUCE_SECONDS),
      produceLatencyMsP99: Math.max(...produced.map((p) => p.latenciesMs.p99)),
      recordsAcked: requests * RECORDS_PER_BATCH, recordsStored: stored,
      peer: { open: peerOpen, connectionsPerSec: Math.round(peerOpen / peerStormSeconds), eventLoopP99Ms: peerStorm.p99Ms, rssOpenMB: peerIdle.rssMB },
    };
    if (stored < result.recordsAcked) throw new Error(`acknowledged ${result.recordsAcked} records but the log holds ${stored}`);
    printTable(`${CONNECTIONS} connections (ApiVersions + Metadata each, then idle), then ${PRODUCERS} of them producing ${RECORDS_PER_BATCH} × ${RECORD_BYTES} B acks=1 for ${PRODUCE_SECONDS} s; ${WORKERS} client processes`, [
      { phase: 'peer: bare node server, connecting', 'broker RSS MB': peerIdle.rssMB, 'event-loop p99 ms': peerStorm.p99Ms, note: `${result.peer.connectionsPerSec} conn/s, ${peerOpen} open; RSS with all open` },
      { phase: 'before any connection', 'broker RSS MB': rssBefore, 'event-loop p99 ms': idleP99, note: 'idle 3 s' },
      { phase: `connecting (${result.connectionsPerSec} conn/s)`, 'broker RSS MB': '', 'event-loop p99 ms': stormP99, note: `${open} open, ${failed} failed, ${result.brokerCpuMsPerConnection} broker CPU ms/conn` },
      { phase: 'all idle', 'broker RSS MB': rssIdle, 'event-loop p99 ms': '', note: `${result.kbPerIdleConnection} KB per connection` },
      { phase: 'producing (peak)', 'broker RSS MB': rssPeak, 'event-loop p99 ms': produceP99, note: `${result.producedRecordsPerSec} rec/s, request p99 ${result.produceLatencyMsP99} ms, ${errors} errors` },
    ]);
    const peerFigures: Figure[] = kafka
      ? [
        figureOfValues(`RSS, ${CONNECTIONS.toLocaleString('en-US')} connections idle (MB)`, rssIdle, kafka.rssIdleMB, 1),
        figureOfValues(`RSS, ${PRODUCERS.toLocaleString('en-US')} of them producing, peak (MB)`, rssPeak, kafka.rssPeakMB, 1),
        figureOfValues(`new connections, ApiVersions + Metadata each (conn/s)`, result.connectionsPerSec, kafka.connectionsPerSec),
        figureOfValues(`broker CPU per new connection (ms)`, result.brokerCpuMsPerConnection, kafka.brokerCpuMsPerConnection, 3),
        figureOfValues(`produce from ${PRODUCERS.toLocaleString('en-US')} connections, 1 in flight each (rec/s)`, result.producedRecordsPerSec, kafka.producedRecordsPerSec),
      ]
      : [];
    if (kafka) {
      printTable(`Kafka 4.4, the same ${CONNECTIONS} connections and ${PRODUCERS} producers`, [kafka as unknown as Record<string, unknown>]);
      printTable('kafkite / Kafka 4.4, connections', peerFigures as unknown as Array<Record<string, unknown>>);
    }
    printJson('connections', { ...result, kafka, peerFigures });
  } finally {
    for (const w of workers) if (w.exitCode === null) w.kill();
    if (peer.exitCode === null) peer.kill();
    broker.child.kill('SIGTERM');
    await broker.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type ConnectAll = (port: number) => Promise<Array<Extract<FromWorker, { kind: 'connected' }>>>;

/** Kafka 4.4 (as kafka-server-start.sh starts it) through the kafkite phase's steps: RSS before, the storm, all idle, producing. */
async function kafkaStorm(workers: ChildProcess[], connectAll: ConnectAll) {
  const kafka = await startBroker('kafka');
  try {
    const { pid, port } = kafka.side;
    await createReadyTopic(kafka.side, TOPIC, PARTITIONS);
    await new Promise((r) => setTimeout(r, 1000));
    const rssBeforeMB = rssMB(pid);
    const cpu0 = cpuSeconds(pid);
    const t0 = process.hrtime.bigint();
    const connected = await connectAll(port);
    const stormSeconds = seconds(t0);
    const brokerCpuMsPerConnection = round(((cpuSeconds(pid) - cpu0) * 1000) / CONNECTIONS, 3);
    const open = connected.reduce((s, c) => s + c.connected, 0);
    await new Promise((r) => setTimeout(r, 2000));
    const rssIdleMB = rssMB(pid);
    let rssPeakMB = rssIdleMB;
    const sampler = setInterval(() => (rssPeakMB = Math.max(rssPeakMB, rssMB(pid))), 100);
    const produced = await ask(workers, workers.map((_, i) => ({ cmd: 'produce', seconds: PRODUCE_SECONDS, count: Math.floor(PRODUCERS / WORKERS) + (i < PRODUCERS % WORKERS ? 1 : 0) })), 'produced');
    clearInterval(sampler);
    await ask(workers, workers.map(() => ({ cmd: 'drop' })), 'dropped');
    const requests = produced.reduce((s, p) => s + p.requests, 0);
    return {
      open, failed: connected.reduce((s, c) => s + c.failed, 0), connectionsPerSec: Math.round(open / stormSeconds), brokerCpuMsPerConnection,
      rssBeforeMB, rssIdleMB, rssPeakMB: Math.max(rssPeakMB, rssMB(pid)),
      producedRecordsPerSec: Math.round((requests * RECORDS_PER_BATCH) / PRODUCE_SECONDS), produceLatencyMsP99: Math.max(...produced.map((p) => p.latenciesMs.p99)),
      produceErrors: produced.reduce((s, p) => s + p.errors, 0),
    };
  } finally {
    await kafka.stop();
  }
}

/** User + system CPU seconds of a process (/proc/<pid>/stat fields 14 and 15, at 100 ticks/s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

if (process.argv[2] === 'worker') await runWorker();
else if (process.argv[2] === 'peer') await runPeer();
else await main();
