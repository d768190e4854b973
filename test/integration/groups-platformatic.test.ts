// @platformatic/kafka against the real broker process: a static and a dynamic member in one group,
// and the admin group APIs (OffsetFetch v8+ batched groups, OffsetCommit, OffsetDelete, LeaveGroup by instance id).
import { Admin, Producer, stringSerializers } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStreamingConsumer } from '../helpers/platformatic.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let admin: Admin;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['group.initial.rebalance.delay.ms=0'] });
  admin = new Admin({ clientId: 'groups-admin', bootstrapBrokers: [broker.bootstrap] });
});

afterAll(async () => {
  await admin.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (check()) resolve();
      else if (Date.now() > deadline) reject(new Error('timed out'));
      else setTimeout(poll, 50);
    };
    poll();
  });
}

async function committedOffsets(groupId: string, topic: string): Promise<number[]> {
  const [offsets] = await admin.listConsumerGroupOffsets({ groups: [groupId] });
  return (offsets!.topics.find((t) => t.name === topic)?.partitions ?? []).map((p) => Number(p.committedOffset)).sort();
}

async function produce(topic: string, count: number): Promise<void> {
  const producer = new Producer({ clientId: 'groups-producer', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers });
  await producer.send({ messages: Array.from({ length: count }, (_, i) => ({ topic, partition: i % 4, key: `k${i}`, value: `v${i}` })) });
  await producer.close();
}

function startConsumer(groupId: string, topic: string, received: string[], groupInstanceId?: string) {
  return startStreamingConsumer(
    {
      clientId: `groups-consumer-${groupInstanceId ?? 'dynamic'}`, bootstrapBrokers: [broker.bootstrap], groupId, groupInstanceId,
      sessionTimeout: 10_000, heartbeatInterval: 200, maxWaitTime: 100,
    },
    topic,
    received,
  );
}

describe('consumer groups (@platformatic/kafka)', () => {
  it('shares a topic between a static and a dynamic member and exposes the group to the admin', async () => {
    const topic = 'pk-groups';
    await admin.createTopics({ topics: [topic], partitions: 4, replicas: 1 });
    await produce(topic, 40);
    const received: string[] = [];
    const staticMember = await startConsumer('pk', topic, received, 'instance-1');
    const dynamicMember = await startConsumer('pk', topic, received);
    await until(() => new Set(received).size === 40);

    const groups = await admin.describeGroups({ groups: ['pk'] });
    const group = groups.get('pk')!;
    expect(group.state).toBe('STABLE');
    expect(group.protocolType).toBe('consumer');
    expect([...group.members.values()].map((m) => m.groupInstanceId).sort()).toEqual(['instance-1', null].sort());
    const listed = await admin.listGroups({ states: ['STABLE'] });
    expect(listed.get('pk')).toMatchObject({ protocolType: 'consumer', groupType: 'classic' });

    // Autocommit every 100 ms: wait for the last records' commits.
    let committed: number[] = [];
    for (let i = 0; i < 100 && committed.join() !== '10,10,10,10'; i++) {
      committed = await committedOffsets('pk', topic);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(committed).toEqual([10, 10, 10, 10]);

    await dynamicMember.stop();
    // A static member does not leave on close; the admin removes it by instance id.
    await staticMember.stop();
    await admin.removeMembersFromConsumerGroup({ groupId: 'pk', members: null });
    expect((await admin.describeGroups({ groups: ['pk'] })).get('pk')!.state).toBe('EMPTY');
  });

  it('alters, lists and deletes offsets of an empty group, then deletes the group', async () => {
    const topic = 'pk-admin-offsets';
    await admin.createTopics({ topics: [topic], partitions: 2, replicas: 1 });
    await admin.alterConsumerGroupOffsets({
      groupId: 'pk-admin', topics: [{ name: topic, partitionOffsets: [{ partition: 0, offset: 5n }, { partition: 1, offset: 7n }] }],
    });
    const [group, unknown] = await admin.listConsumerGroupOffsets({
      groups: ['pk-admin', { groupId: 'pk-none', topics: [{ name: topic, partitionIndexes: [0] }] }],
    });
    expect(group!.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset])).toEqual([[0, 5n], [1, 7n]]);
    expect(unknown!.topics[0]!.partitions[0]!.committedOffset).toBe(-1n);

    await admin.deleteConsumerGroupOffsets({ groupId: 'pk-admin', topics: [{ name: topic, partitionIndexes: [0] }] });
    const [after] = await admin.listConsumerGroupOffsets({ groups: ['pk-admin'] });
    expect(after!.topics[0]!.partitions.map((p) => p.partitionIndex)).toEqual([1]);

    await admin.deleteGroups({ groups: ['pk-admin'] });
    expect((await admin.listGroups()).has('pk-admin')).toBe(false);
    await expect(admin.deleteGroups({ groups: ['pk-admin'] })).rejects.toThrow();
  });
});
