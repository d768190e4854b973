// The schema registry (issue 33) over HTTP with keep-alive, as serializers use it:
//   - registrations per second: BENCH_SR_SCHEMAS distinct Avro schemas under BENCH_SR_SUBJECTS subjects
//     (each subject's next version adds a field with a default, so BACKWARD, the default level, accepts it),
//     BENCH_SR_CLIENTS clients, each one connection with one request at a time;
//   - lookups by id per second (GET /schemas/ids/{id}, a deserializer's cache miss), random ids, same
//     clients, against a bare node:http server answering the same body (the HTTP ceiling), in alternating
//     rounds so that both see the same load from the machine's other work: medians and per-round ratios;
//     Each registration is one append to `_schemas` answered once on disk, and they run one at a time, so
//     the peer is the rate of small appends + fdatasync in the broker's data dir;
//   - start-up with those schemas in `_schemas` against the same broker with an empty `_schemas`,
//     alternating, median of BENCH_RUNS each: spawn → 'kafkite started' (the registry is rebuilt before
//     the admin listener listens) and spawn → the first answer to GET /schemas/ids/{last id}.
//
//   npx tsc -p . && node dist/bench/schema-registry.js
import { spawn } from 'node:child_process';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchBroker } from './lib/broker-process.js';
import { freePort } from './lib/free-port.js';
import { median, percentile, printJson, printTable, round } from './lib/stats.js';
import { createTopic } from './loadgen.js';

const SCHEMAS = Number(process.env.BENCH_SR_SCHEMAS ?? 10_000);
const SUBJECTS = Number(process.env.BENCH_SR_SUBJECTS ?? 1000);
const CLIENTS = Number(process.env.BENCH_SR_CLIENTS ?? 4);
const LOOKUP_SECONDS = Number(process.env.BENCH_SR_LOOKUP_SECONDS ?? 2);
const LOOKUP_ROUNDS = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CT = 'application/vnd.schemaregistry.v1+json';

interface Answer {
  status: number;
  body: string;
}

/** One keep-alive connection per client, one request at a time on it. */
class Client {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(private readonly base: URL) {}

  send(method: string, path: string, body?: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request({
        agent: this.agent, host: this.base.hostname, port: this.base.port, method, path,
        headers: body === undefined ? {} : { 'content-type': CT, 'content-length': Buffer.byteLength(body) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Registration k: subject k mod SUBJECTS, whose record gains one int field (with a default) per version. */
function registration(k: number): { subject: string; body: string } {
  const s = k % SUBJECTS;
  const extra = Math.floor(k / SUBJECTS);
  const fields = [{ name: 'id', type: 'string' }, ...Array.from({ length: extra }, (_, i) => ({ name: `f${i + 1}`, type: 'int', default: 0 }))];
  const schema = { type: 'record', name: `Rec${s}`, namespace: 'bench.sr', fields };
  return { subject: `bench-${s}-value`, body: JSON.stringify({ schema: JSON.stringify(schema) }) };
}

/** Runs `clients` loops, each taking the next index until `more` says stop; gives the latencies in ms. */
async function drive(clients: Client[], more: (k: number) => boolean, one: (c: Client, k: number) => Promise<void>): Promise<{ seconds: number; latencies: number[] }> {
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(clients.map(async (c) => {
    for (let k = next++; more(k); k = next++) {
      const t = performance.now();
      await one(c, k);
      latencies.push(performance.now() - t);
    }
  }));
  return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b) };
}

async function register(base: URL): Promise<{ perSec: number; p50Ms: number; p99Ms: number; seconds: number }> {
  const clients = Array.from({ length: CLIENTS }, () => new Client(base));
  const ids = new Set<number>();
  try {
    const run = await drive(clients, (k) => k < SCHEMAS, async (c, k) => {
      const r = registration(k);
      const res = await c.send('POST', `/subjects/${r.subject}/versions`, r.body);
      if (res.status !== 200) throw new Error(`register ${r.subject}: ${res.status} ${res.body}`);
      ids.add(JSON.parse(res.body).id);
    });
    // What was stored, not what was answered: every schema got its own id, and every subject is listed.
    const subjects = JSON.parse((await clients[0]!.send('GET', '/subjects')).body) as string[];
    if (ids.size !== SCHEMAS || Math.max(...ids) !== SCHEMAS || subjects.length !== SUBJECTS) {
      throw new Error(`registered ${SCHEMAS}: ${ids.size} distinct ids up to ${Math.max(...ids)}, ${subjects.length} subjects`);
    }
    return { perSec: round(SCHEMAS / run.seconds), p50Ms: round(percentile(run.latencies, 0.5), 2), p99Ms: round(percentile(run.latencies, 0.99), 2), seconds: round(run.seconds, 1) };
  } finally {
    for (const c of clients) c.close();
  }
}

async function lookups(base: URL, check: (id: number, body: string) => void): Promise<{ perSec: number; p50Ms: number; p99Ms: number }> {
  const clients = Array.from({ length: CLIENTS }, () => new Client(base));
  const until = performance.now() + LOOKUP_SECONDS * 1000;
  try {
    const run = await drive(clients, () => performance.now() < until, async (c, k) => {
      const id = 1 + Math.floor(Math.random() * SCHEMAS);
      const res = await c.send('GET', `/schemas/ids/${id}`);
      if (res.status !== 200) throw new Error(`GET /schemas/ids/${id}: ${res.status} ${res.body}`);
      if (k % 97 === 0) check(id, res.body);
    });
    return { perSec: round(run.latencies.length / run.seconds), p50Ms: round(percentile(run.latencies, 0.5), 2), p99Ms: round(percentile(run.latencies, 0.99), 2) };
  } finally {
    for (const c of clients) c.close();
  }
}

// The peer: a bare node:http server in its own process, answering every GET with a registry-sized body.
const BARE_HTTP = `
const body = process.argv[1];
const server = require('node:http').createServer((req, res) => {
  res.writeHead(200, { 'content-type': '${CT}', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

type Rate = Awaited<ReturnType<typeof lookups>>;

/** LOOKUP_ROUNDS rounds of kafkite then the bare server (answering `body`): median figures and each round's ratio. */
async function lookupRounds(base: URL, body: string, check: (id: number, body: string) => void): Promise<{ kafkite: Rate; bare: Rate; ratios: number[] }> {
  const child = spawn(process.execPath, ['-e', BARE_HTTP, body], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
    const rounds: Array<[Rate, Rate]> = [];
    for (let i = 0; i < LOOKUP_ROUNDS; i++) rounds.push([await lookups(base, check), await lookups(new URL(`http://127.0.0.1:${port}`), () => {})]);
    const med = (side: 0 | 1): Rate => ({
      perSec: median(rounds.map((r) => r[side].perSec)), p50Ms: median(rounds.map((r) => r[side].p50Ms)), p99Ms: median(rounds.map((r) => r[side].p99Ms)),
    });
    return { kafkite: med(0), bare: med(1), ratios: rounds.map(([k, b]) => round(k.perSec / b.perSec, 2)) };
  } finally {
    child.kill();
  }
}

/** Small appends, each followed by fdatasync, beside the data dirs: the rate a one-at-a-time durable writer can reach. */
function fdatasyncPerSec(): number {
  const dir = mkdtempSync(join(tmpdir(), 'kafkite-bench-'));
  const fd = openSync(join(dir, 'fdatasync-peer'), 'w');
  const record = Buffer.alloc(400, 0x61);
  const times: number[] = [];
  try {
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      writeSync(fd, record);
      fdatasyncSync(fd);
      times.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return round(1000 / median(times));
}

interface Start {
  readyMs: number;
  answerMs: number;
  rssMB: number;
}

/** One start: spawn → ready, then the first answer to GET /schemas/ids/{SCHEMAS}: 200 when full, 40403 when empty. */
async function startOnce(dataDir: string, full: boolean): Promise<Start> {
  const base = new URL(`http://127.0.0.1:${await freePort()}`);
  const broker = await BenchBroker.start({ dataDir, overrides: ['kafkite.schema.registry.enable=true', `admin.listener=${base.origin}`] });
  const t = performance.now();
  const client = new Client(base);
  try {
    const res = await client.send('GET', `/schemas/ids/${SCHEMAS}`);
    const answerMs = broker.readyMs + performance.now() - t;
    const code = res.status === 200 ? 200 : JSON.parse(res.body).error_code;
    if (code !== (full ? 200 : 40403)) throw new Error(`start-up (${full ? 'full' : 'empty'}): GET /schemas/ids/${SCHEMAS} answered ${res.status} ${res.body.slice(0, 200)}`);
    return { readyMs: broker.readyMs, answerMs, rssMB: broker.rssBytes() / 1048576 };
  } finally {
    client.close();
    await broker.stop();
  }
}

async function main(): Promise<void> {
  const base = new URL(`http://127.0.0.1:${await freePort()}`);
  const broker = await BenchBroker.start({ overrides: ['kafkite.schema.registry.enable=true', `admin.listener=${base.origin}`] });
  const empty = await BenchBroker.start({ overrides: ['kafkite.schema.registry.enable=true'] });
  let reg;
  let looked;
  try {
    // The peer's `_schemas` exists, with nothing in it.
    await createTopic(empty.bootstrap, '_schemas', 1, { 'cleanup.policy': 'compact' });
    await empty.stop();
    const cpuBefore = broker.cpuSeconds();
    reg = await register(base);
    const cpuMsPerRegistration = round(((broker.cpuSeconds() - cpuBefore) * 1000) / SCHEMAS, 2);
    const fsyncPeer = fdatasyncPerSec();
    const probe = new Client(base);
    const sample = (await probe.send('GET', `/schemas/ids/${Math.ceil(SCHEMAS / 2)}`)).body;
    probe.close();
    looked = await lookupRounds(base, sample, (id, body) => {
      const answer = JSON.parse(body) as { schema: string };
      const want = registration(id - 1);
      if (JSON.parse(answer.schema).name !== JSON.parse(JSON.parse(want.body).schema).name) throw new Error(`id ${id}: ${body.slice(0, 200)}`);
    });
    const { kafkite, bare } = looked;
    await broker.stop();

    const full: Start[] = [];
    const none: Start[] = [];
    for (let i = 0; i < RUNS; i++) {
      full.push(await startOnce(broker.dataDir, true));
      none.push(await startOnce(empty.dataDir, false));
    }
    const med = (runs: Start[], key: keyof Start) => round(median(runs.map((r) => r[key])), 1);
    const startup = {
      full: { readyMs: med(full, 'readyMs'), answerMs: med(full, 'answerMs'), rssMB: med(full, 'rssMB'), runs: full.map((r) => round(r.answerMs, 1)) },
      empty: { readyMs: med(none, 'readyMs'), answerMs: med(none, 'answerMs'), rssMB: med(none, 'rssMB'), runs: none.map((r) => round(r.answerMs, 1)) },
    };
    const answerRatio = round(startup.full.answerMs / startup.empty.answerMs, 2);
    const lookupRatio = median(looked.ratios);
    const regRatio = round(reg.perSec / fsyncPeer, 2);

    printTable(`schema registry: ${SCHEMAS.toLocaleString('en-US')} Avro schemas under ${SUBJECTS.toLocaleString('en-US')} subjects, ${CLIENTS} keep-alive clients`, [
      { figure: 'registrations', 'per s': reg.perSec, 'p50 ms': reg.p50Ms, 'p99 ms': reg.p99Ms, peer: `append + fdatasync ${fsyncPeer}/s (${regRatio}×); broker CPU ${cpuMsPerRegistration} ms each` },
      { figure: 'GET /schemas/ids/{id}', 'per s': kafkite.perSec, 'p50 ms': kafkite.p50Ms, 'p99 ms': kafkite.p99Ms, peer: `bare node:http ${bare.perSec}/s (${lookupRatio}×; rounds ${looked.ratios.join(', ')})` },
    ]);
    printTable(`start-up, alternating, median of ${RUNS}: spawn → 'kafkite started' and → first answer of the registry`, [
      { '_schemas': `${SCHEMAS.toLocaleString('en-US')} schemas`, 'ready ms': startup.full.readyMs, 'answer ms': startup.full.answerMs, 'RSS MB': startup.full.rssMB, runs: startup.full.runs },
      { '_schemas': 'empty', 'ready ms': startup.empty.readyMs, 'answer ms': startup.empty.answerMs, 'RSS MB': startup.empty.rssMB, runs: startup.empty.runs },
    ]);
    console.log(`start-up with ${SCHEMAS} schemas / empty: ${answerRatio}×`);
    printJson('schema-registry', { schemas: SCHEMAS, subjects: SUBJECTS, clients: CLIENTS, registrations: { ...reg, cpuMsPerRegistration }, fdatasyncPerSec: fsyncPeer, registrationRatio: regRatio, lookups: kafkite, bareLookups: bare, lookupRatio, lookupRatios: looked.ratios, startup, startupRatio: answerRatio });
  } finally {
    // Both are stopped already unless a step failed.
    await broker.stop();
    await empty.stop();
    broker.cleanup();
    empty.cleanup();
  }
}

await main();
