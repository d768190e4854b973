// The versions kafkite raised to Kafka 4.4's and the features it advertises, over the wire on the real broker
// process. Each answer was compared with a Kafka 4.4.0 combined node sent the same request; the checks here
// are on the outcome (what a second request sees), not only on the fields the new version adds.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { WireClient } from '../../bench/lib/wire-client.js';

const ZERO_UUID = '0'.repeat(32);
const TOPIC = 'v44';
let broker: BrokerProcess;
let client: WireClient;
let topicId: string;

beforeAll(async () => {
  broker = await startBroker();
  client = await WireClient.connect(broker.port);
  const created = await client.send(ApiKey.CreateTopics, 7, {
    topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false,
  });
  expect(created.topics[0].errorCode).toBe(0);
  topicId = created.topics[0].topicId;
  const records = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from('hello 4.4'), headers: [] }] });
  const produced = await client.send(ApiKey.Produce, 12, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] });
  expect(produced.responses[0].partitionResponses[0].errorCode).toBe(0);
});

afterAll(async () => {
  client.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

describe('ApiVersions features', () => {
  it('v4 lists the features of a Kafka 4.4 node, at the levels kafkite implements', async () => {
    const res = await client.send(ApiKey.ApiVersions, 4, { clientSoftwareName: 'wire', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
    expect(res.supportedFeatures).toEqual([
      { name: 'metadata.version', minVersion: 26, maxVersion: 33 },
      { name: 'kraft.version', minVersion: 0, maxVersion: 1 },
      { name: 'transaction.version', minVersion: 0, maxVersion: 2 },
      { name: 'group.version', minVersion: 0, maxVersion: 1 },
      { name: 'share.version', minVersion: 0, maxVersion: 2 },
      { name: 'streams.version', minVersion: 0, maxVersion: 1 },
      { name: 'eligible.leader.replicas.version', minVersion: 0, maxVersion: 1 },
    ]);
    // Level 0 is not finalized: Kafka leaves out a disabled feature (ELR here; kraft.version 0 on a static quorum).
    expect(res.finalizedFeatures).toEqual([
      { name: 'metadata.version', maxVersionLevel: 33, minVersionLevel: 33 },
      { name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 },
      { name: 'group.version', maxVersionLevel: 1, minVersionLevel: 1 },
      { name: 'share.version', maxVersionLevel: 2, minVersionLevel: 2 },
      { name: 'streams.version', maxVersionLevel: 1, minVersionLevel: 1 },
    ]);
    // Share groups' membership APIs at Kafka 4.4's only version.
    for (const key of [ApiKey.ShareGroupHeartbeat, ApiKey.ShareGroupDescribe]) {
      expect(res.apiKeys.find((k: { apiKey: number }) => k.apiKey === key)).toMatchObject({ minVersion: 1, maxVersion: 1 });
    }
    // ShareFetch and ShareAcknowledge at 4.4's 1-2 (v2: ShareAcquireMode and RENEW, KIP-1206 and KIP-1222).
    for (const key of [ApiKey.ShareFetch, ApiKey.ShareAcknowledge]) {
      expect(res.apiKeys.find((k: { apiKey: number }) => k.apiKey === key)).toMatchObject({ minVersion: 1, maxVersion: 2 });
    }
  });

  it('v3 leaves out supported features whose minimum is 0, as Kafka 4.4 does (KAFKA-17011)', async () => {
    const res = await client.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'wire', clientSoftwareVersion: '1' });
    expect(res.supportedFeatures).toEqual([{ name: 'metadata.version', minVersion: 26, maxVersion: 33 }]);
    expect(res.finalizedFeatures.map((f: { name: string }) => f.name)).toEqual(['metadata.version', 'transaction.version', 'group.version', 'share.version', 'streams.version']);
  });
});

describe('versions raised to Kafka 4.4', () => {
  it('ApiVersions v5 checks the cluster and node the client names (KIP-1242), both or neither, as Kafka 4.4 does', async () => {
    const clusterId = (await client.send(ApiKey.DescribeCluster, 0, { includeClusterAuthorizedOperations: false })).clusterId;
    const ask = (id: string | null, nodeId: number) =>
      client.send(ApiKey.ApiVersions, 5, { clientSoftwareName: 'wire', clientSoftwareVersion: '1', clusterId: id, nodeId });
    const answered = await ask(clusterId, 1);
    expect(answered.errorCode).toBe(0);
    expect(answered.apiKeys.find((k: { apiKey: number }) => k.apiKey === ApiKey.ApiVersions)).toEqual({ apiKey: 18, minVersion: 0, maxVersion: 5 });
    expect((await ask(null, -1)).errorCode).toBe(0);
    const refused = { apiKeys: [], supportedFeatures: [], finalizedFeaturesEpoch: -1, finalizedFeatures: [] };
    expect(await ask('another-cluster', 1)).toMatchObject({ errorCode: 129, ...refused }); // REBOOTSTRAP_REQUIRED
    expect(await ask(clusterId, 2)).toMatchObject({ errorCode: 129, ...refused });
    expect(await ask(clusterId, -1)).toMatchObject({ errorCode: 42, ...refused }); // INVALID_REQUEST
    expect(await ask(null, 1)).toMatchObject({ errorCode: 42, ...refused });
    // The connection stays usable.
    expect((await ask(null, -1)).apiKeys.length).toBeGreaterThan(40);
  });


  it('Metadata v13 has the top-level error code and lists the topic with its id', async () => {
    const res = await client.send(ApiKey.Metadata, 13, { topics: [{ topicId: ZERO_UUID, name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    expect(res.errorCode).toBe(0);
    expect(res.topics.map((t: any) => [t.name, t.topicId, t.errorCode, t.partitions.length])).toEqual([[TOPIC, topicId, 0, 1]]);
  });

  it('ListOffsets v11 answers EARLIEST_PENDING_UPLOAD (-6) with no offset, there being no tiered storage; each special timestamp needs its version', async () => {
    const list = async (version: number, timestamp: number, name = TOPIC) => {
      const res = await client.send(ApiKey.ListOffsets, version, {
        replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }] }],
      });
      const p = res.topics[0].partitions[0];
      return [p.errorCode, p.offset];
    };
    expect(await list(11, -6)).toEqual([0, -1]);
    expect(await list(11, -1)).toEqual([0, 1]);
    expect(await list(11, -4)).toEqual([0, 0]);
    // As a Kafka 4.4 node answers (ReplicaManager.isListOffsetsTimestampUnsupported): UNSUPPORTED_VERSION below
    // the version that brought each timestamp, for any other negative one, and before the partition is looked up.
    for (const [version, timestamp] of [[10, -6], [8, -5], [7, -4], [6, -3], [11, -7]] as const) {
      expect(await list(version, timestamp), `v${version} ${timestamp}`).toEqual([35, -1]);
    }
    expect(await list(10, -6, 'no-such-topic')).toEqual([35, -1]);
    expect(await list(11, -6, 'no-such-topic')).toEqual([3, -1]);
  });

  it('ListTransactions v2 keeps the transactional ids TransactionalIdPattern matches whole (RE2/J), as Kafka 4.4 does', async () => {
    for (const transactionalId of ['tx-a', 'tx-b', 'other']) {
      const init = await client.send(ApiKey.InitProducerId, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
      expect(init.errorCode).toBe(0);
    }
    const list = async (transactionalIdPattern: string | null, stateFilters: string[] = []) => {
      const res = await client.send(ApiKey.ListTransactions, 2, { stateFilters, producerIdFilters: [], durationFilter: -1, transactionalIdPattern });
      return [res.errorCode, res.transactionStates.map((t: { transactionalId: string }) => t.transactionalId).sort(), res.unknownStateFilters];
    };
    expect(await list(null)).toEqual([0, ['other', 'tx-a', 'tx-b'], []]);
    expect(await list('')).toEqual([0, ['other', 'tx-a', 'tx-b'], []]);
    expect(await list('tx-.*')).toEqual([0, ['tx-a', 'tx-b'], []]);
    expect(await list('tx')).toEqual([0, [], []]); // the whole id must match
    expect(await list('.*a')).toEqual([0, ['tx-a'], []]);
    expect(await list('(?i)TX-A')).toEqual([0, ['tx-a'], []]);
    // INVALID_REGULAR_EXPRESSION, with the unknown state filters dropped too; a lookahead is not RE2.
    expect(await list('[', ['Bogus'])).toEqual([128, [], []]);
    expect(await list('tx-(?=a)a')).toEqual([128, [], []]);
  });

  it('Fetch v18 reads what was produced; a follower\'s HighWatermark (KIP-1166) changes nothing for a consumer', async () => {
    const res = await client.send(ApiKey.Fetch, 18, {
      clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
      isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
      topics: [{ topic: '', topicId, partitions: [{
        partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20,
        replicaDirectoryId: ZERO_UUID, highWatermark: 0,
      }] }],
    });
    expect(res.errorCode).toBe(0);
    const partition = res.responses[0].partitions[0];
    expect([partition.errorCode, partition.highWatermark]).toEqual([0, 1]);
    const records = partition.records as Buffer;
    const values = [...batchesIn(records)].flatMap((h) => decodeBatch(records.subarray(h.pos, h.pos + h.sizeInBytes)).records.map((r) => r.value!.toString()));
    expect(values).toEqual(['hello 4.4']);
  });

  it('DescribeGroups v6 answers a missing group GROUP_ID_NOT_FOUND; DeleteGroups v3 deletes, and the group is then missing', async () => {
    const group = `v44-${randomUUID()}`;
    const committed = await client.send(ApiKey.OffsetCommit, 9, {
      groupId: group, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' }] }],
    });
    expect(committed.topics[0].partitions[0].errorCode).toBe(0);
    const describe = async () => (await client.send(ApiKey.DescribeGroups, 6, { groups: [group], includeAuthorizedOperations: false })).groups[0];
    expect(await describe()).toMatchObject({ errorCode: 0, errorMessage: null, groupState: 'Empty' });

    const deleted = await client.send(ApiKey.DeleteGroups, 3, { groupsNames: [group, `${group}-missing`] });
    expect(deleted.results).toEqual([
      { groupId: group, errorCode: 0, errorMessage: null },
      { groupId: `${group}-missing`, errorCode: 69, errorMessage: null },
    ]);
    expect(await describe()).toMatchObject({ errorCode: 69, errorMessage: `Group ${group} not found.`, groupState: 'Dead' });
    // v5 still answers Dead without an error.
    const v5 = await client.send(ApiKey.DescribeGroups, 5, { groups: [group], includeAuthorizedOperations: false });
    expect(v5.groups[0]).toMatchObject({ errorCode: 0, groupState: 'Dead' });
  });

  it('DescribeCluster v2 lists this broker, not fenced, with or without fenced brokers asked for', async () => {
    for (const includeFencedBrokers of [false, true]) {
      const res = await client.send(ApiKey.DescribeCluster, 2, { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers });
      expect(res.errorCode).toBe(0);
      expect(res.brokers).toEqual([{ brokerId: 1, host: '127.0.0.1', port: broker.port, rack: null, isFenced: false }]);
    }
  });

  it('DescribeLogDirs v5: the log dir, not cordoned, holds the topic\'s partition with its bytes', async () => {
    const res = await client.send(ApiKey.DescribeLogDirs, 5, { topics: [{ topic: TOPIC, partitions: [0] }] });
    expect(res.errorCode).toBe(0);
    expect(res.results).toHaveLength(1);
    expect(res.results[0]).toMatchObject({ errorCode: 0, isCordoned: false });
    const [partition] = res.results[0].topics[0].partitions;
    expect(res.results[0].topics[0].name).toBe(TOPIC);
    expect(partition.partitionSize).toBeGreaterThan(0);
  });

  it('AlterPartitionReassignments v1 echoes AllowReplicationFactorChange; only the assignment in place is accepted', async () => {
    for (const allowReplicationFactorChange of [false, true]) {
      const res = await client.send(ApiKey.AlterPartitionReassignments, 1, {
        timeoutMs: 5000, allowReplicationFactorChange,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, replicas: [1] }, { partitionIndex: 0, replicas: [1, 2] }] }],
      });
      expect(res.allowReplicationFactorChange).toBe(allowReplicationFactorChange);
      expect(res.responses[0].partitions.map((p: any) => p.errorCode)).toEqual([0, 39]);
    }
    const listed = await client.send(ApiKey.ListPartitionReassignments, 0, { timeoutMs: 5000, topics: null });
    expect(listed.topics).toEqual([]);
  });

  it('Produce v13 appends to the topic its id names; an id of no topic is UNKNOWN_TOPIC_ID, as on Kafka 4.4', async () => {
    const records = () => encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from('by id'), headers: [] }] });
    const produce = (id: string) => client.send(ApiKey.Produce, 13, {
      transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: '', topicId: id, partitionData: [{ index: 0, records: records() }, { index: 5, records: records() }] }],
    });
    const byId = await produce(topicId);
    expect(byId.responses[0].topicId).toBe(topicId);
    expect(byId.responses[0].partitionResponses.map((p: any) => [p.index, p.errorCode, p.baseOffset])).toEqual([[0, 0, 1], [5, 3, -1]]);
    const unknownId = 'f'.repeat(32);
    const unknown = await produce(unknownId);
    expect(unknown.responses[0].topicId).toBe(unknownId);
    expect(unknown.responses[0].partitionResponses.map((p: any) => p.errorCode)).toEqual([100, 100]);
    // A second client by name reads the record at offset 1, and nothing else was appended.
    const other = await WireClient.connect(broker.port);
    const fetched = await other.send(ApiKey.Fetch, 12, {
      clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
      isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
      topics: [{ topic: TOPIC, topicId: ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 1, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: ZERO_UUID }] }],
    });
    other.close();
    const partition = fetched.responses[0].partitions[0];
    const data = partition.records as Buffer;
    expect(partition.highWatermark).toBe(2);
    expect([...batchesIn(data)].flatMap((h) => decodeBatch(data.subarray(h.pos, h.pos + h.sizeInBytes)).records.map((r) => r.value!.toString()))).toEqual(['by id']);
  });

  it('OffsetCommit and OffsetFetch v10 name topics by id; an id of no topic is UNKNOWN_TOPIC_ID, as on Kafka 4.4', async () => {
    const group = `v44-ids-${randomUUID()}`;
    const unknownId = 'f'.repeat(32);
    const partition = (partitionIndex: number) => ({ partitionIndex, committedOffset: 7, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: 'by id' });
    const committed = await client.send(ApiKey.OffsetCommit, 10, {
      groupId: group, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: '', topicId, partitions: [partition(0), partition(9)] }, { name: '', topicId: unknownId, partitions: [partition(0)] }],
    });
    const errors = committed.topics.flatMap((t: any) => t.partitions.map((p: any) => `${t.topicId === topicId ? 'id' : t.topicId}-${p.partitionIndex}:${p.errorCode}`)).sort();
    expect(errors).toEqual(['id-0:0', 'id-9:3', `${unknownId}-0:100`].sort());
    expect(committed.topics.every((t: any) => t.name === '')).toBe(true);

    const fetchV10 = (topics: unknown) => client.send(ApiKey.OffsetFetch, 10, {
      groupId: '', topics: [], requireStable: false, groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics }],
    });
    const byIds = (await fetchV10([{ name: '', topicId, partitionIndexes: [0, 1] }, { name: '', topicId: unknownId, partitionIndexes: [0] }])).groups[0];
    expect(byIds.errorCode).toBe(0);
    expect(byIds.topics).toEqual([
      { name: '', topicId, partitions: [
        { partitionIndex: 0, committedOffset: 7, committedLeaderEpoch: -1, metadata: 'by id', errorCode: 0 },
        { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
      ] },
      { name: '', topicId: unknownId, partitions: [{ partitionIndex: 0, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: 100 }] },
    ]);
    const all = (await fetchV10(null)).groups[0];
    expect(all.topics).toEqual([{ name: '', topicId, partitions: [{ partitionIndex: 0, committedOffset: 7, committedLeaderEpoch: -1, metadata: 'by id', errorCode: 0 }] }]);
    // The same commit, read by name at v9.
    const byName = await client.send(ApiKey.OffsetFetch, 9, {
      groupId: '', topics: [], requireStable: false, groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics: [{ name: TOPIC, topicId: ZERO_UUID, partitionIndexes: [0] }] }],
    });
    expect(byName.groups[0].topics).toEqual([{ name: TOPIC, topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 7, committedLeaderEpoch: -1, metadata: 'by id', errorCode: 0 }] }]);
  });

  it('TxnOffsetCommit v6 names topics by id; partitions the metadata lacks are UNKNOWN_TOPIC_OR_PARTITION at every version, as on Kafka 4.4', async () => {
    const transactionalId = `v44-txn-${randomUUID()}`;
    const group = `v44-txn-group-${randomUUID()}`;
    const init = await client.send(ApiKey.InitProducerId, 5, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    expect(init.errorCode).toBe(0);
    const unknownId = 'f'.repeat(32);
    const partition = (partitionIndex: number) => ({ partitionIndex, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: '' });
    const commit = (version: number, topics: unknown) => client.send(ApiKey.TxnOffsetCommit, version, {
      transactionalId, groupId: group, producerId: init.producerId, producerEpoch: init.producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics,
    });
    const errors = (res: any) => res.topics.flatMap((t: any) => t.partitions.map((p: any) => `${t.topicId === topicId ? 'id' : t.name || t.topicId}-${p.partitionIndex}:${p.errorCode}`)).sort();
    // v6 adds the offsets partition to the transaction itself (transaction version 2), as v5 does.
    const v6 = await commit(6, [{ name: '', topicId, partitions: [partition(0), partition(9)] }, { name: '', topicId: unknownId, partitions: [partition(0)] }]);
    expect(errors(v6)).toEqual(['id-0:0', 'id-9:3', `${unknownId}-0:100`].sort());
    expect(v6.topics.every((t: any) => t.name === '')).toBe(true);
    const v5 = await commit(5, [{ name: TOPIC, topicId: ZERO_UUID, partitions: [partition(9)] }, { name: 'no-such-topic', topicId: ZERO_UUID, partitions: [partition(0)] }]);
    expect(errors(v5)).toEqual([`${TOPIC}-9:3`, 'no-such-topic-0:3'].sort());
    const ended = await client.send(ApiKey.EndTxn, 5, { transactionalId, producerId: init.producerId, producerEpoch: init.producerEpoch, committed: true });
    expect(ended.errorCode).toBe(0);
    // Committed with the transaction: offset 5 for partition 0 only.
    const fetched = await client.send(ApiKey.OffsetFetch, 10, {
      groupId: '', topics: [], requireStable: true, groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics: null }],
    });
    expect(fetched.groups[0].topics).toEqual([{ name: '', topicId, partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }] }]);
  });

  it('ConsumerGroupDescribe v1 gives each member its type: 1, a consumer member (KIP-1099)', async () => {
    const group = `v44-848-${randomUUID()}`;
    const joined = await client.send(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: group, memberId: randomUUID(), memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: [TOPIC], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    expect(joined.errorCode).toBe(0);
    const res = await client.send(ApiKey.ConsumerGroupDescribe, 1, { groupIds: [group], includeAuthorizedOperations: false });
    expect(res.groups[0].errorCode).toBe(0);
    expect(res.groups[0].members.map((m: any) => [m.memberId, m.memberType])).toEqual([[joined.memberId, 1]]);
  });
});
