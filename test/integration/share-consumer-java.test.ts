// Kafka 4.4's own KafkaShareConsumer (test/clients/java/ShareConsumerApp.java) against kafkite. Explicit: two consumers of
// one share group work through a topic, acknowledging explicitly (ACCEPT, RELEASE on a first delivery, REJECT),
// while the broker is killed with SIGKILL in the middle. Every record ends accepted or rejected, an accepted or
// rejected record is never delivered again, a released one comes back with a higher delivery count, and a third
// consumer afterwards finds nothing left. Implicit: each record delivered once and accepted by the next poll.
// Released past share.delivery.count.limit: delivered exactly that many times, then archived.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminAddress, killAndRestart, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { isDecided as decided, prepareShareTopic, produceValues, sharePartitionsByMember, ShareConsumers, type AckMode, type ShareConsumer } from '../helpers/share-consumers.js';
import { until } from '../helpers/poll.js';

const TOPIC = 'share-work';
const GROUP = 'share-java';
const N = 400;
let broker: BrokerProcess | undefined;
let consumers: ShareConsumers;
let events: ShareConsumers['events'];

const startConsumer = (id: number, topic = TOPIC, group = GROUP, mode: AckMode = 'explicit') => consumers.start(id, broker!.bootstrap, topic, group, mode);
const stopConsumer = (c: ShareConsumer) => consumers.stop(c);
/** Resolves once the group's one member holds its topic's one partition: a consumer started after the others left. */
const holdingAlone = (group: string) => until(async () => JSON.stringify(await sharePartitionsByMember(broker!.port, group)) === '[[0]]', `${group}'s new member holding the partition`, 60_000);
const prepare = (topic: string, group: string, n: number, groupConfigs: Record<string, string> = {}) => prepareShareTopic(broker!.port, topic, group, n, { groupConfigs });

/** A series' value on /metrics, 0 when absent. */
async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${adminAddress(broker!)}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

beforeAll(async () => {
  broker = await startBroker();
  consumers = new ShareConsumers();
  events = consumers.events;
});

afterAll(async () => {
  consumers?.killAll();
  if (broker) {
    await broker.stop();
    broker.cleanup();
  }
});

it('two KafkaShareConsumers share a topic through a kill -9: each record accepted once or rejected, none lost', async () => {
  await prepare(TOPIC, GROUP, 0);

  const a = startConsumer(1);
  const b = startConsumer(2);
  // The records go in once both consumers hold the partition: the second is assigned at its first heartbeat after
  // group.share.assignment.interval.ms (KIP-1263), and the first would meanwhile take every record.
  await until(async () => JSON.stringify(await sharePartitionsByMember(broker!.port, GROUP)) === '[[0],[0]]', 'both consumers holding the partition', 90_000);
  const producer = await WireClient.connect(broker!.port);
  try {
    await produceValues(producer, TOPIC, 1, 0, N);
  } finally {
    producer.close();
  }
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
  const c = startConsumer(3);
  await holdingAlone(GROUP);
  await consumers.idleFor(3, 4, 60_000);
  expect(await stopConsumer(c)).toBe(0);
  expect(events.filter((e) => e.consumer === 3 && e.recv !== undefined)).toEqual([]);
  const failed = events.filter((e) => e.ack === 'failed').length;
  console.log(`share consumers: ${finished.size} decided, ${failed} acknowledgements failed at the kill, ${events.filter((e) => e.recv !== undefined).length} deliveries`);
  expect(finished.size).toBeGreaterThan(N - 20);
}, 300_000);

it('implicit acknowledgement: each record delivered once, accepted by the next poll, never again', async () => {
  await prepare('share-implicit', 'share-implicit', 200);
  const mine = () => events.filter((e) => e.consumer === 11 && e.recv !== undefined);
  const c = startConsumer(11, 'share-implicit', 'share-implicit', 'implicit');
  await until(() => mine().length >= 200, 'every record delivered', 60_000);
  // Closing accepts the last poll's records; had any been left unacknowledged, closing would release them.
  expect(await stopConsumer(c)).toBe(0);
  expect(mine().map((e) => e.recv)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  expect(mine().every((e) => e.count === 1)).toBe(true);
  // Kafka's share metrics, moved by the consumer's own requests: its fetches and acknowledgements on the topic, none
  // failed, the time its fetches waited to acquire, and its joining the group.
  const topic = (name: string) => metric(`${name}{topic="share-implicit"}`);
  expect(await topic('kafkite_topic_share_fetch_requests_total')).toBeGreaterThan(0);
  expect(await topic('kafkite_topic_share_acknowledgement_requests_total')).toBeGreaterThan(0);
  expect(await topic('kafkite_topic_failed_share_fetch_requests_total')).toBe(0);
  expect(await topic('kafkite_topic_failed_share_acknowledgement_requests_total')).toBe(0);
  expect(await metric('kafkite_share_topic_partitions_acquire_time_seconds_count{group="share-implicit"}')).toBeGreaterThan(0);
  expect(await metric('kafkite_share_group_rebalances_total')).toBeGreaterThan(0);
  const d = startConsumer(12, 'share-implicit', 'share-implicit', 'implicit');
  await holdingAlone('share-implicit');
  await consumers.idleFor(12, 4, 60_000);
  expect(await stopConsumer(d)).toBe(0);
  expect(events.filter((e) => e.consumer === 12 && e.recv !== undefined)).toEqual([]);
}, 120_000);

it('a record released past share.delivery.count.limit is archived, not delivered again', async () => {
  await prepare('share-release', 'share-release', 30, { 'share.delivery.count.limit': '2' });
  const mine = (id: number) => events.filter((e) => e.consumer === id && e.recv !== undefined);
  const c = startConsumer(21, 'share-release', 'share-release', 'release');
  await until(() => mine(21).length >= 60, 'every record delivered twice', 60_000);
  // Nothing comes a third time, though the consumer keeps releasing and polling.
  await consumers.idleFor(21, 4, 60_000);
  expect(await stopConsumer(c)).toBe(0);
  for (let offset = 0; offset < 30; offset++) {
    expect(mine(21).filter((e) => e.recv === offset).map((e) => e.count), `offset ${offset}`).toEqual([1, 2]);
  }
  const d = startConsumer(22, 'share-release', 'share-release', 'release');
  await holdingAlone('share-release');
  await consumers.idleFor(22, 4, 60_000);
  expect(await stopConsumer(d)).toBe(0);
  expect(mine(22)).toEqual([]);
}, 120_000);
