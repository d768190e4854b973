// kafka-node 5.0.0, a client of Kafka 0.9-2.0 (KIP-896 removed its protocol versions from Kafka 4):
// Produce v0-2 with message formats v0/v1, Fetch v0-2, ListOffsets v0, Metadata v0-1, groups with
// JoinGroup v0 and offsets committed with OffsetCommit v0-2. What it writes is checked on disk.
import { Kafka, logLevel } from 'kafkajs';
import type * as KafkaNode from 'kafka-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompressionType } from '../../protocol/records/batch-header.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { batchesOnDisk, compressibleValue } from '../helpers/disk-batches.js';
import { KAFKA_NODE_CODECS, client, close, kafkaNode, ready, send } from '../helpers/kafka-node.js';

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['num.partitions=1', 'auto.create.topics.enable=true'] });
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

interface Received { offset: number; key: string | null; value: string; timestamp?: Date }

/** Reads partition 0 from offset 0 with kafka-node's plain Consumer until `count` messages came. */
async function consume(c: KafkaNode.KafkaClient, topic: string, count: number): Promise<Received[]> {
  const consumer = new kafkaNode.Consumer(c, [{ topic, partition: 0, offset: 0 }], { autoCommit: false, fromOffset: true, encoding: 'utf8', keyEncoding: 'utf8', fetchMaxWaitMs: 100 });
  const received: Received[] = [];
  await new Promise<void>((resolve, reject) => {
    consumer.on('error', reject);
    consumer.on('message', (m) => {
      received.push({ offset: m.offset!, key: (m.key as string | null) ?? null, value: m.value as string, ...(m.timestamp ? { timestamp: m.timestamp } : {}) });
      if (received.length === count) resolve();
    });
  });
  await close(consumer);
  return received;
}


describe('kafka-node 5.0.0', () => {
  // kafka-node negotiates Produce v2 and Fetch v2 (message format v1) through ApiVersions. (With
  // versions.disabled it never becomes ready; magic 0 is covered by kcat's legacy mode.)
  for (const [codec, attributes] of KAFKA_NODE_CODECS) {
    it(`produces with ${codec}, stored as v2 batches with ${codec} and the producer's timestamps, and consumes in order`, async () => {
      const topic = `kn-${codec}`;
      const c = client(broker.bootstrap);
      const producer = new kafkaNode.Producer(c, { requireAcks: 1 });
      await ready(producer);
      await new Promise<void>((resolve, reject) => c.createTopics([{ topic, partitions: 1, replicationFactor: 1 }], (err) => (err ? reject(err) : resolve())));
      const before = Date.now();
      for (let batch = 0; batch < 3; batch++) {
        const messages = Array.from({ length: 20 }, (_, i) => new kafkaNode.KeyedMessage(`k${batch * 20 + i}`, compressibleValue(batch * 20 + i)));
        await send(producer, [{ topic, partition: 0, messages, attributes }]);
      }
      const stored = batchesOnDisk(broker.dataDir, topic);
      expect(stored.length).toBeGreaterThanOrEqual(3);
      expect(stored.every((b) => b.magic === 2 && b.compression === (attributes as CompressionType))).toBe(true);
      expect(stored.every((b) => b.maxTimestamp >= before && b.maxTimestamp <= Date.now())).toBe(true);
      expect(stored.reduce((n, b) => n + b.records, 0)).toBe(60);

      const received = await consume(c, topic, 60);
      expect(received.map((m) => m.offset)).toEqual(Array.from({ length: 60 }, (_, i) => i));
      expect(received.every((m, i) => m.key === `k${i}` && m.value === compressibleValue(i))).toBe(true);
      await close(producer);
      await close(c);
    });
  }

  it('lists offsets with ListOffsets v0 and commits offsets in a group that a second client sees', async () => {
    const topic = 'kn-group';
    const c = client(broker.bootstrap);
    const producer = new kafkaNode.Producer(c, { requireAcks: -1 });
    await ready(producer);
    await send(producer, [{ topic, partition: 0, messages: Array.from({ length: 25 }, (_, i) => `g${i}`), attributes: 1 }]);
    const offset = new kafkaNode.Offset(c);
    const latest = await new Promise<Record<string, Record<string, number[]>>>((resolve, reject) =>
      offset.fetch([{ topic, partition: 0, time: -1, maxNum: 1 }], (err, data) => (err ? reject(err) : resolve(data))));
    expect(latest[topic]!['0']).toEqual([25]);
    await close(producer);
    await close(c);

    const groupId = 'kn-group-1';
    const group = new kafkaNode.ConsumerGroup(
      { kafkaHost: broker.bootstrap, groupId, fromOffset: 'earliest', autoCommit: false, sessionTimeout: 10_000, fetchMaxWaitMs: 100, protocol: ['roundrobin'] } as KafkaNode.ConsumerGroupOptions,
      [topic],
    );
    const values: string[] = [];
    await new Promise<void>((resolve, reject) => {
      group.on('error', reject);
      group.on('message', (m) => {
        values.push(m.value as string);
        if (values.length === 25) resolve();
      });
    });
    expect(values).toEqual(Array.from({ length: 25 }, (_, i) => `g${i}`));
    await new Promise<void>((resolve, reject) => group.commit(true, (err) => (err ? reject(err) : resolve())));
    await close(group);

    const admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const committed = await admin.fetchOffsets({ groupId, topics: [topic] });
    await admin.disconnect();
    expect(committed).toEqual([{ topic, partitions: [{ partition: 0, offset: '25', metadata: expect.anything() }] }]);
  });
});
