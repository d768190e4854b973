// Client quotas on the real broker: AlterClientQuotas/DescribeClientQuotas with our wire client, persisted across a
// restart, and a producer throttled to its producer_byte_rate (throttle_time_ms set, the connection muted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

const QUOTA = 200_000; // bytes/s
const RECORD_BYTES = 16 * 1024;
// Three 1 s samples: the rate settles within seconds (Kafka's default of 11 lets a 10 s burst through first).
const OVERRIDES = ['quota.window.num=3', 'quota.window.size.seconds=1', 'auto.create.topics.enable=true'];

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
});

afterAll(async () => {
  await broker.stop();
  broker.cleanup();
});

const alter = (client: WireClient, entity: Array<[string, string | null]>, ops: Array<{ key: string; value: number; remove?: boolean }>, validateOnly = false) =>
  client.send(49, 1, {
    entries: [{ entity: entity.map(([entityType, entityName]) => ({ entityType, entityName })), ops: ops.map((o) => ({ remove: false, ...o })) }],
    validateOnly,
  });

const describeQuotas = (client: WireClient, components: Array<{ entityType: string; matchType: number; match: string | null }>, strict = false) =>
  client.send(48, 1, { components, strict });

describe('client quotas', () => {
  it('are altered, validated, described with each match type and persisted across a restart', async () => {
    let client = await WireClient.connect(broker.port);
    expect((await alter(client, [['client-id', 'wire-client']], [{ key: 'producer_byte_rate', value: QUOTA }])).entries[0].errorCode).toBe(0);
    expect((await alter(client, [['user', null]], [{ key: 'consumer_byte_rate', value: 1e9 }, { key: 'request_percentage', value: 1000 }])).entries[0].errorCode).toBe(0);
    expect((await alter(client, [['user', 'alice'], ['client-id', null]], [{ key: 'producer_byte_rate', value: 5000 }])).entries[0].errorCode).toBe(0);
    // Refused: unknown key, a fraction for a byte rate, ip mixed with user, validateOnly leaves nothing behind.
    expect((await alter(client, [['user', 'bob']], [{ key: 'nope', value: 1 }])).entries[0].errorCode).toBe(42);
    expect((await alter(client, [['user', 'bob']], [{ key: 'producer_byte_rate', value: 1.5 }])).entries[0].errorCode).toBe(42);
    expect((await alter(client, [['user', 'bob'], ['ip', '1.2.3.4']], [{ key: 'connection_creation_rate', value: 5 }])).entries[0].errorCode).toBe(42);
    expect((await alter(client, [['user', 'carol']], [{ key: 'producer_byte_rate', value: 100 }], true)).entries[0].errorCode).toBe(0);

    const exact = await describeQuotas(client, [{ entityType: 'client-id', matchType: 0, match: 'wire-client' }]);
    expect(exact.entries).toEqual([{ entity: [{ entityType: 'client-id', entityName: 'wire-client' }], values: [{ key: 'producer_byte_rate', value: QUOTA }] }]);
    const defaults = await describeQuotas(client, [{ entityType: 'user', matchType: 1, match: null }], true);
    expect(defaults.entries[0].values.sort((a: any, b: any) => a.key.localeCompare(b.key))).toEqual([
      { key: 'consumer_byte_rate', value: 1e9 }, { key: 'request_percentage', value: 1000 },
    ]);
    // Non-strict: alice's user+default-client entity matches a filter on user alone; strict does not.
    expect((await describeQuotas(client, [{ entityType: 'user', matchType: 2, match: null }])).entries).toHaveLength(1);
    expect((await describeQuotas(client, [{ entityType: 'user', matchType: 2, match: null }], true)).entries).toHaveLength(0);
    expect((await describeQuotas(client, [{ entityType: 'user', matchType: 0, match: 'carol' }])).entries).toHaveLength(0);
    client.close();

    expect(await broker.stop()).toBe(0);
    broker = await startBroker({ dataDir: broker.dataDir, overrides: OVERRIDES });
    client = await WireClient.connect(broker.port);
    const all = await describeQuotas(client, []);
    expect(all.entries).toHaveLength(3);
    // Removing the last key of an entity removes the entity.
    await alter(client, [['user', 'alice'], ['client-id', null]], [{ key: 'producer_byte_rate', value: 0, remove: true }]);
    expect((await describeQuotas(client, [])).entries).toHaveLength(2);
    client.close();
  });

  it('throttles a producer to its producer_byte_rate', async () => {
    const client = await WireClient.connect(broker.port);
    await client.send(19, 7, { topics: [{ name: 'quota-topic', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    const records = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.alloc(RECORD_BYTES, 1), headers: [] }] });
    const produce = () => client.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'quota-topic', partitionData: [{ index: 0, records }] }] });
    expect((await produce()).responses[0].partitionResponses[0].errorCode).toBe(0);

    // Produce back to back for 9 s, ignoring throttle_time_ms (as an old client would): the broker's muting
    // alone must hold the rate. The first seconds may burst (the rate spans at least two windows); measure after.
    const start = Date.now();
    const sent: Array<{ at: number; bytes: number; throttle: number }> = [];
    while (Date.now() - start < 9000) {
      const res = await produce();
      expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
      sent.push({ at: Date.now() - start, bytes: records.length, throttle: res.throttleTimeMs });
    }
    client.close();
    expect(sent.some((s) => s.throttle > 0)).toBe(true);
    const steady = sent.filter((s) => s.at > 3000);
    const seconds = (steady.at(-1)!.at - steady[0]!.at) / 1000;
    const rate = steady.slice(1).reduce((sum, s) => sum + s.bytes, 0) / seconds;
    console.log(`quota ${QUOTA} B/s, measured ${Math.round(rate)} B/s over ${seconds.toFixed(1)} s (${(rate / QUOTA).toFixed(3)}x)`);
    expect(rate).toBeGreaterThan(QUOTA * 0.8);
    expect(rate).toBeLessThan(QUOTA * 1.2);
  }, 30_000);
});
