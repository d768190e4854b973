// Dynamic broker configs and group configs with our wire client: IncrementalAlterConfigs / AlterConfigs on BROKER
// (this broker's id and the cluster default "") and GROUP resources, effective live (retention, max message size,
// the consumer protocol's heartbeat interval) and after a restart (ConfigRecords in __cluster_metadata-0).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

const OVERRIDES = ['log.retention.check.interval.ms=300', 'log.segment.delete.delay.ms=0'];
const BROKER = 4;
const GROUP = 32;
const SET = 0;
const DELETE = 1;

let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
  client = await WireClient.connect(broker.port);
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function incrementalAlter(resourceType: number, resourceName: string, configs: Array<[name: string, value: string | null, op?: number]>) {
  return client.send(ApiKey.IncrementalAlterConfigs, 1, {
    resources: [{ resourceType, resourceName, configs: configs.map(([name, value, op]) => ({ name, configOperation: op ?? SET, value })) }],
    validateOnly: false,
  }).then((r: any) => r.responses[0]);
}

async function describeConfig(resourceType: number, resourceName: string, name: string) {
  const res = await client.send(ApiKey.DescribeConfigs, 4, {
    resources: [{ resourceType, resourceName, configurationKeys: [name] }], includeSynonyms: true, includeDocumentation: false,
  });
  expect(res.results[0].errorCode).toBe(0);
  return res.results[0].configs[0];
}

async function createTopic(name: string, configs: Record<string, string>) {
  const res = await client.send(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 10_000, validateOnly: false,
  });
  expect(res.topics[0].errorCode).toBe(0);
}

async function produce(topic: string, valueSize: number, timestamp = Date.now()) {
  const batch = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp, key: null, value: Buffer.alloc(valueSize, 1), headers: [] }] });
  const res = await client.send(ApiKey.Produce, 9, {
    transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
  });
  return res.responses[0].partitionResponses[0];
}

async function earliestOffset(topic: string): Promise<number> {
  const res = await client.send(ApiKey.ListOffsets, 7, {
    replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2 }] }],
  });
  return Number(res.topics[0].partitions[0].offset);
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function consumerHeartbeatInterval(groupId: string): Promise<number> {
  const res = await client.send(ApiKey.ConsumerGroupHeartbeat, 1, {
    groupId, memberId: randomUUID(), memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: [], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  expect(res.errorCode).toBe(0);
  return res.heartbeatIntervalMs;
}

describe('dynamic broker configs', () => {
  it('applies a cluster-default log.retention.ms at once to topics without their own retention', async () => {
    await createTopic('inherits', { 'internal.segment.bytes': '1024' });
    await createTopic('overrides', { 'internal.segment.bytes': '1024', 'retention.ms': '86400000' });
    const hourAgo = Date.now() - 3600_000;
    for (const topic of ['inherits', 'overrides']) {
      // Old records in rolled segments: the default 7-day retention keeps them.
      for (let i = 0; i < 4; i++) expect((await produce(topic, 700, hourAgo)).errorCode).toBe(0);
    }
    await new Promise((r) => setTimeout(r, 1000));
    expect(await earliestOffset('inherits')).toBe(0);

    expect(await incrementalAlter(BROKER, '', [['log.retention.ms', '60000']])).toMatchObject({ errorCode: 0 });
    const retention = await describeConfig(2, 'inherits', 'retention.ms');
    expect(retention).toMatchObject({ value: '60000', configSource: 3 });
    expect(retention.synonyms[0]).toMatchObject({ name: 'log.retention.ms', value: '60000', source: 3 });
    expect(await describeConfig(BROKER, '', 'log.retention.ms')).toMatchObject({ value: '60000', configSource: 3, readOnly: false });

    await until(async () => (await earliestOffset('inherits')) > 0);
    expect(await earliestOffset('overrides')).toBe(0);
  });

  it('applies a per-broker message.max.bytes over the cluster default, and refuses what Kafka refuses', async () => {
    await createTopic('sized', {});
    expect((await produce('sized', 5000)).errorCode).toBe(0);
    expect(await incrementalAlter(BROKER, '', [['message.max.bytes', '100000']])).toMatchObject({ errorCode: 0 });
    expect(await incrementalAlter(BROKER, '1', [['message.max.bytes', '2000']])).toMatchObject({ errorCode: 0 });
    const described = await describeConfig(BROKER, '1', 'message.max.bytes');
    expect(described).toMatchObject({ value: '2000', configSource: 2, readOnly: false });
    expect(described.synonyms.map((s: any) => s.source)).toEqual([2, 3, 5]);
    expect((await produce('sized', 5000)).errorCode).toBe(10); // MESSAGE_TOO_LARGE, live

    // Kafka 4.4 answers these INVALID_REQUEST (42); an unknown name it ignores, kafkite refuses (INVALID_CONFIG).
    expect((await incrementalAlter(BROKER, '1', [['log.retention.ms', 'soon']])).errorCode).toBe(42);
    expect((await incrementalAlter(BROKER, '1', [['no.such.config', '1']])).errorCode).toBe(40);
    expect(await incrementalAlter(BROKER, '', [['listeners', 'PLAINTEXT://:9092']])).toMatchObject({
      errorCode: 42, errorMessage: 'Cannot update these configs at default cluster level, broker id must be specified: [listeners]',
    });
    expect((await incrementalAlter(BROKER, '7', [['log.retention.ms', '1']])).errorCode).toBe(42);
    expect((await describeConfig(BROKER, '1', 'log.dirs')).readOnly).toBe(true);
  });
  it('refuses a read-only broker config with Kafka 4.4\'s INVALID_REQUEST and message, on both APIs, per broker and as the cluster default', async () => {
    const refused = (names: string) => ({ errorCode: 42, errorMessage: `Cannot update these configs dynamically: [${names}]` });
    for (const resourceName of ['1', '']) {
      expect(await incrementalAlter(BROKER, resourceName, [['log.dirs', '/tmp/elsewhere']])).toMatchObject(refused('log.dirs'));
      // Several names in the order Kafka prints its HashSet; the dynamic one beside them changes nothing.
      expect(await incrementalAlter(BROKER, resourceName, [['log.dirs', '/x'], ['log.cleaner.backoff.ms', '1234'], ['process.roles', 'broker'], ['broker.id', '3']]))
        .toMatchObject(refused('process.roles, broker.id, log.dirs'));
      const legacy = await client.send(ApiKey.AlterConfigs, 2, {
        resources: [{ resourceType: BROKER, resourceName, configs: [{ name: 'log.dirs', value: '/x' }, { name: 'node.id', value: '3' }] }], validateOnly: false,
      });
      expect(legacy.responses[0]).toMatchObject(refused('node.id, log.dirs'));
    }
    expect((await describeConfig(BROKER, '1', 'log.dirs')).value).toBe(broker.dataDir);
    expect(await describeConfig(BROKER, '1', 'log.cleaner.backoff.ms')).toMatchObject({ value: '15000', configSource: 5 });
  });
});

describe('group configs', () => {
  it('describes, alters within the broker bounds, and feeds the consumer protocol at the next heartbeat', async () => {
    expect(await describeConfig(GROUP, 'configured', 'consumer.heartbeat.interval.ms')).toMatchObject({ value: '5000', configSource: 5 });
    expect(await consumerHeartbeatInterval('configured')).toBe(5000);
    expect(await incrementalAlter(GROUP, 'configured', [['consumer.heartbeat.interval.ms', '7000'], ['consumer.session.timeout.ms', '50000'],
      ['share.record.lock.duration.ms', '20000']])).toMatchObject({ errorCode: 0 });
    expect(await describeConfig(GROUP, 'configured', 'consumer.heartbeat.interval.ms')).toMatchObject({ value: '7000', configSource: 8 });
    expect(await describeConfig(GROUP, 'configured', 'share.record.lock.duration.ms')).toMatchObject({ value: '20000', configSource: 8 });
    expect(await consumerHeartbeatInterval('configured')).toBe(7000);
    expect(await consumerHeartbeatInterval('other-group')).toBe(5000);

    // Outside group.consumer.min/max.*: INVALID_CONFIG, nothing changes.
    expect((await incrementalAlter(GROUP, 'configured', [['consumer.session.timeout.ms', '1000']])).errorCode).toBe(40);
    expect((await incrementalAlter(GROUP, 'configured', [['consumer.heartbeat.interval.ms', '60000']])).errorCode).toBe(40);
    expect((await incrementalAlter(GROUP, 'configured', [['consumer.unknown', '1']])).errorCode).toBe(40);
    expect(await describeConfig(GROUP, 'configured', 'consumer.session.timeout.ms')).toMatchObject({ value: '50000', configSource: 8 });

    expect(await incrementalAlter(GROUP, 'removed', [['consumer.heartbeat.interval.ms', '6000']])).toMatchObject({ errorCode: 0 });
    expect(await incrementalAlter(GROUP, 'removed', [['consumer.heartbeat.interval.ms', null, DELETE]])).toMatchObject({ errorCode: 0 });
    expect(await describeConfig(GROUP, 'removed', 'consumer.heartbeat.interval.ms')).toMatchObject({ value: '5000', configSource: 5 });
  });
});

describe('after a restart', () => {
  it('keeps dynamic broker and group configs (replayed from the metadata log)', async () => {
    client.close();
    expect(await broker.stop()).toBe(0);
    broker = await startBroker({ dataDir: broker.dataDir, overrides: OVERRIDES });
    client = await WireClient.connect(broker.port);
    expect(await describeConfig(BROKER, '1', 'message.max.bytes')).toMatchObject({ value: '2000', configSource: 2 });
    expect(await describeConfig(2, 'inherits', 'retention.ms')).toMatchObject({ value: '60000', configSource: 3 });
    expect((await produce('sized', 5000)).errorCode).toBe(10);
    expect(await describeConfig(GROUP, 'configured', 'consumer.heartbeat.interval.ms')).toMatchObject({ value: '7000', configSource: 8 });
    expect(await describeConfig(GROUP, 'removed', 'consumer.heartbeat.interval.ms')).toMatchObject({ configSource: 5 });
    expect(await consumerHeartbeatInterval('configured')).toBe(7000);
    // Deleting the per-broker value falls back to the cluster default at once.
    expect(await incrementalAlter(BROKER, '1', [['message.max.bytes', null, DELETE]])).toMatchObject({ errorCode: 0 });
    expect(await describeConfig(BROKER, '1', 'message.max.bytes')).toMatchObject({ value: '100000', configSource: 3 });
    expect((await produce('sized', 5000)).errorCode).toBe(0);
  });
});
