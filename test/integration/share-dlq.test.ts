// The share groups' dead-letter queue (KIP-1191, share.version 2), against kafkite and against Apache Kafka 4.4 itself,
// the same steps on each. A Kafka 4.4 KafkaShareConsumer (test/clients/java/ShareConsumerApp.java, mode dlq) rejects
// v % 10 == 7 and releases v % 10 == 3 every time, with share.delivery.count.limit 2: a second client then reads the
// group's DLQ topic and finds exactly those records, once each, with their key and value copied
// (errors.deadletterqueue.copy.record.enable) and Kafka's headers, in Kafka's order. A DLQ topic name starting with
// "__" is refused as INVALID_CONFIG on the GROUP resource; a name lacking errors.deadletterqueue.topic.name.prefix is
// accepted there (Kafka checks it only when it writes, GroupConfig.validateValues).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ReferenceKafka } from '../../bench/lib/reference-kafka.js';
import { ApiKey } from '../../protocol/generated/index.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { startBroker } from '../helpers/broker-process.js';
import { until } from '../helpers/poll.js';
import { isDecided, prepareShareTopic, shareGroupOffsets, ShareConsumers, untilLeading } from '../helpers/share-consumers.js';

const N = 50;
const ZERO_UUID = '0'.repeat(32);
const INVALID_CONFIG = 40;

interface Target {
  readonly port: number;
  readonly bootstrap: string;
  stop(): Promise<void>;
}

async function kafkite(): Promise<Target> {
  const broker = await startBroker();
  return {
    port: broker.port,
    bootstrap: broker.bootstrap,
    async stop() {
      await broker.stop();
      broker.cleanup();
    },
  };
}

async function kafka(): Promise<Target> {
  const node = await ReferenceKafka.start({ readyTimeoutMs: 90_000 });
  return {
    port: node.port,
    bootstrap: `127.0.0.1:${node.port}`,
    async stop() {
      await node.stop();
      node.cleanup();
    },
  };
}

async function createTopic(client: WireClient, name: string, configs: Record<string, string>): Promise<void> {
  const res = await client.send(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 5000, validateOnly: false,
  });
  expect(res.topics[0].errorCode).toBe(0);
}

async function alterGroupConfig(client: WireClient, group: string, name: string, value: string): Promise<{ errorCode: number; errorMessage: string | null }> {
  const res = await client.send(ApiKey.IncrementalAlterConfigs, 1, {
    resources: [{ resourceType: 32, resourceName: group, configs: [{ name, configOperation: 0, value }] }], validateOnly: false,
  });
  return { errorCode: res.responses[0].errorCode, errorMessage: res.responses[0].errorMessage };
}

/** Every record of partition 0 of `topic`, read by a Fetch of its own connection. */
async function readAll(port: number, topic: string): Promise<KafkaRecord[]> {
  const client = await WireClient.connect(port);
  try {
    const records: KafkaRecord[] = [];
    for (;;) {
      const res = await client.send(ApiKey.Fetch, 12, {
        clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
        isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
        topics: [{ topic, topicId: ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: records.length === 0 ? 0 : records[records.length - 1]!.offset + 1, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: ZERO_UUID }] }],
      });
      const partition = res.responses[0].partitions[0];
      expect(partition.errorCode).toBe(0);
      const data = (partition.records ?? Buffer.alloc(0)) as Buffer;
      const before = records.length;
      for (const h of batchesIn(data)) records.push(...decodeBatch(data.subarray(h.pos, h.pos + h.sizeInBytes)).records);
      if (records.length === before) return records;
    }
  } finally {
    client.close();
  }
}

const headersOf = (r: KafkaRecord): Array<[string, string]> => r.headers.map((h) => [h.key, h.value?.toString('utf8') ?? '']);

describe.each([['kafkite', kafkite], ['Kafka 4.4', kafka]] as const)('%s', (name, start) => {
  let target: Target;
  const consumers = new ShareConsumers();

  beforeAll(async () => {
    target = await start();
  }, 120_000);

  afterAll(async () => {
    consumers.killAll();
    await target?.stop();
  }, 60_000);

  it('rejected records and records released past the delivery count limit land in the DLQ topic, once each, with Kafka\'s headers', async () => {
    const admin = await WireClient.connect(target.port);
    try {
      await createTopic(admin, 'dlq.work', { 'errors.deadletterqueue.group.enable': 'true' });
      await untilLeading(target.port, ['dlq.work']);
    } finally {
      admin.close();
    }
    await prepareShareTopic(target.port, 'dlq-source', 'dlq-group', N, {
      groupConfigs: { 'share.delivery.count.limit': '2', 'errors.deadletterqueue.topic.name': 'dlq.work', 'errors.deadletterqueue.copy.record.enable': 'true' },
    });
    const { events } = consumers;
    const c = consumers.start(1, target.bootstrap, 'dlq-source', 'dlq-group', 'dlq');
    // Every record but the released ones accepted or rejected, and each released one released twice.
    const atRest = () => new Set(events.filter(isDecided).map((e) => e.offset)).size === N - N / 10
      && events.filter((e) => e.ack === 'RELEASE').length === 2 * (N / 10);
    await consumers.waitFor(atRest, 'every record decided or released twice', 90_000);
    await consumers.idleFor(1, 4, 60_000);
    expect(await consumers.stop(c)).toBe(0);

    const expected = Array.from({ length: N }, (_, o) => o).filter((o) => o % 10 === 3 || o % 10 === 7);
    let dlq: KafkaRecord[] = [];
    await until(async () => (dlq = await readAll(target.port, 'dlq.work')).length >= expected.length, `${expected.length} records in the DLQ topic`, 60_000);
    console.log(`DLQ on ${name}: ${dlq.length} records, first ${JSON.stringify(headersOf(dlq[0]!))}`);
    const offsetOf = (r: KafkaRecord) => Number(headersOf(r).find(([k]) => k === '__dlq.errors.offset')?.[1]);
    expect(dlq.map(offsetOf).sort((a, b) => a - b)).toEqual(expected);
    for (const r of dlq) {
      const o = offsetOf(r);
      expect(r.value?.toString()).toBe(String(o));
      expect(r.key).toBeNull();
      expect(headersOf(r)).toEqual([
        ['__dlq.errors.topic', 'dlq-source'],
        ['__dlq.errors.partition', '0'],
        ['__dlq.errors.offset', String(o)],
        ['__dlq.errors.group', 'dlq-group'],
        ['__dlq.errors.delivery.count', o % 10 === 7 ? '1' : '2'],
        ['__dlq.errors.message', o % 10 === 7 ? 'Offset rejected by client.' : 'Offset delivery count exceeded the threshold.'],
      ]);
    }
    // Archived once written: nothing is left for the group.
    await until(async () => (await shareGroupOffsets(target.port, 'dlq-group', 'dlq-source', 1))[0]!.lag === 0, 'lag 0', 30_000);
  }, 240_000);

  it('a DLQ topic name starting with "__" is INVALID_CONFIG; one without the prefix is accepted until a record is written', async () => {
    const admin = await WireClient.connect(target.port);
    try {
      expect(await alterGroupConfig(admin, 'dlq-bad', 'errors.deadletterqueue.topic.name', '__dlq')).toEqual({
        errorCode: INVALID_CONFIG, errorMessage: "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'",
      });
      expect((await alterGroupConfig(admin, 'dlq-bad', 'errors.deadletterqueue.topic.name', 'no-prefix')).errorCode).toBe(0);
      expect((await alterGroupConfig(admin, 'dlq-bad', 'errors.deadletterqueue.copy.record.enable', 'maybe')).errorCode).toBe(INVALID_CONFIG);
    } finally {
      admin.close();
    }
  });
});
