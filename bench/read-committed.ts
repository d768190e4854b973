// read_committed consume throughput as a fraction of read_uncommitted on the same data (issue 10's
// target: >= 0.9x). The data is transactional: 4 partitions of transactions of 2 batches x 32 records
// of 1 KB, one in ten aborted, each ended by its marker. It is written once through the storage
// engine (UnifiedLog.appendAsLeader + appendTransactionMarker, what Produce and the transaction
// coordinator call) into the topic the broker created, then the broker is restarted on it and
// kafkite's loadgen consumers read every partition to its end, alternating the two isolation levels;
// the ratio is taken within each run (same minute, same machine load) and its median reported.
//
//   npx tsc -p . && node dist/bench/read-committed.js
//   BENCH_RC_MB=400 BENCH_RUNS=5 node dist/bench/read-committed.js
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { DEFAULT_LOG_CONFIG } from '../storage/log-config.js';
import { UnifiedLog } from '../storage/unified-log.js';
import { BenchBroker } from './lib/broker-process.js';
import { median, printJson, printTable, round } from './lib/stats.js';
import { consumeLoad, createTopic } from './loadgen.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PASSES = Number(process.env.BENCH_RC_PASSES ?? 4);
const TARGET_MB = Number(process.env.BENCH_RC_MB ?? 200);
const PARTITIONS = 4;
const RECORD_BYTES = 1024;
const BATCH_RECORDS = 32;
const BATCHES_PER_TXN = 2;
const ABORT_EVERY = 10;
const TOPIC = 'read-committed';

function txnBatch(producerId: number, baseSequence: number): Buffer {
  const records: KafkaRecord[] = [];
  for (let i = 0; i < BATCH_RECORDS; i++) records.push({ offset: i, timestamp: Date.now(), key: null, value: Buffer.alloc(RECORD_BYTES, 0x61 + (i % 26)), headers: [] });
  return encodeBatch({ baseOffset: 0, records, producerId, producerEpoch: 0, baseSequence, isTransactional: true });
}

/** Writes the transactions into each partition's log while the broker is stopped; returns the value bytes written. */
async function fillPartitions(dataDir: string): Promise<{ bytes: number; aborted: number }> {
  const logger = pino({ level: 'silent' });
  const perPartition = (TARGET_MB * 1e6) / PARTITIONS;
  let bytes = 0;
  let aborted = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    const dir = join(dataDir, `${TOPIC}-${p}`);
    const topicId = /topic_id: (\S+)/.exec(readFileSync(join(dir, 'partition.metadata'), 'utf8'))![1];
    const log = UnifiedLog.load({ dir, topic: TOPIC, partition: p, topicId, config: DEFAULT_LOG_CONFIG, logger, recoveryPoint: 0, logStartOffset: 0, hadCleanShutdown: true });
    const producerId = 1000 + p;
    let sequence = 0;
    let written = 0;
    for (let txn = 0; written < perPartition; txn++) {
      for (let b = 0; b < BATCHES_PER_TXN; b++, sequence += BATCH_RECORDS, written += BATCH_RECORDS * RECORD_BYTES) {
        log.appendAsLeader(txnBatch(producerId, sequence), Date.now());
      }
      const commit = txn % ABORT_EVERY !== ABORT_EVERY - 1;
      if (!commit) aborted++;
      log.appendTransactionMarker(producerId, 0, 0, commit, Date.now());
    }
    bytes += written;
    await log.close();
  }
  return { bytes, aborted };
}

async function main(): Promise<void> {
  let broker = await BenchBroker.start();
  await createTopic(broker.bootstrap, TOPIC, PARTITIONS);
  const dataDir = broker.dataDir;
  await broker.stop();
  if (!readdirSync(dataDir).includes(`${TOPIC}-0`)) throw new Error(`no ${TOPIC}-0 in ${dataDir}`);
  const filled = await fillPartitions(dataDir);
  broker = await BenchBroker.start({ dataDir });
  try {
    const uncommitted: number[] = [];
    const committed: number[] = [];
    const ratios: number[] = [];
    const cpu: Record<number, { seconds: number; bytes: number }> = { 0: { seconds: 0, bytes: 0 }, 1: { seconds: 0, bytes: 0 } };
    const trial = async (isolationLevel: number): Promise<number> => {
      const cpuBefore = broker.cpuSeconds();
      // Several passes per trial: one pass over page-cached data takes a fraction of a second.
      let bytes = 0;
      let secs = 0;
      for (let pass = 0; pass < PASSES; pass++) {
        const r = await consumeLoad({ bootstrap: broker.bootstrap, topic: TOPIC, partitions: PARTITIONS, partitionMaxBytes: 1 << 20, recordBytes: RECORD_BYTES, isolationLevel });
        bytes += r.bytes;
        secs += r.seconds;
      }
      cpu[isolationLevel].seconds += broker.cpuSeconds() - cpuBefore;
      cpu[isolationLevel].bytes += bytes;
      return round(bytes / secs / 1e6, 1);
    };
    await trial(1); // warm-up: page cache and JIT, not counted
    cpu[1] = { seconds: 0, bytes: 0 };
    for (let run = 0; run < RUNS; run++) {
      // Alternating order, and the ratio taken within each run, so drift on a shared machine cancels out.
      const [first, second] = run % 2 === 0 ? [0, 1] : [1, 0];
      const a = await trial(first);
      const b = await trial(second);
      const [u, c] = first === 0 ? [a, b] : [b, a];
      uncommitted.push(u);
      committed.push(c);
      ratios.push(round(c / u, 2));
    }
    const ratio = median(ratios);
    // Broker CPU per GB served: steadier than wall-clock throughput on a shared machine.
    const cpuPerGb = (level: number) => round(cpu[level].seconds / (cpu[level].bytes / 1e9), 2);
    printTable(`read_committed vs read_uncommitted, ${PARTITIONS} partitions, ${round(filled.bytes / 1e6)} MB of 1 KB records in transactions (${filled.aborted} aborted), ${PASSES} passes per trial, median of ${RUNS}`, [
      { isolation: 'read_uncommitted', mbPerSec: median(uncommitted), brokerCpuSecPerGb: cpuPerGb(0), runs: uncommitted.join(' ') },
      { isolation: 'read_committed', mbPerSec: median(committed), brokerCpuSecPerGb: cpuPerGb(1), runs: committed.join(' ') },
      { isolation: 'ratio (per run)', mbPerSec: ratio, brokerCpuSecPerGb: round(cpuPerGb(1) / cpuPerGb(0), 2), runs: `${ratios.join(' ')}  target >= 0.9` },
    ]);
    printJson('read-committed', {
      uncommittedMbPerSec: median(uncommitted),
      committedMbPerSec: median(committed),
      ratio,
      uncommittedCpuSecPerGb: cpuPerGb(0),
      committedCpuSecPerGb: cpuPerGb(1),
      runs: RUNS,
      mb: round(filled.bytes / 1e6),
    });
  } finally {
    await broker.stop();
    broker.cleanup();
  }
}

await main();
