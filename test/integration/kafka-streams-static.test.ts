// Static membership of a streams group (KIP-1071, group.instance.id) with Kafka Streams 4.4
// (test/clients/java/StreamsApp.java, its word count under group.protocol=streams with an instance id): two instances
// share the tasks; one closes without leaving (a static member's leave, epoch -2) and starts again within the session
// timeout. The broker keeps its tasks while it is away and gives them back to the new incarnation without a rebalance:
// the group epoch does not move (StreamsGroupDescribe), and the lines produced afterwards are counted.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import type { DescribedGroup, StreamsGroupDescribeResponse } from '../../protocol/generated/StreamsGroupDescribeResponse.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { compileJava, javaArgs } from '../helpers/java.js';
import { until } from '../helpers/poll.js';

const APP = 'static-wordcount';
// The session timeout leaves room for a JVM restart on a loaded machine; the heartbeat is quick so that the test is.
const OVERRIDES = [
  'offsets.topic.num.partitions=1', 'group.streams.initial.rebalance.delay.ms=0', 'group.streams.min.heartbeat.interval.ms=500',
  'group.streams.heartbeat.interval.ms=500', 'group.streams.session.timeout.ms=60000', 'group.streams.max.session.timeout.ms=60000',
];

let broker: BrokerProcess;
const stateRoot = mkdtempSync(join(tmpdir(), 'kafkite-streams-static-'));
const children: ChildProcessWithoutNullStreams[] = [];

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await broker?.kill();
  broker?.cleanup();
  rmSync(stateRoot, { recursive: true, force: true });
});

interface Instance {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  exited: Promise<number | null>;
}

function startInstance(instanceId: string, classes: string): Instance {
  const child = spawn('java', javaArgs('StreamsApp', [broker.bootstrap, APP, join(stateRoot, instanceId), 'streams', instanceId], classes));
  children.push(child);
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = `${stderr}${d}`.slice(-5000)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    if (code !== 0 && code !== null) console.log(`instance ${instanceId} exited ${code}: ${stderr}`);
    resolve(code);
  }));
  return { child, lines, exited };
}

async function describeGroup(): Promise<DescribedGroup> {
  const client = await WireClient.connect(broker.port);
  try {
    return (await client.send<StreamsGroupDescribeResponse>(89, 0, { groupIds: [APP], includeAuthorizedOperations: false })).groups[0]!;
  } finally {
    client.close();
  }
}

const tasksOf = (m: DescribedGroup['members'][number]) => JSON.stringify(m.assignment.activeTasks);
/** Kafka Streams gives each stream thread's member the instance id with the thread's index: ib-1 for ib's one thread. */
const memberOf = (group: DescribedGroup, instanceId: string) => group.members.find((m) => m.instanceId === `${instanceId}-1`);

it('a static instance closed without leaving and started again gets its tasks back at the same group epoch', async () => {
  const classes = compileJava('StreamsApp');
  broker = await startBroker({ overrides: OVERRIDES });
  const kafka = new Kafka({ clientId: 'static-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: ['text-in', 'word-counts-out', 'windowed-counts-out'].map((topic) => ({ topic, numPartitions: 2 })) });
  await admin.disconnect();

  const a = startInstance('ia', classes);
  let b = startInstance('ib', classes);
  // Both running, each holding some of the four tasks (two sub-topologies of two partitions), the group stable.
  let before: DescribedGroup | undefined;
  await until(async () => {
    const g = await describeGroup();
    const settled = g.groupState === 'Stable' && g.members.length === 2 && g.members.every((m) => m.assignment.activeTasks.length > 0);
    if (settled) before = g;
    return settled && a.lines.at(-1) === 'STATE RUNNING' && b.lines.at(-1) === 'STATE RUNNING';
  }, 'two static instances sharing the tasks');
  const bBefore = memberOf(before!, 'ib')!;

  // b closes without leaving: the broker keeps its member (epoch -2) with its tasks, the group epoch unchanged.
  b.child.stdin.end();
  await until(() => b.lines.includes('CLOSED'), 'b closed');
  expect(await b.exited).toBe(0);
  const away = await describeGroup();
  expect(memberOf(away, 'ib')).toMatchObject({ memberId: bBefore.memberId, memberEpoch: -2 });
  expect(tasksOf(memberOf(away, 'ib')!)).toBe(tasksOf(bBefore));
  expect(away.groupEpoch).toBe(before!.groupEpoch);

  // b again, same instance id and state dir: a new member id, the same tasks, no rebalance.
  b = startInstance('ib', classes);
  let after: DescribedGroup | undefined;
  await until(async () => {
    after = await describeGroup();
    const back = memberOf(after, 'ib');
    return back !== undefined && back.memberId !== bBefore.memberId && back.memberEpoch === after.assignmentEpoch && b.lines.at(-1) === 'STATE RUNNING';
  }, 'b back in the group');
  expect(after!.groupEpoch).toBe(before!.groupEpoch);
  expect(after!.assignmentEpoch).toBe(before!.assignmentEpoch);
  expect(tasksOf(memberOf(after!, 'ib')!)).toBe(tasksOf(bBefore));
  expect(tasksOf(memberOf(after!, 'ia')!)).toBe(tasksOf(memberOf(before!, 'ia')!));

  // Lines produced now are counted (exactly once: the outputs are read committed).
  const producer = kafka.producer();
  await producer.connect();
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
  await producer.send({ topic: 'text-in', messages: words.map((w, i) => ({ key: `line-${i}`, value: `${w} ${w}` })) });
  await producer.disconnect();
  const counted = new Map<string, bigint>();
  const consumer = kafka.consumer({ groupId: 'word-counts-reader' });
  await consumer.connect();
  await consumer.subscribe({ topic: 'word-counts-out', fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void counted.set(message.key!.toString(), message.value!.readBigInt64BE()) });
  await until(() => words.every((w) => counted.get(w) === 2n), 'a count of 2 for each word');
  await consumer.disconnect();

  a.child.stdin.end();
  b.child.stdin.end();
  await Promise.all([a.exited, b.exited]);
}, 240_000);
