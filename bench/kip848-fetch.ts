// Consume throughput of one client on both group protocols (issue 14 target 6): @platformatic/kafka
// with groupProtocol 'classic' (JoinGroup/SyncGroup) and 'consumer' (KIP-848 ConsumerGroupHeartbeat),
// reading the same 4 partitions of 1 KB records from the same broker, alternating, a fresh group each
// trial. Next to MB/s it prints how the broker saw the trial's fetches, from its Kafka-like request
// metrics (/metrics): remote (parked until min bytes or max wait), local (lookups, slices, encoding),
// response queue (behind an earlier response), send (socket write / sendfile), total; averaged per fetch.
// Target: consumer protocol >= 0.9x classic, the ratio taken within each round.
// This client fetches every assigned partition each time on both protocols. Apache Kafka's Java
// AsyncKafkaConsumer before KAFKA-17182 (Kafka 4.0) leaves out partitions it still has buffered: once the
// partitions it does send are at their log end, the fetch is parked max.wait.ms (as Kafka's
// DelayedFetch parks it) and the buffered partitions' next fetch queues behind it; kafkite_request_
// remote_time_seconds{api="Fetch"} shows that time.
//
//   npx tsc -p . && node dist/bench/kip848-fetch.js
//   BENCH_KIP848_MB=400 BENCH_RUNS=5 node dist/bench/kip848-fetch.js
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Consumer } from '@platformatic/kafka';
import { pino } from 'pino';
import { encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { DEFAULT_LOG_CONFIG } from '../storage/log-config.js';
import { UnifiedLog } from '../storage/unified-log.js';
import { BenchBroker } from './lib/broker-process.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { createTopic } from './loadgen.js';
import { freePort } from './lib/free-port.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET_MB = Number(process.env.BENCH_KIP848_MB ?? 200);
const PARTITIONS = 4;
const RECORD_BYTES = 1024;
const BATCH_RECORDS = 32;
const TOPIC = 'kip848-fetch';
const PROTOCOLS = ['classic', 'consumer'] as const;
type GroupProtocol = (typeof PROTOCOLS)[number];
/** The request phases the broker exposes, as `kafkite_<name>_seconds{api="Fetch"}`. */
const PHASES = ['request_remote_time', 'request_local_time', 'response_queue_time', 'response_send_time', 'request_total_time'] as const;

/** Appends 1 KB records to every partition's log while the broker is stopped; returns the value bytes. */
async function fillPartitions(dataDir: string): Promise<{ bytes: number; records: number }> {
  const logger = pino({ level: 'silent' });
  const perPartition = (TARGET_MB * 1e6) / PARTITIONS;
  const records: KafkaRecord[] = [];
  for (let i = 0; i < BATCH_RECORDS; i++) records.push({ offset: i, timestamp: Date.now(), key: null, value: Buffer.alloc(RECORD_BYTES, 0x61 + (i % 26)), headers: [] });
  const batch = encodeBatch({ baseOffset: 0, records });
  let bytes = 0;
  let count = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    const dir = join(dataDir, `${TOPIC}-${p}`);
    const topicId = /topic_id: (\S+)/.exec(readFileSync(join(dir, 'partition.metadata'), 'utf8'))![1];
    const log = UnifiedLog.load({ dir, topic: TOPIC, partition: p, topicId, config: DEFAULT_LOG_CONFIG, logger, recoveryPoint: 0, logStartOffset: 0, hadCleanShutdown: true });
    for (let written = 0; written < perPartition; written += BATCH_RECORDS * RECORD_BYTES) {
      log.appendAsLeader(Buffer.from(batch), Date.now());
      bytes += BATCH_RECORDS * RECORD_BYTES;
      count += BATCH_RECORDS;
    }
    await log.close();
  }
  return { bytes, records: count };
}

/** The Fetch series of the broker's request metrics: per phase, the sum of seconds and the count. */
async function fetchPhases(admin: string): Promise<{ sums: Record<string, number>; count: number; bytesOut: number }> {
  const text = await (await fetch(`${admin}/metrics`)).text();
  const sums: Record<string, number> = {};
  let count = 0;
  let bytesOut = 0;
  for (const line of text.split('\n')) {
    for (const phase of PHASES) {
      if (line.startsWith(`kafkite_${phase}_seconds_sum{api="Fetch"}`)) sums[phase] = Number(line.slice(line.lastIndexOf(' ') + 1));
      if (phase === 'request_total_time' && line.startsWith(`kafkite_${phase}_seconds_count{api="Fetch"}`)) count = Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    if (line.startsWith(`kafkite_topic_bytes_out_total{topic="${TOPIC}"`)) bytesOut += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return { sums, count, bytesOut };
}

interface Trial {
  mbPerSec: number;
  fetches: number;
  /** Record bytes per fetch response, MB. */
  mbPerFetch: number;
  /** Milliseconds per fetch, per phase. */
  phases: Record<string, number>;
}

/** One consumer in a fresh group reads every record from the earliest offset; timed from its first record. */
async function trial(bootstrap: string, admin: string, protocol: GroupProtocol, expectedRecords: number, run: number): Promise<Trial> {
  const consumer = new Consumer({
    clientId: `kip848-${protocol}`,
    bootstrapBrokers: [bootstrap],
    groupId: `kip848-${protocol}-${run}`,
    groupProtocol: protocol,
    // The Java consumer's defaults: fetch.max.wait.ms 500, fetch.max.bytes 50 MB, max.partition.fetch.bytes 1 MB.
    maxWaitTime: 500,
    maxBytes: 50 * 1024 * 1024,
    maxBytesPerPartition: 1024 * 1024,
    isolationLevel: 0,
  });
  const before = await fetchPhases(admin);
  let received = 0;
  let bytes = 0;
  let first = 0n;
  let last = 0n;
  const stream = await consumer.consume({ topics: [TOPIC], mode: 'earliest', autocommit: false });
  try {
    await new Promise<void>((resolve, reject) => {
      stream.on('error', reject);
      stream.on('data', (message) => {
        if (received === 0) first = process.hrtime.bigint();
        received++;
        bytes += (message.value as Buffer).length;
        if (received === expectedRecords) {
          last = process.hrtime.bigint();
          resolve();
        }
      });
    });
  } finally {
    await stream.close().catch(() => undefined);
    await new Promise<void>((resolve) => consumer.close(true, () => resolve()));
  }
  const after = await fetchPhases(admin);
  const fetches = after.count - before.count;
  const phases: Record<string, number> = {};
  for (const phase of PHASES) phases[phase] = round((((after.sums[phase] ?? 0) - (before.sums[phase] ?? 0)) * 1000) / Math.max(fetches, 1), 2);
  return {
    mbPerSec: round(bytes / (Number(last - first) / 1e9) / 1e6, 1),
    fetches,
    mbPerFetch: round((after.bytesOut - before.bytesOut) / Math.max(fetches, 1) / 1e6, 2),
    phases,
  };
}

async function main(): Promise<void> {
  const adminPort = await freePort();
  const admin = `http://127.0.0.1:${adminPort}`;
  const overrides = [`admin.listener=${admin}`];
  let broker = await BenchBroker.start({ overrides });
  await createTopic(broker.bootstrap, TOPIC, PARTITIONS);
  const dataDir = broker.dataDir;
  await broker.stop();
  const filled = await fillPartitions(dataDir);
  broker = await BenchBroker.start({ dataDir, overrides });
  try {
    const results: Record<GroupProtocol, Trial[]> = { classic: [], consumer: [] };
    const ratios: number[] = [];
    await trial(broker.bootstrap, admin, 'classic', filled.records, -1); // warm-up: page cache and JIT
    for (let run = 0; run < RUNS; run++) {
      // Alternating order, the ratio taken within each round, so drift on a shared machine cancels out.
      const order = run % 2 === 0 ? PROTOCOLS : ([...PROTOCOLS].reverse() as GroupProtocol[]);
      for (const protocol of order) results[protocol].push(await trial(broker.bootstrap, admin, protocol, filled.records, run));
      ratios.push(round(results.consumer[run]!.mbPerSec / results.classic[run]!.mbPerSec, 2));
    }
    const medianOf = (protocol: GroupProtocol, pick: (t: Trial) => number) => median(results[protocol].map(pick));
    const row = (protocol: GroupProtocol) => ({
      protocol,
      mbPerSec: medianOf(protocol, (t) => t.mbPerSec),
      fetches: medianOf(protocol, (t) => t.fetches),
      mbPerFetch: medianOf(protocol, (t) => t.mbPerFetch),
      ...Object.fromEntries(PHASES.map((phase) => [`${phase.replace(/^(request|response)_|_time$/g, '')}Ms`, medianOf(protocol, (t) => t.phases[phase]!)])),
      runs: results[protocol].map((t) => t.mbPerSec).join(' '),
    });
    const ratio = median(ratios);
    printTable(
      `@platformatic/kafka consumer, group.protocol classic vs consumer (KIP-848), ${PARTITIONS} partitions, ${round(filled.bytes / 1e6)} MB of 1 KB records; ` +
        `broker-side ms per fetch (remote = parked, local = read + encode, queue = behind earlier responses, send, total); median of ${RUNS}`,
      [row('classic'), row('consumer'), { protocol: 'ratio (per run)', mbPerSec: ratio, runs: `${ratios.join(' ')}  target >= 0.9` }],
    );
    const medianPhases = (protocol: GroupProtocol) => Object.fromEntries(PHASES.map((phase) => [phase, medianOf(protocol, (t) => t.phases[phase]!)]));
    printJson('kip848-fetch', {
      classicMbPerSec: medianOf('classic', (t) => t.mbPerSec),
      consumerMbPerSec: medianOf('consumer', (t) => t.mbPerSec),
      ratio,
      classicPhasesMs: medianPhases('classic'),
      consumerPhasesMs: medianPhases('consumer'),
      classic: results.classic,
      consumer: results.consumer,
      runs: RUNS,
      mb: round(filled.bytes / 1e6),
    });
  } finally {
    await broker.stop();
    broker.cleanup();
  }
}

await main();
