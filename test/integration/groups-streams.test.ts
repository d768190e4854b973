// Streams groups (KIP-1071) over TCP with the raw protocol client: the topology checked against the topics with
// Kafka's statuses, internal topics created with the configs the topology asks for (and nothing for a topology
// whose source is missing), tasks moving between members only once revoked, a stale epoch fenced, group ids of
// another type refused both ways, offsets checked against the member epoch, ListGroups' type, the group kept
// across a restart (its records replayed, and read by Kafka's own decoder, kafka-dump-log --offsets-decoder),
// DeleteGroups; and Kafka 4.4's streams-groups tool (StreamsGroupCommand:
// --list, --describe with --offsets, --state and --members, --reset-offsets, --delete) with what it prints.
import { Kafka, logLevel } from 'kafkajs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionFor as partitionOf } from '../../src/coordinator/offsets-topic.js';
import { ApiKey } from '../../protocol/generated/index.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ErrorCode as E } from '../../src/errors.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { KafkaTools } from '../helpers/java.js';

const STREAMS_GROUP_COMMAND = 'org.apache.kafka.tools.streams.StreamsGroupCommand';

const OVERRIDES = ['group.streams.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=3'];
const APP = 'streams-app';
const CHANGELOG = `${APP}-counts-changelog`;
const REPARTITION = `${APP}-words-repartition`;

let broker: BrokerProcess;
let wire: WireClient;
/** The epoch at which a got the tasks it keeps when b joins. */
let aTasksSince = 0;
const tools = new KafkaTools();

beforeAll(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
  wire = await WireClient.connect(broker.port);
  const created = await wire.send(ApiKey.CreateTopics, 7, {
    topics: [{ name: 'text-in', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
  });
  expect(created.topics[0].errorCode).toBe(0);
});

afterAll(async () => {
  await tools.close();
  wire?.close();
  await broker?.stop();
  broker?.cleanup();
});

const topicInfo = (name: string, configs: Record<string, string> = {}) => ({
  name, partitions: 0, replicationFactor: 0, topicConfigs: Object.entries(configs).map(([key, value]) => ({ key, value })),
});

/** A word count's topology as Kafka Streams sends it: words re-keyed through a repartition topic, then counted into a store. */
function topology(source = 'text-in') {
  return {
    epoch: 0,
    subtopologies: [
      { subtopologyId: '0', sourceTopics: [source], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [REPARTITION], repartitionSourceTopics: [], copartitionGroups: [] },
      {
        subtopologyId: '1', sourceTopics: [], sourceTopicRegex: [], stateChangelogTopics: [topicInfo(CHANGELOG, { 'cleanup.policy': 'compact' })],
        repartitionSinkTopics: [], repartitionSourceTopics: [topicInfo(REPARTITION, { 'cleanup.policy': 'delete', 'retention.ms': '-1' })], copartitionGroups: [],
      },
    ],
  };
}

interface Tasks { subtopologyId: string; partitions: number[] }

function heartbeat(groupId: string, memberId: string, memberEpoch: number, extra: Record<string, unknown> = {}) {
  const joining = memberEpoch === 0;
  return wire.send(ApiKey.StreamsGroupHeartbeat, 1, {
    groupId, memberId, memberEpoch, endpointInformationEpoch: -1, instanceId: null, rackId: null,
    rebalanceTimeoutMs: joining ? 30_000 : -1, topology: joining ? topology() : null,
    activeTasks: joining ? [] : null, standbyTasks: joining ? [] : null, warmupTasks: joining ? [] : null,
    processId: joining ? `process-${memberId}` : null, userEndpoint: null, clientTags: joining ? [] : null,
    taskOffsets: null, taskEndOffsets: null, shutdownApplication: false, ...extra,
  });
}

async function topicPartitions(name: string): Promise<number | undefined> {
  const md = await wire.send(ApiKey.Metadata, 12, { topics: [{ topicId: '00000000000000000000000000000000', name }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  const t = md.topics[0];
  return t.errorCode === 0 ? t.partitions.length : undefined;
}

const count = (tasks: Tasks[] | null) => (tasks ?? []).reduce((n, t) => n + t.partitions.length, 0);

describe('streams groups over the wire', () => {
  it('a topology whose source topic is missing gets MISSING_SOURCE_TOPICS, and no internal topic is created', async () => {
    const res = await heartbeat('missing-source', 'm1', 0, { topology: topology('no-such-topic') });
    expect(res.errorCode).toBe(0);
    expect(res.status.map((s: { statusCode: number }) => s.statusCode)).toEqual([1]);
    expect(res.status[0].statusDetail).toBe('Source topics no-such-topic are missing.');
    expect(count(res.activeTasks)).toBe(0);
    expect(await topicPartitions(CHANGELOG)).toBeUndefined();
    expect(await topicPartitions(REPARTITION)).toBeUndefined();
    const described = await wire.send(ApiKey.StreamsGroupDescribe, 0, { groupIds: ['missing-source'], includeAuthorizedOperations: false });
    // Described as the member sent it, partition counts unknown (0), as Kafka 4.4 describes a NotReady group.
    expect(described.groups[0]).toMatchObject({ errorCode: 0, groupState: 'NotReady', topology: { epoch: 0 } });
    expect(described.groups[0].topology.subtopologies[1].stateChangelogTopics).toEqual([{ ...topicInfo(CHANGELOG, { 'cleanup.policy': 'compact' }) }]);
    expect((await heartbeat('missing-source', 'm1', res.memberEpoch, { memberEpoch: -1 })).errorCode).toBe(0);
  });

  it('creates the internal topics, assigns every task, and moves tasks only once revoked', async () => {
    const first = await heartbeat(APP, 'a', 0);
    expect(first.errorCode).toBe(0);
    expect(first.status.map((s: { statusCode: number }) => s.statusCode)).toEqual([3]);
    expect(first.status[0].statusDetail).toMatch(/^Internal topics are missing: /);
    // Created by the broker: the repartition topic with its source's count, the changelog with one partition per task.
    expect(await topicPartitions(REPARTITION)).toBe(2);
    expect(await topicPartitions(CHANGELOG)).toBe(2);
    const configs = await wire.send(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: 2, resourceName: CHANGELOG, configurationKeys: ['cleanup.policy'] }], includeSynonyms: false, includeDocumentation: false,
    });
    expect(configs.results[0].configs[0]).toMatchObject({ name: 'cleanup.policy', value: 'compact' });

    const a1 = await heartbeat(APP, 'a', first.memberEpoch);
    expect(a1.status).toEqual([]);
    expect(a1.activeTasks).toEqual([{ subtopologyId: '0', partitions: [0, 1] }, { subtopologyId: '1', partitions: [0, 1] }]);
    const epochA = a1.memberEpoch;
    aTasksSince = epochA;

    // b joins: a must give up half of its tasks before b gets them.
    const b0 = await heartbeat(APP, 'b', 0);
    expect(b0.errorCode).toBe(0);
    expect(count(b0.activeTasks)).toBe(0);
    const a2 = await heartbeat(APP, 'a', epochA);
    expect(count(a2.activeTasks)).toBe(2);
    expect(a2.memberEpoch).toBe(epochA);
    const b1 = await heartbeat(APP, 'b', b0.memberEpoch);
    expect(count(b1.activeTasks)).toBe(0);
    // a reports it holds only what it kept: it moves to the new epoch and b gets the rest.
    const a3 = await heartbeat(APP, 'a', epochA, { activeTasks: a2.activeTasks, standbyTasks: [], warmupTasks: [] });
    expect(a3.memberEpoch).toBeGreaterThan(epochA);
    const b2 = await heartbeat(APP, 'b', b1.memberEpoch);
    expect(count(b2.activeTasks)).toBe(2);
    const owned = [...a2.activeTasks, ...b2.activeTasks].flatMap((t: Tasks) => t.partitions.map((p) => `${t.subtopologyId}-${p}`)).sort();
    expect(owned).toEqual(['0-0', '0-1', '1-0', '1-1']);

    const described = await wire.send(ApiKey.StreamsGroupDescribe, 1, { groupIds: [APP], includeAuthorizedOperations: false, includeTopologyDescription: false });
    const g = described.groups[0];
    expect(g).toMatchObject({ errorCode: 0, groupState: 'Stable', groupEpoch: a3.memberEpoch, assignmentEpoch: a3.memberEpoch, assignorName: 'sticky' });
    expect(g.topology.subtopologies.map((s: { subtopologyId: string }) => s.subtopologyId)).toEqual(['0', '1']);
    expect(g.members.map((m: { memberId: string; processId: string }) => [m.memberId, m.processId]).sort()).toEqual([['a', 'process-a'], ['b', 'process-b']]);
  });

  it('streams.num.standby.replicas, a group config within group.streams.max.standby.replicas, gives each task a standby on the other process', async () => {
    const alter = (value: string) => wire.send(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [{ resourceType: 32, resourceName: 'standby-app', configs: [{ name: 'streams.num.standby.replicas', configOperation: 0, value }] }], validateOnly: false,
    }).then((r: { responses: Array<{ errorCode: number; errorMessage: string | null }> }) => r.responses[0]!);
    expect(await alter('3')).toMatchObject({ errorCode: E.INVALID_CONFIG, errorMessage: 'streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas' });
    expect((await alter('1')).errorCode).toBe(0);
    const x0 = await heartbeat('standby-app', 'x', 0);
    const y0 = await heartbeat('standby-app', 'y', 0);
    // x held everything: it revokes half, then both settle with their actives and, as standbys, the other's tasks of
    // the stateful sub-topology 1 (Kafka 4.4's StickyTaskAssignor gives the stateless sub-topology 0 none).
    let x = await heartbeat('standby-app', 'x', x0.memberEpoch);
    x = await heartbeat('standby-app', 'x', x.memberEpoch, { activeTasks: x.activeTasks, standbyTasks: x.standbyTasks, warmupTasks: [] });
    const y = await heartbeat('standby-app', 'y', y0.memberEpoch);
    const flat = (tasks: Tasks[]) => tasks.flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}-${p}`)).sort();
    expect(count(x.activeTasks)).toBe(2);
    expect(count(y.activeTasks)).toBe(2);
    const stateful = (tasks: Tasks[]) => flat(tasks).filter((t) => t.startsWith('1-'));
    expect(flat(x.standbyTasks)).toEqual(stateful(y.activeTasks));
    expect(flat(y.standbyTasks)).toEqual(stateful(x.activeTasks));
    expect(flat(x.standbyTasks)).toHaveLength(1);
    for (const m of ['x', 'y']) await heartbeat('standby-app', m, -1);
  });

  it('fences a stale member epoch and checks offset commits against it, task by task', async () => {
    const described = await wire.send(ApiKey.StreamsGroupDescribe, 0, { groupIds: [APP], includeAuthorizedOperations: false });
    const a = described.groups[0].members.find((m: { memberId: string }) => m.memberId === 'a');
    const fenced = await heartbeat(APP, 'a', a.memberEpoch + 5);
    expect(fenced.errorCode).toBe(E.FENCED_MEMBER_EPOCH);
    // A lower epoch passes only as a retry of the previous one holding nothing new: all four tasks are not a's.
    const older = await heartbeat(APP, 'a', a.memberEpoch - 1, { activeTasks: [{ subtopologyId: '0', partitions: [0, 1] }, { subtopologyId: '1', partitions: [0, 1] }] });
    expect(older.errorCode).toBe(E.FENCED_MEMBER_EPOCH);
    const commit = async (generationIdOrMemberEpoch: number, topic = 'text-in', partitionIndex = 0) => {
      const res = await wire.send(ApiKey.OffsetCommit, 9, {
        groupId: APP, generationIdOrMemberEpoch, memberId: 'a', groupInstanceId: null,
        topics: [{ name: topic, partitions: [{ partitionIndex, committedOffset: 0, committedLeaderEpoch: -1, committedMetadata: null }] }],
      });
      return res.topics[0].partitions[0].errorCode;
    };
    // a has held tasks 0_0 (text-in 0) and 1_0 (the repartition topic's 0) since aTasksSince: a commit at that older
    // epoch passes (KAFKA-19779), one from before does not, nor one for a task a does not hold (0_1, text-in 1, is
    // b's), nor a future epoch.
    expect(a.memberEpoch).toBeGreaterThan(aTasksSince);
    expect(await commit(aTasksSince)).toBe(0);
    expect(await commit(aTasksSince, REPARTITION)).toBe(0);
    expect(await commit(aTasksSince - 1)).toBe(E.STALE_MEMBER_EPOCH);
    expect(await commit(aTasksSince, 'text-in', 1)).toBe(E.STALE_MEMBER_EPOCH);
    expect(await commit(a.memberEpoch + 1)).toBe(E.STALE_MEMBER_EPOCH);
    expect(await commit(a.memberEpoch)).toBe(0);
  });

  it('refuses a group id of another type both ways', async () => {
    const consumer = await wire.send(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: APP, memberId: 'c1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['text-in'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    expect(consumer).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: `Group ${APP} is not a consumer group.` });
    const join = await wire.send(ApiKey.JoinGroup, 9, {
      groupId: APP, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
    });
    expect(join.errorCode).toBe(E.INCONSISTENT_GROUP_PROTOCOL);

    const cg = await wire.send(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: 'a-consumer-group', memberId: 'c1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['text-in'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    expect(cg.errorCode).toBe(0);
    const streams = await heartbeat('a-consumer-group', 's1', 0);
    expect(streams).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group a-consumer-group is not a streams group.' });
    const describedOther = await wire.send(ApiKey.StreamsGroupDescribe, 0, { groupIds: ['a-consumer-group', 'nope'], includeAuthorizedOperations: false });
    expect(describedOther.groups.map((g: { errorCode: number }) => g.errorCode)).toEqual([E.GROUP_ID_NOT_FOUND, E.GROUP_ID_NOT_FOUND]);
  });

  it('Kafka\'s streams-groups tool lists the group and describes its members, state and lag', async () => {
    const producer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({ topic: 'text-in', acks: -1, messages: Array.from({ length: 5 }, (_, i) => ({ partition: 0, value: `line ${i}` })) });
    await producer.disconnect();
    const tool = async (...args: string[]) => {
      const run = await tools.run(STREAMS_GROUP_COMMAND, '--bootstrap-server', broker.bootstrap, ...args);
      expect(run.code, run.err).toBe(0);
      return run.out.trim().split('\n').map((line) => line.trim().split(/\s+/));
    };
    expect((await tool('--list')).flat().sort()).toEqual(['missing-source', 'standby-app', APP]);
    // a committed offset 0 of text-in 0 (the test before): its 5 records are its lag.
    const offsets = await tool('--describe', '--group', APP, '--offsets');
    expect(offsets[0]).toEqual(['GROUP', 'TOPIC', 'PARTITION', 'OFFSET-LAG']);
    expect(offsets.find((r) => r[1] === 'text-in' && r[2] === '0')).toEqual([APP, 'text-in', '0', '5']);
    const state = await tool('--describe', '--group', APP, '--state', '--verbose');
    expect(state[1]).toEqual([APP, expect.any(String), '(1)', 'sticky', 'Stable', expect.any(String), expect.any(String), '2']);
    const members = await tool('--describe', '--group', APP, '--members', '--verbose');
    expect(members.slice(1).map((r) => [r[3], r[4], r[6], r.slice(8).join(' ')]).sort()).toEqual([
      ['a', 'streams', 'process-a', 'ACTIVE: 0:[0]; 1:[0]; TARGET-ACTIVE: 0:[0]; 1:[0];'],
      ['b', 'streams', 'process-b', 'ACTIVE: 0:[1]; 1:[1]; TARGET-ACTIVE: 0:[1]; 1:[1];'],
    ]);
  });

  it('lists the group as streams, keeps it across a restart, and deletes it once empty', async () => {
    const listed = await wire.send(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['streams'] });
    // The groups whose members all left stay, Empty, until deleted (as in Kafka); the consumer group is not listed.
    expect(listed.groups.map((g: { groupId: string; groupType: string; groupState: string }) => [g.groupId, g.groupType, g.groupState]).sort())
      .toEqual([['missing-source', 'streams', 'Empty'], ['standby-app', 'streams', 'Empty'], [APP, 'streams', 'Stable']]);
    const before = (await wire.send(ApiKey.StreamsGroupDescribe, 0, { groupIds: [APP], includeAuthorizedOperations: false })).groups[0];

    // Kafka's own decoder (kafka-dump-log --offsets-decoder, GroupCoordinatorRecordSerde) reads the group's records.
    const partition = partitionOf(APP, 3);
    const dir = join(broker.dataDir, `__consumer_offsets-${partition}`);
    const segments = readdirSync(dir).filter((f) => f.endsWith('.log')).map((f) => join(dir, f));
    const dumped = await tools.run('org.apache.kafka.tools.DumpLogSegments', '--files', segments.join(','), '--offsets-decoder');
    expect(dumped.code, dumped.err).toBe(0);
    const decoded = dumped.out.split('\n').filter((l) => l.includes(' key: {"type":"')).map((l) => {
      const [, k, v] = /key: (\{.*\}) payload: (.*)$/.exec(l)!;
      return { key: JSON.parse(k!), value: v === '<DELETE>' ? null : JSON.parse(v!) };
    }).filter((r) => r.key.data.groupId === APP);
    // Every record type of a streams group (17, 19-23), at version 0; the last of each key as the group stands.
    expect(new Set(decoded.map((r) => Number(r.key.type)))).toEqual(new Set([17, 19, 20, 21, 22, 23]));
    const last = (type: number, memberId?: string) => decoded.filter((r) => Number(r.key.type) === type && r.key.data.memberId === memberId).at(-1)!.value.data;
    expect(last(17).epoch).toBe(before.groupEpoch);
    expect(last(20).assignmentEpoch).toBe(before.assignmentEpoch);
    expect(last(23).subtopologies.map((s: { subtopologyId: string }) => s.subtopologyId)).toEqual(['0', '1']);
    expect(last(19, 'b').processId).toBe('process-b');
    const a = last(22, 'a');
    expect(a.activeTasks).toEqual([
      { subtopologyId: '0', partitions: [0], assignmentEpochs: [aTasksSince] }, { subtopologyId: '1', partitions: [0], assignmentEpochs: [aTasksSince] },
    ]);
    expect(a.memberEpoch).toBe(before.members.find((m: { memberId: string }) => m.memberId === 'a').memberEpoch);

    wire.close();
    expect(await broker.stop()).toBe(0);
    broker = await startBroker({ overrides: OVERRIDES, dataDir: broker.dataDir });
    wire = await WireClient.connect(broker.port);
    const after = (await wire.send(ApiKey.StreamsGroupDescribe, 0, { groupIds: [APP], includeAuthorizedOperations: false })).groups[0];
    const summary = (g: typeof before) => ({
      groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, topologyEpoch: g.topology.epoch,
      members: g.members.map((m: { memberId: string; memberEpoch: number; processId: string; assignment: unknown }) => [m.memberId, m.memberEpoch, m.processId, m.assignment]).sort(),
    });
    expect(summary(after)).toEqual(summary(before));
    // The tasks' assignment epochs came back with the records: a's commit at the epoch it got task 0_0 still passes.
    const stale = await wire.send(ApiKey.OffsetCommit, 9, {
      groupId: APP, generationIdOrMemberEpoch: aTasksSince, memberId: 'a', groupInstanceId: null,
      topics: [{ name: 'text-in', partitions: [{ partitionIndex: 0, committedOffset: 0, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    expect(stale.topics[0].partitions[0].errorCode).toBe(0);

    expect((await wire.send(ApiKey.DeleteGroups, 2, { groupsNames: [APP] })).results[0].errorCode).toBe(E.NON_EMPTY_GROUP);
    for (const m of after.members) expect((await heartbeat(APP, m.memberId, -1)).errorCode).toBe(0);
    // Empty now: the tool moves its committed offset of text-in 0 to the end (it resets only partitions with one), then deletes it.
    const reset = await tools.run(STREAMS_GROUP_COMMAND, '--bootstrap-server', broker.bootstrap, '--reset-offsets', '--group', APP, '--input-topic', 'text-in:0', '--to-latest', '--execute');
    expect(reset.out.trim().split('\n').map((l) => l.trim().split(/\s+/))).toEqual([['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'], [APP, 'text-in', '0', '5']]);
    const committed = await wire.send(ApiKey.OffsetFetch, 8, { groups: [{ groupId: APP, topics: [{ name: 'text-in', partitionIndexes: [0, 1] }] }], requireStable: false });
    expect(committed.groups[0].topics[0].partitions.map((p: { committedOffset: number }) => p.committedOffset)).toEqual([5, -1]);
    const deleted = await tools.run(STREAMS_GROUP_COMMAND, '--bootstrap-server', broker.bootstrap, '--delete', '--group', APP);
    expect(deleted.out.trim()).toBe(`Deletion of requested streams groups ('${APP}') was successful.`);
    const gone = await wire.send(ApiKey.StreamsGroupDescribe, 0, { groupIds: [APP], includeAuthorizedOperations: false });
    expect(gone.groups[0].errorCode).toBe(E.GROUP_ID_NOT_FOUND);
    const offsets = await wire.send(ApiKey.OffsetFetch, 8, { groups: [{ groupId: APP, topics: null }], requireStable: false });
    expect(offsets.groups[0].topics).toEqual([]);
  });
});
