// kafkajs against the real broker process: admin, idempotent producer, group consumer, seeks.
import { Kafka, CompressionTypes, ConfigResourceTypes, logLevel, type Consumer, type EachMessagePayload } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let kafka: Kafka;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['log.retention.check.interval.ms=200', 'log.segment.delete.delay.ms=0'] });
  kafka = new Kafka({ clientId: 'kafkite-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

/** Consumes until `count` messages arrived, from the beginning, in a fresh group. */
async function consume(topic: string, count: number, onStart?: (c: Consumer) => void): Promise<EachMessagePayload[]> {
  const consumer = kafka.consumer({ groupId: `g-${topic}-${Date.now()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const received: EachMessagePayload[] = [];
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachMessage: async (payload) => {
          received.push(payload);
          if (received.length === count) resolve();
        },
      })
      .catch(reject);
    onStart?.(consumer);
  });
  await consumer.disconnect();
  return received;
}

describe('kafkajs', () => {
  it('creates, describes and deletes topics with the admin client', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect(await admin.createTopics({ topics: [{ topic: 'admin-topic', numPartitions: 3 }] })).toBe(true);
      // kafkajs answers TOPIC_ALREADY_EXISTS with `false`.
      expect(await admin.createTopics({ topics: [{ topic: 'admin-topic' }] })).toBe(false);
      const meta = await admin.fetchTopicMetadata({ topics: ['admin-topic'] });
      expect(meta.topics[0]!.partitions).toHaveLength(3);
      expect(await admin.listTopics()).toContain('admin-topic');
      await admin.deleteTopics({ topics: ['admin-topic'] });
      expect(await admin.listTopics()).not.toContain('admin-topic');
      await expect(admin.createTopics({ topics: [{ topic: 'bad name!' }] })).rejects.toMatchObject({
        errors: [{ type: 'INVALID_TOPIC_EXCEPTION' }],
      });
    } finally {
      await admin.disconnect();
    }
  });

  it('produces 10,000 records with keys, headers and gzip idempotently, and consumes them in order', async () => {
    const topic = 'kafkajs-records';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let batch = 0; batch < 10; batch++) {
      await producer.send({
        topic,
        acks: -1,
        compression: batch % 2 === 0 ? CompressionTypes.GZIP : CompressionTypes.None,
        messages: Array.from({ length: 1000 }, (_, i) => {
          const n = batch * 1000 + i;
          return { key: `k${n}`, value: `v${n}`, headers: { n: String(n) } };
        }),
      });
    }
    await producer.disconnect();

    const received = await consume(topic, 10_000);
    expect(received.map((m) => Number(m.message.offset))).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    expect(received.every((m, i) => m.message.key!.toString() === `k${i}` && m.message.value!.toString() === `v${i}`)).toBe(true);
    expect(received[1234]!.message.headers!.n!.toString()).toBe('1234');
  });

  it('lists offsets: earliest, latest and by timestamp', async () => {
    const topic = 'kafkajs-offsets';
    const producer = kafka.producer();
    await producer.connect();
    // Recent timestamps: records from 1970 are past log.retention.ms, and a retention pass between the two
    // admin calls would delete them (the low offset then jumps to 3).
    const base = Date.now() - 60_000;
    await producer.send({ topic, messages: ['a', 'b', 'c'].map((value, i) => ({ value, timestamp: String(base + i * 1000) })) });
    await producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    try {
      const [offsets] = await admin.fetchTopicOffsets(topic);
      expect(offsets).toMatchObject({ partition: 0, low: '0', high: '3' });
      const [byTime] = await admin.fetchTopicOffsetsByTimestamp(topic, base + 500);
      expect(byTime).toMatchObject({ partition: 0, offset: '1' });
    } finally {
      await admin.disconnect();
    }
  });

  it('seeks a consumer to an offset', async () => {
    const topic = 'kafkajs-seek';
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ value: `m${i}` })) });
    await producer.disconnect();
    // kafkajs applies a seek made right after run() before its first fetch.
    const received = await consume(topic, 5, (c) => c.seek({ topic, partition: 0, offset: '15' }));
    expect(received.map((m) => m.message.value!.toString())).toEqual(['m15', 'm16', 'm17', 'm18', 'm19']);
  });

  it('describes and alters configs; a new retention.ms takes effect without a restart', async () => {
    const topic = 'kafkajs-configs';
    const admin = kafka.admin();
    await admin.connect();
    try {
      // One record a segment: internal.segment.bytes (Kafka 4.4's, for tests) goes below segment.bytes' 1 MiB minimum.
      await admin.createTopics({ topics: [{ topic, configEntries: [{ name: 'segment.bytes', value: '2097152' }, { name: 'internal.segment.bytes', value: '100' }] }] });
      const producer = kafka.producer();
      await producer.connect();
      for (let i = 0; i < 5; i++) await producer.send({ topic, messages: [{ value: `segment-${i}`.padEnd(120, '.') }] });
      await producer.disconnect();

      const described = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
      const entries = described.resources[0]!.configEntries;
      expect(entries.find((e) => e.configName === 'segment.bytes')).toMatchObject({ configValue: '2097152', isDefault: false });
      // From log.retention.hours=168 in config/server.properties: a static broker config (source 4).
      expect(entries.find((e) => e.configName === 'retention.ms')).toMatchObject({ configValue: '604800000', configSource: 4 });
      const brokerConfigs = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1' }] });
      expect(brokerConfigs.resources[0]!.configEntries.find((e) => e.configName === 'num.partitions')).toBeDefined();

      await admin.alterConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'internal.segment.bytes', value: '100' }, { name: 'retention.ms', value: '1' }] }] });
      const after = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
      expect(after.resources[0]!.configEntries.find((e) => e.configName === 'retention.ms')).toMatchObject({ configValue: '1', isDefault: false });

      // Retention runs every 200 ms here. Every record is expired, so, as Kafka does, a new empty segment
      // is rolled and all older ones go: the log start offset moves to the end (5).
      let low = '0';
      for (let i = 0; i < 50 && low !== '5'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        low = (await admin.fetchTopicOffsets(topic))[0]!.low;
      }
      expect(low).toBe('5');
      expect((await admin.fetchTopicOffsets(topic))[0]!.high).toBe('5');
    } finally {
      await admin.disconnect();
    }
  });
});
