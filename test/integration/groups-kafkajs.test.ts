// Consumer groups with kafkajs against the real broker process: rebalances across several members,
// committed offsets, the admin group APIs, and offsets surviving a broker restart.
import { spawn } from 'node:child_process';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let kafka: Kafka;
const OVERRIDES = ['group.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=5', 'group.min.session.timeout.ms=1000'];

beforeAll(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
  kafka = new Kafka({ clientId: 'groups-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

async function createTopic(topic: string, numPartitions: number, messages: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions }] });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic,
    messages: Array.from({ length: messages }, (_, i) => ({ partition: i % numPartitions, value: `m${i}` })),
  });
  await producer.disconnect();
}

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

interface Member {
  consumer: Consumer;
  assigned: number[];
  received: string[];
}

async function startMember(groupId: string, topic: string): Promise<Member> {
  const member: Member = {
    consumer: kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 200, maxWaitTimeInMs: 100 }),
    assigned: [],
    received: [],
  };
  member.consumer.on(member.consumer.events.GROUP_JOIN, (e) => {
    member.assigned = [...(e.payload.memberAssignment[topic] ?? [])].sort((a, b) => a - b);
  });
  await member.consumer.connect();
  await member.consumer.subscribe({ topic, fromBeginning: true });
  await member.consumer.run({ eachMessage: async ({ message }) => { member.received.push(message.value!.toString()); } });
  return member;
}

describe('consumer groups (kafkajs)', () => {
  it('spreads partitions over three members, consumes each record once, and rebalances when one leaves', async () => {
    const topic = 'group-spread';
    await createTopic(topic, 6, 60);
    const members: Member[] = [];
    for (let i = 0; i < 3; i++) members.push(await startMember('spread', topic));
    await until(() => members.reduce((n, m) => n + m.received.length, 0) === 60 && members.every((m) => m.assigned.length === 2));
    expect(members.flatMap((m) => m.assigned).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(new Set(members.flatMap((m) => m.received)).size).toBe(60);

    const admin = kafka.admin();
    await admin.connect();
    const { groups } = await admin.describeGroups(['spread']);
    expect(groups[0]).toMatchObject({ groupId: 'spread', state: 'Stable', protocolType: 'consumer', protocol: 'RoundRobinAssigner' });
    expect(groups[0]!.members).toHaveLength(3);

    await members[2]!.consumer.disconnect();
    await until(() => members[0]!.assigned.length === 3 && members[1]!.assigned.length === 3);
    expect([...members[0]!.assigned, ...members[1]!.assigned].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    await Promise.all(members.slice(0, 2).map((m) => m.consumer.disconnect()));

    // Every record was committed before the members left.
    const offsets = await admin.fetchOffsets({ groupId: 'spread', topics: [topic] });
    expect(offsets[0]!.partitions.map((p) => Number(p.offset))).toEqual([10, 10, 10, 10, 10, 10]);
    expect((await admin.describeGroups(['spread'])).groups[0]!.state).toBe('Empty');
    await admin.disconnect();
  });

  it('hands a crashed member\'s partitions to the others when its session times out', async () => {
    const topic = 'group-crash';
    await createTopic(topic, 2, 2);
    const survivor = await startMember('crash', topic);
    await until(() => survivor.assigned.length === 2);
    // The second member is another process, killed without leaving the group.
    const script = `
      import { Kafka, logLevel } from 'kafkajs';
      const kafka = new Kafka({ clientId: 'doomed', brokers: ['${broker.bootstrap}'], logLevel: logLevel.NOTHING });
      const consumer = kafka.consumer({ groupId: 'crash', sessionTimeout: 1500, heartbeatInterval: 200 });
      consumer.on(consumer.events.GROUP_JOIN, () => console.log('joined'));
      await consumer.connect();
      await consumer.subscribe({ topic: '${topic}', fromBeginning: true });
      await consumer.run({ eachMessage: async () => {} });`;
    const doomed = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => doomed.once('exit', resolve));
    await new Promise<void>((resolve) => doomed.stdout!.on('data', (d) => { if (String(d).includes('joined')) resolve(); }));
    await until(() => survivor.assigned.length === 1);
    doomed.kill('SIGKILL');
    await exited;
    await until(() => survivor.assigned.length === 2);
    await survivor.consumer.disconnect();
  });

  it('resumes from committed offsets after the broker restarts, and deletes the group', async () => {
    const topic = 'group-resume';
    await createTopic(topic, 2, 20);
    const first = await startMember('resume', topic);
    await until(() => first.received.length === 20);
    await first.consumer.disconnect();

    expect(await broker.stop()).toBe(0);
    broker = await startBroker({ dataDir: broker.dataDir, port: broker.port, overrides: OVERRIDES });
    kafka = new Kafka({ clientId: 'groups-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ partition: 0, value: 'late-0' }, { partition: 1, value: 'late-1' }] });
    await producer.disconnect();

    const second = await startMember('resume', topic);
    await until(() => second.received.length === 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(second.received.sort()).toEqual(['late-0', 'late-1']);
    await second.consumer.disconnect();

    const admin = kafka.admin();
    await admin.connect();
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).toContain('resume');
    await admin.setOffsets({ groupId: 'resume', topic, partitions: [{ partition: 0, offset: '3' }] });
    const offsets = await admin.fetchOffsets({ groupId: 'resume', topics: [topic] });
    expect(offsets[0]!.partitions.find((p) => p.partition === 0)!.offset).toBe('3');
    await admin.deleteGroups(['resume']);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain('resume');
    const after = await admin.fetchOffsets({ groupId: 'resume', topics: [topic] });
    expect(after[0]!.partitions.map((p) => p.offset)).toEqual(['-1', '-1']);
    await admin.disconnect();
  });
});
