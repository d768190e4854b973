// The share groups' dead-letter queue (KIP-1191, share.version 2), against kafkite and against Apache Kafka 4.4 itself,
// the same steps on each. A Kafka 4.4 KafkaShareConsumer (test/clients/java/ShareConsumerApp.java, mode dlq) rejects
// v % 10 == 7 and releases v % 10 == 3 every time, with share.delivery.count.limit 2: a second client then reads the
// group's DLQ topic and finds exactly those records, once each, with their key and value copied
// (errors.deadletterqueue.copy.record.enable) and Kafka's headers, in Kafka's order. A DLQ topic name starting with
// "__" is refused as INVALID_CONFIG on the GROUP resource; a name lacking errors.deadletterqueue.topic.name.prefix is
// accepted there (Kafka checks it only when it writes, GroupConfig.validateValues). Without copy a DLQ record is its
// headers only; a topic not enabled as a DLQ (errors.deadletterqueue.group.enable) or a name without the prefix gets
// nothing, the records archived all the same; a missing topic is created when errors.deadletterqueue.auto.create.topics.enable.
// At share.version 1 the configs are accepted and nothing is written to the DLQ. Through a kill -9 of the broker every
// rejected or exhausted record still reaches the DLQ, at least once (Kafka's guarantee: ARCHIVING is stored before the
// DLQ write and sent again after a restart, so a record may be there twice), and no other record does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ApiKey } from '../../protocol/generated/index.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { killableKafka, killableKafkite, type KillableBroker } from '../helpers/killable-broker.js';
import { until } from '../helpers/poll.js';
import { isDecided, prepareShareTopic, shareGroupOffsets, ShareConsumers, untilLeading } from '../helpers/share-consumers.js';

const N = 50;
const ZERO_UUID = '0'.repeat(32);
const INVALID_CONFIG = 40;
/** Both brokers start with DLQ topic auto-creation on (off by default, GroupCoordinatorConfig). */
const AUTO_CREATE = 'errors.deadletterqueue.auto.create.topics.enable=true';
/** The offsets the consumer's dlq mode rejects (v % 10 == 7) or releases until archived (v % 10 == 3). */
const DEAD = Array.from({ length: N }, (_, o) => o).filter((o) => o % 10 === 3 || o % 10 === 7);

/** A topic's configs as DescribeConfigs gives them, by name. */
async function describeTopicConfigs(port: number, topic: string): Promise<Map<string, string>> {
  const client = await WireClient.connect(port);
  try {
    const res = await client.send(ApiKey.DescribeConfigs, 4, { resources: [{ resourceType: 2, resourceName: topic, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
    expect(res.results[0].errorCode).toBe(0);
    return new Map((res.results[0].configs as Array<{ name: string; value: string }>).map((c) => [c.name, c.value]));
  } finally {
    client.close();
  }
}

async function createTopic(client: WireClient, name: string, configs: Record<string, string>): Promise<void> {
  const res = await client.send(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 5000, validateOnly: false,
  });
  expect(res.topics[0].errorCode).toBe(0);
}

async function alterGroupConfigs(client: WireClient, group: string, configs: Record<string, string>): Promise<{ errorCode: number; errorMessage: string | null }> {
  const res = await client.send(ApiKey.IncrementalAlterConfigs, 1, {
    resources: [{ resourceType: 32, resourceName: group, configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })) }],
    validateOnly: false,
  });
  return { errorCode: res.responses[0].errorCode, errorMessage: res.responses[0].errorMessage };
}

const alterGroupConfig = (client: WireClient, group: string, name: string, value: string) => alterGroupConfigs(client, group, { [name]: value });

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
const offsetOf = (r: KafkaRecord) => Number(headersOf(r).find(([k]) => k === '__dlq.errors.offset')?.[1]);

/** Kafka's headers of the DLQ record of `offset` of partition 0 of `topic`, in Kafka's order. */
const expectedHeaders = (topic: string, group: string, offset: number): Array<[string, string]> => [
  ['__dlq.errors.topic', topic],
  ['__dlq.errors.partition', '0'],
  ['__dlq.errors.offset', String(offset)],
  ['__dlq.errors.group', group],
  ['__dlq.errors.delivery.count', offset % 10 === 7 ? '1' : '2'],
  ['__dlq.errors.message', offset % 10 === 7 ? 'Offset rejected by client.' : 'Offset delivery count exceeded the threshold.'],
];

describe.each([['kafkite', () => killableKafkite([AUTO_CREATE])], ['Kafka 4.4', () => killableKafka([AUTO_CREATE])]] as const)('%s', (name, start) => {
  let target: KillableBroker;
  const consumers = new ShareConsumers();

  beforeAll(async () => {
    target = await start();
  }, 120_000);

  afterAll(async () => {
    consumers.killAll();
    await target?.stop();
  }, 60_000);

  /** Runs `fn` with a client connection of its own to the broker. */
  async function withAdmin(fn: (admin: WireClient) => Promise<void>): Promise<void> {
    const admin = await WireClient.connect(target.port);
    try {
      await fn(admin);
    } finally {
      admin.close();
    }
  }

  /**
   * A DLQ topic enabled as one, and a topic of N records whose share group writes its rejected and exhausted records
   * there (share.delivery.count.limit 2), copied.
   */
  async function prepareDlq(topic: string, group: string, dlqTopic: string, n = N, dlqConfigs: Record<string, string> = {}): Promise<void> {
    await withAdmin(async (admin) => {
      await createTopic(admin, dlqTopic, { 'errors.deadletterqueue.group.enable': 'true', ...dlqConfigs });
      await untilLeading(target.port, [dlqTopic]);
    });
    await prepareShareTopic(target.port, topic, group, n, {
      groupConfigs: { 'share.delivery.count.limit': '2', 'errors.deadletterqueue.topic.name': dlqTopic, 'errors.deadletterqueue.copy.record.enable': 'true' },
    });
  }

  /** Whether consumer `id` accepted or rejected every record but the released ones, and released each of those twice. */
  const atRest = (id: number) => () => {
    const mine = consumers.events.filter((e) => e.consumer === id);
    return new Set(mine.filter(isDecided).map((e) => e.offset)).size === N - N / 10 && mine.filter((e) => e.ack === 'RELEASE').length === 2 * (N / 10);
  };

  /** Runs a dlq-mode consumer per group on `topic` at once, until each is at rest and its group has nothing left (lag 0). */
  async function consumeAll(topic: string, groups: string[], firstId: number): Promise<void> {
    const running = groups.map((group, i) => ({ group, id: firstId + i, c: consumers.start(firstId + i, target.bootstrap, topic, group, 'dlq') }));
    for (const { group, id, c } of running) {
      await consumers.waitFor(atRest(id), `${group}'s records decided or released twice`, 120_000);
      await until(async () => (await shareGroupOffsets(target.port, group, topic, 1))[0]!.lag === 0, `${group} at lag 0`, 60_000);
      expect(await consumers.stop(c)).toBe(0);
    }
  }

  it('rejected records and records released past the delivery count limit land in the DLQ topic, once each, with Kafka\'s headers', async () => {
    await prepareDlq('dlq-source', 'dlq-group', 'dlq.work');
    const c = consumers.start(1, target.bootstrap, 'dlq-source', 'dlq-group', 'dlq');
    await consumers.waitFor(atRest(1), 'every record decided or released twice', 90_000);
    await consumers.idleFor(1, 4, 60_000);
    expect(await consumers.stop(c)).toBe(0);

    let dlq: KafkaRecord[] = [];
    await until(async () => (dlq = await readAll(target.port, 'dlq.work')).length >= DEAD.length, `${DEAD.length} records in the DLQ topic`, 60_000);
    console.log(`DLQ on ${name}: ${dlq.length} records, first ${JSON.stringify(headersOf(dlq[0]!))}`);
    expect(dlq.map(offsetOf).sort((a, b) => a - b)).toEqual(DEAD);
    for (const r of dlq) {
      expect(r.value?.toString()).toBe(String(offsetOf(r)));
      expect(r.key).toBeNull();
      expect(headersOf(r)).toEqual(expectedHeaders('dlq-source', 'dlq-group', offsetOf(r)));
    }
    // Archived once written: nothing is left for the group.
    await until(async () => (await shareGroupOffsets(target.port, 'dlq-group', 'dlq-source', 1))[0]!.lag === 0, 'lag 0', 30_000);
  }, 240_000);

  it('without copy only the headers; nothing in a topic not enabled as a DLQ or named without the prefix; a missing DLQ topic auto-created', async () => {
    await withAdmin(async (admin) => {
      await createTopic(admin, 'dlq.headers', { 'errors.deadletterqueue.group.enable': 'true' });
      await createTopic(admin, 'dlq.plain', {});
      await createTopic(admin, 'nodlq.prefixless', { 'errors.deadletterqueue.group.enable': 'true' });
      await untilLeading(target.port, ['dlq.headers', 'dlq.plain', 'nodlq.prefixless']);
      await prepareShareTopic(target.port, 'dlq-cases', 'dlq-headers', N, {
        groupConfigs: { 'share.delivery.count.limit': '2', 'errors.deadletterqueue.topic.name': 'dlq.headers' },
      });
      for (const [group, dlqTopic] of [['dlq-plain', 'dlq.plain'], ['dlq-prefixless', 'nodlq.prefixless'], ['dlq-auto', 'dlq.auto']] as const) {
        expect(await alterGroupConfigs(admin, group, {
          'share.auto.offset.reset': 'earliest', 'share.delivery.count.limit': '2', 'errors.deadletterqueue.topic.name': dlqTopic, 'errors.deadletterqueue.copy.record.enable': 'true',
        })).toEqual({ errorCode: 0, errorMessage: null });
      }
    });
    await consumeAll('dlq-cases', ['dlq-headers', 'dlq-plain', 'dlq-prefixless', 'dlq-auto'], 11);

    const headersOnly = await readAll(target.port, 'dlq.headers');
    expect(headersOnly.map(offsetOf).sort((a, b) => a - b)).toEqual(DEAD);
    for (const r of headersOnly) {
      expect({ key: r.key, value: r.value }).toEqual({ key: null, value: null });
      expect(headersOf(r)).toEqual(expectedHeaders('dlq-cases', 'dlq-headers', offsetOf(r)));
    }
    // Archived there too (lag 0 above), but never written: the DLQ write failed its checks.
    expect(await readAll(target.port, 'dlq.plain')).toEqual([]);
    expect(await readAll(target.port, 'nodlq.prefixless')).toEqual([]);
    const auto = await readAll(target.port, 'dlq.auto');
    expect(auto.map(offsetOf).sort((a, b) => a - b)).toEqual(DEAD);
    expect(auto.every((r) => r.value?.toString() === String(offsetOf(r)))).toBe(true);
    const described = await describeTopicConfigs(target.port, 'dlq.auto');
    expect({ enabled: described.get('errors.deadletterqueue.group.enable'), timestamps: described.get('message.timestamp.type') })
      .toEqual({ enabled: 'true', timestamps: 'CreateTime' });
  }, 300_000);

  it('a DLQ topic name starting with "__" is INVALID_CONFIG; one without the prefix is accepted until a record is written', async () => {
    await withAdmin(async (admin) => {
      expect(await alterGroupConfig(admin, 'dlq-bad', 'errors.deadletterqueue.topic.name', '__dlq')).toEqual({
        errorCode: INVALID_CONFIG, errorMessage: "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'",
      });
      expect((await alterGroupConfig(admin, 'dlq-bad', 'errors.deadletterqueue.topic.name', 'no-prefix')).errorCode).toBe(0);
      expect((await alterGroupConfig(admin, 'dlq-bad', 'errors.deadletterqueue.copy.record.enable', 'maybe')).errorCode).toBe(INVALID_CONFIG);
    });
  });

  it('a run of exhausted records larger than the DLQ topic\'s max.message.bytes is written in several batches, each record once', async () => {
    // Room for about one DLQ record a batch (Kafka's ProduceRequestHandler fills each produce round up to it).
    await prepareDlq('dlq-chunks-source', 'dlq-chunks', 'dlq.small', N, { 'max.message.bytes': '400' });
    const c = consumers.start(41, target.bootstrap, 'dlq-chunks-source', 'dlq-chunks', 'release');
    await consumers.waitFor(() => consumers.deliveries(41).length >= 2 * N, 'every record delivered twice', 90_000);
    await until(async () => (await shareGroupOffsets(target.port, 'dlq-chunks', 'dlq-chunks-source', 1))[0]!.lag === 0, 'dlq-chunks at lag 0', 60_000);
    expect(await consumers.stop(c)).toBe(0);
    let dlq: KafkaRecord[] = [];
    await until(async () => (dlq = await readAll(target.port, 'dlq.small')).length >= N, `${N} records in the DLQ topic`, 60_000);
    // Each once; Kafka's runs may reach the topic in any order (its send thread writes them as they come).
    expect(dlq.map(offsetOf).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, o) => o));
    expect(dlq.every((r) => headersOf(r)[4]![1] === '2' && r.value?.toString() === String(offsetOf(r)))).toBe(true);
  }, 240_000);

  it('through a kill -9 each rejected or exhausted record reaches the DLQ at least once, and no other record does', async () => {
    await prepareDlq('dlq-kill-source', 'dlq-kill', 'dlq.kill', 4 * N);
    const { events } = consumers;
    const c = consumers.start(21, target.bootstrap, 'dlq-kill-source', 'dlq-kill', 'dlq');
    const decided = () => events.filter((e) => e.consumer === 21 && isDecided(e)).length;
    await consumers.waitFor(() => decided() >= N, 'a quarter of the records decided', 90_000);
    await target.killAndRestart(['dlq-kill-source', 'dlq.kill']);
    const lagZero = async () => {
      try {
        return (await shareGroupOffsets(target.port, 'dlq-kill', 'dlq-kill-source', 1))[0]!.lag === 0;
      } catch {
        return false;
      }
    };
    await until(lagZero, 'dlq-kill at lag 0', 180_000);
    expect(await consumers.stop(c)).toBe(0);
    const dead = Array.from({ length: 4 * N }, (_, o) => o).filter((o) => o % 10 === 3 || o % 10 === 7);
    let dlq: KafkaRecord[] = [];
    await until(async () => new Set((dlq = await readAll(target.port, 'dlq.kill')).map(offsetOf)).size >= dead.length, 'every dead record in the DLQ', 60_000);
    console.log(`DLQ through a kill on ${name}: ${dlq.length} records for ${dead.length} offsets`);
    expect([...new Set(dlq.map(offsetOf))].sort((a, b) => a - b)).toEqual(dead);
    for (const r of dlq) {
      expect(r.value?.toString()).toBe(String(offsetOf(r)));
      expect(headersOf(r).slice(0, 4)).toEqual(expectedHeaders('dlq-kill-source', 'dlq-kill', offsetOf(r)).slice(0, 4));
    }
  }, 360_000);

  // Last: it lowers the feature for the rest of the broker's life.
  it('at share.version 1 the DLQ configs are accepted and rejected or exhausted records are only archived', async () => {
    await withAdmin(async (admin) => {
      const res = await admin.send(ApiKey.UpdateFeatures, 1, {
        timeoutMs: 30_000, featureUpdates: [{ feature: 'share.version', maxVersionLevel: 1, upgradeType: 2 }], validateOnly: false,
      });
      expect({ errorCode: res.errorCode, results: res.results.map((r: { errorCode: number }) => r.errorCode) }).toEqual({ errorCode: 0, results: [0] });
      await until(async () => {
        const versions = await admin.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'kafkite-test', clientSoftwareVersion: '1' });
        return versions.finalizedFeatures.some((f: { name: string; maxVersionLevel: number }) => f.name === 'share.version' && f.maxVersionLevel === 1);
      }, 'share.version 1 finalized', 30_000);
    });
    await prepareDlq('dlq-sv1-source', 'dlq-sv1', 'dlq.sv1');
    await consumeAll('dlq-sv1-source', ['dlq-sv1'], 31);
    expect(await readAll(target.port, 'dlq.sv1')).toEqual([]);
  }, 240_000);
});
