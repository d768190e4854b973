// Kafka Streams 4.4 (test/clients/java/StreamsApp.java) against kafkite under group.protocol=classic, then under
// streams (KIP-1071, the broker assigning the tasks and creating the internal topics), with exactly_once_v2: a word count and a windowed count with RocksDB stores, two instances, one of them stopped
// and started again so that its tasks move, and the broker killed with SIGKILL three times while they run.
// Afterwards the outputs, read with read_committed by Kafka's console consumer, hold exactly the counts computed
// from the input as stored (no update lost, none applied twice); the changelog topics Streams created are
// compacted (DescribeConfigs), and the repartition topic was purged by DeleteRecords (its start offset moved).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import type { DescribedGroup as ClassicGroup, DescribeGroupsResponse } from '../../protocol/generated/DescribeGroupsResponse.js';
import type { DescribedGroup as StreamsGroup, StreamsGroupDescribeResponse } from '../../protocol/generated/StreamsGroupDescribeResponse.js';
import { killAndRestart, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { compileJava, javaArgs, KafkaTools } from '../helpers/java.js';
import { until as untilCondition } from '../helpers/poll.js';

const APP = 'wordcount';
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
const ROUNDS = 7;
const LINES_PER_ROUND = 60;
const BASE_OVERRIDES = ['group.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=3', 'transaction.state.log.num.partitions=3'];
// Streams groups: no initial delay, and the classic run's instances' heartbeat interval and session timeout (500 ms
// and 6 s), so that an instance gone without leaving is noticed as soon.
const STREAMS_OVERRIDES = [
  'group.streams.initial.rebalance.delay.ms=0', 'group.streams.min.heartbeat.interval.ms=500', 'group.streams.heartbeat.interval.ms=500',
  'group.streams.min.session.timeout.ms=6000', 'group.streams.session.timeout.ms=6000', 'log.level=debug',
];
type Protocol = 'classic' | 'streams';
let OVERRIDES = BASE_OVERRIDES;
let protocol: Protocol = 'classic';

let broker: BrokerProcess;
/** What the test did when (UTC), for the diagnostics. */
let steps: string[] = [];
const step = (what: string) => steps.push(`${new Date().toISOString().slice(11)} ${what}`);
/** The log lines of each broker process of the current case (the killed ones too), oldest first. */
let brokerLogs: Array<Array<Record<string, unknown>>> = [];
const stateRoot = mkdtempSync(join(tmpdir(), 'kafkite-streams-'));
const instances = new Map<string, StreamsInstance>();
let tools: KafkaTools | undefined;

async function stopAll(): Promise<void> {
  for (const i of instances.values()) i.child.kill('SIGKILL');
  instances.clear();
  await tools?.close();
  tools = undefined;
  await broker?.kill();
  broker?.cleanup();
}

afterAll(async () => {
  await stopAll();
  rmSync(stateRoot, { recursive: true, force: true });
});

interface StreamsInstance {
  child: ChildProcessWithoutNullStreams;
  states: string[];
  /** When each state line came (UTC), for the diagnostics. */
  times: string[];
  /** The instance's membership log lines (MEMBERSHIP_LINE). */
  membership: string[];
  exited: Promise<number | null>;
}

// The instances log their group membership at DEBUG (epochs, assignments received and ignored), heartbeat errors and
// their rebalance listener at INFO, the rest at WARN, for the diagnostics.
const LOG4J = join(stateRoot, 'log4j2.properties');
writeFileSync(LOG4J, [
  'appender.err.type = Console', 'appender.err.name = STDERR', 'appender.err.target = SYSTEM_ERR', 'appender.err.layout.type = PatternLayout',
  'appender.err.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%c{1}] %m%n', 'rootLogger.level = warn', 'rootLogger.appenderRef.err.ref = STDERR',
  ...['org.apache.kafka.clients.consumer.internals.StreamsMembershipManager', 'org.apache.kafka.clients.consumer.internals.StreamsGroupHeartbeatRequestManager',
    'org.apache.kafka.streams.processor.internals.DefaultStreamsRebalanceListener'].flatMap((logger, n) => [`logger.l${n}.name = ${logger}`, `logger.l${n}.level = ${n === 0 ? 'debug' : 'info'}`]),
].join('\n'));
const MEMBERSHIP_LINE = /StreamsMembershipManager|StreamsGroupHeartbeatRequestManager|DefaultStreamsRebalanceListener|stream thread failed/;

function startInstance(name: string, classes: string): StreamsInstance {
  const args = javaArgs('StreamsApp', [broker.bootstrap, APP, join(stateRoot, protocol, name), protocol], classes);
  // After the shared -Dlog4j2.configurationFile, so that this one wins.
  args.splice(args.indexOf('-cp'), 0, `-Dlog4j2.configurationFile=${LOG4J}`);
  const child = spawn('java', args);
  const states: string[] = [];
  const times: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    states.push(line);
    times.push(new Date().toISOString().slice(11));
  });
  const membership: string[] = [];
  let stderr = '';
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr = `${stderr}${line}\n`.slice(-10_000);
    if (MEMBERSHIP_LINE.test(line)) membership.push(line.slice(0, 600));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => {
    // An instance the test killed (SIGKILL after a failure) has nothing more to say than the diagnostics did.
    if (code !== 0 && signal !== 'SIGKILL') console.log(`streams instance ${name} exited ${code}: ${stderr}`);
    resolve(code);
  }));
  const instance = { child, states, times, membership, exited };
  instances.set(name, instance);
  return instance;
}

/**
 * `until`, and on a timeout what explains it: each instance's state lines and membership log, the brokers' group
 * lines and the group as described (describeGroup).
 */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs?: number): Promise<void> {
  try {
    await untilCondition(check, what, timeoutMs);
  } catch (err) {
    console.log(await diagnostics());
    throw err;
  }
}

async function diagnostics(): Promise<string> {
  const lines = [`test steps: ${steps.join(', ')}`, ...[...instances].map(([name, i]) => `instance ${name}: ${i.states.map((state, n) => `${i.times[n]} ${state}`).join(', ')}`)];
  for (const [name, i] of instances) lines.push(`instance ${name} membership log (last 250 of ${i.membership.length}):`, ...i.membership.slice(-250));
  const groupLines = brokerLogs.flatMap((logs, n) => logs
    .filter((l) => 'group' in l || 'member' in l || /group|streams|member|assignment/i.test(String(l.msg)))
    .map((l) => `broker#${n} ${JSON.stringify(l)}`));
  lines.push(`broker group log (last 300 of ${groupLines.length}):`, ...groupLines.slice(-300));
  try {
    lines.push(`the group described: ${JSON.stringify(await describeGroup(), (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
  } catch (err) {
    lines.push(`describing the group failed: ${err}`);
  }
  return lines.join('\n');
}

async function ask<R>(apiKey: number, version: number, body: unknown): Promise<R> {
  const client = await WireClient.connect(broker.port);
  try {
    return await client.send(apiKey, version, body);
  } finally {
    client.close();
  }
}

/** The application's group: as StreamsGroupDescribe (89) gives it under streams, DescribeGroups (15) under classic. */
async function describeGroup(): Promise<StreamsGroup | ClassicGroup> {
  return protocol === 'streams'
    ? (await ask<StreamsGroupDescribeResponse>(89, 0, { groupIds: [APP], includeAuthorizedOperations: false })).groups[0]!
    : (await ask<DescribeGroupsResponse>(15, 5, { groups: [APP], includeAuthorizedOperations: false })).groups[0]!;
}

/**
 * Whether the group has one member left, holding every task: under streams every task of both sub-topologies (two
 * input partitions each) at the group's assignment epoch; under classic the group Stable (its tasks are in Kafka
 * Streams' own assignment bytes).
 */
async function oneMemberHoldsAllTasks(): Promise<boolean> {
  const group = await describeGroup().catch(() => undefined);
  if (group?.members.length !== 1) return false;
  if (!('assignmentEpoch' in group)) return group.groupState === 'Stable';
  const member = group.members[0]!;
  const held = member.assignment.activeTasks.flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`)).sort();
  return member.memberEpoch === group.assignmentEpoch && JSON.stringify(held) === JSON.stringify(['0_0', '0_1', '1_0', '1_1']);
}

const kafka = () => new Kafka({ clientId: 'streams-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { initialRetryTime: 100, retries: 20 } });

async function produceRound(round: number, base: number): Promise<void> {
  const producer = kafka().producer({ idempotent: true });
  await producer.connect();
  const messages = Array.from({ length: LINES_PER_ROUND }, (_, i) => ({
    value: Array.from({ length: 1 + ((i * 7 + round) % 4) }, (_, j) => WORDS[(i * 3 + j * 5 + round) % WORDS.length]).join(' '),
    // Two windows per round, 10 s each.
    timestamp: String(base + round * 20_000 + i * 300),
  }));
  await producer.send({ topic: 'text-in', acks: -1, messages });
  await producer.disconnect();
}


it.each<Protocol>(['classic', 'streams'])('group.protocol=%s: a word count and a windowed count, exactly once through instance moves and three SIGKILLs of the broker', async (p) => {
  await stopAll();
  protocol = p;
  OVERRIDES = p === 'streams' ? [...BASE_OVERRIDES, ...STREAMS_OVERRIDES] : BASE_OVERRIDES;
  const started = performance.now();
  broker = await startBroker({ overrides: OVERRIDES });
  brokerLogs = [broker.logs];
  steps = [];
  const classes = compileJava('StreamsApp');
  const admin = kafka().admin();
  await admin.connect();
  await admin.createTopics({ topics: ['text-in', 'word-counts-out', 'windowed-counts-out'].map((topic) => ({ topic, numPartitions: 2 })) });
  await admin.disconnect();

  const a = startInstance('a', classes);
  let b = startInstance('b', classes);
  await until(() => a.states.at(-1) === 'STATE RUNNING' && b.states.at(-1) === 'STATE RUNNING', 'both instances running');

  const base = Math.floor(Date.now() / 10_000) * 10_000;
  for (let round = 0; round < ROUNDS; round++) {
    await produceRound(round, base);
    // Soon enough that the round is still being processed (and its transactions open) when the broker dies.
    await new Promise((r) => setTimeout(r, 400));
    if (round === 1 || round === 3 || round === 5) {
      step(`round ${round}: broker killed`);
      broker = await killAndRestart(broker, { overrides: OVERRIDES });
      brokerLogs.push(broker.logs);
      step('broker restarted');
    }
    if (round === 2) {
      // KafkaStreams prints REBALANCING once for all the assignments that come while it rebalances (its setState
      // ignores REBALANCING -> REBALANCING): when a is still rebalancing as b leaves (restoring the tasks it got when
      // b joined, longer with the broker's restart), b's tasks come to a within that same REBALANCING.
      const rebalancing = a.states.at(-1) === 'STATE REBALANCING';
      const seen = a.states.length;
      step(`b stopped after a's state line ${seen}`);
      b.child.stdin.end();
      expect(await b.exited).toBe(0);
      // b left the group: the broker gives a every task, and a rebalances and runs them.
      await until(async () => (rebalancing || a.states.slice(seen).includes('STATE REBALANCING')) && a.states.at(-1) === 'STATE RUNNING' &&
        await oneMemberHoldsAllTasks(), 'a to take over b\'s tasks');
    }
    if (round === 4) {
      step('b started again');
      b = startInstance('b', classes);
      await until(() => b.states.at(-1) === 'STATE RUNNING', 'b to rejoin');
    }
  }

  // Done when the application's committed offsets (committed in its transactions) reach the end of the input
  // and of the repartition topic, which the second sub-topology (the counts) reads.
  const check = kafka().admin();
  await check.connect();
  const inputs = ['text-in', `${APP}-words-repartition`];
  await until(async () => {
    const committed = await check.fetchOffsets({ groupId: APP, topics: inputs }).catch(() => []);
    for (const topic of inputs) {
      const ends = await check.fetchTopicOffsets(topic);
      const offsets = committed.find((t) => t.topic === topic)?.partitions ?? [];
      if (!ends.every((e) => offsets.find((p) => p.partition === e.partition)?.offset === e.high)) return false;
    }
    return true;
  }, 'the application to process all input', 120_000);

  // Streams purges what it committed from its repartition topic with DeleteRecords.
  await until(async () => (await check.fetchTopicOffsets(`${APP}-words-repartition`)).some((p) => Number(p.low) > 0), 'the repartition topic purged');
  const purged = await check.fetchTopicOffsets(`${APP}-words-repartition`);
  expect(purged.reduce((n, p) => n + Number(p.low), 0)).toBeGreaterThan(0);

  const { resources } = await check.describeConfigs({
    includeSynonyms: false,
    resources: ['word-counts', 'windowed-counts'].map((store) => ({ type: ConfigResourceTypes.TOPIC, name: `${APP}-${store}-changelog`, configNames: ['cleanup.policy'] })),
  });
  const policies = Object.fromEntries(resources.map((r) => [r.resourceName, r.configEntries[0]?.configValue]));
  // Kafka Streams asks for compact on a key-value store's changelog, compact,delete on a window store's.
  expect(policies).toEqual({ [`${APP}-word-counts-changelog`]: 'compact', [`${APP}-windowed-counts-changelog`]: 'compact,delete' });
  await check.disconnect();

  for (const i of [a, b]) i.child.stdin.end();
  expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);

  tools = new KafkaTools();
  const input = await tools.consumeCommitted(broker.bootstrap, 'text-in');
  expect(input).toHaveLength(ROUNDS * LINES_PER_ROUND);
  const expectedCounts = new Map<string, number>();
  const expectedWindows = new Map<string, number>();
  for (const [ts, , line] of input) {
    for (const word of line.split(' ')) {
      expectedCounts.set(word, (expectedCounts.get(word) ?? 0) + 1);
      const key = `${word}@${ts - (ts % 10_000)}`;
      expectedWindows.set(key, (expectedWindows.get(key) ?? 0) + 1);
    }
  }
  // The last value per key is the count; each update raises it by one or more, never past the final one.
  const latest = (records: Array<[number, string, string]>) => {
    const last = new Map<string, number>();
    for (const [, key, value] of records) {
      expect(Number(value)).toBeGreaterThan(last.get(key) ?? 0);
      last.set(key, Number(value));
    }
    return last;
  };
  const counts = latest(await tools.consumeCommitted(broker.bootstrap, 'word-counts-out', 'LongDeserializer'));
  expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(expectedCounts));
  const windows = latest(await tools.consumeCommitted(broker.bootstrap, 'windowed-counts-out', 'LongDeserializer'));
  expect(Object.fromEntries(windows)).toEqual(Object.fromEntries(expectedWindows));
  if (p === 'streams') await checkStreamsGroup();
  console.log(`kafka-streams (${p}): ${input.length} lines, ${expectedWindows.size} windows, in ${Math.round(performance.now() - started)} ms`);
}, 300_000);

/** The streams group as Kafka's tools see it, after the run: listed with its type, empty, its offsets at the ends. */
async function checkStreamsGroup(): Promise<void> {
  const admin = kafka().admin();
  await admin.connect();
  const listed = await admin.listGroups();
  await admin.disconnect();
  // The application ran as a streams group (KIP-1071), not a classic one.
  expect(listed.groups.find((g) => g.groupId === APP)?.protocolType).toBe('streams');
}
