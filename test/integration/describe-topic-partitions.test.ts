// DescribeTopicPartitions (key 75, KIP-966), which kafka-topics --describe sends in Kafka 4.x: topics in name
// order, partitions paged by responsePartitionLimit with a cursor, unknown and undescribable topics as Kafka's
// DescribeTopicPartitionsRequestHandler reports them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ErrorCode as E } from '../../src/errors.js';
import { brokerForFile } from '../helpers/broker-process.js';

const broker = brokerForFile({
  overrides: [
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'allow.everyone.if.no.acl.found=true',
  ],
});
let client: WireClient;

beforeAll(async () => {
  client = await WireClient.connect(broker().port);
  const created = await client.send(19, 7, {
    topics: [['dtp-b', 3], ['dtp-a', 2], ['dtp-hidden', 1]].map(([name, numPartitions]) => ({ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] })),
    timeoutMs: 5000, validateOnly: false,
  });
  expect(created.topics.map((t: any) => t.errorCode)).toEqual([0, 0, 0]);
  // ANONYMOUS may not describe dtp-hidden (DENY wins over allow.everyone.if.no.acl.found).
  const acl = await client.send(30, 3, { creations: [{ resourceType: 2, resourceName: 'dtp-hidden', resourcePatternType: 3, principal: 'User:ANONYMOUS', host: '*', operation: 8, permissionType: 2 }] });
  expect(acl.results[0].errorCode).toBe(0);
});

afterAll(() => client?.close());

const describeTopics = (names: string[], responsePartitionLimit = 2000, cursor: { topicName: string; partitionIndex: number } | null = null) =>
  client.send(75, 0, { topics: names.map((name) => ({ name })), responsePartitionLimit, cursor });

/** topic:partition for every partition of the answer. */
const flat = (res: any) => res.topics.flatMap((t: any) => t.partitions.map((p: any) => `${t.name}:${p.partitionIndex}`));

describe('DescribeTopicPartitions', () => {
  it('describes the named topics in name order, with their ids and empty ELRs', async () => {
    const res = await describeTopics(['dtp-b', 'dtp-a']);
    expect(res.topics.map((t: any) => [t.name, t.errorCode, t.isInternal])).toEqual([['dtp-a', 0, false], ['dtp-b', 0, false]]);
    const metadata = await client.send(3, 12, { topics: [{ topicId: '0'.repeat(32), name: 'dtp-b' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(res.topics[1].topicId).toBe(metadata.topics[0].topicId);
    expect(res.topics[1].partitions[2]).toMatchObject({ errorCode: 0, partitionIndex: 2, leaderId: 1, replicaNodes: [1], isrNodes: [1], eligibleLeaderReplicas: [], lastKnownElr: [] });
    expect(res.nextCursor).toBeNull();
  });

  it('pages by responsePartitionLimit: the cursor names the next partition, and the next request starts there', async () => {
    const first = await describeTopics(['dtp-a', 'dtp-b'], 3);
    expect(flat(first)).toEqual(['dtp-a:0', 'dtp-a:1', 'dtp-b:0']);
    expect(first.nextCursor).toEqual({ topicName: 'dtp-b', partitionIndex: 1 });
    const second = await describeTopics(['dtp-a', 'dtp-b'], 3, first.nextCursor);
    expect(flat(second)).toEqual(['dtp-b:1', 'dtp-b:2']);
    expect(second.nextCursor).toBeNull();
    // A page that ends with a topic: the cursor points at the next topic's first partition.
    const exact = await describeTopics(['dtp-a', 'dtp-b'], 2);
    expect([flat(exact), exact.nextCursor]).toEqual([['dtp-a:0', 'dtp-a:1'], { topicName: 'dtp-b', partitionIndex: 0 }]);
  });

  it('all topics: every describable one, internal ones flagged; the undescribable left out', async () => {
    // A first offset commit creates __consumer_offsets.
    const commit = await client.send(8, 8, {
      groupId: 'dtp-group', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 'dtp-a', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });
    expect(commit.topics[0].partitions[0].errorCode).toBe(0);
    const res = await describeTopics([]);
    expect(res.topics.map((t: any) => [t.name, t.isInternal])).toEqual([['__consumer_offsets', true], ['dtp-a', false], ['dtp-b', false]]);
  });

  it('an unknown topic is UNKNOWN_TOPIC_OR_PARTITION, an undescribable one TOPIC_AUTHORIZATION_FAILED, a cursor outside the list INVALID_REQUEST', async () => {
    const res = await describeTopics(['dtp-hidden', 'dtp-nope', 'dtp-a']);
    expect(res.topics.map((t: any) => [t.name, t.errorCode, t.partitions.length])).toEqual([
      ['dtp-a', 0, 2], ['dtp-nope', E.UNKNOWN_TOPIC_OR_PARTITION, 0], ['dtp-hidden', E.TOPIC_AUTHORIZATION_FAILED, 0],
    ]);
    const bad = await describeTopics(['dtp-a'], 10, { topicName: 'dtp-b', partitionIndex: 0 });
    expect(bad.topics.map((t: any) => [t.name, t.errorCode])).toEqual([['dtp-a', E.INVALID_REQUEST]]);
  });
});
