// @platformatic/kafka against the real broker process.
import { Admin, Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker();
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

describe('@platformatic/kafka', () => {
  it('creates a topic, produces with each codec and consumes in a group', async () => {
    const topic = 'platformatic-records';
    const admin = new Admin({ clientId: 'pk-admin', bootstrapBrokers: [broker.bootstrap] });
    await admin.createTopics({ topics: [topic], partitions: 2, replicas: 1 });
    const metadata = await admin.metadata({ topics: [topic] });
    expect(metadata.topics.get(topic)!.partitionsCount).toBe(2);
    await admin.close();

    const producer = new Producer({ clientId: 'pk-producer', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, idempotent: true });
    // Its zstd is node:zlib's (Node 22.15+, every tested line).
    const codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
    for (const [batch, compression] of codecs.entries()) {
      await producer.send({
        compression,
        messages: Array.from({ length: 200 }, (_, i) => ({
          topic,
          key: `k${batch * 200 + i}`,
          value: `v${batch * 200 + i}`,
          headers: new Map([['codec', compression]]),
        })),
      });
    }
    await producer.close();

    const consumer = new Consumer({ groupId: 'pk-group', clientId: 'pk-consumer', bootstrapBrokers: [broker.bootstrap], deserializers: stringDeserializers });
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: true, maxWaitTime: 100 });
    const seen = new Map<string, string>();
    for await (const message of stream) {
      seen.set(message.key as string, message.value as string);
      if (seen.size === 200 * codecs.length) break;
    }
    await stream.close();
    await consumer.close();
    expect(seen.size).toBe(200 * codecs.length);
    expect(seen.get('k777')).toBe('v777');
    expect(seen.get('k999')).toBe('v999'); // the zstd batch
  });

  it('lists offsets', async () => {
    const topic = 'platformatic-offsets';
    const producer = new Producer({ clientId: 'pk-producer', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, autocreateTopics: true });
    await producer.send({ messages: Array.from({ length: 7 }, (_, i) => ({ topic, value: `m${i}` })) });
    await producer.close();
    const consumer = new Consumer({ groupId: 'pk-offsets', clientId: 'pk-consumer', bootstrapBrokers: [broker.bootstrap] });
    const offsets = await consumer.listOffsets({ topics: [topic] });
    expect(offsets.get(topic)).toEqual([7n]);
    await consumer.close();
  });
});
