// The differential suite's catalogue: the smallest request of every version kafkite advertises, and hand-written
// sequences for the happy paths and the bad input Kafka clients meet.
import { randomBytes } from 'node:crypto';
import { encodeRequest, type WireClient } from '../../bench/lib/wire-client.js';
import { MESSAGE_SCHEMAS } from '../../protocol/generated/schemas.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { withDefaults } from '../protocol/message-arbitraries.js';
import type { Scenario, Session } from './differential.js';

/** A request of `apiKey` with every field `partial` leaves out at its schema default. */
export function request(apiKey: number, partial: Record<string, unknown> = {}): Record<string, unknown> {
  const schema = MESSAGE_SCHEMAS.find((m) => m.type === 'request' && m.apiKey === apiKey);
  if (!schema) throw new Error(`no request schema for API key ${apiKey}`);
  return withDefaults(schema.fields, partial);
}

/** Fields a default-valued request cannot leave at their defaults and still be answered. */
const MINIMAL_PATCHES: Record<number, Record<string, unknown>> = {
  // acks=0 gets no response at all.
  0: { acks: -1, timeoutMs: 1000 },
  // v3+ names its client; an empty name is refused (a scenario of its own).
  18: { clientSoftwareName: 'conformance', clientSoftwareVersion: '1' },
  // The UNKNOWN (0) filter values are invalid; ANY is the smallest valid filter.
  29: { resourceTypeFilter: 1, patternTypeFilter: 1, operation: 1, permissionType: 1 },
};

/** For each advertised API key and version, the request with every field at its schema default. */
export function minimalScenarios(advertised: ReadonlyArray<{ apiKey: number; minVersion: number; maxVersion: number }>): Scenario[] {
  const scenarios: Scenario[] = [];
  for (const { apiKey, minVersion, maxVersion } of advertised) {
    const body = request(apiKey, MINIMAL_PATCHES[apiKey]);
    for (let version = minVersion; version <= maxVersion; version++) {
      scenarios.push({
        id: `minimal-${apiKey}-v${version}`,
        api: apiKey,
        run: async (s) => {
          if (apiKey === LIST_TRANSACTIONS) await untilCoordinatorsLoaded(s, version, body);
          await s.call(apiKey, version, body);
        },
      });
    }
  }
  return scenarios;
}

const LIST_TRANSACTIONS = 66;

/**
 * ListTransactions asks every transaction coordinator partition: Kafka answers COORDINATOR_LOAD_IN_PROGRESS while
 * __transaction_state, which a concurrent scenario may have just created, is loading (clients retry it), so the
 * scenario waits that out unrecorded first.
 */
async function untilCoordinatorsLoaded(s: Session, version: number, body: unknown): Promise<void> {
  for (let tries = 0; tries < 100 && (await s.setup(LIST_TRANSACTIONS, version, body)).errorCode === 14; tries++) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The first FindCoordinator a fresh broker gets, for a group and for a transaction, before anything created them. */
export const COLD_SCENARIOS: Scenario[] = [0, 1].map((keyType) => ({
  id: `first-find-coordinator-${keyType === 0 ? 'group' : 'transaction'}`,
  api: 10,
  cold: true,
  run: async (s) => void (await s.call(10, 3, request(10, { key: `cold-${keyType}`, keyType }))),
}));

// --- helpers for the hand-written scenarios ---------------------------------------------------------------------

const TIMESTAMP = 1_700_000_000_000;

export function batch(values: string[], opts: { producerId?: number; producerEpoch?: number; baseSequence?: number; isTransactional?: boolean } = {}): Buffer {
  return encodeBatch({
    baseOffset: 0,
    records: values.map((v, i) => ({ offset: i, timestamp: TIMESTAMP + i, key: Buffer.from(`k${i}`), value: Buffer.from(v), headers: [] })),
    ...opts,
  });
}

export function produce(topic: string, records: Buffer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return request(0, { acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }], ...extra });
}

/**
 * Creates a topic without recording it, and waits until its partitions are led: Kafka answers CreateTopics
 * before its broker has taken the leadership (ListOffsets answers NOT_LEADER_OR_FOLLOWER until then).
 */
export async function createTopic(s: Session, name: string, partitions = 1): Promise<string> {
  const created = await s.setup(19, 7, request(19, { topics: [{ name, numPartitions: partitions, replicationFactor: 1 }], timeoutMs: 10_000 }));
  if (created.topics[0].errorCode !== 0) throw new Error(`${s.target.name}: CreateTopics ${name}: ${created.topics[0].errorCode}`);
  const listOffsets = request(2, { replicaId: -1, topics: [{ name, partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: -1 })) }] });
  for (let tries = 0; ; tries++) {
    const res = await s.setup(2, 7, listOffsets);
    if (res.topics[0].partitions.every((p: { errorCode: number }) => p.errorCode === 0)) break;
    if (tries > 200) throw new Error(`${s.target.name}: ${name} has no leader`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const metadata = await s.setup(3, 12, request(3, { topics: [{ name }] }));
  return metadata.topics[0].topicId;
}

function fetchRequest(topic: string, topicId: string, fetchOffset = 0): Record<string, unknown> {
  return request(1, {
    maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, sessionEpoch: -1,
    topics: [{ topic, topicId, partitions: [{ partition: 0, fetchOffset, currentLeaderEpoch: -1, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
  });
}

function randomTopicId(): string {
  return randomBytes(16).toString('hex');
}

const SASL_USERS: Record<string, string> = { admin: 'admin-secret', alice: 'alice-secret' };

/** A SASL_PLAINTEXT connection authenticated with PLAIN, the handshake and authentication recorded. */
async function saslConnection(s: Session, user: string, password = SASL_USERS[user]!): Promise<WireClient> {
  const client = await s.connect('SASL_PLAINTEXT');
  await s.call(17, 1, { mechanism: 'PLAIN' }, { client });
  await s.call(36, 2, { authBytes: Buffer.from(`\u0000${user}\u0000${password}`) }, { client });
  return client;
}

function initRequest(transactionalId: string): Record<string, unknown> {
  return request(22, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
}

/** InitProducerId v4, unrecorded: Kafka answers COORDINATOR_LOAD_IN_PROGRESS while it loads the id's partition; clients retry. */
async function initProducerId(s: Session, transactionalId: string): Promise<{ errorCode: number; producerId: number; producerEpoch: number }> {
  let res = await s.setup(22, 4, initRequest(transactionalId));
  for (let tries = 0; res.errorCode === 14 && tries < 100; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    res = await s.setup(22, 4, initRequest(transactionalId));
  }
  return res;
}

/** What a read_committed consumer sees of a partition: offsets and values, control batches marked, not bytes. */
async function observeCommitted(s: Session, topic: string, topicId: string): Promise<void> {
  const res = await s.setup(1, 12, { ...fetchRequest(topic, topicId), isolationLevel: 1 });
  const { records, ...partition } = res.responses[0].partitions[0];
  const buf: Buffer = records;
  const batches = [...batchesIn(buf)].map((h) => ({
    baseOffset: h.baseOffset, lastOffset: h.lastOffset, isTransactional: h.isTransactional, isControl: h.isControl,
    values: h.isControl ? [] : decodeBatch(buf.subarray(h.pos, h.pos + h.sizeInBytes)).records.map((r) => r.value?.toString()),
  }));
  s.observe('Fetch v12 read_committed', { ...partition, batches });
}

/** A classic consumer group's JoinGroup with one range protocol (its metadata a v1 subscription to nothing). */
function joinGroup(groupId: string, memberId: string): Record<string, unknown> {
  return request(11, {
    groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from([0, 1, 0, 0, 0, 0, 0, 0, 0, 0]) }],
  });
}

/** Sends a request with a version its codec was not made for: the frame of `version`, the header saying `claimed`. */
async function unsupportedVersion(s: Session, apiKey: number, version: number, claimed: number, body: unknown, decodeAs: number): Promise<void> {
  const client = await s.connect();
  const frame = encodeRequest(apiKey, version, 1, body, 'conformance');
  frame.writeInt16BE(claimed, 6);
  await s.callRaw(client, frame, 1, apiKey, decodeAs, `v${claimed} (unsupported)`);
}

// --- hand-written scenarios ---------------------------------------------------------------------------------------

export const HAND_WRITTEN_SCENARIOS: Scenario[] = [
  {
    id: 'produce-fetch-happy-path',
    api: 0,
    async run(s) {
      const topicId = await createTopic(s, 'happy');
      await s.call(0, 9, produce('happy', batch(['a', 'b', 'c'])));
      await s.call(0, 3, produce('happy', batch(['d'])));
      await s.call(1, 12, fetchRequest('happy', topicId), { label: 'from 0' });
      await s.call(1, 13, fetchRequest('happy', topicId, 3), { label: 'from 3 by topic id' });
      await s.call(1, 4, fetchRequest('happy', topicId, 4), { label: 'at the end' });
    },
  },
  {
    id: 'list-offsets-happy-path',
    api: 2,
    async run(s) {
      await createTopic(s, 'offsets');
      await s.setup(0, 9, produce('offsets', batch(['a', 'b'])));
      for (const [label, timestamp] of [['latest', -1], ['earliest', -2], ['max timestamp', -3], ['by time', TIMESTAMP + 1]] as const) {
        await s.call(2, 7, request(2, { replicaId: -1, topics: [{ name: 'offsets', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }] }), { label });
      }
    },
  },
  {
    // A new topic's leader epoch is 0 on Kafka too; a client naming a newer one is ahead of the broker (Kafka's
    // Partition.checkCurrentLeaderEpoch: UNKNOWN_LEADER_EPOCH), an unknown epoch ends nowhere (LeaderEpochFileCache.endOffsetFor).
    id: 'leader-epochs-new-topic',
    api: 23,
    async run(s) {
      const topicId = await createTopic(s, 'epochs');
      await s.setup(0, 9, produce('epochs', batch(['a', 'b'])));
      for (const [currentLeaderEpoch, leaderEpoch] of [[-1, -1], [-1, 0], [-1, 1], [0, 0], [1, 0]]) {
        await s.call(23, 4, request(23, { replicaId: -2, topics: [{ topic: 'epochs', partitions: [{ partition: 0, currentLeaderEpoch, leaderEpoch }] }] }),
          { label: `current ${currentLeaderEpoch}, epoch ${leaderEpoch}` });
      }
      for (const currentLeaderEpoch of [0, 1]) {
        await s.call(2, 9, request(2, { replicaId: -1, topics: [{ name: 'epochs', partitions: [{ partitionIndex: 0, currentLeaderEpoch, timestamp: -1 }] }] }),
          { label: `list offsets, current ${currentLeaderEpoch}` });
        const fetch = fetchRequest('epochs', topicId) as { topics: Array<{ partitions: Array<{ currentLeaderEpoch: number }> }> };
        fetch.topics[0]!.partitions[0]!.currentLeaderEpoch = currentLeaderEpoch;
        await s.call(1, 16, fetch, { label: `fetch, current ${currentLeaderEpoch}` });
      }
    },
  },
  {
    id: 'produce-unknown-topic',
    api: 0,
    run: async (s) => void (await s.call(0, 9, produce('no-such-topic', batch(['x'])))),
  },
  {
    id: 'metadata-unknown-topic-and-id',
    api: 3,
    async run(s) {
      await s.call(3, 12, request(3, { topics: [{ name: 'no-such-topic' }] }), { label: 'by name' });
      await s.call(3, 12, request(3, { topics: [{ topicId: randomTopicId(), name: null }] }), { label: 'by id' });
    },
  },
  {
    id: 'fetch-unknown-topic-id',
    api: 1,
    run: async (s) => void (await s.call(1, 13, fetchRequest('', randomTopicId()))),
  },
  {
    id: 'update-features-refused',
    api: 57,
    // FeatureControlManager.updateFeature's refusals, validated only (v1+), so that neither node changes a level.
    async run(s) {
      const update = (feature: string, maxVersionLevel: number, upgradeType = 1) =>
        request(57, { featureUpdates: [{ feature, maxVersionLevel, upgradeType }], validateOnly: true });
      await s.call(57, 1, update('group.version', 0), { label: 'a downgrade as an upgrade' });
      await s.call(57, 2, update('no.such.feature', 1), { label: 'an unknown feature' });
      await s.call(57, 2, update('group.version', -1), { label: 'a negative level' });
      await s.call(57, 1, update('group.version', 1, 9), { label: 'an unknown upgrade type' });
      await s.call(57, 2, update('group.version', 1), { label: 'the level it has' });
    },
  },
  {
    id: 'api-versions-unsupported-version',
    api: 18,
    // Kafka answers an ApiVersions it cannot parse with v0 and UNSUPPORTED_VERSION (KIP-511).
    run: (s) => unsupportedVersion(s, 18, 3, 127, request(18, MINIMAL_PATCHES[18]), 0),
  },
  {
    id: 'api-versions-invalid-client-name',
    api: 18,
    run: async (s) => void (await s.call(18, 3, request(18, { clientSoftwareName: '-bad name-', clientSoftwareVersion: '1' }))),
  },
  {
    id: 'metadata-unsupported-version',
    api: 3,
    run: (s) => unsupportedVersion(s, 3, 12, 99, request(3, { topics: [] }), 12),
  },
  {
    id: 'produce-invalid-acks',
    api: 0,
    async run(s) {
      await createTopic(s, 'acks');
      await s.call(0, 9, produce('acks', batch(['x']), { acks: 2 }));
    },
  },
  {
    id: 'produce-batch-too-large',
    api: 0,
    async run(s) {
      await createTopic(s, 'large');
      await s.call(0, 9, produce('large', batch(['x'.repeat(150_000)])));
    },
  },
  {
    id: 'produce-crc-error',
    api: 0,
    async run(s) {
      await createTopic(s, 'crc');
      const corrupt = batch(['payload']);
      corrupt[corrupt.length - 1] ^= 0xff;
      await s.call(0, 9, produce('crc', corrupt));
      await s.call(2, 7, request(2, { replicaId: -1, topics: [{ name: 'crc', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] }), { label: 'nothing stored' });
    },
  },
  {
    id: 'produce-wrong-magic-and-two-batches',
    api: 0,
    async run(s) {
      await createTopic(s, 'magic');
      const wrongMagic = batch(['x']);
      wrongMagic[16] = 1;
      await s.call(0, 9, produce('magic', wrongMagic), { label: 'magic 1' });
      await s.call(0, 9, produce('magic', Buffer.concat([batch(['a']), batch(['b'])])), { label: 'two batches' });
      await s.call(0, 9, produce('magic', Buffer.alloc(0)), { label: 'no batch' });
    },
  },
  {
    id: 'create-topic-bad-config',
    api: 19,
    async run(s) {
      await s.call(19, 7, request(19, { topics: [{ name: 'bad-config', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: 'abc' }] }], timeoutMs: 5000 }));
      await s.call(3, 12, request(3, { topics: [{ name: 'bad-config' }] }), { label: 'not created' });
    },
  },
  {
    id: 'incremental-alter-configs-bad-value',
    api: 44,
    async run(s) {
      await createTopic(s, 'bad-alter');
      await s.call(44, 1, request(44, { resources: [{ resourceType: 2, resourceName: 'bad-alter', configs: [{ name: 'cleanup.policy', configOperation: 0, value: 'sometimes' }] }] }));
      await s.call(32, 4, request(32, { resources: [{ resourceType: 2, resourceName: 'bad-alter', configurationKeys: ['cleanup.policy'] }] }), { label: 'unchanged' });
    },
  },
  {
    id: 'sasl-unauthorized-principal',
    api: 3,
    async run(s) {
      await createTopic(s, 'secret');
      const alice = await saslConnection(s, 'alice');
      await s.call(3, 12, request(3, { topics: [{ name: 'secret' }] }), { client: alice, label: 'as alice' });
      await s.call(0, 9, produce('secret', batch(['x'])), { client: alice, label: 'as alice' });
      await s.call(19, 7, request(19, { topics: [{ name: 'alice-new', numPartitions: 1, replicationFactor: 1 }], timeoutMs: 5000 }), { client: alice, label: 'as alice' });
    },
  },
  {
    id: 'sasl-bad-password',
    api: 36,
    exactMessages: true,
    run: async (s) => void (await saslConnection(s, 'alice', 'wrong')),
  },
  {
    id: 'fenced-producer-epoch',
    api: 24,
    async run(s) {
      await createTopic(s, 'fenced');
      const first = await initProducerId(s, 'fenced-tx');
      s.observe('InitProducerId v4 first', first);
      const second = await s.call(22, 4, initRequest('fenced-tx'), { label: 'again' });
      if (!second) return;
      const add = (epoch: number) => request(24, { v3AndBelowTransactionalId: 'fenced-tx', v3AndBelowProducerId: first.producerId, v3AndBelowProducerEpoch: epoch, v3AndBelowTopics: [{ name: 'fenced', partitions: [0] }] });
      await s.call(24, 3, add(first.producerEpoch), { label: 'old epoch' });
      await s.call(24, 3, add(second.producerEpoch), { label: 'current epoch' });
      const records = batch(['x'], { producerId: first.producerId, producerEpoch: first.producerEpoch, baseSequence: 0, isTransactional: true });
      await s.call(0, 9, produce('fenced', records, { transactionalId: 'fenced-tx' }), { label: 'old epoch' });
    },
  },
  {
    id: 'classic-group-unknown-member-and-stale-generation',
    api: 12,
    async run(s) {
      const join = (memberId: string) => joinGroup('classic', memberId);
      const required = await s.call(11, 5, join(''), { label: 'without member id' });
      const joined = await s.call(11, 5, join(required?.memberId ?? ''), { label: 'with member id' });
      if (!joined) return;
      const memberId: string = joined.memberId;
      await s.call(14, 3, request(14, { groupId: 'classic', generationId: joined.generationId, memberId, assignments: [{ memberId, assignment: Buffer.alloc(0) }] }));
      const heartbeat = (member: string, generationId: number) => request(12, { groupId: 'classic', generationId, memberId: member });
      await s.call(12, 3, heartbeat(memberId, joined.generationId), { label: 'current' });
      await s.call(12, 3, heartbeat('unknown-member', joined.generationId), { label: 'unknown member' });
      await s.call(12, 3, heartbeat(memberId, joined.generationId - 1), { label: 'stale generation' });
      await s.call(8, 7, request(8, { groupId: 'classic', generationIdOrMemberEpoch: joined.generationId - 1, memberId, topics: [] }), { label: 'stale generation' });
    },
  },
  {
    id: 'consumer-group-unknown-member-and-stale-epoch',
    api: 68,
    async run(s) {
      await createTopic(s, 'kip848');
      const memberId = 'conformance-member-0000000001';
      const heartbeat = (member: string, memberEpoch: number) => request(68, {
        groupId: 'kip848', memberId: member, memberEpoch, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['kip848'], topicPartitions: [],
      });
      await s.call(68, 1, heartbeat(memberId, 0), { label: 'join' });
      await s.call(68, 1, heartbeat('unknown-member-00000000000000', 1), { label: 'unknown member' });
      await s.call(68, 1, heartbeat(memberId, 99), { label: 'stale epoch' });
    },
  },
  {
    // KIP-1071: a topology whose source is missing, a join that makes the broker create the internal topics, an
    // unknown member, a greater epoch, and the group ids of another type refused both ways.
    id: 'streams-group-topology-and-epochs',
    api: 88,
    async run(s) {
      await createTopic(s, 'streams-in');
      const info = (name: string) => ({ name, partitions: 0, replicationFactor: 0, topicConfigs: [{ key: 'cleanup.policy', value: 'compact' }] });
      const topology = (source: string) => ({
        epoch: 0,
        subtopologies: [{
          subtopologyId: '0', sourceTopics: [source], sourceTopicRegex: [], stateChangelogTopics: [info(`app-${source}-store-changelog`)],
          repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [],
        }],
      });
      const heartbeat = (groupId: string, memberId: string, memberEpoch: number, source = 'streams-in') => request(88, {
        groupId, memberId, memberEpoch, endpointInformationEpoch: 0, rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
        topology: memberEpoch === 0 ? topology(source) : null, activeTasks: memberEpoch === 0 ? [] : null,
        standbyTasks: memberEpoch === 0 ? [] : null, warmupTasks: memberEpoch === 0 ? [] : null, processId: memberEpoch === 0 ? 'process-1' : null,
        clientTags: memberEpoch === 0 ? [] : null,
      });
      await s.call(88, 1, heartbeat('streams-missing', 'streams-member-1', 0, 'no-such-source'), { label: 'missing source topic' });
      await s.call(88, 1, heartbeat('streams-app', 'streams-member-1', 0), { label: 'join' });
      await s.call(88, 1, heartbeat('streams-app', 'streams-member-2', 1), { label: 'unknown member' });
      await s.call(88, 1, heartbeat('streams-app', 'streams-member-1', 99), { label: 'greater epoch' });
      await s.call(88, 1, heartbeat('', 'streams-member-1', 0), { label: 'empty group id' });
      await s.call(68, 1, request(68, {
        groupId: 'streams-app', memberId: 'conformance-member-0000000003', memberEpoch: 0, rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['streams-in'], topicPartitions: [],
      }), { label: 'consumer heartbeat on a streams group' });
      await s.setup(68, 1, request(68, {
        groupId: 'consumer-not-streams', memberId: 'conformance-member-0000000004', memberEpoch: 0, rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['streams-in'], topicPartitions: [],
      }));
      await s.call(88, 1, heartbeat('consumer-not-streams', 'streams-member-3', 0), { label: 'streams heartbeat on a consumer group' });
      // One group a request: Kafka answers them in its coordinator shards' order.
      for (const groupId of ['streams-missing', 'consumer-not-streams', 'no-such-group']) await s.call(89, 1, request(89, { groupIds: [groupId] }), { label: `describe ${groupId}` });
      // DescribeGroups (the classic protocol's) on a streams group, before and after v6's error codes.
      for (const version of [5, 6]) await s.call(15, version, request(15, { groups: ['streams-app'] }), { label: 'classic describe of a streams group' });
    },
  },
  {
    // KIP-1071 static members (GroupMetadataManager's static streams member checks) and a regex source topic (refused
    // by GroupCoordinatorService as unsupported): a second member with a held instance id, a leave by the wrong member
    // or an unknown instance id, a static leave (epoch -2) keeping the member, and the instance id's next member.
    id: 'streams-group-static-members',
    api: 88,
    async run(s) {
      await createTopic(s, 'streams-static-in');
      const heartbeat = (memberId: string, instanceId: string, memberEpoch: number, source: 'name' | 'regex' = 'name') => request(88, {
        groupId: 'streams-static', memberId, memberEpoch, instanceId, endpointInformationEpoch: 0, rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
        topology: memberEpoch !== 0 ? null : {
          epoch: 0,
          subtopologies: [{
            subtopologyId: '0', sourceTopics: source === 'name' ? ['streams-static-in'] : [], sourceTopicRegex: source === 'regex' ? ['streams-static-.*'] : [],
            stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [],
          }],
        },
        activeTasks: memberEpoch === 0 ? [] : null, standbyTasks: memberEpoch === 0 ? [] : null, warmupTasks: memberEpoch === 0 ? [] : null,
        processId: memberEpoch === 0 ? 'process-1' : null, clientTags: memberEpoch === 0 ? [] : null,
      });
      await s.call(88, 1, heartbeat('static-member-0', 'i0', 0, 'regex'), { label: 'regex source topic' });
      await s.setup(88, 1, heartbeat('static-member-1', 'i1', 0));
      await s.call(88, 1, heartbeat('static-member-2', 'i1', 0), { label: 'instance id held' });
      await s.call(88, 1, heartbeat('static-member-2', 'i1', -2), { label: 'static leave by another member' });
      await s.call(88, 1, heartbeat('static-member-3', 'i3', -2), { label: 'static leave of an unknown instance id' });
      await s.call(88, 1, heartbeat('static-member-1', 'i1', -2), { label: 'static leave' });
      await s.call(89, 1, request(89, { groupIds: ['streams-static'] }), { label: 'describe with the member away' });
      await s.call(88, 1, heartbeat('static-member-4', 'i1', 0), { label: 'the instance id rejoins' });
      await s.call(89, 1, request(89, { groupIds: ['streams-static'] }), { label: 'describe after the rejoin' });
    },
  },
  {
    // KIP-1263's assignment interval for streams groups (GroupMetadataManager.maybeUpdateStreamsTargetAssignment): a
    // second member joining within streams.assignment.interval.ms of the last target waits for its tasks, told
    // ASSIGNMENT_DELAYED, until the first heartbeat after the interval. The group's interval is long enough (3 s) that
    // the join falls within it on a loaded machine; the wait for its end is that long, as nothing else marks it.
    id: 'streams-group-assignment-interval',
    api: 88,
    async run(s) {
      const intervalMs = 3000;
      await createTopic(s, 'streams-batch-in', 4);
      await s.setup(44, 1, request(44, {
        resources: [{ resourceType: 32, resourceName: 'streams-batch', configs: [{ name: 'streams.assignment.interval.ms', configOperation: 0, value: String(intervalMs) }] }],
      }));
      const heartbeat = (memberId: string, memberEpoch: number, activeTasks: unknown[] | null = null) => request(88, {
        groupId: 'streams-batch', memberId, memberEpoch, endpointInformationEpoch: 0, rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
        topology: memberEpoch !== 0 ? null : {
          epoch: 0,
          subtopologies: [{
            subtopologyId: '0', sourceTopics: ['streams-batch-in'], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [],
            repartitionSourceTopics: [], copartitionGroups: [],
          }],
        },
        // The three task lists go together (Kafka refuses one without the others).
        activeTasks: memberEpoch === 0 ? [] : activeTasks, standbyTasks: memberEpoch === 0 || activeTasks ? [] : null,
        warmupTasks: memberEpoch === 0 || activeTasks ? [] : null, processId: memberEpoch === 0 ? `process-${memberId}` : null, clientTags: memberEpoch === 0 ? [] : null,
      });
      const epochs = new Map<string, number>();
      const beat = async (member: 'a' | 'b', label: string, activeTasks: unknown[] | null = null) => {
        const res = await s.call(88, 1, heartbeat(`batch-member-${member}`, epochs.get(member) ?? 0, activeTasks), { label: `${member} ${label}` });
        if (res?.errorCode === 0) epochs.set(member, res.memberEpoch);
        return res;
      };
      const describe = (label: string) => s.call(89, 1, request(89, { groupIds: ['streams-batch'] }), { label: `describe ${label}` });
      await beat('a', 'joins');
      // The initial rebalance delay (3 s) waited out with a's heartbeats, unrecorded but the one that brings a its tasks:
      // Kafka assigns on a timer, kafkite at the first heartbeat after the delay.
      for (let tries = 0; tries < 100; tries++) {
        const res = await s.setup(88, 1, heartbeat('batch-member-a', epochs.get('a') ?? 0));
        if (res.errorCode !== 0 || res.activeTasks?.length > 0) {
          s.observe('StreamsGroupHeartbeat v1 a after the initial delay', res);
          epochs.set('a', res.memberEpoch);
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      await beat('b', 'joins within the interval');
      await beat('a', 'within the interval');
      await describe('within the interval');
      await new Promise((r) => setTimeout(r, intervalMs + 200));
      const revoking = await beat('a', 'after the interval');
      await beat('a', 'revoked', revoking?.activeTasks ?? []);
      await beat('b', 'after the interval');
      await describe('after the interval');
    },
  },
  {
    // KIP-1263's assignment interval for share groups (GroupMetadataManager's share maybeUpdateTargetAssignment): a
    // second member joining within share.assignment.interval.ms of the last target gets that target's epoch and no
    // partitions until the first heartbeat after the interval. The first member's partitions are waited for unrecorded:
    // Kafka assigns them once their share-partition state is initialized, asynchronously, kafkite before it answers.
    id: 'share-group-assignment-interval',
    api: 76,
    async run(s) {
      const intervalMs = 3000;
      // One partition, which both members share once b is assigned (which of several Kafka's assignor picks is its own).
      await createTopic(s, 'share-batch-in');
      await s.setup(44, 1, request(44, {
        resources: [{ resourceType: 32, resourceName: 'share-batch', configs: [{ name: 'share.assignment.interval.ms', configOperation: 0, value: String(intervalMs) }] }],
      }));
      const epochs = new Map<string, number>();
      const heartbeat = (member: 'a' | 'b') => request(76, {
        groupId: 'share-batch', memberId: `share-batch-member-${member}`, memberEpoch: epochs.get(member) ?? 0, rackId: null,
        subscribedTopicNames: epochs.has(member) ? null : ['share-batch-in'],
      });
      const beat = async (member: 'a' | 'b', label: string) => {
        const res = await s.call(76, 1, heartbeat(member), { label: `${member} ${label}` });
        if (res?.errorCode === 0) epochs.set(member, res.memberEpoch);
      };
      for (let tries = 0; tries < 100; tries++) {
        const res = await s.setup(76, 1, heartbeat('a'));
        if (res.errorCode === 0) epochs.set('a', res.memberEpoch);
        if (res.errorCode !== 0 || res.assignment?.topicPartitions.length > 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // The group's epochs and members, in member id order (Kafka lists them in its hash map's order).
      const describe = async (label: string) => {
        const [group] = (await s.setup(77, 1, request(77, { groupIds: ['share-batch'] }))).groups;
        group.members.sort((x: { memberId: string }, y: { memberId: string }) => x.memberId.localeCompare(y.memberId));
        s.observe(`ShareGroupDescribe v1 describe ${label}`, group);
      };
      await beat('b', 'joins within the interval');
      await beat('a', 'within the interval');
      await describe('within the interval');
      await new Promise((r) => setTimeout(r, intervalMs + 200));
      await beat('a', 'after the interval');
      await beat('b', 'after the interval');
      await describe('after the interval');
    },
  },
  {
    // KIP-932: the share group's errors and a share group id met by the other group APIs (GroupMetadataManager and
    // GroupCoordinatorService's checks), with Kafka's messages. The join itself is set up unrecorded: Kafka assigns
    // a partition once its share-partition state is initialized, asynchronously, kafkite before it answers.
    id: 'share-group-errors-and-other-group-types',
    api: 76,
    exactMessages: true,
    async run(s) {
      await createTopic(s, 'shared');
      const heartbeat = (groupId: string, memberId: string, memberEpoch: number, subscribedTopicNames: string[] | null = null) =>
        request(76, { groupId, memberId, memberEpoch, rackId: null, subscribedTopicNames });
      await s.setup(76, 1, heartbeat('share-g', 'share-member-1', 0, ['shared']));
      await s.call(76, 1, heartbeat('share-g', '', 0, ['shared']), { label: 'empty member id' });
      await s.call(76, 1, heartbeat('share-g', 'share-member-2', 0, []), { label: 'no subscription on join' });
      await s.call(76, 1, heartbeat('share-g', 'share-member-2', -2), { label: 'epoch -2' });
      await s.call(76, 1, heartbeat('share-g', 'share-member-x', 1), { label: 'unknown member' });
      await s.call(76, 1, heartbeat('share-g', 'share-member-1', 99), { label: 'future epoch' });
      await s.call(76, 1, heartbeat('share-missing', 'share-member-1', 1), { label: 'unknown group' });
      await s.call(77, 1, request(77, { groupIds: ['share-missing'] }), { label: 'unknown group' });
      await s.setup(68, 1, request(68, {
        groupId: 'share-consumer', memberId: 'consumer-member-000000000001', memberEpoch: 0, rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['shared'], topicPartitions: [],
      }));
      await s.call(76, 1, heartbeat('share-consumer', 'share-member-1', 0, ['shared']), { label: 'consumer group id' });
      await s.call(77, 1, request(77, { groupIds: ['share-consumer'] }), { label: 'consumer group id' });
      await s.call(68, 1, request(68, {
        groupId: 'share-g', memberId: 'consumer-member-000000000002', memberEpoch: 0, rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['shared'], topicPartitions: [],
      }), { label: 'share group id' });
      await s.call(11, 5, joinGroup('share-g', ''), { label: 'share group id' });
      await s.call(15, 6, request(15, { groups: ['share-g'] }), { label: 'share group id' });
      await s.call(8, 9, request(8, { groupId: 'share-g', generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: 'shared', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: '' }] }] }), { label: 'share group id' });
      // The share groups of this scenario: other scenarios' (share-batch's members, say) may or may not be listed yet.
      const listed = await s.setup(16, 5, request(16, { typesFilter: ['share'] }));
      s.observe('ListGroups v5 share type', { ...listed, groups: listed.groups.filter((g: { groupId: string }) => ['share-g', 'share-missing', 'share-consumer'].includes(g.groupId)) });
      await s.call(42, 2, request(42, { groupsNames: ['share-g'] }), { label: 'share group with a member' });
    },
  },
  {
    // KIP-848: Kafka resolves a subscribed regex asynchronously, so what a member is assigned can take heartbeats.
    id: 'consumer-group-regex-and-literal-subscription',
    api: 68,
    async run(s) {
      await createTopic(s, 'literal');
      await createTopic(s, 'rx-one');
      const memberId = 'conformance-member-0000000002';
      let epoch = 0;
      for (let beat = 0; beat < 4; beat++) {
        const res = await s.call(68, 1, request(68, {
          groupId: 'regex', memberId, memberEpoch: epoch, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['literal'], subscribedTopicRegex: 'rx-.*',
          topicPartitions: beat === 0 ? [] : null,
        }), { label: `heartbeat ${beat}` });
        epoch = res?.memberEpoch ?? epoch;
        await new Promise((r) => setTimeout(r, 300));
      }
    },
  },
  {
    id: 'committed-offsets-happy-path',
    api: 8,
    async run(s) {
      await createTopic(s, 'committed');
      const commit = request(8, { groupId: 'standalone', generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: 'committed', partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: 'm' }] }] });
      await s.call(8, 8, commit);
      await s.call(9, 8, request(9, { groups: [{ groupId: 'standalone', topics: [{ name: 'committed', partitionIndexes: [0] }] }], requireStable: true }));
      await s.call(9, 5, request(9, { groupId: 'standalone', topics: [{ name: 'committed', partitionIndexes: [0] }], requireStable: true }));
      await s.call(47, 0, request(47, { groupId: 'standalone', topics: [{ name: 'committed', partitions: [{ partitionIndex: 0 }] }] }));
      await s.call(9, 8, request(9, { groups: [{ groupId: 'standalone', topics: null }] }), { label: 'after delete' });
      await s.call(42, 2, request(42, { groupsNames: ['standalone'] }));
    },
  },
  {
    id: 'classic-group-describe-and-leave',
    api: 15,
    async run(s) {
      const join = (memberId: string) => joinGroup('described', memberId);
      const required = await s.setup(11, 7, join(''));
      const joined = await s.call(11, 7, join(required.memberId));
      if (!joined) return;
      await s.call(14, 5, request(14, { groupId: 'described', generationId: joined.generationId, memberId: joined.memberId, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: joined.memberId, assignment: Buffer.from([0, 1, 0, 0, 0, 0]) }] }));
      await s.call(15, 5, request(15, { groups: ['described'], includeAuthorizedOperations: true }), { label: 'stable' });
      // ListGroups lists every group of the broker, other scenarios' too: only this one is compared.
      const listed = await s.setup(16, 4, request(16, { statesFilter: [] }));
      s.observe('ListGroups v4 this group', listed.groups.filter((g: { groupId: string }) => g.groupId === 'described'));
      await s.call(13, 4, request(13, { groupId: 'described', members: [{ memberId: joined.memberId, groupInstanceId: null }] }));
      await s.call(15, 5, request(15, { groups: ['described'] }), { label: 'after leave' });
    },
  },
  {
    id: 'topic-admin-happy-path',
    api: 19,
    async run(s) {
      const topic = { name: 'admin', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '3600000' }] };
      await s.call(19, 7, request(19, { topics: [topic], timeoutMs: 10_000, validateOnly: true }), { label: 'validate only' });
      await createTopic(s, 'admin');
      await s.call(19, 7, request(19, { topics: [topic], timeoutMs: 10_000 }), { label: 'exists' });
      await s.call(44, 1, request(44, { resources: [{ resourceType: 2, resourceName: 'admin', configs: [{ name: 'retention.ms', configOperation: 0, value: '7200000' }] }] }));
      // Kafka answers the alter once its controller committed the ConfigRecord; the broker side applies it a moment
      // later (its metadata publisher), so a DescribeConfigs at once may still see the default: wait, unrecorded.
      const describe = request(32, { resources: [{ resourceType: 2, resourceName: 'admin', configurationKeys: ['retention.ms', 'cleanup.policy'] }] });
      for (let tries = 0; tries < 100; tries++) {
        const configs = (await s.setup(32, 4, describe)).results[0].configs as Array<{ name: string; value: string }>;
        if (configs.find((c) => c.name === 'retention.ms')?.value === '7200000') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await s.call(32, 4, describe);
      await s.call(37, 3, request(37, { topics: [{ name: 'admin', count: 3, assignments: null }], timeoutMs: 10_000 }));
      await s.setup(0, 9, produce('admin', batch(['a', 'b', 'c'])));
      await s.call(21, 2, request(21, { topics: [{ name: 'admin', partitions: [{ partitionIndex: 0, offset: 2 }] }], timeoutMs: 10_000 }));
      await s.call(20, 6, request(20, { topics: [{ name: 'admin', topicId: '0'.repeat(32) }], timeoutMs: 10_000 }));
      await s.call(20, 6, request(20, { topics: [{ name: 'admin', topicId: '0'.repeat(32) }], timeoutMs: 10_000 }), { label: 'again' });
    },
  },
  {
    id: 'transaction-happy-path',
    api: 26,
    async run(s) {
      const topicId = await createTopic(s, 'txn');
      const { producerId, producerEpoch } = await initProducerId(s, 'happy-tx');
      const ids = { transactionalId: 'happy-tx', producerId, producerEpoch };
      await s.call(24, 3, request(24, { v3AndBelowTransactionalId: 'happy-tx', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: [{ name: 'txn', partitions: [0] }] }));
      await s.call(0, 9, produce('txn', batch(['t1', 't2'], { producerId, producerEpoch, baseSequence: 0, isTransactional: true }), { transactionalId: 'happy-tx' }));
      await s.call(25, 3, request(25, { ...ids, groupId: 'txn-group' }));
      await s.call(28, 3, request(28, { ...ids, groupId: 'txn-group', generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: 'txn', partitions: [{ partitionIndex: 0, committedOffset: 2, committedLeaderEpoch: -1 }] }] }));
      await s.call(26, 3, request(26, { ...ids, committed: true }));
      const lastStable = async () => (await s.setup(2, 7, request(2, { replicaId: -1, isolationLevel: 1, topics: [{ name: 'txn', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] }))).topics[0].partitions[0].offset;
      s.observe('last stable offset right after EndTxn', await lastStable());
      // Kafka writes the markers after answering EndTxn (TransactionMarkerChannelManager), and both brokers record
      // CompleteCommit after it: the rest is compared once the transaction is complete.
      const describe = () => s.setup(65, 0, request(65, { transactionalIds: ['happy-tx'] }));
      let described = await describe();
      for (let tries = 0; (described.transactionStates[0].transactionState !== 'CompleteCommit' || (await lastStable()) !== 3) && tries < 100; tries++) {
        await new Promise((r) => setTimeout(r, 100));
        described = await describe();
      }
      // Kafka keeps a transaction's partitions in a hash set: compared in name order.
      for (const t of described.transactionStates) t.topics.sort((a: { topic: string }, b: { topic: string }) => a.topic.localeCompare(b.topic));
      s.observe('DescribeTransactions v0', described);
      // ListTransactions lists every transactional id of the broker: only this one is compared.
      const listed = await s.setup(66, 1, request(66, { stateFilters: [], producerIdFilters: [], durationFilter: -1 }));
      s.observe('ListTransactions v1 this id', listed.transactionStates.filter((t: { transactionalId: string }) => t.transactionalId === 'happy-tx'));
      await s.call(61, 0, request(61, { topics: [{ name: 'txn', partitionIndexes: [0] }] }));
      await s.call(9, 8, request(9, { groups: [{ groupId: 'txn-group', topics: null }], requireStable: true }));
      await observeCommitted(s, 'txn', topicId);
    },
  },
];
