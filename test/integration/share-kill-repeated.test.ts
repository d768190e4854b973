// Three Kafka 4.4 KafkaShareConsumers (test/clients/java/ShareConsumerApp.java: ACCEPT, RELEASE on a first delivery
// of v % 10 == 3, REJECT of v % 10 == 7) work through a topic of two partitions while the broker is killed with
// SIGKILL three times, each kill once a further sixth of the records was decided on the broker before it (issue 29).
// Afterwards every record was accepted once or rejected, none was delivered after its acceptance or rejection was
// confirmed, the share group's start offsets stand at the partitions' ends, and a fresh consumer finds nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { killAndRestart, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { until } from '../helpers/poll.js';
import { isDecided, prepareShareTopic, recordKey, sharePartitionsByMember, shareStartOffsets, ShareConsumers, type ConsumerEvent } from '../helpers/share-consumers.js';

const TOPIC = 'share-kills';
const GROUP = 'share-kills';
const PARTITIONS = 2;
const N = 600;
const KILLS = 3;
let broker: BrokerProcess | undefined;
let consumers: ShareConsumers;

beforeAll(async () => {
  broker = await startBroker();
  consumers = new ShareConsumers();
});

afterAll(async () => {
  consumers?.killAll();
  if (broker) {
    await broker.stop();
    broker.cleanup();
  }
});

/** The records decided (confirmed ACCEPT or REJECT) in events[from..]. */
function decidedSince(from: number): Set<string> {
  return new Set(consumers.events.slice(from).filter(isDecided).map(recordKey));
}

/**
 * Whether every record has come to rest as far as the consumers can tell: its last event is a confirmed ACCEPT or
 * REJECT, or an ACCEPT or REJECT whose commit failed at a kill (the broker may have written it before it died; if
 * not, the record is redelivered, and a later event takes its place).
 */
function settled(): boolean {
  const last = new Map<string, ConsumerEvent>();
  for (const e of consumers.events) if (e.recv !== undefined || e.ack !== undefined) last.set(recordKey(e), e);
  if (last.size < N) return false;
  return [...last.values()].every((e) => isDecided(e) || (e.ack === 'failed' && e.type !== 'RELEASE'));
}

it('three KafkaShareConsumers through three kill -9s: each record accepted once or rejected, none lost, none left', async () => {
  await prepareShareTopic(broker!.port, TOPIC, GROUP, N, { partitions: PARTITIONS });
  const running = [1, 2, 3].map((id) => consumers.start(id, broker!.bootstrap, TOPIC, GROUP));

  // Each kill once a further sixth of the records was decided since the broker before it was up: the consumers keep
  // deciding on the old broker until the kill lands, so the count starts at the new broker's start.
  const restartedAt: number[] = [];
  let since = 0;
  for (let k = 1; k <= KILLS; k++) {
    await consumers.waitFor(() => decidedSince(since).size >= N / 6, `a further sixth decided before kill ${k}`, 90_000);
    broker = await killAndRestart(broker!);
    since = consumers.events.length;
    restartedAt.push(since);
  }
  await consumers.waitFor(settled, 'every record at rest', 120_000);
  for (const c of running) expect(await consumers.stop(c)).toBe(0);

  const { events } = consumers;
  // Work went on after each restart, and every consumer had records.
  const windows = [...restartedAt, events.length];
  for (let k = 0; k < KILLS; k++) {
    expect(events.slice(windows[k], windows[k + 1]).filter(isDecided).length, `decided after restart ${k + 1}`).toBeGreaterThan(0);
  }
  expect(new Set(events.filter((e) => e.recv !== undefined).map((e) => e.consumer))).toEqual(new Set([1, 2, 3]));

  // No record delivered after its ACCEPT or REJECT was confirmed, none decided twice; REJECT exactly for v % 10 == 7
  // (a record's offset % 10 is its value's).
  const finished = new Map<string, string>();
  for (const e of events) {
    const key = recordKey(e);
    if (e.recv !== undefined) expect(finished.has(key), `${key} delivered after ${finished.get(key)}`).toBe(false);
    if (isDecided(e)) {
      expect(finished.has(key), `${key} decided twice`).toBe(false);
      finished.set(key, e.ack!);
    }
  }
  for (const [key, ack] of finished) expect(ack === 'REJECT', key).toBe(Number(key.split(':')[1]) % 10 === 7);
  // Released records came back with a higher delivery count before their ACCEPT.
  for (const e of events) {
    if (e.ack === 'ACCEPT' && e.offset! % 10 === 3) {
      expect(events.some((r) => r.recv !== undefined && recordKey(r) === recordKey(e) && r.count! >= 2), `${recordKey(e)} redelivered`).toBe(true);
    }
  }
  // None missing: every record of both partitions was received, and those not confirmed decided are the ones whose
  // commit failed at a kill (a few per kill at most: the records the consumers held then).
  const received = new Set(events.filter((e) => e.recv !== undefined).map(recordKey));
  expect(received.size).toBe(N);
  const unconfirmed = [...received].filter((k) => !finished.has(k));
  expect(unconfirmed.length, unconfirmed.join(' ')).toBeLessThanOrEqual(KILLS * 3 * 20);
  // The outcome on the broker: the share group's start offsets are at both partitions' ends (every record
  // acknowledged or archived), and a fresh consumer, once it alone holds both partitions, finds nothing for 4 polls.
  expect(await shareStartOffsets(broker!.port, GROUP, TOPIC, PARTITIONS)).toEqual([N / PARTITIONS, N / PARTITIONS]);
  const fresh = consumers.start(4, broker!.bootstrap, TOPIC, GROUP);
  await until(async () => JSON.stringify(await sharePartitionsByMember(broker!.port, GROUP)) === '[[0,1]]', 'the fresh consumer holding both partitions', 60_000);
  await consumers.idleFor(4, 4, 60_000);
  expect(await consumers.stop(fresh)).toBe(0);
  expect(consumers.deliveries(4)).toEqual([]);
  const failed = events.filter((e) => e.ack === 'failed').length;
  console.log(`share kills: ${finished.size} decided, ${failed} acknowledgements failed at the kills, ${unconfirmed.length} left unconfirmed, ${received.size} records in ${events.filter((e) => e.recv !== undefined).length} deliveries`);
}, 300_000);
