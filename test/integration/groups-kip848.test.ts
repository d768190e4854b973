// The KIP-848 consumer group protocol against the real broker process, with @platformatic/kafka's
// `groupProtocol: 'consumer'`: server-side assignment, reassignment when a member leaves, committed
// offsets and the group itself surviving a broker restart.
import { Admin, Producer, stringSerializers } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DescribedGroup } from '../../protocol/generated/ConsumerGroupDescribeResponse.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { describeConsumerGroup } from '../helpers/consumer-group-describe.js';
import { startStreamingConsumer, type StreamingConsumer } from '../helpers/platformatic.js';

const TOPIC = 'kip848-topic';
const GROUP = 'kip848-group';
const PARTITIONS = 6;
const OVERRIDES = ['group.consumer.heartbeat.interval.ms=300', 'group.consumer.min.heartbeat.interval.ms=100'];

let broker: BrokerProcess;
const consumers: StreamingConsumer[] = [];

beforeAll(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
});

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await broker.stop();
  broker.cleanup();
});

function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = async () => {
      if (await check()) resolve();
      else if (Date.now() > deadline) reject(new Error('timed out'));
      else setTimeout(poll, 100);
    };
    void poll();
  });
}

function describeGroup(): Promise<DescribedGroup> {
  return describeConsumerGroup(broker.port, GROUP);
}

/** Stable with `members` members, each reconciled to an even share of the partitions. */
async function isBalanced(members: number): Promise<boolean> {
  const g = await describeGroup();
  if (g.groupState !== 'Stable' || g.members.length !== members) return false;
  const counts = g.members.map((m) => m.assignment.topicPartitions.reduce((n, tp) => n + tp.partitions.length, 0));
  return counts.every((n) => n === PARTITIONS / members);
}

async function produce(from: number, count: number): Promise<void> {
  const producer = new Producer({ clientId: 'kip848-producer', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers });
  await producer.send({
    messages: Array.from({ length: count }, (_, i) => ({ topic: TOPIC, partition: (from + i) % PARTITIONS, key: 'k', value: `v${from + i}` })),
  });
  await producer.close();
}

async function startConsumer(name: string, received: string[]): Promise<StreamingConsumer> {
  const consumer = await startStreamingConsumer(
    { clientId: `kip848-${name}`, bootstrapBrokers: [broker.bootstrap], groupId: GROUP, groupProtocol: 'consumer', maxWaitTime: 100 },
    TOPIC,
    received,
  );
  consumers.push(consumer);
  return consumer;
}

async function committedOffsets(admin: Admin): Promise<number[]> {
  const [offsets] = await admin.listConsumerGroupOffsets({ groups: [GROUP] });
  return (offsets!.topics.find((t) => t.name === TOPIC)?.partitions ?? []).map((p) => Number(p.committedOffset)).sort();
}

const expected = (from: number, count: number) => Array.from({ length: count }, (_, i) => `v${from + i}`).sort();

describe('KIP-848 consumer groups (@platformatic/kafka, groupProtocol consumer)', () => {
  it('assigns on the broker, reassigns when a member leaves, and keeps offsets and the group across a restart', async () => {
    const admin = new Admin({ clientId: 'kip848-admin', bootstrapBrokers: [broker.bootstrap] });
    await admin.createTopics({ topics: [TOPIC], partitions: PARTITIONS, replicas: 1 });

    const received: string[] = [];
    const first = await startConsumer('a', received);
    await startConsumer('b', received);
    await startConsumer('c', received);
    await until(() => isBalanced(3));
    const group = await describeGroup();
    expect(group).toMatchObject({ errorCode: 0, groupState: 'Stable', assignorName: 'uniform' });
    expect(group.assignmentEpoch).toBe(group.groupEpoch);
    for (const m of group.members) {
      expect(m.memberEpoch).toBe(group.groupEpoch);
      expect(m.subscribedTopicNames).toEqual([TOPIC]);
      expect(m.assignment).toEqual(m.targetAssignment);
      expect(m.assignment.topicPartitions[0]!.topicName).toBe(TOPIC);
    }

    // Every record exactly once across the three members.
    await produce(0, 60);
    await until(() => received.length >= 60);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...received].sort()).toEqual(expected(0, 60));

    // One member leaves (epoch -1) once everything is committed: the other two take over its partitions.
    await until(async () => (await committedOffsets(admin)).join() === '10,10,10,10,10,10');
    await first.stop();
    await until(() => isBalanced(2));
    received.length = 0;
    await produce(60, 30);
    await until(() => received.length >= 30);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...received].sort()).toEqual(expected(60, 30));

    // Autocommit every 100 ms: wait for the commits of the last records (15 per partition).
    await until(async () => (await committedOffsets(admin)).join() === '15,15,15,15,15,15');
    const listed = await admin.listGroups({ types: ['consumer'] });
    expect(listed.get(GROUP)).toMatchObject({ protocolType: 'consumer', groupType: 'consumer' });
    const before = await describeGroup();
    await admin.close();

    // The broker goes down under the members and comes back on the same port with the same data.
    expect(await broker.stop()).toBe(0);
    broker = await startBroker({ dataDir: broker.dataDir, port: broker.port, overrides: OVERRIDES });
    const reloaded = await describeGroup();
    expect(reloaded).toMatchObject({ groupEpoch: before.groupEpoch, assignmentEpoch: before.assignmentEpoch });
    expect(reloaded.members.map((m) => m.memberId).sort()).toEqual(before.members.map((m) => m.memberId).sort());

    const admin2 = new Admin({ clientId: 'kip848-admin-2', bootstrapBrokers: [broker.bootstrap] });
    expect(await committedOffsets(admin2)).toEqual([15, 15, 15, 15, 15, 15]);
    await admin2.close();

    // The surviving members carry on from their committed offsets.
    received.length = 0;
    await produce(90, 12);
    await until(() => received.length >= 12);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...received].sort()).toEqual(expected(90, 12));
  }, 90_000);
});
