// Transactional produce against idempotent produce in the same run (issue 10's targets: >= 0.7x at 100
// records per transaction; commit latency p99 <= 10 ms with the durability default, acks=all). One
// producer on kafkite's codec, one request in flight, 1 KB records in batches of min(records per
// transaction, 100). A transaction is AddPartitionsToTxn, its produce requests, EndTxn(commit) (ratio,
// a transaction version 1 client); ratioTv2 is KIP-890 part 2's client (Produce v12 adds the partition,
// no AddPartitionsToTxn, EndTxn v5). The idempotent peer sends the same batches without them. Commit latency is EndTxn's round trip:
// the PrepareCommit record on disk (the markers and CompleteCommit follow; the next add waits for them).
//
//   npx tsc -p . && node dist/bench/transactions.js
//   BENCH_RUNS=3 BENCH_TXN_SECONDS=3 node dist/bench/transactions.js
import { encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { BenchBroker } from './lib/broker-process.js';
import { BenchConnection } from './lib/wire.js';
import { median, percentile, printJson, printTable, round } from './lib/stats.js';
import { createTopic } from './loadgen.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_TXN_SECONDS ?? 1);
const RECORD_BYTES = 1024;
const MAX_BATCH_RECORDS = 100;
const TXN_SIZES = [10, 100, 1000];
const TOPIC = 'txn-bench';

function batch(records: number, producerId: number, producerEpoch: number, baseSequence: number, isTransactional: boolean): Buffer {
  const now = Date.now();
  const list: KafkaRecord[] = [];
  for (let i = 0; i < records; i++) list.push({ offset: i, timestamp: now, key: null, value: Buffer.alloc(RECORD_BYTES, 0x61 + (i % 26)), headers: [] });
  return encodeBatch({ baseOffset: 0, records: list, producerId, producerEpoch, baseSequence, isTransactional });
}

async function check(what: string, reply: Promise<{ response: any }>, errorOf: (r: any) => number): Promise<any> {
  const { response } = await reply;
  const code = errorOf(response);
  if (code !== 0) throw new Error(`${what}: error ${code}`);
  return response;
}

function produce(connection: BenchConnection, transactionalId: string | null, partition: number, records: Buffer, version = 9) {
  return check('Produce', connection.send(0, version, { transactionalId, acks: -1, timeoutMs: 30_000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records }] }] }),
    (r) => r.responses[0].partitionResponses[0].errorCode);
}

/** Idempotent produce for SECONDS: records/s. */
async function idempotentRun(bootstrap: string, partition: number, batchRecords: number): Promise<number> {
  const connection = await BenchConnection.open(bootstrap);
  try {
    const init = await check('InitProducerId', connection.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 }), (r) => r.errorCode);
    let sequence = 0;
    const started = performance.now();
    while (performance.now() - started < SECONDS * 1000) {
      await produce(connection, null, partition, batch(batchRecords, init.producerId, init.producerEpoch, sequence, false));
      sequence += batchRecords;
    }
    return sequence / ((performance.now() - started) / 1000);
  } finally {
    connection.close();
  }
}

/**
 * Transactions of `perTxn` records for SECONDS: records/s and each EndTxn's round trip in ms.
 * `tv2` false: a transaction version 1 client (AddPartitionsToTxn v3, Produce v9, EndTxn v3).
 * `tv2` true: KIP-890 part 2's client (Produce v12 adds the partition implicitly, EndTxn v5 returns
 * the next epoch, with which the next transaction's sequences start at 0 again).
 */
async function transactionalRun(
  bootstrap: string, partition: number, perTxn: number, transactionalId: string, tv2 = false,
): Promise<{ recordsPerSec: number; commitMs: number[]; addMs: number[]; produceMs: number[] }> {
  const connection = await BenchConnection.open(bootstrap);
  try {
    const init = await check('InitProducerId', connection.send(22, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 }), (r) => r.errorCode);
    let { producerId, producerEpoch } = init;
    const batchRecords = Math.min(perTxn, MAX_BATCH_RECORDS);
    const commitMs: number[] = [];
    const addMs: number[] = [];
    const produceMs: number[] = [];
    let records = 0;
    let sequence = 0;
    const started = performance.now();
    while (performance.now() - started < SECONDS * 1000) {
      let t0 = performance.now();
      if (!tv2) {
        await check('AddPartitionsToTxn', connection.send(24, 3, {
          transactions: [], v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch,
          v3AndBelowTopics: [{ name: TOPIC, partitions: [partition] }],
        }), (r) => r.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode);
        addMs.push(performance.now() - t0);
      }
      for (let n = 0; n < perTxn; n += batchRecords) {
        t0 = performance.now();
        await produce(connection, transactionalId, partition, batch(batchRecords, producerId, producerEpoch, sequence, true), tv2 ? 12 : 9);
        produceMs.push(performance.now() - t0);
        sequence += batchRecords;
        records += batchRecords;
      }
      const reply = await connection.send(26, tv2 ? 5 : 3, { transactionalId, producerId, producerEpoch, committed: true });
      if (reply.response.errorCode !== 0) throw new Error(`EndTxn: error ${reply.response.errorCode}`);
      commitMs.push(reply.latencyUs / 1000);
      if (tv2) {
        ({ producerId, producerEpoch } = reply.response);
        sequence = 0;
      }
    }
    return { recordsPerSec: records / ((performance.now() - started) / 1000), commitMs, addMs, produceMs };
  } finally {
    connection.close();
  }
}

async function main(): Promise<void> {
  const broker = await BenchBroker.start({ overrides: ['transaction.state.log.num.partitions=5', 'offsets.topic.num.partitions=5'] });
  try {
    await createTopic(broker.bootstrap, TOPIC, TXN_SIZES.length * 3);
    // Warm-up (JIT, __transaction_state creation), not counted.
    await transactionalRun(broker.bootstrap, 0, 100, 'bench-warmup');
    const rows: Array<Record<string, unknown>> = [];
    const summary: Array<{ recordsPerTxn: number; idempotentRecPerSec: number; transactionalRecPerSec: number; ratio: number; tv2RecPerSec: number; ratioTv2: number; commitP50Ms: number; commitP99Ms: number }> = [];
    const allCommits: number[] = [];
    for (const [i, perTxn] of TXN_SIZES.entries()) {
      const idem: number[] = [];
      const txn: number[] = [];
      const tv2: number[] = [];
      const commits: number[] = [];
      const adds: number[] = [];
      const produces: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        // Alternate the order so neither side always runs on a warmer disk.
        const order = run % 2 === 0 ? ['idem', 'txn', 'tv2'] : ['tv2', 'txn', 'idem'];
        for (const side of order) {
          if (side === 'idem') idem.push(await idempotentRun(broker.bootstrap, 3 * i, Math.min(perTxn, MAX_BATCH_RECORDS)));
          else if (side === 'tv2') tv2.push((await transactionalRun(broker.bootstrap, 3 * i + 2, perTxn, `bench-tv2-${perTxn}`, true)).recordsPerSec);
          else {
            const r = await transactionalRun(broker.bootstrap, 3 * i + 1, perTxn, `bench-${perTxn}`);
            txn.push(r.recordsPerSec);
            commits.push(...r.commitMs);
            adds.push(...r.addMs);
            produces.push(...r.produceMs);
          }
        }
      }
      commits.sort((a, b) => a - b);
      allCommits.push(...commits);
      const ratio = round(median(txn) / median(idem), 2);
      const row = {
        recordsPerTxn: perTxn, idempotentRecPerSec: round(median(idem)), transactionalRecPerSec: round(median(txn)), ratio,
        tv2RecPerSec: round(median(tv2)), ratioTv2: round(median(tv2) / median(idem), 2),
        commitP50Ms: round(percentile(commits, 0.5), 2), commitP99Ms: round(percentile(commits, 0.99), 2),
      };
      summary.push(row);
      rows.push({
        ...row, commits: commits.length, addP50Ms: round(median(adds), 2), produceP50Ms: round(median(produces), 2),
        target: perTxn === 100 ? 'ratio >= 0.7' : '',
      });
    }
    allCommits.sort((a, b) => a - b);
    printTable(`transactional vs idempotent produce, 1 KB records, acks=all, 1 in flight, median of ${RUNS} x ${SECONDS}s`, rows);
    const commitP50Ms = round(percentile(allCommits, 0.5), 2);
    const commitP99Ms = round(percentile(allCommits, 0.99), 2);
    printTable('EndTxn(commit) latency, all transaction sizes', [{ commits: allCommits.length, p50Ms: commitP50Ms, p99Ms: commitP99Ms, target: 'p99 <= 10 ms' }]);
    printJson('transactions', { results: summary, commitP50Ms, commitP99Ms, runs: RUNS, seconds: SECONDS });
  } finally {
    await broker.stop();
    broker.cleanup();
  }
}

await main();
