// The Java client, kafka-clients 4.4 (Apache Kafka's own), from test/clients/java/JavaClient.java: the
// idempotent producer with every codec, consumer groups under both protocols (classic and KIP-848's consumer),
// transactions at transaction version 2, Admin, SCRAM users and ACLs. One JVM runs every scenario; the test
// checks each on the broker's side: the batches on disk, and what a second client (our wire client) reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { CompressionType } from '../../protocol/records/batch-header.js';
import { brokerForFile } from '../helpers/broker-process.js';
import { batchesOnDisk } from '../helpers/disk-batches.js';
import { compileJava, javaArgs } from '../helpers/java.js';
import { runJsonClient } from '../helpers/json-client.js';
import { listenerPorts } from '../helpers/secure-broker.js';

const RECORDS = 100;
const CODECS = [['none', CompressionType.None], ['gzip', CompressionType.Gzip], ['snappy', CompressionType.Snappy], ['lz4', CompressionType.Lz4], ['zstd', CompressionType.Zstd]] as const;
const SCENARIOS = ['produce', 'consume-classic', 'consume-consumer', 'transactions', 'admin', 'security'];
const ZERO_UUID = '0'.repeat(32);
const ALL_RECORDS = [...Array(RECORDS).keys()];

const broker = brokerForFile({
  overrides: [
    'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
    'sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512',
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    // The PLAINTEXT clients (ANONYMOUS) administer; the SCRAM user gets only what its ACLs allow.
    'super.users=User:ANONYMOUS',
    'auto.create.topics.enable=false',
    'group.initial.rebalance.delay.ms=0',
    'offsets.topic.num.partitions=3',
  ],
});
let client: WireClient;
let results: Record<string, any>;

beforeAll(async () => {
  const classes = compileJava('JavaClient');
  const ports = listenerPorts(broker());
  client = await WireClient.connect(ports.PLAINTEXT);
  for (const name of [...CODECS.map(([codec]) => `java-${codec}`), 'java-txn']) {
    const res = await client.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(res.topics[0].errorCode).toBe(0);
  }
  const started = performance.now();
  // Each scenario reports its own error; the test for it fails, the others still check theirs.
  results = await runJsonClient('java', javaArgs('JavaClient', [`127.0.0.1:${ports.PLAINTEXT}`, `127.0.0.1:${ports.SASL_PLAINTEXT}`, ...SCENARIOS], classes));
  console.log(`JavaClient: ${SCENARIOS.length} scenarios in ${Math.round(performance.now() - started)} ms`);
}, 180_000);

afterAll(() => client?.close());

function scenario(name: string): any {
  const r = results[name];
  expect(r?.error).toBeUndefined();
  return r;
}

function committedOffset(group: string, topic: string): Promise<number> {
  return client.send(9, 7, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], groups: [], requireStable: true })
    .then((res: any) => {
      expect(res.topics[0].partitions[0].errorCode).toBe(0);
      return res.topics[0].partitions[0].committedOffset;
    });
}

describe('Java client 4.4', () => {
  it('the idempotent producer stores every codec as sent, with its producer id', () => {
    const produced = scenario('produce');
    for (const [codec, compression] of CODECS) {
      expect(produced[codec]).toEqual(ALL_RECORDS);
      const stored = batchesOnDisk(broker().dataDir, `java-${codec}`);
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.every((b) => b.magic === 2 && b.compression === compression && !b.isTransactional)).toBe(true);
      expect(stored.reduce((n, b) => n + b.records, 0)).toBe(RECORDS);
      // Idempotent: one producer id per producer, sequences checked by the broker.
      expect(new Set(stored.map((b) => b.producerId)).size).toBe(1);
      expect(stored[0]!.producerId).toBeGreaterThanOrEqual(0);
    }
  });

  for (const [protocol, topic, group, type] of [['classic', 'java-none', 'java-g-classic', 'Classic'], ['consumer', 'java-gzip', 'java-g-consumer', 'Consumer']] as const) {
    it(`a group.protocol=${protocol} consumer reads every record and its commit is what a second client reads`, async () => {
      const consumed = scenario(`consume-${protocol}`);
      expect(consumed.offsets).toEqual(ALL_RECORDS);
      // Key, value and header of every record as produced.
      expect(consumed.matching).toBe(RECORDS);
      expect(consumed.assignment).toEqual([`${topic}-0`]);
      expect([consumed.type, consumed.state, consumed.members]).toEqual([type, 'Stable', 1]);
      expect(await committedOffset(group, topic)).toBe(RECORDS);
      const listed = await client.send(16, 5, { statesFilter: [], typesFilter: [] });
      expect(listed.groups.find((g: any) => g.groupId === group)?.groupType).toBe(type.toLowerCase());
    });
  }

  it('transactions (version 2): a read_committed consumer sees only the committed ones, markers and offsets are stored', async () => {
    const txn = scenario('transactions');
    const committed = [...Array(10).keys()].map((i) => `committed-${i}`);
    expect(txn.readCommitted).toEqual([...committed, 'committed-after-abort']);
    expect(txn.readUncommitted).toEqual([...committed, ...committed.map((v) => v.replace('committed', 'aborted')), 'committed-after-abort']);
    expect(txn.transactionVersion).toBe(2);
    expect(txn.txnState).toBe('CompleteCommit');
    expect(txn.listed).toContain('java-txn');

    const stored = batchesOnDisk(broker().dataDir, 'java-txn');
    expect(stored.filter((b) => b.isControl).map((b) => b.marker)).toEqual(['COMMIT', 'ABORT', 'COMMIT']);
    const data = stored.filter((b) => !b.isControl);
    expect(data.every((b) => b.isTransactional && b.compression === CompressionType.Lz4)).toBe(true);
    // Transaction version 2 (KIP-890): EndTxn bumps the epoch at every transaction end, the marker carries the
    // bumped one, and the next transaction goes on with it.
    expect(stored.map((b) => [b.isControl ? b.marker : 'data', b.producerEpoch]).filter((e, i, all) => i === 0 || String(e) !== String(all[i - 1]))).toEqual([
      ['data', 0], ['COMMIT', 1], ['data', 1], ['ABORT', 2], ['data', 2], ['COMMIT', 3],
    ]);
    // The offsets sent within the committed transaction.
    expect(await committedOffset('java-txn-group', 'java-none')).toBe(42);
  });

  it('Admin creates, describes (by name and topic id), alters and deletes topics, lists groups and their offsets', async () => {
    const admin = scenario('admin');
    expect(admin.describedId).toBe(admin.topicId);
    expect(admin.describedById).toBe('java-admin');
    expect(admin.partitions).toBe(2);
    expect([admin.retentionMs, admin.retentionSource, admin.cleanupPolicy]).toEqual(['7200000', 'DYNAMIC_TOPIC_CONFIG', 'compact']);
    expect(admin.listedAfterDelete).toEqual(['java-admin']);
    expect(admin.groups).toMatchObject({ 'java-g-classic': 'Classic', 'java-g-consumer': 'Consumer' });
    expect(admin.classicOffset).toBe(RECORDS);
    expect(admin.nodes).toBe(1);

    // What the broker holds, through the wire client: the id (Java prints it base64url), three partitions, the configs.
    const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    const topic = metadata.topics.find((t: any) => t.name === 'java-admin');
    expect(Buffer.from(topic.topicId, 'hex').toString('base64url')).toBe(admin.topicId);
    expect(topic.partitions).toHaveLength(3);
    expect(metadata.topics.map((t: any) => t.name)).not.toContain('java-admin-gone');
    expect(metadata.clusterId).toBe(admin.clusterId);
    const configs = await client.send(32, 4, { resources: [{ resourceType: 2, resourceName: 'java-admin', configurationKeys: ['retention.ms', 'cleanup.policy'] }], includeSynonyms: false, includeDocumentation: false });
    expect(configs.results[0].configs.map((c: any) => [c.name, c.value]).sort()).toEqual([['cleanup.policy', 'compact'], ['retention.ms', '7200000']]);
  });

  it('SCRAM users and ACLs: the user Admin created logs in and writes only where its ACLs allow', async () => {
    const security = scenario('security');
    expect(security.scramUsers).toEqual({ carol: ['SCRAM_SHA_256:8192'] });
    expect(security.deletedAcls).toBe(1);
    expect(security.acls).toEqual(['CLUSTER:kafka-cluster:LITERAL:IDEMPOTENT_WRITE', 'TOPIC:carol-:PREFIXED:WRITE']);
    expect(security.allowedOffset).toBe(0);
    expect(security.denied).toBe('TopicAuthorizationException');
    expect(security.wrongPassword).toBe('SaslAuthenticationException');

    expect(batchesOnDisk(broker().dataDir, 'carol-orders').reduce((n, b) => n + b.records, 0)).toBe(1);
    expect(batchesOnDisk(broker().dataDir, 'secret')).toEqual([]);
    const users = await client.send(50, 0, { users: null });
    expect(users.results.map((r: any) => [r.user, r.errorCode, r.credentialInfos.map((c: any) => [c.mechanism, c.iterations])])).toEqual([['carol', 0, [[1, 8192]]]]);
    const acls = await client.send(29, 3, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: 'User:carol', hostFilter: null, operation: 1, permissionType: 1 });
    expect(acls.resources.map((r: any) => [r.resourceType, r.resourceName, r.patternType, r.acls.map((a: any) => a.operation)]).sort()).toEqual([
      [2, 'carol-', 4, [4]], // TOPIC, PREFIXED, WRITE
      [4, 'kafka-cluster', 3, [12]], // CLUSTER, LITERAL, IDEMPOTENT_WRITE
    ]);
  });
});
