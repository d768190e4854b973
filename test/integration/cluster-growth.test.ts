// kafkite -> a three-node Apache Kafka 4.4 cluster (issue #31, part 4), with exactly the commands of README's
// "Outgrowing one machine". kafkite is filled (a topic of two partitions, a group committed half way) and stopped;
// Kafka 4.4 takes its log dir over with `kafkite kafka-config`'s properties. That node is the only KRaft voter, a
// static one (controller.quorum.voters, kraft.version 0), so the quorum grows first, as KIP-853 and Kafka's docs
// ("Controller membership changes") have it: `kafka-features upgrade --feature kraft.version=1` on the running
// node, two combined nodes formatted with --no-initial-controllers (observers) and `kafka-metadata-quorum
// add-controller` for each. `kafka-reassign-partitions` then gives every partition (the topic's and
// __consumer_offsets') three replicas, node 1 stops while a consumer group reads, and `remove-controller` takes it
// out of the quorum. The group reads every record at least once, from the offsets committed on kafkite on.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/free-port.js';
import { ReferenceKafka } from '../../bench/lib/reference-kafka.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { javaArgs, KafkaTools } from '../helpers/java.js';
import { until } from '../helpers/poll.js';
import { connectWithRetry, createTopic, produce, recordBatch } from '../reliability/support.js';

const TOPIC = 'orders';
const PARTITIONS = [0, 1];
/** Records per partition on kafkite, where the group has committed half of them, and after node 1 has stopped. */
const ON_KAFKITE = 100;
const COMMITTED = 50;
const AFTER_STOP = 50;
const GROUP = 'growing';
const OVERRIDES = ['auto.create.topics.enable=false', 'group.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=3'];
const OFFSETS_PARTITIONS = [0, 1, 2];

let workDir: string;
let tools: KafkaTools;
const nodes = new Map<number, ReferenceKafka>();
let consumer: ChildProcess | undefined;
let consumed = '';
let clusterId: string;
let kafkite: BrokerProcess | undefined;
/** Node 1's directory id in the quorum (remove-controller names it). */
let node1DirectoryId: string;

const bootstrap = (ids: number[]) => ids.map((id) => `127.0.0.1:${nodes.get(id)!.ports.PLAINTEXT}`).join(',');
const value = (partition: number, i: number) => `p${partition}-${i}`;

async function tool(main: string, ...args: string[]): Promise<string> {
  const run = await tools.run(main, ...args);
  expect({ args, code: run.code, err: run.err.split('\n').filter((l) => !/WARN|SLF4J/.test(l) && l.trim() !== '').join('\n') }).toEqual({ args, code: 0, err: '' });
  return run.out;
}

/** kafkite with the topic's records and the group committed at COMMITTED on each partition; returns its data dir. */
async function fillKafkite(): Promise<BrokerProcess> {
  const broker = await startBroker({ overrides: OVERRIDES });
  const client = await connectWithRetry(broker.port);
  await createTopic(client, TOPIC, PARTITIONS.length);
  for (const p of PARTITIONS) {
    expect((await produce(client, TOPIC, p, recordBatch(Array.from({ length: ON_KAFKITE }, (_, i) => value(p, i))))).errorCode).toBe(0);
  }
  client.close();
  await tool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', '--bootstrap-server', broker.bootstrap,
    '--reset-offsets', '--group', GROUP, '--topic', TOPIC, '--to-offset', String(COMMITTED), '--execute');
  return broker;
}

/** Node 2 or 3: a combined node that joins node 1's quorum as an observer (formatted without initial controllers). */
async function addNode(id: number): Promise<ReferenceKafka> {
  const dir = join(workDir, `node-${id}`);
  mkdirSync(dir);
  const [port, controllerPort] = [await freePort(), await freePort()];
  const lines = [
    'process.roles=broker,controller', `node.id=${id}`,
    `controller.quorum.bootstrap.servers=127.0.0.1:${nodes.get(1)!.ports.CONTROLLER}`, 'controller.listener.names=CONTROLLER',
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT', 'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${join(dir, 'data')}`, ...OVERRIDES,
  ];
  return ReferenceKafka.startOn(dir, lines, { PLAINTEXT: port, CONTROLLER: controllerPort }, ['-t', clusterId, '--no-initial-controllers'], { nodeId: id, readyTimeoutMs: 120_000 });
}

/** Each partition's [replicas, isr, leader] as node `via` sees them. */
async function partitionState(via: number, topic: string): Promise<Array<{ partition: number; replicas: number[]; isr: number[]; leader: number }>> {
  const client = await WireClient.connect(nodes.get(via)!.ports.PLAINTEXT!);
  try {
    const res = await client.send(3, 12, { topics: [{ name: topic, topicId: '0'.repeat(32) }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    return res.topics[0].partitions.map((p: { partitionIndex: number; replicaNodes: number[]; isrNodes: number[]; leaderId: number }) => (
      { partition: p.partitionIndex, replicas: [...p.replicaNodes].sort((a, b) => a - b), isr: [...p.isrNodes].sort((a, b) => a - b), leader: p.leaderId }));
  } finally {
    client.close();
  }
}

/** The group's committed offset per partition of the topic, from ConsumerGroupCommand --describe. */
async function committed(via: number[]): Promise<number[]> {
  // Polled while the group's coordinator moves: a failed describe (NOT_COORDINATOR and the like) is asked again.
  const { out } = await tools.run('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', '--bootstrap-server', bootstrap(via), '--describe', '--group', GROUP);
  return PARTITIONS.map((p) => Number(out.split('\n').map((l) => l.trim().split(/\s+/)).find((c) => c[1] === TOPIC && c[2] === String(p))?.[3]));
}

/** The console consumer's reads so far: partition -> offsets and values. */
function reads(): Map<number, Array<[number, string]>> {
  const byPartition = new Map<number, Array<[number, string]>>(PARTITIONS.map((p) => [p, []]));
  for (const m of consumed.matchAll(/^Partition:(\d+)\tOffset:(\d+)\t(.*)$/gm)) byPartition.get(Number(m[1]))?.push([Number(m[2]), m[3]!]);
  return byPartition;
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'cluster-growth-'));
  tools = new KafkaTools();
  kafkite = await fillKafkite();
  expect(await kafkite.stop()).toBe(0);
  // Node 1: Kafka on kafkite's log dir, with the properties kafkite prints.
  const controllerPort = await freePort();
  const empty = join(workDir, 'kafkite.properties');
  writeFileSync(empty, '');
  const properties = execFileSync(process.execPath, ['bin/kafkite.js', 'kafka-config', empty, '--controller-port', String(controllerPort),
    ...[`log.dirs=${kafkite.dataDir}`, ...OVERRIDES, `listeners=PLAINTEXT://127.0.0.1:${kafkite.port}`].flatMap((o) => ['--override', o])], { cwd: REPO_ROOT, encoding: 'utf8' });
  const node1Dir = join(workDir, 'node-1');
  mkdirSync(node1Dir);
  nodes.set(1, await ReferenceKafka.startOn(node1Dir, properties.split('\n').filter((l) => l !== '' && !l.startsWith('#')),
    { PLAINTEXT: kafkite.port, CONTROLLER: controllerPort }, null, { readyTimeoutMs: 120_000 }));
  clusterId = /^cluster\.id=(.*)$/m.exec(readFileSync(join(kafkite.dataDir, 'meta.properties'), 'utf8'))![1]!;
}, 300_000);

afterAll(async () => {
  consumer?.kill('SIGKILL');
  for (const node of nodes.values()) await node.stop();
  await tools?.close();
  kafkite?.cleanup();
  rmSync(workDir, { recursive: true, force: true });
}, 90_000);

describe('kafkite -> a three-node Kafka 4.4 cluster', () => {
  it('grows the quorum from the static single voter: kraft.version 1, then two controllers added', async () => {
    const quorum = ['--bootstrap-server', bootstrap([1])];
    const features = await tool('org.apache.kafka.tools.FeatureCommand', ...quorum, 'describe');
    expect(features).toMatch(/Feature: kraft\.version\s.*FinalizedVersionLevel: 0\s/);
    expect(await tool('org.apache.kafka.tools.FeatureCommand', ...quorum, 'upgrade', '--feature', 'kraft.version=1')).toContain('kraft.version was upgraded to 1.');
    for (const id of [2, 3]) {
      nodes.set(id, await addNode(id));
      const added = await tool('org.apache.kafka.tools.MetadataQuorumCommand', '--command-config', join(nodes.get(id)!.dir, 'server.properties'),
        '--bootstrap-controller', `127.0.0.1:${nodes.get(1)!.ports.CONTROLLER}`, 'add-controller');
      expect(added).toContain(`Added controller ${id} with directory id`);
    }
    const status = await tool('org.apache.kafka.tools.MetadataQuorumCommand', ...quorum, 'describe', '--status');
    const voters: Array<{ id: number; directoryId: string }> = JSON.parse(/^CurrentVoters:\s+(.*)$/m.exec(status)![1]!);
    expect(voters.map((v) => v.id).sort()).toEqual([1, 2, 3]);
    node1DirectoryId = voters.find((v) => v.id === 1)!.directoryId;
  }, 300_000);

  it('raises the replication factor to 3 with kafka-reassign-partitions, the topic and __consumer_offsets', async () => {
    const plan = join(workDir, 'reassignment.json');
    writeFileSync(plan, JSON.stringify({
      version: 1,
      partitions: [...PARTITIONS.map((partition) => ({ topic: TOPIC, partition, replicas: [1, 2, 3] })),
        ...OFFSETS_PARTITIONS.map((partition) => ({ topic: '__consumer_offsets', partition, replicas: [1, 2, 3] }))],
    }));
    const reassign = ['org.apache.kafka.tools.reassign.ReassignPartitionsCommand', '--bootstrap-server', bootstrap([1]), '--reassignment-json-file', plan] as const;
    expect(await tool(...reassign, '--execute')).toContain('Successfully started partition reassignments');
    let verify = '';
    await until(async () => !(verify = (await tools.run(...reassign, '--verify')).out).includes('still in progress') && verify.includes('is completed'), 'the reassignment complete', 120_000);
    expect(verify).not.toMatch(/failed|still in progress/);
    for (const p of PARTITIONS) expect(verify).toContain(`Reassignment of partition ${TOPIC}-${p} is completed`);
    for (const topic of [TOPIC, '__consumer_offsets']) {
      await until(async () => (await partitionState(1, topic)).every((p) => p.isr.length === 3), `${topic} in sync on 3 nodes`, 60_000);
      for (const p of await partitionState(2, topic)) expect({ topic, partition: p.partition, replicas: p.replicas, isr: p.isr }).toEqual({ topic, partition: p.partition, replicas: [1, 2, 3], isr: [1, 2, 3] });
    }
  }, 300_000);

  it('stops node 1 while the group reads: every record read at least once, from the offsets committed on kafkite on', async () => {
    consumer = spawn('java', javaArgs('org.apache.kafka.tools.consumer.ConsoleConsumer', ['--bootstrap-server', bootstrap([1, 2, 3]),
      '--topic', TOPIC, '--group', GROUP, '--property', 'print.partition=true', '--property', 'print.offset=true',
      '--consumer-property', 'auto.commit.interval.ms=500']), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    consumer.stdout!.on('data', (d: Buffer) => (consumed += d.toString()));
    const readUpTo = (end: number) => PARTITIONS.every((p) => reads().get(p)!.some(([offset]) => offset === end - 1));
    await until(async () => readUpTo(ON_KAFKITE), 'the records written on kafkite read', 90_000);
    await until(async () => (await committed([1, 2, 3])).every((o) => o === ON_KAFKITE), 'the group committed on node 1', 30_000);

    // Node 1 goes (controlled shutdown: it hands its leaderships over, as the quorum's leader its place too).
    expect(await nodes.get(1)!.stop()).toBe(143);
    for (const topic of [TOPIC, '__consumer_offsets']) {
      await until(async () => (await partitionState(2, topic)).every((p) => p.leader === 2 || p.leader === 3), `${topic} led by 2 or 3`, 60_000);
    }
    // More records, to each partition's new leader, acknowledged by its in-sync replicas.
    for (const p of await partitionState(2, TOPIC)) {
      const client = await WireClient.connect(nodes.get(p.leader)!.ports.PLAINTEXT!);
      try {
        const res = await produce(client, TOPIC, p.partition, recordBatch(Array.from({ length: AFTER_STOP }, (_, i) => value(p.partition, ON_KAFKITE + i))));
        expect({ errorCode: res.errorCode, baseOffset: res.baseOffset }).toEqual({ errorCode: 0, baseOffset: ON_KAFKITE });
      } finally {
        client.close();
      }
    }
    const end = ON_KAFKITE + AFTER_STOP;
    await until(async () => readUpTo(end), 'the records written after node 1 stopped read', 120_000);
    await until(async () => (await committed([2, 3])).every((o) => o === end), 'the group committed on nodes 2 and 3', 60_000);
    for (const p of PARTITIONS) {
      const read = reads().get(p)!;
      // Read from the offset committed on kafkite (nothing before it), each record at its offset, none left out.
      expect(Math.min(...read.map(([offset]) => offset))).toBe(COMMITTED);
      for (const [offset, v] of read) expect([offset, v]).toEqual([offset, value(p, offset)]);
      expect(new Set(read.map(([offset]) => offset)).size).toBe(end - COMMITTED);
    }
  }, 300_000);

  it('takes node 1 out of the quorum with remove-controller; the cluster serves on two nodes', async () => {
    const quorum = ['--bootstrap-controller', `127.0.0.1:${nodes.get(2)!.ports.CONTROLLER},127.0.0.1:${nodes.get(3)!.ports.CONTROLLER}`];
    expect(await tool('org.apache.kafka.tools.MetadataQuorumCommand', ...quorum, 'remove-controller', '--controller-id', '1', '--controller-directory-id', node1DirectoryId))
      .toContain('Removed KRaft controller 1');
    let status = '';
    await until(async () => {
      status = (await tools.run('org.apache.kafka.tools.MetadataQuorumCommand', ...quorum, 'describe', '--status')).out;
      const voters = /^CurrentVoters:\s+(.*)$/m.exec(status);
      return voters !== null && JSON.stringify(JSON.parse(voters[1]!).map((v: { id: number }) => v.id).sort()) === '[2,3]';
    }, 'voters 2 and 3', 30_000);
    expect(/^LeaderId:\s+(\d+)/m.exec(status)![1]).toMatch(/^[23]$/);
    for (const p of await partitionState(3, TOPIC)) expect({ partition: p.partition, isr: p.isr }).toEqual({ partition: p.partition, isr: [2, 3] });
  }, 120_000);
});
