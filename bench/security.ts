// Security costs, each against PLAINTEXT in the same run on the same broker:
//  1. kcat (librdkafka) produce and consume throughput, 100 B and 1 KB records, over SASL_SSL (SCRAM-SHA-512,
//     TLS 1.3) as a fraction of PLAINTEXT (target >= 0.5x). kcat's start-up (connect, TLS, SASL, metadata)
//     is timed with a one-record run and subtracted, as in kcat-throughput. The volumes (100 MB and 300 MB)
//     keep each run well above that start-up's noise: with 30 MB, a PLAINTEXT consume took about as long as
//     the start-up it subtracts, and one run printed 300,000,000 records/s. Each produce starts on memory
//     just freed (bench/lib/guest-memory.ts): a PLAINTEXT 1 KB produce measured 208,474 records/s without,
//     against 456,762 in another run.
//  2. New SCRAM-SHA-512 connections per second, each a full exchange (TCP connect, SaslHandshake, two
//     SaslAuthenticate, one Metadata), on SASL_PLAINTEXT and on SASL_SSL (TLS handshake too), with the
//     broker's event-loop p99 delay during the storm (prom-client's monitorEventLoopDelay, reset at the start
//     of the storm) (target >= 100/s and p99 < 20 ms). The client caches the salted password per salt
//     (PBKDF2 is the client's cost, not the broker's: the broker stores StoredKey/ServerKey).
//
//   npx tsc -p . && node dist/bench/security.js
//   BENCH_SEC_RECORDS_100=2000000 BENCH_SEC_RECORDS_1K=600000 BENCH_SEC_CONNECTIONS=2000 node dist/bench/security.js
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { makeTestCertificates } from './lib/certs.js';
import { recycleGuestMemory } from './lib/guest-memory.js';
import { spawnKafkite } from './lib/kafkite-process.js';
import { saslAuthenticate, upsertScramUser } from './lib/scram-client.js';
import { KCAT_CONSUME_TO_END, timeKcat, writeInput } from './lib/kcat.js';
import { median, printJson, printTable, round, seconds } from './lib/stats.js';
import { WireClient } from './lib/wire-client.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CASES = [
  { recordBytes: 100, records: Number(process.env.BENCH_SEC_RECORDS_100 ?? 1_000_000) },
  { recordBytes: 1024, records: Number(process.env.BENCH_SEC_RECORDS_1K ?? 300_000) },
];
const CONNECTIONS = Number(process.env.BENCH_SEC_CONNECTIONS ?? 600);
const CONCURRENCY = Number(process.env.BENCH_SEC_CONCURRENCY ?? 16);
const PRODUCER_SETTINGS = ['acks=1', 'linger.ms=5', 'batch.num.messages=10000', 'queue.buffering.max.messages=1000000'];
/** prom-client samples the event loop every 10 ms and reports the sampling interval within each delay. */
const SAMPLING_MS = 10;
const METADATA = { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false };

async function main(): Promise<void> {
  const certs = makeTestCertificates();
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkite-bench-sec-'));
  const broker = await spawnKafkite({
    dataDir,
    overrides: [
      'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
      'ssl.keystore.type=PKCS12',
      `ssl.keystore.location=${certs.serverP12}`,
      'ssl.keystore.password=password',
      'sasl.enabled.mechanisms=SCRAM-SHA-512',
    ],
  });
  const started = broker.logs.find((l) => l.msg === 'kafkite started') ?? {};
  const ports: Record<string, number> = {};
  for (const l of (started.listeners as string[] | undefined) ?? []) ports[l.slice(0, l.indexOf(':'))] = Number(l.slice(l.lastIndexOf(':') + 1));
  const adminAddress = String(broker.logs.find((l) => l.msg === 'admin http started')?.address);
  const admin = await WireClient.connect(broker.port);
  await upsertScramUser(admin, 'SCRAM-SHA-512', 'bench', 'bench-secret');
  admin.close();

  const security: Record<string, string[]> = {
    PLAINTEXT: [],
    SASL_SSL: ['security.protocol=sasl_ssl', `ssl.ca.location=${certs.caPem}`, 'sasl.mechanisms=SCRAM-SHA-512', 'sasl.username=bench', 'sasl.password=bench-secret'],
  };
  const kcatArgs = (listener: string) => ['-b', `127.0.0.1:${ports[listener]}`, ...security[listener]!.flatMap((s) => ['-X', s])];
  const dir = mkdtempSync(join(tmpdir(), 'kafkite-bench-sec-input-'));
  const throughput: any[] = [];
  try {
    for (const { recordBytes, records } of CASES) {
      const input = writeInput(dir, recordBytes, records);
      const one = writeInput(dir, recordBytes, 1);
      const row: any = { recordBytes, records };
      for (const listener of ['PLAINTEXT', 'SASL_SSL']) {
        const runs = { startupP: [] as number[], startupC: [] as number[], produce: [] as number[], consume: [] as number[] };
        for (let i = 0; i < RUNS; i++) {
          const warm = `sec-startup-${listener}-${recordBytes}-${i}`;
          runs.startupP.push(await timeKcat([...kcatArgs(listener), '-P', '-t', warm, ...PRODUCER_SETTINGS.flatMap((s) => ['-X', s])], one));
          runs.startupC.push(await timeKcat([...kcatArgs(listener), '-C', '-t', warm, ...KCAT_CONSUME_TO_END], null));
        }
        for (let i = 0; i < RUNS; i++) {
          const topic = `sec-${listener}-${recordBytes}-${i}`;
          recycleGuestMemory(dir, Math.ceil(records * recordBytes * 1.25));
          runs.produce.push(await timeKcat([...kcatArgs(listener), '-P', '-t', topic, ...PRODUCER_SETTINGS.flatMap((s) => ['-X', s])], input) - median(runs.startupP));
          runs.consume.push(await timeKcat([...kcatArgs(listener), '-C', '-t', topic, ...KCAT_CONSUME_TO_END], null) - median(runs.startupC));
        }
        row[listener] = {
          produceRecordsPerSec: Math.round(records / Math.max(1e-3, median(runs.produce))),
          consumeRecordsPerSec: Math.round(records / Math.max(1e-3, median(runs.consume))),
        };
      }
      row.produceRatio = round(row.SASL_SSL.produceRecordsPerSec / row.PLAINTEXT.produceRecordsPerSec, 2);
      row.consumeRatio = round(row.SASL_SSL.consumeRecordsPerSec / row.PLAINTEXT.consumeRecordsPerSec, 2);
      throughput.push(row);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const storms: any[] = [];
  const cache = new Map<string, Buffer>();
  const metricsClient = (): Promise<number> => eventLoopP99(adminAddress);
  for (const listener of ['SASL_PLAINTEXT', 'SASL_SSL']) {
    const connect = async (): Promise<WireClient> => {
      if (listener === 'SASL_PLAINTEXT') return WireClient.connect(ports[listener]!);
      return new Promise((resolve, reject) => {
        const socket = tlsConnect({ port: ports[listener]!, host: '127.0.0.1', ca: readFileSync(certs.caPem), servername: 'localhost' }, () => resolve(WireClient.over(socket)));
        socket.once('error', reject);
      });
    };
    // The peer: the same broker idle for as long as a storm of this size took before (about 3 s).
    await metricsClient(); // resets the broker's event-loop delay histogram
    await new Promise((r) => setTimeout(r, 3000));
    const idleP99 = await metricsClient();
    let done = 0;
    const cpu0 = brokerCpuSeconds(broker.child.pid!);
    const t0 = process.hrtime.bigint();
    const worker = async () => {
      while (done < CONNECTIONS) {
        done++;
        const c = await connect();
        await saslAuthenticate(c, 'SCRAM-SHA-512', 'bench', 'bench-secret', { cache });
        await c.send(3, 12, METADATA);
        c.close();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const elapsed = seconds(t0);
    const cpuMsPerConnection = ((brokerCpuSeconds(broker.child.pid!) - cpu0) * 1000) / done;
    const p99 = await metricsClient();
    storms.push({
      listener, connections: done, seconds: round(elapsed, 2), connectionsPerSec: Math.round(done / elapsed),
      brokerEventLoopP99Ms: round(p99 * 1000 - SAMPLING_MS, 1), idleEventLoopP99Ms: round(idleP99 * 1000 - SAMPLING_MS, 1),
      brokerCpuMsPerConnection: round(cpuMsPerConnection, 2),
    });
  }

  broker.child.kill('SIGTERM');
  await broker.exited;
  rmSync(dataDir, { recursive: true, force: true });
  certs.cleanup();

  printTable(`kcat throughput, SASL_SSL (SCRAM-SHA-512, TLS) vs PLAINTEXT on one broker, median of ${RUNS}; start-up subtracted`, throughput.flatMap((r) => [
    { case: `produce ${r.recordBytes} B`, 'PLAINTEXT rec/s': r.PLAINTEXT.produceRecordsPerSec, 'SASL_SSL rec/s': r.SASL_SSL.produceRecordsPerSec, 'ratio (target >= 0.5)': r.produceRatio },
    { case: `consume ${r.recordBytes} B`, 'PLAINTEXT rec/s': r.PLAINTEXT.consumeRecordsPerSec, 'SASL_SSL rec/s': r.SASL_SSL.consumeRecordsPerSec, 'ratio (target >= 0.5)': r.consumeRatio },
  ]));
  printTable(`new SCRAM-SHA-512 connections (${CONCURRENCY} at a time, each: connect, handshake, 2 x authenticate, Metadata)`, storms.map((s) => ({
    listener: s.listener, connections: s.connections, 's': s.seconds, 'conn/s (target >= 100)': s.connectionsPerSec,
    'event-loop p99 ms, storm (target < 20)': s.brokerEventLoopP99Ms, 'idle p99 ms (same run)': s.idleEventLoopP99Ms,
    'broker CPU ms/conn': s.brokerCpuMsPerConnection,
  })));
  printJson('security', { runs: RUNS, concurrency: CONCURRENCY, throughput, storms });
}

/** User + system CPU seconds of a process (/proc/<pid>/stat fields 14 and 15, at 100 ticks/s). */
function brokerCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The broker's event-loop delay p99 (seconds) since the previous call: prom-client resets it on each scrape. */
async function eventLoopP99(adminAddress: string): Promise<number> {
  const text = await (await fetch(`${adminAddress}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('kafkite_nodejs_eventloop_lag_p99_seconds'));
  return line ? Number(line.split(' ').pop()) : NaN;
}

await main();
