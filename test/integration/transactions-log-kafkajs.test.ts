// The log side of transactions through the real broker with kafkajs transactional producers: a hanging
// transaction holds the last stable offset until the coordinator's timeout aborts it, aborts land in
// the .txnindex, and a deleted .txnindex is rebuilt at start-up so read_committed still skips aborted
// records. Offsets, the LSO and DescribeProducers are read with kafkite's wire client, the LSO lag from /metrics.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type EachMessagePayload } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchResponse } from '../../protocol/generated/FetchResponse.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess, adminAddress } from '../helpers/broker-process.js';

const ZERO_UUID = '0'.repeat(32);
const OVERRIDES = [
  'offsets.topic.num.partitions=1',
  'transaction.state.log.num.partitions=1',
  'transaction.abort.timed.out.transaction.cleanup.interval.ms=300',
  'admin.listener=http://127.0.0.1:0',
];
let broker: BrokerProcess;
let kafka: Kafka;

beforeAll(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
  kafka = new Kafka({ clientId: 'kafkite-txn-log-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: ['hanging', 'rebuilt'].map((topic) => ({ topic, numPartitions: 1 })) });
  await admin.disconnect();
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

async function offsets(topic: string): Promise<{ hw: number; lso: number; latestCommitted: number; aborted: unknown }> {
  const client = await WireClient.connect(broker.port);
  try {
    const fetch = await client.send<FetchResponse>(1, 12, {
      clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0,
      maxBytes: 1 << 20, isolationLevel: 1, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
      topics: [{ topic, topicId: ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: ZERO_UUID }] }],
    });
    const p = fetch.responses[0].partitions[0];
    const list = await client.send(2, 7, { replicaId: -1, isolationLevel: 1, timeoutMs: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] });
    return { hw: p.highWatermark, lso: p.lastStableOffset, latestCommitted: list.topics[0].partitions[0].offset, aborted: p.abortedTransactions };
  } finally {
    client.close();
  }
}

async function currentTxnStartOffset(topic: string): Promise<number[]> {
  const client = await WireClient.connect(broker.port);
  try {
    const res = await client.send(61, 0, { topics: [{ name: topic, partitionIndexes: [0] }] });
    return res.topics[0].partitions[0].activeProducers.map((p: { currentTxnStartOffset: number }) => p.currentTxnStartOffset).sort();
  } finally {
    client.close();
  }
}

async function lsoLag(topic: string): Promise<number> {
  const admin = adminAddress(broker);
  const text = await (await fetch(`${admin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`kafkite_last_stable_offset_lag{topic="${topic}",partition="0"} `));
  return Number(line?.split(' ')[1]);
}

async function waitFor<T>(what: () => Promise<T>, until: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (until(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function readCommitted(topic: string, expected: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: `rc-${topic}-${Date.now()}`, readUncommitted: false, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, 8000);
    consumer
      .run({
        eachMessage: async ({ message }: EachMessagePayload) => {
          values.push(message.value!.toString());
          if (values.length >= expected) {
            clearTimeout(timer);
            setTimeout(resolve, 1000); // anything beyond what is expected shows up meanwhile
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return values;
}

function txnIndexEntries(topic: string): Array<{ producerId: bigint; firstOffset: bigint; lastOffset: bigint; lso: bigint }> {
  const dir = join(broker.dataDir, `${topic}-0`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txnindex'))
    .sort()
    .flatMap((f) => {
      const buf = readFileSync(join(dir, f));
      const out = [];
      for (let pos = 0; pos < buf.length; pos += 34) {
        expect(buf.readInt16BE(pos)).toBe(0);
        out.push({ producerId: buf.readBigInt64BE(pos + 2), firstOffset: buf.readBigInt64BE(pos + 10), lastOffset: buf.readBigInt64BE(pos + 18), lso: buf.readBigInt64BE(pos + 26) });
      }
      return out;
    });
}

describe('transactions on the log', () => {
  it('a hanging transaction holds the LSO until its timeout aborts it', async () => {
    const plain = kafka.producer();
    await plain.connect();
    await plain.send({ topic: 'hanging', messages: [{ value: 'before' }] }); // offset 0
    const hanging = kafka.producer({ transactionalId: 'hanging-txn', maxInFlightRequests: 1, idempotent: true, transactionTimeout: 1500 });
    await hanging.connect();
    const txn = await hanging.transaction();
    await txn.send({ topic: 'hanging', messages: [{ value: 'never-committed-1' }, { value: 'never-committed-2' }] }); // 1-2
    await plain.send({ topic: 'hanging', messages: [{ value: 'after' }] }); // 3

    const held = await offsets('hanging');
    expect(held).toMatchObject({ hw: 4, lso: 1, latestCommitted: 1 });
    expect(await currentTxnStartOffset('hanging')).toEqual([1]); // the open transaction (the plain producer is not idempotent)
    expect(await lsoLag('hanging')).toBe(3);

    // The coordinator aborts the timed-out transaction: a marker at 4 and the LSO moves to the end.
    const released = await waitFor(() => offsets('hanging'), (o) => o.lso === o.hw && o.hw === 5);
    expect(released).toMatchObject({ hw: 5, lso: 5, latestCommitted: 5, aborted: [{ producerId: expect.any(Number), firstOffset: 1 }] });
    const [entry] = txnIndexEntries('hanging');
    expect(entry).toMatchObject({ firstOffset: 1n, lastOffset: 4n, lso: 5n });
    expect(await readCommitted('hanging', 2)).toEqual(['before', 'after']);
    expect(await currentTxnStartOffset('hanging')).toEqual([-1]);
    expect(await lsoLag('hanging')).toBe(0);
    await hanging.disconnect().catch(() => {});
    await plain.disconnect();
  });

  it('rebuilds a deleted .txnindex at start-up: read_committed still skips the aborted records', async () => {
    const producer = kafka.producer({ transactionalId: 'rebuilt-txn', maxInFlightRequests: 1, idempotent: true });
    await producer.connect();
    for (const [i, commit] of [[0, true], [1, false], [2, true], [3, false]] as const) {
      const txn = await producer.transaction();
      await txn.send({ topic: 'rebuilt', messages: [{ value: `${commit ? 'committed' : 'aborted'}-${i}` }] });
      await (commit ? txn.commit() : txn.abort());
    }
    await producer.disconnect();
    const before = txnIndexEntries('rebuilt');
    expect(before.map((e) => [e.firstOffset, e.lastOffset])).toEqual([[2n, 3n], [6n, 7n]]);

    expect(await broker.stop()).toBe(0);
    const dir = join(broker.dataDir, 'rebuilt-0');
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.txnindex'))) rmSync(join(dir, f));
    broker = await startBroker({ dataDir: broker.dataDir, overrides: OVERRIDES });
    kafka = new Kafka({ clientId: 'kafkite-txn-log-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    // Logs load in the background after start-up, or on first use: reading first makes the load certain.
    expect((await readCommitted('rebuilt', 2)).sort()).toEqual(['committed-0', 'committed-2']);
    expect(existsSync(join(dir, '00000000000000000000.txnindex'))).toBe(true);
    expect(txnIndexEntries('rebuilt')).toEqual(before);
  });
});
