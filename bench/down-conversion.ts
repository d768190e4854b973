// The cost of serving consumers older than Kafka 0.11 (issue 13): the same data read by a v2 consumer
// (Fetch v11: record batches sent from the file) and by a v1 consumer (Fetch v3: each batch decoded
// and rewritten as message format v1 in memory, then copied), in the same run, against one broker.
// Figures: MB/s of record values and broker CPU-seconds per GB (from /proc/<pid>/stat, all threads).
//
//   npx tsc -p . && node dist/bench/down-conversion.js
//   BENCH_DOWNCONVERSION_MB=500 BENCH_RUNS=5 node dist/bench/down-conversion.js
//
// Two topics of 4 partitions, 1 KB records in batches of 16: one uncompressed, one lz4 (the v1
// consumer then gets one lz4 wrapper per batch, so the broker decompresses and recompresses).
import { randomBytes } from 'node:crypto';
import { ApiKey } from '../protocol/generated/index.js';
import { BATCH_LENGTH, CompressionType, LOG_OVERHEAD, batchesIn } from '../protocol/records/batch-header.js';
import { encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { BenchBroker } from './lib/broker-process.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { BenchConnection } from './lib/wire.js';
import { createTopic } from './loadgen.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET_MB = Number(process.env.BENCH_DOWNCONVERSION_MB ?? 150);
const PARTITIONS = 4;
const RECORD_BYTES = 1024;
const BATCH_RECORDS = 16;
const PARTITION_MAX_BYTES = 1 << 20;
const V2_FETCH = 11;
const V1_FETCH = 3;

async function fill(bootstrap: string, topic: string, compression: CompressionType): Promise<number> {
  await createTopic(bootstrap, topic, PARTITIONS);
  const connection = await BenchConnection.open(bootstrap);
  // Half-compressible values: 512 random hex characters, twice.
  const value = (): Buffer => Buffer.from(randomBytes(RECORD_BYTES / 4).toString('hex').repeat(2));
  let records = 0;
  try {
    while (records * RECORD_BYTES < TARGET_MB * 1e6) {
      const batch: KafkaRecord[] = Array.from({ length: BATCH_RECORDS }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: value(), headers: [] }));
      const partitionData = Array.from({ length: PARTITIONS }, (_, index) => ({ index, records: encodeBatch({ baseOffset: 0, records: batch, compression }) }));
      const reply = await connection.send(ApiKey.Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData }] });
      for (const p of reply.response.responses[0].partitionResponses) if (p.errorCode !== 0) throw new Error(`produce: error ${p.errorCode}`);
      records += BATCH_RECORDS * PARTITIONS;
    }
  } finally {
    connection.close();
  }
  return records;
}

/** The offset after the last complete entry of a v2 response (batches) or of a v0/v1 message set. */
function nextOffset(buf: Buffer, from: number, v2: boolean): { next: number; records: number } {
  let next = from;
  let records = 0;
  if (v2) {
    for (const b of batchesIn(buf)) {
      records += b.lastOffset + 1 - Math.max(b.baseOffset, next);
      next = b.lastOffset + 1;
    }
    return { next, records };
  }
  // A v1 entry's offset is its last message's (the wrapper's is the last inner offset).
  for (let pos = 0; pos + LOG_OVERHEAD <= buf.length;) {
    const size = buf.readInt32BE(pos + BATCH_LENGTH) + LOG_OVERHEAD;
    if (pos + size > buf.length) break;
    const last = Number(buf.readBigInt64BE(pos));
    records += last + 1 - next;
    next = last + 1;
    pos += size;
  }
  return { next, records };
}

async function consumeAll(bootstrap: string, topic: string, version: number, highWatermark: number): Promise<{ records: number; seconds: number }> {
  const start = process.hrtime.bigint();
  let total = 0;
  await Promise.all(Array.from({ length: PARTITIONS }, async (_, partition) => {
    const connection = await BenchConnection.open(bootstrap);
    try {
      for (let offset = 0; offset < highWatermark;) {
        const reply = await connection.send(ApiKey.Fetch, version, {
          clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 1, maxBytes: 52_428_800,
          isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
          topics: [{ topic, topicId: '', partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: PARTITION_MAX_BYTES, replicaDirectoryId: '' }] }],
        });
        const data = reply.response.responses[0].partitions[0];
        if (data.errorCode !== 0) throw new Error(`fetch v${version} ${topic}-${partition}: error ${data.errorCode}`);
        const got = nextOffset(data.records ?? Buffer.alloc(0), offset, version >= 4);
        if (got.next === offset) throw new Error(`fetch v${version} ${topic}-${partition} made no progress at ${offset}`);
        total += got.records;
        offset = got.next;
      }
    } finally {
      connection.close();
    }
  }));
  return { records: total, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

interface Row { topic: string; consumer: string; fetchVersion: number; mbPerSec: number; cpuSecondsPerGb: number; runs: number[] }

async function measure(broker: BenchBroker, topic: string, version: number, perPartition: number): Promise<Row> {
  await consumeAll(broker.bootstrap, topic, version, perPartition); // warm-up: JIT and page cache
  const perGb: number[] = [];
  const rates: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpu = broker.cpuSeconds();
    const r = await consumeAll(broker.bootstrap, topic, version, perPartition);
    const gb = (r.records * RECORD_BYTES) / 1e9;
    perGb.push((broker.cpuSeconds() - cpu) / gb);
    rates.push((r.records * RECORD_BYTES) / 1e6 / r.seconds);
  }
  return {
    topic, consumer: version >= 4 ? 'v2 (Fetch v11)' : 'v1 (Fetch v3, down-converted)', fetchVersion: version,
    mbPerSec: round(median(rates), 0), cpuSecondsPerGb: round(median(perGb), 2), runs: perGb.map((v) => round(v, 2)),
  };
}

async function main(): Promise<void> {
  const broker = await BenchBroker.start();
  try {
    const rows: Row[] = [];
    for (const [topic, compression] of [['down-none', CompressionType.None], ['down-lz4', CompressionType.Lz4]] as const) {
      const records = await fill(broker.bootstrap, topic, compression);
      const perPartition = records / PARTITIONS;
      rows.push(await measure(broker, topic, V2_FETCH, perPartition), await measure(broker, topic, V1_FETCH, perPartition));
    }
    printTable(`down-conversion cost (${PARTITIONS} partitions, 1 KB records, batches of ${BATCH_RECORDS}, ${TARGET_MB} MB per topic, median of ${RUNS}; GB = 10^9 record value bytes)`,
      rows.map((r) => ({ topic: r.topic, consumer: r.consumer, 'MB/s': r.mbPerSec, 'CPU-s/GB': r.cpuSecondsPerGb, runs: r.runs })));
    const ratios = Object.fromEntries(['down-none', 'down-lz4'].map((t) => {
      const [v2, v1] = [rows.find((r) => r.topic === t && r.fetchVersion === V2_FETCH)!, rows.find((r) => r.topic === t && r.fetchVersion === V1_FETCH)!];
      return [t, { cpuV1ToV2: round(v1.cpuSecondsPerGb / v2.cpuSecondsPerGb, 2), throughputV1ToV2: round(v1.mbPerSec / v2.mbPerSec, 2) }];
    }));
    for (const [t, r] of Object.entries(ratios)) console.log(`${t}: v1 consumer costs ${r.cpuV1ToV2}× the broker CPU per GB of the v2 consumer, at ${r.throughputV1ToV2}× its MB/s`);
    printJson('down-conversion', { partitions: PARTITIONS, recordBytes: RECORD_BYTES, targetMb: TARGET_MB, runs: RUNS, rows, ratios });
  } finally {
    await broker.stop();
    broker.cleanup();
  }
}

await main();
