// kafka-share-groups --reset-offsets (Kafka 4.4's ShareGroupCommand) on a group id that never had a member: as
// Kafka 4.4's GroupMetadataManager.alterShareGroupOffsets does, AlterShareGroupOffsets makes it an empty share
// group with the share-partition state at the given offset. The group and its offset survive a kill -9, and the
// first KafkaShareConsumer of the group (share.auto.offset.reset left at latest) starts at that offset.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { killAndRestart, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { KafkaTools } from '../helpers/java.js';
import { isDecided, produceValues, ShareConsumers } from '../helpers/share-consumers.js';

const SHARE_GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ShareGroupCommand';
const TOPIC = 'reset-fresh';
const GROUP = 'never-joined';
let broker: BrokerProcess | undefined;
let tools: KafkaTools | undefined;
const consumers = new ShareConsumers();

beforeAll(async () => {
  broker = await startBroker();
  tools = new KafkaTools();
});

afterAll(async () => {
  consumers.killAll();
  await tools?.close();
  if (broker) {
    await broker.stop();
    broker.cleanup();
  }
});

/** A one-partition topic of 30 records, values "0".."29"; no group config (share.auto.offset.reset stays latest). */
async function fillTopic(): Promise<void> {
  const client = await WireClient.connect(broker!.port);
  const created = await client.send(19, 7, { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(created.topics[0].errorCode).toBe(0);
  await produceValues(client, TOPIC, 1, 0, 30);
  client.close();
}

function shareGroups(...args: string[]) {
  return tools!.run(SHARE_GROUP_COMMAND, '--bootstrap-server', broker!.bootstrap, ...args);
}

it('resets an unused group id to offset 20: an empty share group, kept across kill -9, whose first consumer starts there', async () => {
  await fillTopic();
  expect((await shareGroups('--list')).out.trim()).toBe('');

  const reset = await shareGroups('--reset-offsets', '--group', GROUP, '--topic', TOPIC, '--to-offset', '20', '--execute');
  expect(reset.code, reset.err).toBe(0);
  expect(reset.out).toMatch(new RegExp(`^${GROUP}\\s+${TOPIC}\\s+0\\s+20\\s*$`, 'm'));

  broker = await killAndRestart(broker!);
  expect((await shareGroups('--list')).out.trim().split('\n')).toEqual([GROUP]);
  const state = await shareGroups('--describe', '--group', GROUP, '--state');
  expect(state.code, state.err).toBe(0);
  expect(state.out).toMatch(new RegExp(`^${GROUP}\\s.*\\sEmpty\\s+0\\s*$`, 'm'));
  const offsets = await shareGroups('--describe', '--group', GROUP);
  expect(offsets.out).toMatch(new RegExp(`^${GROUP}\\s+${TOPIC}\\s+0\\s+20\\s`, 'm'));

  // ShareConsumerApp accepts each record it gets (releasing a "...3" once, rejecting a "...7"): it must see 20..29 only.
  const consumer = consumers.start(1, broker.bootstrap, TOPIC, GROUP);
  const decided = () => new Set(consumers.events.filter(isDecided).map((e) => e.offset));
  await consumers.waitFor(() => decided().size >= 10, 'the consumer to accept or reject 10 records', 60_000);
  expect(await consumers.stop(consumer)).toBe(0);
  const sorted = (offsets: Iterable<number | undefined>) => [...new Set(offsets)].sort((a, b) => a! - b!);
  expect(sorted(consumers.deliveries(1).map((e) => e.recv))).toEqual([20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
  expect(sorted(decided())).toEqual([20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
}, 120_000);
