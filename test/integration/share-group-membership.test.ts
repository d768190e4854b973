// Share group membership (KIP-932) on a real broker over TCP with our wire client: ShareGroupHeartbeat joins, shares
// and splits partitions, fences stale epochs; ShareGroupDescribe, ListGroups' share type, DeleteGroups, group configs
// checked against group.share.* bounds; a kill -9 and restart keep the group, as a second connection sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { killAndRestart, startBroker, type BrokerProcess } from '../helpers/broker-process.js';

const GROUP_RESOURCE = 32;
const E = { NONE: 0, INVALID_CONFIG: 40, GROUP_ID_NOT_FOUND: 69, NON_EMPTY_GROUP: 68, FENCED_MEMBER_EPOCH: 110, UNKNOWN_MEMBER_ID: 25 };

let broker: BrokerProcess;
let client: WireClient;

// Each new group epoch is assigned at once (group.share.assignment.interval.ms=0): these heartbeats check epochs and
// assignments step by step; the interval's batching has its own tests (assignment-interval, conformance).
const OVERRIDES = ['group.share.min.session.timeout.ms=1000', 'group.share.min.heartbeat.interval.ms=100', 'group.share.assignment.interval.ms=0'];

beforeAll(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
  client = await WireClient.connect(broker.port);
  const created = await client.send(ApiKey.CreateTopics, 7, {
    topics: [
      { name: 'one', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
      { name: 'four', numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] },
    ],
    timeoutMs: 10_000, validateOnly: false,
  });
  expect(created.topics.map((t: any) => t.errorCode)).toEqual([0, 0]);
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function heartbeat(groupId: string, memberId: string, memberEpoch: number, subscribedTopicNames: string[] | null = null, c = client) {
  return c.send(ApiKey.ShareGroupHeartbeat, 1, { groupId, memberId, memberEpoch, rackId: null, subscribedTopicNames });
}

function describeShare(groupIds: string[], c = client) {
  return c.send(ApiKey.ShareGroupDescribe, 1, { groupIds, includeAuthorizedOperations: false }).then((r: any) => r.groups);
}

const partitions = (r: any) => (r.assignment?.topicPartitions ?? []).flatMap((tp: any) => tp.partitions).sort();

/** The share coordinator's summary of a share partition's state (ReadShareGroupStateSummary): stateEpoch 0 when never initialized. */
async function stateSummary(groupId: string, topicId: string, partition: number, c = client) {
  const res = await c.send(ApiKey.ReadShareGroupStateSummary, 1, { groupId, topics: [{ topicId, partitions: [{ partition, leaderEpoch: 0 }] }] });
  return res.results[0].partitions[0];
}

describe('ShareGroupHeartbeat and ShareGroupDescribe', () => {
  it('lets two members hold the one partition of a topic, and splits a four-partition topic', async () => {
    const a = await heartbeat('sg-one', 'a', 0, ['one']);
    expect(a).toMatchObject({ errorCode: 0, memberId: 'a', memberEpoch: 3, heartbeatIntervalMs: 5000 });
    expect(partitions(a)).toEqual([0]);
    // The share coordinator holds the partition's state, initialized at the group epoch 2, before it was assigned.
    const oneId = a.assignment.topicPartitions[0].topicId;
    expect(await stateSummary('sg-one', oneId, 0)).toMatchObject({ errorCode: 0, stateEpoch: 2, startOffset: -1 });
    expect((await stateSummary('sg-unknown', oneId, 0)).stateEpoch).toBe(0);
    const b = await heartbeat('sg-one', 'b', 0, ['one']);
    expect(partitions(b)).toEqual([0]);
    const [one] = await describeShare(['sg-one']);
    expect(one).toMatchObject({ errorCode: 0, groupState: 'Stable', groupEpoch: 4, assignorName: 'simple' });
    expect(one.members.map((m: any) => [m.memberId, m.assignment.topicPartitions.map((tp: any) => `${tp.topicName}-${tp.partitions}`)]).sort())
      .toEqual([['a', ['one-0']], ['b', ['one-0']]]);

    await heartbeat('sg-four', 'a', 0, ['four']);
    const b4 = await heartbeat('sg-four', 'b', 0, ['four']);
    const a4 = await heartbeat('sg-four', 'a', 3);
    expect(a4.memberEpoch).toBe(4);
    expect(partitions(a4)).toHaveLength(2);
    expect([...partitions(a4), ...partitions(b4)].sort()).toEqual([0, 1, 2, 3]);
  });

  it('fences a stale member epoch and answers an unknown member and group as Kafka does', async () => {
    await heartbeat('sg-fence', 'a', 0, ['one']);
    await heartbeat('sg-fence', 'b', 0, ['one']);
    await heartbeat('sg-fence', 'a', 3);
    await heartbeat('sg-fence', 'c', 0, ['one']);
    await heartbeat('sg-fence', 'a', 4);
    expect((await heartbeat('sg-fence', 'a', 3)).errorCode).toBe(E.FENCED_MEMBER_EPOCH);
    expect((await heartbeat('sg-fence', 'zz', 5)).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
    expect(await heartbeat('sg-nothing', 'a', 1)).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Share group sg-nothing not found.' });
    const [missing] = await describeShare(['sg-nothing']);
    expect(missing).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group sg-nothing not found.' });
    // The fenced heartbeat changed nothing: a is still at its epoch.
    expect((await heartbeat('sg-fence', 'a', 5)).errorCode).toBe(0);
  });

  it('refuses a share group id to the consumer protocol and a consumer group id to share members', async () => {
    const consumer = await client.send(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: 'sg-one', memberId: 'c', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 5000,
      subscribedTopicNames: ['one'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    expect(consumer).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group sg-one is not a consumer group.' });
    const joined = await client.send(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: 'cg', memberId: 'c', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 5000,
      subscribedTopicNames: ['one'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    expect(joined.errorCode).toBe(0);
    expect(await heartbeat('cg', 'a', 0, ['one'])).toMatchObject({ errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: 'Group cg is not a share group.' });
  });
});

describe('ListGroups, group configs and DeleteGroups', () => {
  it('lists share groups under their type filter', async () => {
    const list = (typesFilter: string[]) => client.send(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter })
      .then((r: any) => r.groups.map((g: any) => `${g.groupId}/${g.groupType}/${g.protocolType}/${g.groupState}`).sort());
    expect(await list(['share'])).toEqual(['sg-fence/share/share/Stable', 'sg-four/share/share/Stable', 'sg-one/share/share/Stable']);
    expect(await list(['consumer'])).toEqual(['cg/consumer/consumer/Stable']);
    expect(await list([])).toHaveLength(4);
  });

  it('validates share group configs against the broker group.share.* bounds and applies the session timeout', async () => {
    const alter = (configs: Array<[string, string]>) => client.send(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [{ resourceType: GROUP_RESOURCE, resourceName: 'sg-cfg', configs: configs.map(([name, value]) => ({ name, configOperation: 0, value })) }],
      validateOnly: false,
    }).then((r: any) => r.responses[0]);
    expect((await alter([['share.record.lock.duration.ms', '10000']])).errorCode).toBe(E.INVALID_CONFIG); // below 15000
    expect((await alter([['share.delivery.count.limit', '11']])).errorCode).toBe(E.INVALID_CONFIG); // above 10
    expect((await alter([['share.isolation.level', 'read_sometimes']])).errorCode).toBe(E.INVALID_CONFIG);
    expect((await alter([['share.heartbeat.interval.ms', '2000'], ['share.session.timeout.ms', '1500']])).errorCode).toBe(E.INVALID_CONFIG);
    expect((await alter([
      ['share.session.timeout.ms', '3000'], ['share.heartbeat.interval.ms', '200'], ['share.auto.offset.reset', 'by_duration:PT1H'],
      ['share.isolation.level', 'read_committed'], ['share.delivery.count.limit', '3'],
    ])).errorCode).toBe(E.NONE);
    const described = await client.send(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: GROUP_RESOURCE, resourceName: 'sg-cfg', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false,
    });
    const values = Object.fromEntries(described.results[0].configs.map((c: any) => [c.name, c.value]));
    expect(values).toMatchObject({
      'share.session.timeout.ms': '3000', 'share.auto.offset.reset': 'by_duration:PT1H', 'share.isolation.level': 'read_committed',
      'share.delivery.count.limit': '3', 'share.record.lock.duration.ms': '30000', 'share.partition.max.record.locks': '2000',
    });

    // The group's own heartbeat interval goes back to the member; its 3 s session expires a silent member.
    const a = await heartbeat('sg-cfg', 'a', 0, ['one']);
    expect(a.heartbeatIntervalMs).toBe(200);
    const b = await heartbeat('sg-cfg', 'b', 0, ['one']);
    const deadline = Date.now() + 20_000;
    let members: string[] = [];
    do {
      await new Promise((r) => setTimeout(r, 200));
      await heartbeat('sg-cfg', 'b', b.memberEpoch);
      members = (await describeShare(['sg-cfg']))[0].members.map((m: any) => m.memberId);
    } while (members.length > 1 && Date.now() < deadline);
    expect(members).toEqual(['b']);
    expect((await heartbeat('sg-cfg', 'a', 3)).errorCode).toBe(E.UNKNOWN_MEMBER_ID);
  }, 45_000);

  it('refuses to delete a share group with members; deletes it once they left', async () => {
    const fourId = (await describeShare(['sg-four']))[0].members[0].assignment.topicPartitions[0].topicId;
    expect((await stateSummary('sg-four', fourId, 1)).stateEpoch).toBe(2);
    const del = (groupsNames: string[]) => client.send(ApiKey.DeleteGroups, 2, { groupsNames }).then((r: any) => r.results.map((x: any) => x.errorCode));
    expect(await del(['sg-four'])).toEqual([E.NON_EMPTY_GROUP]);
    expect((await heartbeat('sg-four', 'a', -1)).memberEpoch).toBe(-1);
    expect((await heartbeat('sg-four', 'b', -1)).errorCode).toBe(0);
    expect(await del(['sg-four'])).toEqual([E.NONE]);
    expect((await describeShare(['sg-four']))[0].errorCode).toBe(E.GROUP_ID_NOT_FOUND);
    // Its share-partition state went with it (Persister.deleteState).
    for (const p of [0, 1, 2, 3]) expect((await stateSummary('sg-four', fourId, p)).stateEpoch).toBe(0);
  });
});

describe('share-group offsets admin APIs and membership', () => {
  it('keeps a start offset AlterShareGroupOffsets set when members join, and initializes again what DeleteShareGroupOffsets removed', async () => {
    const altered = await client.send(ApiKey.AlterShareGroupOffsets, 0, {
      groupId: 'sg-alter', topics: [{ topicName: 'four', partitions: [{ partitionIndex: 1, startOffset: 5 }] }],
    });
    expect(altered.responses[0].partitions[0].errorCode).toBe(0);
    // The unused id became an empty share group, as in Kafka 4.4.
    const listed = await client.send(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['share'] });
    expect(listed.groups.find((g: any) => g.groupId === 'sg-alter')).toMatchObject({ groupState: 'Empty', groupType: 'share' });
    const fourId = altered.responses[0].topicId;
    const before = await stateSummary('sg-alter', fourId, 1);
    expect(before).toMatchObject({ errorCode: 0, startOffset: 5 });

    const a = await heartbeat('sg-alter', 'a', 0, ['four']);
    expect(partitions(a)).toEqual([0, 1, 2, 3]);
    // Partition 1 kept its state; the others were initialized at the join.
    expect(await stateSummary('sg-alter', fourId, 1)).toMatchObject({ startOffset: 5, stateEpoch: before.stateEpoch });
    expect(await stateSummary('sg-alter', fourId, 0)).toMatchObject({ startOffset: -1, stateEpoch: 2 });

    expect((await heartbeat('sg-alter', 'a', -1)).errorCode).toBe(0);
    const deleted = await client.send(ApiKey.DeleteShareGroupOffsets, 0, { groupId: 'sg-alter', topics: [{ topicName: 'four' }] });
    expect(deleted.responses[0].errorCode).toBe(0);
    expect((await stateSummary('sg-alter', fourId, 1)).stateEpoch).toBe(0);
    const again = await heartbeat('sg-alter', 'b', 0, ['four']);
    expect(partitions(again)).toEqual([0, 1, 2, 3]);
    expect(await stateSummary('sg-alter', fourId, 1)).toMatchObject({ errorCode: 0, startOffset: -1 });
    expect((await stateSummary('sg-alter', fourId, 1)).stateEpoch).toBeGreaterThan(0);
    expect((await heartbeat('sg-alter', 'b', -1)).errorCode).toBe(0);
  });
});

describe('restart', () => {
  it('keeps share groups, their epochs and assignments across a kill -9, as a new connection sees them', async () => {
    const before = await describeShare(['sg-one', 'sg-fence']);
    client.close();
    broker = await killAndRestart(broker, { overrides: OVERRIDES });
    client = await WireClient.connect(broker.port);
    const after = await describeShare(['sg-one', 'sg-fence']);
    expect(after).toEqual(before);
    expect(after[0].members).toHaveLength(2);
    // A member goes on from the epoch it had (3: it has not heartbeated since b joined) to the group's; the deleted group stays deleted.
    expect(after[0].members.find((m: any) => m.memberId === 'a').memberEpoch).toBe(3);
    // It keeps its partition: the answer carries no assignment, as Kafka's when it did not change.
    const a = await heartbeat('sg-one', 'a', 3);
    expect(a).toMatchObject({ errorCode: 0, memberEpoch: 4, assignment: null });
    const [one] = await describeShare(['sg-one']);
    const held = one.members.find((m: any) => m.memberId === 'a').assignment.topicPartitions;
    expect(held.map((tp: any) => `${tp.topicName}-${tp.partitions}`)).toEqual(['one-0']);
    expect((await describeShare(['sg-four']))[0].errorCode).toBe(E.GROUP_ID_NOT_FOUND);
    // The share-partition state is still there, not initialized again (its state epoch is still the first one).
    expect(await stateSummary('sg-one', held[0].topicId, 0)).toMatchObject({ errorCode: 0, stateEpoch: 2 });
  }, 60_000);
});
