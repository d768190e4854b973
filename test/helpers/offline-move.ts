// What the offline moves between kafkite and Kafka 4.4 (issue #31, parts 2 and 3) put into the first node and check
// on the second: the fill, through Kafka's Java client, wire requests and Kafka's tools, and the checks made with them.
import { expect } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { connectWithRetry, initProducerId, produce, readPartition, recordBatch, type ProducerIdentity, type ReadBack } from '../reliability/support.js';
import { compileJava, javaArgs, type KafkaTools } from './java.js';
import { runJsonClient } from './json-client.js';
import { until } from './poll.js';

const CODEC_TOPICS = ['java-none', 'java-gzip', 'java-snappy', 'java-lz4', 'java-zstd'];
export const TOPICS = [...CODEC_TOPICS, 'java-txn', 'compacted', 'idempotent'];
/** The same on both nodes: SCRAM, the StandardAuthorizer, three offsets partitions. */
export const COMMON_PROPERTIES = [
  'auto.create.topics.enable=false', 'group.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=3',
  'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users=User:ANONYMOUS',
  'sasl.enabled.mechanisms=SCRAM-SHA-256',
];
/** alice logs in with SCRAM on the SASL listener; her ACLs let her read java-none in group alice-group, nothing else. */
export const ALICE = ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=SCRAM-SHA-256',
  'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";'];

export interface Filled {
  /** Topic ids and each topic's partition 0 as the first node served them. */
  topicIds: Map<string, string>;
  before: Map<string, ReadBack>;
  /** An idempotent producer mid-stream: its id, epoch and next sequence, and its last batch (to retry). */
  idempotent: ProducerIdentity & { baseSequence: number };
  lastBatch: Buffer;
}

export async function fillNode(port: number, bootstrap: string, tools: KafkaTools): Promise<Filled> {
  const client = await connectWithRetry(port);
  for (const name of TOPICS) {
    const configs = name === 'compacted' ? [{ name: 'cleanup.policy', value: 'compact' }, { name: 'min.compaction.lag.ms', value: '60000' }]
      : name === 'java-none' ? [{ name: 'retention.ms', value: '86400000' }] : [];
    const res = await client.send(19, 7, { topics: [{ name, numPartitions: name === 'compacted' ? 2 : 1, replicationFactor: 1, assignments: [], configs }], timeoutMs: 5000, validateOnly: false });
    expect(res.topics[0].errorCode).toBe(0);
  }
  const classes = compileJava('JavaClient');
  await runJsonClient('java', javaArgs('JavaClient', [bootstrap, bootstrap, 'produce', 'consume-classic', 'consume-consumer', 'transactions'], classes), { timeoutMs: 240_000 });
  // Keys of the compacted topic, a later value replacing an earlier one.
  const keyed = encodeBatch({
    baseOffset: 0,
    records: Array.from({ length: 50 }, (_, i) => ({ offset: i, timestamp: Date.now(), key: Buffer.from(`k-${i % 5}`), value: Buffer.from(`v-${i}`), headers: [] })),
  });
  expect((await produce(client, 'compacted', 0, keyed)).errorCode).toBe(0);
  const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  const topicIds = new Map<string, string>(metadata.topics.map((t: { name: string; topicId: string }) => [t.name, t.topicId]));
  // An idempotent producer's first two batches; it goes on on the second node.
  const producer = await initProducerId(client);
  let lastBatch = Buffer.alloc(0);
  for (let i = 0; i < 2; i++) {
    lastBatch = recordBatch([`idem-${2 * i}`, `idem-${2 * i + 1}`], { ...producer, baseSequence: 2 * i });
    expect((await produce(client, 'idempotent', 0, lastBatch)).errorCode).toBe(0);
  }
  // A SCRAM user, an ACL and a client quota, through Kafka's tools.
  const admin = ['--bootstrap-server', bootstrap];
  for (const args of [
    ['org.apache.kafka.tools.ConfigCommand', ...admin, '--alter', '--entity-type', 'users', '--entity-name', 'alice', '--add-config', 'SCRAM-SHA-256=[iterations=4096,password=alice-secret]'],
    ['org.apache.kafka.tools.ConfigCommand', ...admin, '--alter', '--entity-type', 'clients', '--entity-name', 'slow-client', '--add-config', 'producer_byte_rate=1024'],
    ['org.apache.kafka.tools.AclCommand', ...admin, '--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'java-none', '--group', 'alice-group'],
  ]) {
    const run = await tools.run(args[0]!, ...args.slice(1));
    expect({ args, code: run.code, err: run.err }).toEqual({ args, code: 0, err: '' });
  }
  const before = new Map<string, ReadBack>();
  for (const name of TOPICS) before.set(name, await readPartition(client, name, 0));
  client.close();
  return { topicIds, before, idempotent: { ...producer, baseSequence: 4 }, lastBatch };
}

export async function servedTopicIds(client: WireClient): Promise<Map<string, string>> {
  const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  return new Map(metadata.topics.map((t: { name: string; topicId: string }) => [t.name, t.topicId]));
}

/** The same topic ids, and every topic's partition 0 record by record at its offset. */
export async function expectEveryRecord(port: number, filled: Filled): Promise<void> {
  const client = await WireClient.connect(port);
  try {
    const served = await servedTopicIds(client);
    for (const name of TOPICS) expect([name, served.get(name)]).toEqual([name, filled.topicIds.get(name)]);
    for (const name of TOPICS) {
      const kept = filled.before.get(name)!;
      expect(kept.values.length).toBeGreaterThan(0);
      // A new Kafka leader's high watermark reaches the log end once it has taken the partition over.
      let read = await readPartition(client, name, 0);
      await until(async () => (read = await readPartition(client, name, 0)).offsets.length >= kept.offsets.length, `${name} served up to its end`, 30_000).catch(() => {});
      expect({ name, errorCode: read.errorCode, count: read.offsets.length }).toEqual({ name, errorCode: 0, count: kept.offsets.length });
      expect({ name, offsets: read.offsets, values: read.values }).toEqual({ name, offsets: kept.offsets, values: kept.values });
    }
  } finally {
    client.close();
  }
}

export async function expectTopicConfigs(tools: KafkaTools, bootstrap: string): Promise<void> {
  const describe = (topic: string) => tools.run('org.apache.kafka.tools.ConfigCommand', '--bootstrap-server', bootstrap, '--describe', '--entity-type', 'topics', '--entity-name', topic);
  const compacted = await describe('compacted');
  expect(compacted.out).toContain('cleanup.policy=compact');
  expect(compacted.out).toContain('min.compaction.lag.ms=60000');
  expect((await describe('java-none')).out).toContain('retention.ms=86400000');
}

/** Classic, KIP-848's consumer and a transaction's group, each at its committed offset. */
export async function expectGroupOffsets(tools: KafkaTools, bootstrap: string): Promise<void> {
  for (const [group, topic, offset] of [['java-g-classic', 'java-none', 100], ['java-g-consumer', 'java-gzip', 100], ['java-txn-group', 'java-none', 42]] as const) {
    const run = await tools.run('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', '--bootstrap-server', bootstrap, '--describe', '--group', group);
    const row = run.out.split('\n').find((l) => l.includes(` ${topic} `));
    expect({ group, row: row?.trim().split(/\s+/).slice(1, 4) }).toEqual({ group, row: [topic, '0', String(offset)] });
  }
}

export async function expectReadCommitted(tools: KafkaTools, bootstrap: string): Promise<void> {
  const records = await tools.consumeCommitted(bootstrap, 'java-txn');
  expect(records.map(([, , value]) => value)).toEqual([...Array.from({ length: 10 }, (_, i) => `committed-${i}`), 'committed-after-abort']);
}

/** The idempotent producer's retried batch is a duplicate (its offsets again), its next batch appended after it. */
export async function expectIdempotentProducerGoesOn(client: WireClient, filled: Filled): Promise<void> {
  const retried = await produce(client, 'idempotent', 0, filled.lastBatch);
  expect({ errorCode: retried.errorCode, baseOffset: retried.baseOffset }).toEqual({ errorCode: 0, baseOffset: 2 });
  const next = await produce(client, 'idempotent', 0, recordBatch(['idem-4', 'idem-5'], filled.idempotent));
  expect({ errorCode: next.errorCode, baseOffset: next.baseOffset }).toEqual({ errorCode: 0, baseOffset: 4 });
  expect((await readPartition(client, 'idempotent', 0)).values).toEqual(['idem-0', 'idem-1', 'idem-2', 'idem-3', 'idem-4', 'idem-5']);
}

export async function expectSecurityRecords(tools: KafkaTools, bootstrap: string): Promise<void> {
  const admin = ['--bootstrap-server', bootstrap];
  expect((await tools.run('org.apache.kafka.tools.ConfigCommand', ...admin, '--describe', '--entity-type', 'users', '--entity-name', 'alice')).out).toContain('SCRAM-SHA-256=iterations=4096');
  expect((await tools.run('org.apache.kafka.tools.ConfigCommand', ...admin, '--describe', '--entity-type', 'clients', '--entity-name', 'slow-client')).out).toContain('producer_byte_rate=1024');
  expect((await tools.run('org.apache.kafka.tools.AclCommand', ...admin, '--list', '--topic', 'java-none')).out).toMatch(/principal=User:alice, host=\*, operation=READ, permissionType=ALLOW/);
}

/** The records alice's SCRAM login on the SASL listener reads from `topic` in group alice-group (at most 100). */
export async function aliceConsumes(tools: KafkaTools, saslBootstrap: string, topic: string): Promise<string[]> {
  const run = await tools.run('org.apache.kafka.tools.consumer.ConsoleConsumer', '--bootstrap-server', saslBootstrap,
    '--topic', topic, '--group', 'alice-group', '--from-beginning', '--max-messages', '100', '--timeout-ms', '15000',
    ...ALICE.flatMap((p) => ['--consumer-property', p]));
  return run.out.split('\n').filter((l) => l.startsWith('record '));
}

/** alice's SCRAM login on the SASL listener: her 100 records of java-none, none of java-gzip (no ACL). */
export async function expectAliceConsumes(tools: KafkaTools, saslBootstrap: string): Promise<void> {
  expect(await aliceConsumes(tools, saslBootstrap, 'java-none')).toHaveLength(100);
  expect(await aliceConsumes(tools, saslBootstrap, 'java-gzip')).toEqual([]);
}
