// Transactional produce against idempotent produce in the same run (issue 10's targets: >= 0.7x at 100
// records per transaction; commit latency p99 <= 10 ms with the durability default, acks=all). One
// producer on kafkite's codec, one request in flight, 1 KB records in batches of min(records per
// transaction, 100). A transaction is AddPartitionsToTxn, its produce requests, EndTxn(commit) (ratio,
// a transaction version 1 client); ratioTv2 is KIP-890 part 2's client (Produce v12 adds the partition,
// no AddPartitionsToTxn, EndTxn v5). The idempotent peer sends the same batches without them. Commit latency is EndTxn's round trip:
// the PrepareCommit record on disk (the markers and CompleteCommit follow; the next add waits for them).
//
// Apache Kafka 4.4 runs beside kafkite (issue 32; BENCH_TXN_PEER=0 leaves it out): the same producers against
// either broker in turn, each run, and transactions per second with the ratio kafkite ÷ Kafka.
//
//   npx tsc -p . && node dist/bench/transactions.js
//   BENCH_RUNS=3 BENCH_TXN_SECONDS=3 node dist/bench/transactions.js
import { encodeBatch, type KafkaRecord } from '../protocol/records/record-batch.js';
import { brokerOrder, createReadyTopic, startBoth, startBroker, type Broker, type Started } from './lib/peer-broker.js';
import { figureOf, figureOfValues, type Figure } from './lib/peer-figures.js';
import { BenchConnection } from './lib/wire.js';
import { median, percentile, printJson, printTable, round } from './lib/stats.js';

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

const CONCURRENT_TRANSACTIONS = 51;
/** Kafka's TransactionManager retries an add the coordinator answers CONCURRENT_TRANSACTIONS after 20 ms (ADD_PARTITIONS_RETRY_BACKOFF_MS). */
const ADD_RETRY_MS = 20;

async function check(what: string, request: () => Promise<{ response: any }>, errorOf: (r: any) => number): Promise<any> {
  for (;;) {
    const { response } = await request();
    const code = errorOf(response);
    if (code === 0) return response;
    // Kafka answers it while the previous transaction's markers are being written; kafkite makes the add wait.
    if (code !== CONCURRENT_TRANSACTIONS) throw new Error(`${what}: error ${code}`);
    await new Promise((r) => setTimeout(r, ADD_RETRY_MS));
  }
}

function produce(connection: BenchConnection, transactionalId: string | null, partition: number, records: Buffer, version = 9) {
  return check('Produce', () => connection.send(0, version, { transactionalId, acks: -1, timeoutMs: 30_000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records }] }] }),
    (r) => r.responses[0].partitionResponses[0].errorCode);
}

/** Idempotent produce for SECONDS: records/s. */
async function idempotentRun(bootstrap: string, partition: number, batchRecords: number): Promise<number> {
  const connection = await BenchConnection.open(bootstrap);
  try {
    const init = await check('InitProducerId', () => connection.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 }), (r) => r.errorCode);
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
 * InitProducerId for `transactionalId`, retried while the transaction coordinator is not ready: Kafka creates
 * __transaction_state on the first FindCoordinator and answers NOT_COORDINATOR (16) or
 * COORDINATOR_LOAD_IN_PROGRESS (14) until its partitions are loaded, and CONCURRENT_TRANSACTIONS (51) while the
 * id's previous transaction is still writing its markers (a client's TransactionManager retries all three).
 */
async function initTransactionalProducer(connection: BenchConnection, transactionalId: string): Promise<{ producerId: number; producerEpoch: number }> {
  for (let tries = 0; ; tries++) {
    await connection.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [transactionalId] });
    const { response } = await connection.send(22, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    if (response.errorCode === 0) return response;
    if (![14, 15, 16, 51].includes(response.errorCode) || tries > 100) throw new Error(`InitProducerId: error ${response.errorCode}`);
    await new Promise((r) => setTimeout(r, 100));
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
    let { producerId, producerEpoch } = await initTransactionalProducer(connection, transactionalId);
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
        await check('AddPartitionsToTxn', () => connection.send(24, 3, {
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

interface SizeRuns {
  idem: number[];
  txn: number[];
  tv2: number[];
  commits: number[];
  adds: number[];
  produces: number[];
}

/** One run of the three producers against one broker, in `run`'s order. */
async function sizeRun(bootstrap: string, i: number, perTxn: number, run: number, into: SizeRuns): Promise<void> {
  // Alternate the order so neither side always runs on a warmer disk.
  const order = run % 2 === 0 ? ['idem', 'txn', 'tv2'] : ['tv2', 'txn', 'idem'];
  for (const side of order) {
    if (side === 'idem') into.idem.push(await idempotentRun(bootstrap, 3 * i, Math.min(perTxn, MAX_BATCH_RECORDS)));
    else if (side === 'tv2') into.tv2.push((await transactionalRun(bootstrap, 3 * i + 2, perTxn, `bench-tv2-${perTxn}`, true)).recordsPerSec);
    else {
      const r = await transactionalRun(bootstrap, 3 * i + 1, perTxn, `bench-${perTxn}`);
      into.txn.push(r.recordsPerSec);
      into.commits.push(...r.commitMs);
      into.adds.push(...r.addMs);
      into.produces.push(...r.produceMs);
    }
  }
}

async function main(): Promise<void> {
  // Kafka 4.4 beside kafkite (issue 32) unless BENCH_TXN_PEER=0: the same producers against either broker in turn, run by run.
  const withKafka = process.env.BENCH_TXN_PEER !== '0';
  const properties = ['transaction.state.log.num.partitions=5', 'offsets.topic.num.partitions=5'];
  const brokers: Partial<Record<Broker, Started>> = withKafka ? await startBoth({ properties }) : { kafkite: await startBroker('kafkite', { properties }) };
  const names = Object.keys(brokers) as Broker[];
  try {
    for (const name of names) {
      await createReadyTopic(brokers[name]!.side, TOPIC, TXN_SIZES.length * 3);
      // Warm-up (JIT, __transaction_state creation), not counted.
      await transactionalRun(brokers[name]!.side.bootstrap, 0, 100, 'bench-warmup');
    }
    const rows: Array<Record<string, unknown>> = [];
    const summary: Array<{ recordsPerTxn: number; idempotentRecPerSec: number; transactionalRecPerSec: number; ratio: number; tv2RecPerSec: number; ratioTv2: number; commitP50Ms: number; commitP99Ms: number }> = [];
    const peer: Figure[] = [];
    const allCommits: number[] = [];
    for (const [i, perTxn] of TXN_SIZES.entries()) {
      const runs = Object.fromEntries(names.map((n) => [n, { idem: [], txn: [], tv2: [], commits: [], adds: [], produces: [] }])) as unknown as Record<Broker, SizeRuns>;
      for (let run = 0; run < RUNS; run++) {
        for (const name of brokerOrder(run).filter((n) => names.includes(n))) await sizeRun(brokers[name]!.side.bootstrap, i, perTxn, run, runs[name]);
      }
      for (const name of names) {
        const { idem, txn, tv2, commits, adds, produces } = runs[name];
        commits.sort((a, b) => a - b);
        const row = {
          recordsPerTxn: perTxn, idempotentRecPerSec: round(median(idem)), transactionalRecPerSec: round(median(txn)), ratio: round(median(txn) / median(idem), 2),
          tv2RecPerSec: round(median(tv2)), ratioTv2: round(median(tv2) / median(idem), 2),
          commitP50Ms: round(percentile(commits, 0.5), 2), commitP99Ms: round(percentile(commits, 0.99), 2),
        };
        rows.push({
          broker: name, ...row, commits: commits.length, addP50Ms: round(median(adds), 2), produceP50Ms: round(median(produces), 2),
          target: name === 'kafkite' && perTxn === 100 ? 'ratio >= 0.7' : '',
        });
        if (name !== 'kafkite') continue;
        summary.push(row);
        allCommits.push(...commits);
      }
      if (withKafka) {
        const perRound = (key: 'txn' | 'tv2' | 'idem', per: number) => runs.kafkite[key].map((v, r) => ({ kafkite: v / per, kafka: runs.kafka[key][r]! / per }));
        peer.push(figureOf(`transactions/s, ${perTxn} records per transaction (1 KB, transaction version 1 client)`, perRound('txn', perTxn), 1));
        peer.push(figureOf(`transactions/s, ${perTxn} records per transaction (1 KB, transaction version 2 client)`, perRound('tv2', perTxn), 1));
        peer.push(figureOf(`idempotent produce, batches of ${Math.min(perTxn, MAX_BATCH_RECORDS)} (1 KB, acks=all, rec/s)`, perRound('idem', 1)));
        const commitsOf = (b: Broker) => percentile(runs[b].commits, 0.99);
        peer.push(figureOfValues(`EndTxn(commit) p99, ${perTxn} records per transaction (ms)`, commitsOf('kafkite'), commitsOf('kafka'), 2));
      }
    }
    allCommits.sort((a, b) => a - b);
    printTable(`transactional vs idempotent produce, 1 KB records, acks=all, 1 in flight, median of ${RUNS} x ${SECONDS}s${withKafka ? ', kafkite and Kafka 4.4 in turn' : ''}`, rows);
    const commitP50Ms = round(percentile(allCommits, 0.5), 2);
    const commitP99Ms = round(percentile(allCommits, 0.99), 2);
    printTable('EndTxn(commit) latency on kafkite, all transaction sizes', [{ commits: allCommits.length, p50Ms: commitP50Ms, p99Ms: commitP99Ms, target: 'p99 <= 10 ms' }]);
    if (withKafka) printTable(`kafkite / Kafka 4.4 (medians of ${RUNS} runs; ratio: median of per-run ratios)`, peer as unknown as Array<Record<string, unknown>>);
    printJson('transactions', { results: summary, commitP50Ms, commitP99Ms, runs: RUNS, seconds: SECONDS, peer });
  } finally {
    await Promise.all(names.map((n) => brokers[n]!.stop()));
  }
}

await main();
