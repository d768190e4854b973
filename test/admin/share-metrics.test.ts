// Kafka's share-group metrics on /metrics (KIP-932), moved by real share activity over TCP: a member joining
// and leaving a share group changes group-count{protocol="share"} and share-group-count{state}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ApiKey } from '../../protocol/generated/index.js';
import { adminAddress, startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let wire: WireClient;

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${adminAddress(broker)}/metrics`)).text();
  const escaped = series.replace(/[{}"]/g, (c) => `\\${c}`);
  const found = text.match(new RegExp(`^${escaped} (\\S+)$`, 'm'));
  return found ? Number(found[1]) : 0;
}

beforeAll(async () => {
  broker = await startBroker();
  wire = await WireClient.connect(broker.port);
  const created = await wire.send(ApiKey.CreateTopics, 7, { topics: [{ name: 'sm-in', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
  expect(created.topics[0].errorCode).toBe(0);
}, 60_000);

afterAll(async () => {
  wire?.close();
  expect(await broker?.stop()).toBe(0);
  broker?.cleanup();
});

const heartbeat = (memberId: string, memberEpoch: number) =>
  wire.send(ApiKey.ShareGroupHeartbeat, 1, { groupId: 'sm-group', memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? ['sm-in'] : null });

describe('share-group metrics', () => {
  it('counts share groups by protocol and state as members join and leave', async () => {
    expect(await metric('kafkite_share_group_count{state="Stable"}')).toBe(0);
    expect(await metric('kafkite_group_count{protocol="share"}')).toBe(0);
    const joined = await heartbeat('sm-a', 0);
    expect(joined.errorCode).toBe(0);
    expect(await metric('kafkite_group_count{protocol="share"}')).toBe(1);
    expect(await metric('kafkite_share_group_count{state="Stable"}')).toBe(1);
    expect(await metric('kafkite_share_group_count{state="Empty"}')).toBe(0);
    expect((await heartbeat('sm-a', -1)).errorCode).toBe(0);
    expect(await metric('kafkite_share_group_count{state="Stable"}')).toBe(0);
    expect(await metric('kafkite_share_group_count{state="Empty"}')).toBe(1);
    expect(await metric('kafkite_group_count{protocol="share"}')).toBe(1);
  });
});
