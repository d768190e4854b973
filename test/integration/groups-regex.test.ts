// ConsumerGroupHeartbeat v1 on the wire: a member-generated id (KIP-1082) and a regex subscription that picks up
// a topic created after the member joined, and lets go of a deleted one.
// (@platformatic/kafka 1.35 and 2.12 send SubscribedTopicRegex as null, so the regex is spoken with our wire client.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  // Each heartbeat below expects the target of the epoch it caused: no KIP-1263 batching of assignments.
  broker = await startBroker({ overrides: ['group.consumer.assignment.interval.ms=0'] });
  client = await WireClient.connect(broker.port);
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

async function createTopic(name: string, numPartitions: number): Promise<string> {
  const res = await client.send(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
  });
  expect(res.topics[0].errorCode).toBe(0);
  return res.topics[0].topicId;
}

function heartbeat(body: Record<string, unknown>) {
  return client.send(ApiKey.ConsumerGroupHeartbeat, 1, {
    groupId: 'regex-group', memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
    subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null, ...body,
  });
}

describe('ConsumerGroupHeartbeat v1', () => {
  it('is advertised', async () => {
    const versions = await client.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(versions.apiKeys.find((k: any) => k.apiKey === ApiKey.ConsumerGroupHeartbeat)).toMatchObject({ minVersion: 0, maxVersion: 1 });
  });

  it('refuses an empty member id and an invalid regex with Kafka\'s errors', async () => {
    expect((await heartbeat({ rebalanceTimeoutMs: 30_000, subscribedTopicNames: [], topicPartitions: [] })).errorCode).toBe(42); // INVALID_REQUEST
    const bad = await heartbeat({ memberId: randomUUID(), rebalanceTimeoutMs: 30_000, subscribedTopicRegex: 'orders-[', topicPartitions: [] });
    expect(bad.errorCode).toBe(128); // INVALID_REGULAR_EXPRESSION
    expect(bad.errorMessage).toMatch(/^SubscribedTopicRegex `orders-\[` is not a valid regular expression: /);
  });

  it('keeps the member id the member generated and resolves its regex as topics come and go', async () => {
    const first = await createTopic('orders-eu', 2);
    await createTopic('orders', 1); // does not match orders-.+ as a whole name
    const memberId = randomUUID();
    const joined = await heartbeat({ memberId, rebalanceTimeoutMs: 30_000, subscribedTopicRegex: 'orders-.+', topicPartitions: [] });
    expect(joined).toMatchObject({ errorCode: 0, memberId, memberEpoch: 1 });
    expect(joined.assignment.topicPartitions).toEqual([{ topicId: first, partitions: [0, 1] }]);

    const later = await createTopic('orders-us', 3);
    const next = await heartbeat({ memberId, memberEpoch: 1, topicPartitions: joined.assignment.topicPartitions });
    expect(next.errorCode).toBe(0);
    expect(next.memberEpoch).toBe(2);
    const byTopic = new Map(next.assignment.topicPartitions.map((tp: any) => [tp.topicId, tp.partitions]));
    expect(byTopic).toEqual(new Map([[first, [0, 1]], [later, [0, 1, 2]]]));

    const described = await client.send(ApiKey.ConsumerGroupDescribe, 0, { groupIds: ['regex-group'], includeAuthorizedOperations: false });
    expect(described.groups[0].members[0]).toMatchObject({ memberId, subscribedTopicRegex: 'orders-.+', subscribedTopicNames: [] });

    const deleted = await client.send(ApiKey.DeleteTopics, 6, { topics: [{ name: 'orders-eu', topicId: '00000000-0000-0000-0000-000000000000' }], topicNames: [], timeoutMs: 10_000 });
    expect(deleted.responses[0].errorCode).toBe(0);
    const after = await heartbeat({ memberId, memberEpoch: 2, topicPartitions: next.assignment.topicPartitions });
    // The deleted topic's partitions are revoked first; once the member acknowledges, it moves to the new epoch.
    expect(after.assignment.topicPartitions).toEqual([{ topicId: later, partitions: [0, 1, 2] }]);
    const settled = await heartbeat({ memberId, memberEpoch: after.memberEpoch, topicPartitions: after.assignment.topicPartitions });
    expect(settled).toMatchObject({ errorCode: 0, memberEpoch: 3 });
    const group = await client.send(ApiKey.ConsumerGroupDescribe, 0, { groupIds: ['regex-group'], includeAuthorizedOperations: false });
    expect(group.groups[0]).toMatchObject({ groupEpoch: 3, groupState: 'Stable' });
  });
});
