// ACLs on the real broker with Kafka's StandardAuthorizer semantics, as User:ANONYMOUS on PLAINTEXT: created with
// kafkajs while ANONYMOUS is a super user, then enforced after a restart without super users (so they were
// persisted in __cluster_metadata-0), checked with our wire client on every kind of request.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes, type AclEntry,
} from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

const ZERO_UUID = '0'.repeat(32);
const AUTHORIZER = 'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const E = { NONE: 0, TXN_AUTH: 53, TOPIC_AUTH: 29, GROUP_AUTH: 30, CLUSTER_AUTH: 31, INVALID_REQUEST: 42, SECURITY_DISABLED: 54 };
const OP = { READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8, CLUSTER_ACTION: 9, DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12 };
const bits = (...ops: number[]) => ops.reduce((m, op) => m | (1 << op), 0);
const TOPIC_OPS = bits(OP.READ, OP.WRITE, OP.CREATE, OP.DELETE, OP.ALTER, OP.DESCRIBE, OP.DESCRIBE_CONFIGS, OP.ALTER_CONFIGS);
const CLUSTER_OPS = bits(OP.CREATE, OP.ALTER, OP.DESCRIBE, OP.CLUSTER_ACTION, OP.DESCRIBE_CONFIGS, OP.ALTER_CONFIGS, OP.IDEMPOTENT_WRITE);

let dataDir = '';
let broker: BrokerProcess | undefined;

afterAll(async () => {
  if (broker) await broker.stop();
  broker?.cleanup();
});

function metadata(client: WireClient, topics: string[] | null, allowAutoTopicCreation = false, version = 10): Promise<any> {
  return client.send(3, version, {
    topics: topics === null ? null : topics.map((name) => ({ topicId: ZERO_UUID, name })),
    allowAutoTopicCreation, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true,
  });
}

function produce(client: WireClient, topic: string, value: string): Promise<any> {
  const records = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from(value), headers: [] }] });
  return client.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
}

function fetch(client: WireClient, topic: string): Promise<any> {
  return client.send(1, 12, {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
    isolationLevel: 0, sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
    topics: [{ topic, topicId: ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
  });
}

const fetchError = async (client: WireClient, topic: string): Promise<number> => (await fetch(client, topic)).responses[0].partitions[0].errorCode;

function acl(resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes, over: Partial<AclEntry> = {}): AclEntry {
  return {
    resourceType, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:ANONYMOUS', host: '*',
    operation, permissionType: AclPermissionTypes.ALLOW, ...over,
  };
}

describe('without an authorizer', () => {
  it('KIP-430 masks hold every operation of the resource type; ACL APIs answer SECURITY_DISABLED', async () => {
    const b = await startBroker();
    try {
      const client = await WireClient.connect(b.port);
      const meta = await metadata(client, ['plain'], true);
      expect(meta.topics[0].errorCode).toBe(E.NONE);
      expect(meta.topics[0].topicAuthorizedOperations).toBe(TOPIC_OPS);
      expect(meta.clusterAuthorizedOperations).toBe(CLUSTER_OPS);
      const cluster = await client.send(60, 1, { includeClusterAuthorizedOperations: true, endpointType: 1, includeFencedBrokers: false });
      expect(cluster.clusterAuthorizedOperations).toBe(CLUSTER_OPS);
      const created = await client.send(30, 3, { creations: [{ resourceType: 2, resourceName: 't', resourcePatternType: 3, principal: 'User:a', host: '*', operation: 3, permissionType: 3 }] });
      expect(created.results[0].errorCode).toBe(E.SECURITY_DISABLED);
      client.close();
    } finally {
      await b.stop();
      b.cleanup();
    }
  });
});

describe('StandardAuthorizer', () => {
  beforeAll(async () => {
    broker = await startBroker({ overrides: [AUTHORIZER, 'super.users=User:ANONYMOUS', 'auto.create.topics.enable=true'] });
    dataDir = broker.dataDir;
    const kafka = new Kafka({ clientId: 'acl-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: ['visible', 'hidden', 'pre-a', 'pre-b', 'other'].map((topic) => ({ topic })) });
    await admin.createAcls({
      acl: [
        acl(AclResourceTypes.TOPIC, 'visible', AclOperationTypes.WRITE),
        acl(AclResourceTypes.TOPIC, 'pre-', AclOperationTypes.READ, { resourcePatternType: ResourcePatternTypes.PREFIXED }),
        acl(AclResourceTypes.TOPIC, 'pre-b', AclOperationTypes.READ, { permissionType: AclPermissionTypes.DENY }),
        acl(AclResourceTypes.TOPIC, 'other', AclOperationTypes.READ, { host: '10.9.9.9' }),
        acl(AclResourceTypes.GROUP, 'g1', AclOperationTypes.READ, { principal: 'User:*' }),
        acl(AclResourceTypes.CLUSTER, 'kafka-cluster', AclOperationTypes.ALTER),
        acl(AclResourceTypes.CLUSTER, 'kafka-cluster', AclOperationTypes.DESCRIBE),
        acl(AclResourceTypes.TRANSACTIONAL_ID, 'tx-ok', AclOperationTypes.WRITE),
      ],
    });
    // Created twice: still one ACL (AclControlManager ignores duplicates).
    await admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'visible', AclOperationTypes.WRITE)] });
    const all = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY, resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY,
    });
    expect(all.resources.flatMap((r) => r.acls)).toHaveLength(8);
    await admin.disconnect();

    // The super user sees everything.
    const client = await WireClient.connect(broker.port);
    const meta = await metadata(client, null);
    expect(meta.topics.map((t: any) => t.name).sort()).toEqual(['hidden', 'other', 'pre-a', 'pre-b', 'visible']);
    expect(meta.clusterAuthorizedOperations).toBe(CLUSTER_OPS);
    client.close();

    // Restart without super users: what follows is enforced from the ACLs read back from the metadata log.
    expect(await broker.stop()).toBe(0);
    broker = await startBroker({ dataDir, overrides: [AUTHORIZER, 'auto.create.topics.enable=true'] });
  });

  it('persists the ACLs in __cluster_metadata-0', () => {
    expect(existsSync(join(dataDir, '__cluster_metadata-0', '00000000000000000000.log'))).toBe(true);
  });

  it('filters metadata to the topics the principal may describe, with their operations', async () => {
    const client = await WireClient.connect(broker!.port);
    const all = await metadata(client, null);
    // DESCRIBE is implied by WRITE (visible) and by the prefixed READ (pre-a, pre-b: the DENY is for READ only).
    expect(all.topics.map((t: any) => t.name).sort()).toEqual(['pre-a', 'pre-b', 'visible']);
    const ops = Object.fromEntries(all.topics.map((t: any) => [t.name, t.topicAuthorizedOperations]));
    expect(ops).toEqual({ visible: bits(OP.WRITE, OP.DESCRIBE), 'pre-a': bits(OP.READ, OP.DESCRIBE), 'pre-b': bits(OP.DESCRIBE) });
    expect(all.clusterAuthorizedOperations).toBe(bits(OP.ALTER, OP.DESCRIBE));

    const named = await metadata(client, ['hidden', 'visible', 'never-made'], true);
    expect(named.topics.map((t: any) => [t.name, t.errorCode])).toEqual([['hidden', E.TOPIC_AUTH], ['visible', E.NONE], ['never-made', E.TOPIC_AUTH]]);
    expect(named.topics[0].partitions).toEqual([]);
    // No CREATE anywhere: auto-creation was refused, nothing reached the disk.
    expect(existsSync(join(dataDir, 'never-made-0'))).toBe(false);
    const cluster = await client.send(60, 1, { includeClusterAuthorizedOperations: true, endpointType: 1, includeFencedBrokers: false });
    expect(cluster.clusterAuthorizedOperations).toBe(bits(OP.ALTER, OP.DESCRIBE));
    client.close();
  });

  it('allows and denies produce and fetch by topic, prefix, deny and host', async () => {
    const client = await WireClient.connect(broker!.port);
    expect((await produce(client, 'visible', 'ok')).responses[0].partitionResponses[0].errorCode).toBe(E.NONE);
    expect((await produce(client, 'hidden', 'no')).responses[0].partitionResponses[0].errorCode).toBe(E.TOPIC_AUTH);
    expect((await produce(client, 'pre-a', 'no')).responses[0].partitionResponses[0].errorCode).toBe(E.TOPIC_AUTH);
    expect(await fetchError(client, 'pre-a')).toBe(E.NONE);
    expect(await fetchError(client, 'pre-b')).toBe(E.TOPIC_AUTH); // the DENY wins over the prefixed ALLOW
    expect(await fetchError(client, 'other')).toBe(E.TOPIC_AUTH); // allowed from another host only
    expect(await fetchError(client, 'visible')).toBe(E.TOPIC_AUTH); // WRITE does not imply READ
    client.close();
  });

  it('checks groups, admin and cluster operations', async () => {
    const client = await WireClient.connect(broker!.port);
    const find = await client.send(10, 4, { key: '', keyType: 0, coordinatorKeys: ['g1', 'g2'] });
    expect(find.coordinators.map((c: any) => [c.key, c.errorCode])).toEqual([['g1', E.NONE], ['g2', E.GROUP_AUTH]]);
    const join = await client.send(11, 5, {
      groupId: 'g2', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null,
      protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
    });
    expect(join.errorCode).toBe(E.GROUP_AUTH);
    const commit = await client.send(8, 8, {
      groupId: 'g1', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 'pre-a', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] },
        { name: 'hidden', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });
    expect(commit.topics.map((t: any) => [t.name, t.partitions[0].errorCode])).toEqual([['pre-a', E.NONE], ['hidden', E.TOPIC_AUTH]]);
    const create = await client.send(19, 7, { topics: [{ name: 'new-one', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(create.topics[0].errorCode).toBe(E.TOPIC_AUTH);
    const configs = await client.send(32, 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: null }, { resourceType: 2, resourceName: 'visible', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
    expect(configs.results.map((r: any) => r.errorCode)).toEqual([E.CLUSTER_AUTH, E.TOPIC_AUTH]);
    const producerId = await client.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
    expect(producerId.errorCode).toBe(E.NONE); // WRITE on some topic (visible) is enough for an idempotent producer (KIP-679)
    client.close();
  });

  it('checks transactional ids', async () => {
    const client = await WireClient.connect(broker!.port);
    const find = await client.send(10, 4, { key: '', keyType: 1, coordinatorKeys: ['tx-ok', 'tx-denied'] });
    expect(find.coordinators.map((c: any) => [c.key, c.errorCode])).toEqual([['tx-ok', E.NONE], ['tx-denied', E.TXN_AUTH]]);
    const init = (transactionalId: string) => client.send(22, 4, { transactionalId, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
    expect((await init('tx-denied')).errorCode).toBe(E.TXN_AUTH);
    const ok = await init('tx-ok');
    expect(ok.errorCode).toBe(E.NONE);
    const end = await client.send(26, 3, { transactionalId: 'tx-denied', producerId: ok.producerId, producerEpoch: ok.producerEpoch, committed: true });
    expect(end.errorCode).toBe(E.TXN_AUTH);
    const produce = await client.send(0, 9, {
      transactionalId: 'tx-denied', acks: -1, timeoutMs: 5000,
      topicData: [{ name: 'visible', partitionData: [{ index: 0, records: encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from('t'), headers: [] }] }) }] }],
    });
    expect(produce.responses[0].partitionResponses[0].errorCode).toBe(E.TXN_AUTH);
    client.close();
  });

  it('describes with every filter form, refuses invalid ACLs and deletes live', async () => {
    const client = await WireClient.connect(broker!.port);
    const describe = (over: Record<string, unknown>) => client.send(29, 3, {
      resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1, ...over,
    });
    const count = (res: any) => res.resources.flatMap((r: any) => r.acls).length;
    expect(count(await describe({}))).toBe(8);
    // MATCH: every ACL that applies to topic pre-b (the prefixed ALLOW and the literal DENY).
    expect(count(await describe({ resourceTypeFilter: 2, resourceNameFilter: 'pre-b', patternTypeFilter: 2 }))).toBe(2);
    expect(count(await describe({ resourceTypeFilter: 2, patternTypeFilter: 4 }))).toBe(1);
    expect(count(await describe({ principalFilter: 'User:*' }))).toBe(1);
    expect(count(await describe({ permissionType: 2 }))).toBe(1);
    expect((await describe({ resourceTypeFilter: 0 })).errorCode).toBe(E.INVALID_REQUEST);

    const bad = await client.send(30, 3, {
      creations: [
        { resourceType: 4, resourceName: 'not-the-cluster', resourcePatternType: 3, principal: 'User:x', host: '*', operation: 7, permissionType: 3 },
        { resourceType: 2, resourceName: 't', resourcePatternType: 3, principal: 'nocolon', host: '*', operation: 3, permissionType: 3 },
        { resourceType: 2, resourceName: 't', resourcePatternType: 2, principal: 'User:x', host: '*', operation: 3, permissionType: 3 },
        // A host with a '/' is a CIDR block (KIP-1276), checked as Kafka 4.4 checks it.
        { resourceType: 2, resourceName: 't', resourcePatternType: 3, principal: 'User:x', host: '10.0.0.0/33', operation: 3, permissionType: 3 },
      ],
    });
    expect(bad.results.map((r: any) => r.errorCode)).toEqual([E.INVALID_REQUEST, E.INVALID_REQUEST, E.INVALID_REQUEST, E.INVALID_REQUEST]);
    expect(bad.results[3].errorMessage).toBe("Invalid CIDR notation '10.0.0.0/33': Value [33] not in range [0,32]");

    const deleted = await client.send(31, 3, {
      filters: [{ resourceTypeFilter: 2, resourceNameFilter: 'pre-b', patternTypeFilter: 3, principalFilter: null, hostFilter: null, operation: 1, permissionType: 2 }],
    });
    expect(deleted.filterResults[0].matchingAcls.map((a: any) => [a.resourceName, a.permissionType])).toEqual([['pre-b', 2]]);
    expect(await fetchError(client, 'pre-b')).toBe(E.NONE);
    expect(count(await describe({}))).toBe(7);
    client.close();
  });
});
