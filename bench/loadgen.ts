// kafkite's own load generator on the project's codecs: pipelined producers and consumers.
//
//   npx tsc -p . && node dist/bench/loadgen.js produce --bootstrap 127.0.0.1:9092 --topic t \
//     --connections 8 --in-flight 4 --record-bytes 100 --batch-records 160 --partitions 8 --acks 1 --seconds 5
//   node dist/bench/loadgen.js consume --bootstrap 127.0.0.1:9092 --topic t --partitions 8
//   node dist/bench/loadgen.js latency --bootstrap 127.0.0.1:9092 --topic t --rate 10000 --seconds 10
//   (without --bootstrap, each mode starts its own broker in a temp dir)
//
// Producers keep `in-flight` Produce requests outstanding per connection, each one batch of
// `batch-records` records of `record-bytes` bytes for the next partition in turn; the batches are
// encoded once, so the client's CPU goes to the socket, not to encoding. Consumers keep one Fetch
// per partition outstanding and stop when every partition is read up to its high watermark.
// MB = 10^6 bytes of record values.
import { parseArgs } from 'node:util';
import { ApiKey } from '../protocol/generated/index.js';
import { LAST_OFFSET_DELTA, RECORDS_COUNT, BATCH_LENGTH, LOG_OVERHEAD } from '../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { readInt64 } from '../protocol/primitives.js';
import { BenchBroker } from './lib/broker-process.js';
import { BenchConnection } from './lib/wire.js';
import { isMain, percentile, printJson, printTable, round, seconds } from './lib/stats.js';

const PRODUCE_VERSION = 8;
const FETCH_VERSION = 11;
const CREATE_TOPICS_VERSION = 4;

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
}

export interface LoadResult {
  records: number;
  /** Record value bytes. */
  bytes: number;
  seconds: number;
  recordsPerSec: number;
  mbPerSec: number;
  /** Per-request round trip (produce) or per-record end-to-end latency (latency mode). */
  latency: LatencySummary;
}

export interface ProduceOptions {
  bootstrap: string;
  topic: string;
  connections: number;
  inFlight: number;
  recordBytes: number;
  batchRecords: number;
  partitions: number;
  acks: number;
  seconds: number;
}

export interface ConsumeOptions {
  bootstrap: string;
  topic: string;
  partitions: number;
  partitionMaxBytes: number;
  recordBytes?: number;
  /** 1 = read_committed: reads stop at the last stable offset. */
  isolationLevel?: number;
}

export interface LatencyOptions {
  bootstrap: string;
  topic: string;
  rate: number;
  recordBytes: number;
  seconds: number;
  acks: number;
}

export class LoadError extends Error {
  override name = 'LoadError';
}

function summarize(latenciesUs: Float64Array | number[]): LatencySummary {
  const sorted = Float64Array.from(latenciesUs).sort();
  const ms = (p: number) => round(percentile(sorted, p) / 1000, 3);
  return { p50Ms: ms(0.5), p99Ms: ms(0.99), p999Ms: ms(0.999), maxMs: ms(1) };
}

function result(records: number, bytes: number, elapsed: number, latenciesUs: number[]): LoadResult {
  return {
    records,
    bytes,
    seconds: round(elapsed, 3),
    recordsPerSec: Math.round(records / elapsed),
    mbPerSec: round(bytes / elapsed / 1e6, 1),
    latency: summarize(latenciesUs),
  };
}

/** Creates `topic` with `partitions` partitions and topic configs; an existing topic is an error. */
export async function createTopic(bootstrap: string, topic: string, partitions: number, configs: Record<string, string> = {}): Promise<void> {
  const connection = await BenchConnection.open(bootstrap);
  try {
    const { response } = await connection.send(ApiKey.CreateTopics, CREATE_TOPICS_VERSION, {
      topics: [{
        name: topic,
        numPartitions: partitions,
        replicationFactor: 1,
        assignments: [],
        configs: Object.entries(configs).map(([name, value]) => ({ name, value })),
      }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    const created = response.topics[0];
    if (created.errorCode !== 0) throw new LoadError(`CreateTopics ${topic}: error ${created.errorCode} ${created.errorMessage ?? ''}`);
  } finally {
    connection.close();
  }
}

function produceBody(topic: string, partition: number, batch: Buffer, acks: number): Buffer {
  return BenchConnection.encodeBody(ApiKey.Produce, PRODUCE_VERSION, {
    transactionalId: null,
    acks,
    timeoutMs: 30_000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }],
  });
}

function makeBatch(recordBytes: number, count: number, timestamp: number): Buffer {
  const records: KafkaRecord[] = [];
  for (let i = 0; i < count; i++) {
    records.push({ offset: i, timestamp, key: null, value: Buffer.alloc(recordBytes, 0x61 + (i % 26)), headers: [] });
  }
  return encodeBatch({ baseOffset: 0, records });
}

function checkProduced(response: any): void {
  for (const topic of response.responses) {
    for (const p of topic.partitionResponses) {
      if (p.errorCode !== 0) throw new LoadError(`Produce to ${topic.name}-${p.index}: error ${p.errorCode} ${p.errorMessage ?? ''}`);
    }
  }
}

/** N connections × K Produce requests in flight for `seconds`; throughput counts acknowledged records. */
export async function produceLoad(opts: ProduceOptions): Promise<LoadResult> {
  const batch = makeBatch(opts.recordBytes, opts.batchRecords, Date.now());
  const bodies = Array.from({ length: opts.partitions }, (_, p) => produceBody(opts.topic, p, batch, opts.acks));
  const header = BenchConnection.preparedHeader(ApiKey.Produce, PRODUCE_VERSION, bodies[0]!.length);
  const connections = await Promise.all(Array.from({ length: opts.connections }, () => BenchConnection.open(opts.bootstrap)));
  const latencies: number[] = [];
  let requests = 0;
  let lastAck = process.hrtime.bigint();
  const start = process.hrtime.bigint();
  const deadline = Date.now() + opts.seconds * 1000;
  // Each slot sends, awaits the answer and sends again: K slots per connection keep K requests in flight.
  const slot = async (connection: BenchConnection, first: number): Promise<void> => {
    for (let i = first; Date.now() < deadline; i += opts.inFlight) {
      const reply = await connection.sendPrepared(header, bodies[i % opts.partitions]!, ApiKey.Produce, PRODUCE_VERSION);
      checkProduced(reply.response);
      latencies.push(reply.latencyUs);
      requests++;
      lastAck = process.hrtime.bigint();
    }
  };
  try {
    await Promise.all(connections.flatMap((c, n) => Array.from({ length: opts.inFlight }, (_, k) => slot(c, n + k))));
  } finally {
    for (const c of connections) c.close();
  }
  const elapsed = Number(lastAck - start) / 1e9;
  const records = requests * opts.batchRecords;
  return result(records, records * opts.recordBytes, elapsed, latencies);
}

export interface PartitionProgress {
  partition: number;
  offset: number;
  done: boolean;
}

/** Counts the complete batches in a Fetch response's records; returns the next fetch offset. */
export function countBatches(records: Buffer, fetchOffset: number): { records: number; nextOffset: number } {
  let count = 0;
  let next = fetchOffset;
  let pos = 0;
  while (pos + LOG_OVERHEAD + RECORDS_COUNT + 4 <= records.length) {
    const size = LOG_OVERHEAD + records.readInt32BE(pos + BATCH_LENGTH);
    if (pos + size > records.length) break;
    const base = readInt64(records, pos);
    const last = base + records.readInt32BE(pos + LAST_OFFSET_DELTA);
    if (last >= next) {
      count += records.readInt32BE(pos + RECORDS_COUNT);
      next = last + 1;
    }
    pos += size;
  }
  return { records: count, nextOffset: next };
}

export function fetchRequest(topic: string, progress: PartitionProgress, partitionMaxBytes: number, maxWaitMs: number, isolationLevel = 0): object {
  return {
    clusterId: null,
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1 },
    maxWaitMs,
    minBytes: 1,
    maxBytes: 52_428_800,
    isolationLevel,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{
      topic,
      topicId: '00000000-0000-0000-0000-000000000000',
      partitions: [{
        partition: progress.partition,
        currentLeaderEpoch: -1,
        fetchOffset: progress.offset,
        lastFetchedEpoch: -1,
        logStartOffset: -1,
        partitionMaxBytes,
        replicaDirectoryId: '00000000-0000-0000-0000-000000000000',
      }],
    }],
    forgottenTopicsData: [],
    rackId: '',
  };
}

/** One Fetch in flight per partition (one connection per partition) from offset 0 up to the high watermark. */
export async function consumeLoad(opts: ConsumeOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let records = 0;
  const start = process.hrtime.bigint();
  const consumePartition = async (partition: number): Promise<void> => {
    const connection = await BenchConnection.open(opts.bootstrap);
    const progress: PartitionProgress = { partition, offset: 0, done: false };
    try {
      while (!progress.done) {
        const reply = await connection.send(ApiKey.Fetch, FETCH_VERSION, fetchRequest(opts.topic, progress, opts.partitionMaxBytes, 0, opts.isolationLevel ?? 0));
        latencies.push(reply.latencyUs);
        const data = reply.response.responses[0].partitions[0];
        if (data.errorCode !== 0) throw new LoadError(`Fetch ${opts.topic}-${partition}: error ${data.errorCode}`);
        const fetched = countBatches(data.records ?? Buffer.alloc(0), progress.offset);
        records += fetched.records;
        progress.offset = fetched.nextOffset;
        progress.done = progress.offset >= (opts.isolationLevel === 1 ? data.lastStableOffset : data.highWatermark);
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: opts.partitions }, (_, p) => consumePartition(p)));
  const recordBytes = opts.recordBytes ?? 0;
  return result(records, records * recordBytes, seconds(start), latencies);
}

/**
 * End-to-end latency at a fixed rate: every millisecond a batch of the records due is produced,
 * each value starting with its send time (hrtime ns); a long-polling consumer records now − stamp.
 * The first second is a warm-up (JIT, page faults) and not counted.
 */
export async function latencyLoad(opts: LatencyOptions): Promise<LoadResult> {
  const producer = await BenchConnection.open(opts.bootstrap);
  const consumer = await BenchConnection.open(opts.bootstrap);
  const latencies: number[] = [];
  const warmup = opts.rate;
  const total = Math.round(opts.rate * opts.seconds) + warmup;
  let sent = 0;
  let received = 0;
  const progress: PartitionProgress = { partition: 0, offset: 0, done: false };
  const consuming = (async () => {
    while (received < total) {
      const reply = await consumer.send(ApiKey.Fetch, FETCH_VERSION, fetchRequest(opts.topic, progress, 1_048_576, 500));
      const data = reply.response.responses[0].partitions[0];
      if (data.errorCode !== 0) throw new LoadError(`Fetch: error ${data.errorCode}`);
      const now = process.hrtime.bigint();
      const buf: Buffer = data.records ?? Buffer.alloc(0);
      let pos = 0;
      while (pos + LOG_OVERHEAD <= buf.length) {
        const size = LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH);
        if (pos + size > buf.length) break;
        for (const record of decodeBatch(buf.subarray(pos, pos + size)).records) {
          if (record.offset < progress.offset) continue;
          if (++received > warmup) latencies.push(Number(now - record.value!.readBigInt64BE(0)) / 1e3);
          progress.offset = record.offset + 1;
        }
        pos += size;
      }
    }
  })();
  const start = process.hrtime.bigint();
  const producing = (async () => {
    while (sent < total) {
      const due = Math.min(total, Math.floor(seconds(start) * opts.rate)) - sent;
      if (due > 0) {
        const stamp = process.hrtime.bigint();
        const batchRecords: KafkaRecord[] = [];
        for (let i = 0; i < due; i++) {
          const value = Buffer.alloc(opts.recordBytes);
          value.writeBigInt64BE(stamp, 0);
          batchRecords.push({ offset: i, timestamp: Date.now(), key: null, value, headers: [] });
        }
        sent += due;
        const reply = producer.send(ApiKey.Produce, PRODUCE_VERSION, {
          transactionalId: null,
          acks: opts.acks,
          timeoutMs: 30_000,
          topicData: [{ name: opts.topic, partitionData: [{ index: 0, records: encodeBatch({ baseOffset: 0, records: batchRecords }) }] }],
        });
        reply.then((r) => checkProduced(r.response), () => undefined);
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  })();
  try {
    await Promise.all([producing, consuming]);
  } finally {
    producer.close();
    consumer.close();
  }
  return result(received - warmup, (received - warmup) * opts.recordBytes, seconds(start) - 1, latencies);
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      bootstrap: { type: 'string' },
      topic: { type: 'string', default: 'loadgen' },
      connections: { type: 'string', default: '8' },
      'in-flight': { type: 'string', default: '4' },
      'record-bytes': { type: 'string', default: '100' },
      'batch-records': { type: 'string', default: '160' },
      partitions: { type: 'string', default: '8' },
      acks: { type: 'string', default: '1' },
      seconds: { type: 'string', default: '5' },
      rate: { type: 'string', default: '10000' },
      'partition-max-bytes': { type: 'string', default: '1048576' },
    },
  });
  const mode = positionals[0] ?? 'produce';
  const broker = values.bootstrap ? null : await BenchBroker.start();
  const bootstrap = values.bootstrap ?? broker!.bootstrap;
  const partitions = mode === 'latency' ? 1 : Number(values.partitions);
  const recordBytes = Number(values['record-bytes']);
  try {
    const rows: Array<Record<string, unknown>> = [];
    const report = (name: string, r: LoadResult) => {
      rows.push({ mode: name, records: r.records, seconds: r.seconds, 'records/s': r.recordsPerSec, 'MB/s': r.mbPerSec, ...r.latency });
      return r;
    };
    let produce: LoadResult | undefined;
    let consume: LoadResult | undefined;
    let latency: LoadResult | undefined;
    if (broker) await createTopic(bootstrap, values.topic, partitions);
    if (mode === 'produce' || (broker && mode === 'consume')) {
      produce = report('produce', await produceLoad({
        bootstrap, topic: values.topic, partitions, recordBytes,
        connections: Number(values.connections), inFlight: Number(values['in-flight']),
        batchRecords: Number(values['batch-records']), acks: Number(values.acks), seconds: Number(values.seconds),
      }));
    }
    if (mode === 'consume') {
      consume = report('consume', await consumeLoad({ bootstrap, topic: values.topic, partitions, partitionMaxBytes: Number(values['partition-max-bytes']), recordBytes }));
    }
    if (mode === 'latency') {
      latency = report('latency', await latencyLoad({ bootstrap, topic: values.topic, rate: Number(values.rate), recordBytes, seconds: Number(values.seconds), acks: Number(values.acks) }));
    }
    printTable(`loadgen ${mode} (${partitions} partitions, ${recordBytes} B records; latency columns in ms)`, rows);
    printJson('loadgen', { mode, options: values, produce, consume, latency });
  } finally {
    if (broker) {
      await broker.stop();
      broker.cleanup();
    }
  }
}

if (isMain(import.meta.url)) await main();
