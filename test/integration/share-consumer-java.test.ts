// Kafka 4.4's own KafkaShareConsumer (test/clients/java/ShareConsumerApp.java) against kafkite. Explicit: two consumers of
// one share group work through a topic, acknowledging explicitly (ACCEPT, RELEASE on a first delivery, REJECT),
// while the broker is killed with SIGKILL in the middle. Every record ends accepted or rejected, an accepted or
// rejected record is never delivered again, a released one comes back with a higher delivery count, and a third
// consumer afterwards finds nothing left. Implicit: each record delivered once and accepted by the next poll.
// Released past share.delivery.count.limit: delivered exactly that many times, then archived.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { killAndRestart, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { compileJava, javaArgs } from '../helpers/java.js';
import { until } from '../helpers/poll.js';

const TOPIC = 'share-work';
const GROUP = 'share-java';
const N = 400;
let broker: BrokerProcess | undefined;
const consumers: Consumer[] = [];

interface Event {
  recv?: number;
  count?: number;
  ack?: string;
  offset?: number;
  started?: boolean;
  closed?: boolean;
}

interface Consumer {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | null>;
}

/** Every consumer's lines in the order the test received them. */
const events: Array<Event & { consumer: number }> = [];

function startConsumer(id: number, classes: string, topic = TOPIC, group = GROUP, mode = 'explicit'): Consumer {
  const child = spawn('java', javaArgs('ShareConsumerApp', [broker!.bootstrap, topic, group, '20', '100', mode], classes));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('{')) events.push({ ...(JSON.parse(line) as Event), consumer: id });
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-10_000)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    if (code !== 0) console.log(`share consumer ${id} exited ${code}: ${stderr}`);
    resolve(code);
  }));
  const c = { child, exited };
  consumers.push(c);
  return c;
}

async function stopConsumer(c: Consumer): Promise<number | null> {
  c.child.stdin.end();
  return c.exited;
}

beforeAll(async () => {
  broker = await startBroker();
});

afterAll(async () => {
  for (const c of consumers) c.child.kill('SIGKILL');
  if (broker) {
    await broker.stop();
    broker.cleanup();
  }
});

/** A topic of `n` records with values "0".."n-1", ten to a batch, and a share group that reads it from the start. */
async function prepare(topic: string, group: string, n: number, groupConfigs: Record<string, string> = {}): Promise<void> {
  const admin = await WireClient.connect(broker!.port);
  const created = await admin.send(19, 7, { topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(created.topics[0].errorCode).toBe(0);
  // share.auto.offset.reset is a GROUP config, latest by default.
  const altered = await admin.send(44, 1, {
    resources: [{
      resourceType: 32, resourceName: group,
      configs: Object.entries({ 'share.auto.offset.reset': 'earliest', ...groupConfigs }).map(([name, value]) => ({ name, configOperation: 0, value })),
    }],
    validateOnly: false,
  });
  expect(altered.responses[0].errorCode).toBe(0);
  for (let b = 0; b < n / 10; b++) {
    const records = encodeBatch({ baseOffset: 0, records: Array.from({ length: 10 }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(String(b * 10 + i)), headers: [] })) });
    const res = await admin.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
  }
  admin.close();
}

const decided = (e: Event) => e.ack === 'ACCEPT' || e.ack === 'REJECT';

it('two KafkaShareConsumers share a topic through a kill -9: each record accepted once or rejected, none lost', async () => {
  const classes = compileJava('ShareConsumerApp');
  await prepare(TOPIC, GROUP, N);

  const a = startConsumer(1, classes);
  const b = startConsumer(2, classes);
  // Kill the broker once a quarter of the records are decided, then let the consumers finish on the new one. The
  // consumers go on deciding until the kill lands (a CI run saw about 250 decided by then), so the work after the
  // restart is counted from when the new broker is up.
  await until(() => events.filter(decided).length >= N / 4, 'a quarter of the records decided', 60_000);
  broker = await killAndRestart(broker);
  const atRestart = events.length;
  const settled = (): boolean => {
    const done = new Set(events.filter((e) => decided(e) || e.ack === 'failed').map((e) => e.offset));
    return done.size >= N;
  };
  await until(settled, 'every record decided', 120_000);
  expect(await stopConsumer(a)).toBe(0);
  expect(await stopConsumer(b)).toBe(0);
  // Both consumers had records of the one partition, and work went on after the restart.
  expect(new Set(events.filter((e) => e.recv !== undefined).map((e) => e.consumer))).toEqual(new Set([1, 2]));
  expect(events.slice(atRestart).filter(decided).length).toBeGreaterThan(N / 10);

  // No record received after it was accepted or rejected, and none accepted twice.
  const finished = new Map<number, string>();
  for (const e of events) {
    if (e.recv !== undefined) expect(finished.has(e.recv), `offset ${e.recv} delivered after ${finished.get(e.recv)}`).toBe(false);
    if (decided(e)) {
      expect(finished.has(e.offset!), `offset ${e.offset} decided twice`).toBe(false);
      finished.set(e.offset!, e.ack!);
    }
  }
  // Released records came back with a higher delivery count; rejected ones were the v % 10 == 7 ones.
  for (let v = 3; v < N; v += 10) {
    expect(events.some((e) => e.recv === v && e.count! >= 2), `offset ${v} redelivered`).toBe(true);
  }
  for (const [offset, ack] of finished) expect(ack === 'REJECT').toBe(offset % 10 === 7);
  // Undecided in the log above are only records whose commit failed at the kill: their acknowledgement may have
  // been written before the broker died. A third consumer must find nothing left either way.
  const c = startConsumer(3, classes);
  await until(() => events.some((e) => e.consumer === 3 && e.started), 'third consumer started', 30_000);
  await new Promise((r) => setTimeout(r, 8000));
  expect(await stopConsumer(c)).toBe(0);
  expect(events.filter((e) => e.consumer === 3 && e.recv !== undefined)).toEqual([]);
  const failed = events.filter((e) => e.ack === 'failed').length;
  console.log(`share consumers: ${finished.size} decided, ${failed} acknowledgements failed at the kill, ${events.filter((e) => e.recv !== undefined).length} deliveries`);
  expect(finished.size).toBeGreaterThan(N - 20);
}, 300_000);

it('implicit acknowledgement: each record delivered once, accepted by the next poll, never again', async () => {
  const classes = compileJava('ShareConsumerApp');
  await prepare('share-implicit', 'share-implicit', 200);
  const mine = () => events.filter((e) => e.consumer === 11 && e.recv !== undefined);
  const c = startConsumer(11, classes, 'share-implicit', 'share-implicit', 'implicit');
  await until(() => mine().length >= 200, 'every record delivered', 60_000);
  // Closing accepts the last poll's records; had any been left unacknowledged, closing would release them.
  expect(await stopConsumer(c)).toBe(0);
  expect(mine().map((e) => e.recv)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  expect(mine().every((e) => e.count === 1)).toBe(true);
  const d = startConsumer(12, classes, 'share-implicit', 'share-implicit', 'implicit');
  await until(() => events.some((e) => e.consumer === 12 && e.started), 'second consumer started', 30_000);
  await new Promise((r) => setTimeout(r, 6000));
  expect(await stopConsumer(d)).toBe(0);
  expect(events.filter((e) => e.consumer === 12 && e.recv !== undefined)).toEqual([]);
}, 120_000);

it('a record released past share.delivery.count.limit is archived, not delivered again', async () => {
  const classes = compileJava('ShareConsumerApp');
  await prepare('share-release', 'share-release', 30, { 'share.delivery.count.limit': '2' });
  const mine = (id: number) => events.filter((e) => e.consumer === id && e.recv !== undefined);
  const c = startConsumer(21, classes, 'share-release', 'share-release', 'release');
  await until(() => mine(21).length >= 60, 'every record delivered twice', 60_000);
  // Nothing comes a third time, though the consumer keeps releasing and polling.
  await new Promise((r) => setTimeout(r, 3000));
  expect(await stopConsumer(c)).toBe(0);
  for (let offset = 0; offset < 30; offset++) {
    expect(mine(21).filter((e) => e.recv === offset).map((e) => e.count), `offset ${offset}`).toEqual([1, 2]);
  }
  const d = startConsumer(22, classes, 'share-release', 'share-release', 'release');
  await until(() => events.some((e) => e.consumer === 22 && e.started), 'second consumer started', 30_000);
  await new Promise((r) => setTimeout(r, 5000));
  expect(await stopConsumer(d)).toBe(0);
  expect(mine(22)).toEqual([]);
}, 120_000);
