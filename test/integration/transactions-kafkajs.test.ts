// kafkajs transactions against the real broker: commit, abort, sendOffsets in a consume-transform-produce
// loop, and read_committed consumers that never see aborted records; @platformatic/kafka's transactions too.
import { Producer as PlatformaticProducer, stringSerializers } from '@platformatic/kafka';
import { Kafka, logLevel, type EachMessagePayload, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let kafka: Kafka;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['offsets.topic.num.partitions=3', 'transaction.state.log.num.partitions=3'] });
  kafka = new Kafka({ clientId: 'kafkite-txn-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: ['txn-commit', 'txn-mixed', 'txn-platformatic', 'ctp-in', 'ctp-out'].map((topic) => ({ topic, numPartitions: 2 })),
  });
  await admin.disconnect();
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function transactionalProducer(transactionalId: string): Producer {
  return kafka.producer({ transactionalId, maxInFlightRequests: 1, idempotent: true });
}

/** Reads every record of `topic` up to its current end with the given isolation; returns values in offset order per partition. */
async function readAll(topic: string, readUncommitted: boolean, expected: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: `read-${topic}-${readUncommitted}-${Date.now()}`, readUncommitted, maxWaitTimeInMs: 100 });
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
            // Leave time for anything beyond what is expected to show up too.
            clearTimeout(timer);
            setTimeout(resolve, 1000);
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return values.sort();
}

describe('kafkajs transactions', () => {
  it('commits: every record becomes visible to a read_committed consumer', async () => {
    const producer = transactionalProducer('kjs-commit');
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic: 'txn-commit', messages: [0, 1, 2, 3, 4, 5].map((i) => ({ key: `k${i}`, value: `c${i}` })) });
    await txn.commit();
    await producer.disconnect();
    expect(await readAll('txn-commit', false, 6)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
  });

  it('aborts: read_committed never sees aborted records, read_uncommitted does', async () => {
    const producer = transactionalProducer('kjs-abort');
    await producer.connect();
    const aborted = await producer.transaction();
    await aborted.send({ topic: 'txn-mixed', messages: [{ key: 'a', value: 'aborted-1' }, { key: 'b', value: 'aborted-2' }] });
    await aborted.abort();
    const committed = await producer.transaction();
    await committed.send({ topic: 'txn-mixed', messages: [{ key: 'a', value: 'committed-1' }, { key: 'b', value: 'committed-2' }] });
    await committed.commit();
    const abortedAgain = await producer.transaction();
    await abortedAgain.send({ topic: 'txn-mixed', messages: [{ key: 'c', value: 'aborted-3' }] });
    await abortedAgain.abort();
    await producer.disconnect();
    expect(await readAll('txn-mixed', false, 2)).toEqual(['committed-1', 'committed-2']);
    expect(await readAll('txn-mixed', true, 5)).toEqual(['aborted-1', 'aborted-2', 'aborted-3', 'committed-1', 'committed-2']);
  });

  it('@platformatic/kafka: a committed and an aborted transaction, read back with read_committed', async () => {
    const producer = new PlatformaticProducer({
      clientId: 'pk-txn', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, idempotent: true, transactionalId: 'pk-txn',
    });
    try {
      const committed = await producer.beginTransaction();
      await committed.send({ messages: [{ topic: 'txn-platformatic', key: 'a', value: 'pk-committed-1' }, { topic: 'txn-platformatic', key: 'b', value: 'pk-committed-2' }] });
      await committed.commit();
      const aborted = await producer.beginTransaction();
      await aborted.send({ messages: [{ topic: 'txn-platformatic', key: 'a', value: 'pk-aborted' }] });
      await aborted.abort();
    } finally {
      await producer.close();
    }
    expect(await readAll('txn-platformatic', false, 2)).toEqual(['pk-committed-1', 'pk-committed-2']);
    expect(await readAll('txn-platformatic', true, 3)).toEqual(['pk-aborted', 'pk-committed-1', 'pk-committed-2']);
  });

  it('consume-transform-produce: sendOffsets commits the input offsets with the output, exactly once', async () => {
    const input = kafka.producer();
    await input.connect();
    const inputs = Array.from({ length: 40 }, (_, i) => `in-${String(i).padStart(2, '0')}`);
    await input.send({ topic: 'ctp-in', messages: inputs.map((value, i) => ({ key: `k${i % 7}`, value })) });
    await input.disconnect();

    const groupId = 'ctp-group';
    const producer = transactionalProducer('kjs-ctp');
    await producer.connect();
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'ctp-in', fromBeginning: true });
    let processed = 0;
    let abortedOnce = false;
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
            const txn = await producer.transaction();
            await txn.send({ topic: 'ctp-out', messages: batch.messages.map((m) => ({ key: m.key, value: `out-${m.value!.toString().slice(3)}` })) });
            const next = (BigInt(batch.lastOffset()) + 1n).toString();
            await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }] });
            if (!abortedOnce) {
              // The first batch is aborted: its output is discarded and its offsets are not committed, so it is consumed again.
              abortedOnce = true;
              await txn.abort();
              consumer.seek({ topic: batch.topic, partition: batch.partition, offset: batch.firstOffset()! });
              return;
            }
            await txn.commit();
            for (const m of batch.messages) resolveOffset(m.offset);
            await heartbeat();
            processed += batch.messages.length;
            if (processed >= inputs.length) resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();
    await producer.disconnect();

    expect(await readAll('ctp-out', false, inputs.length)).toEqual(inputs.map((v) => `out-${v.slice(3)}`).sort());
    const admin = kafka.admin();
    await admin.connect();
    const committed = await admin.fetchOffsets({ groupId, topics: ['ctp-in'] });
    const ends = await admin.fetchTopicOffsets('ctp-in');
    await admin.disconnect();
    const byPartition = (list: Array<{ partition: number; offset: string }>) => Object.fromEntries(list.map((p) => [p.partition, p.offset]));
    expect(byPartition(committed[0]!.partitions)).toEqual(byPartition(ends.map((e) => ({ partition: e.partition, offset: e.high }))));
  });
});
