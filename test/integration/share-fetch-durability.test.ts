// Share-partition state across a kill -9 of the broker, through the share coordinator on __share_group_state:
// an acknowledgement answered is durable (never delivered again), what was out or released comes back with the
// delivery count last written, and the start offset holds. As in Kafka, an acquisition is not written: a delivery
// still out at the kill is not counted (KIP-932). An acknowledgement whose write fails (the disk under
// __share_group_state refusing appends) is refused and rolled back: its records come back when their lock expires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShareFetchResponse } from '../../protocol/generated/ShareFetchResponse.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { killAndRestart, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { until } from '../helpers/poll.js';

const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;
let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker();
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

async function fetchFrom(
  c: WireClient, memberId: string, epoch: number, topicId: string, acks: Array<{ firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }> = [],
  { groupId = 'dg', maxWaitMs = 200 } = {},
) {
  const res: ShareFetchResponse = await c.send(78, 1, {
    groupId, memberId, shareSessionEpoch: epoch, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] }], forgottenTopicsData: [],
  });
  expect(res.errorCode).toBe(0);
  return res.responses[0]?.partitions[0];
}

/** `n` batches of ten records, values v0, v1, ... */
async function produceBatches(c: WireClient, topic: string, n: number): Promise<void> {
  for (let b = 0; b < n; b++) {
    const records = encodeBatch({ baseOffset: 0, records: Array.from({ length: 10 }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(`v${b * 10 + i}`), headers: [] })) });
    const res = await c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
  }
}

describe('share partitions across kill -9', () => {
  it('keeps every answered acknowledgement and the delivery counts written with it', async () => {
    let c = await WireClient.connect(broker.port);
    const created = await c.send(19, 7, { topics: [{ name: 'durable', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    const topicId: string = created.topics[0].topicId;
    const join = (client: WireClient, memberId: string) =>
      client.send(76, 1, { groupId: 'dg', memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['durable'] });
    expect((await join(c, 'k1')).errorCode).toBe(0);
    await fetchFrom(c, 'k1', 0, topicId); // starts at the end of the empty log (share.auto.offset.reset latest)
    await produceBatches(c, 'durable', 4);
    expect((await fetchFrom(c, 'k1', 1, topicId))!.acquiredRecords).toEqual([{ firstOffset: 0, lastOffset: 39, deliveryCount: 1 }]);
    // 0-9 accepted, 10-19 released, 20-24 rejected, 25-39 still held when the broker dies.
    const answered = await fetchFrom(c, 'k1', 2, topicId, [
      { firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] },
      { firstOffset: 10, lastOffset: 19, acknowledgeTypes: [RELEASE] },
      { firstOffset: 20, lastOffset: 24, acknowledgeTypes: [REJECT] },
    ]);
    expect(answered!.acknowledgeErrorCode).toBe(0);
    // The same fetch acquired the released records again (count 2) before the kill.
    expect(answered!.acquiredRecords).toEqual([{ firstOffset: 10, lastOffset: 19, deliveryCount: 2 }]);

    // Killed with the connection open: closing it first would release (and write) what k1 holds.
    broker = await killAndRestart(broker);
    c.close();
    c = await WireClient.connect(broker.port);
    expect((await join(c, 'k2')).errorCode).toBe(0);
    // 10-19 were written released after one delivery; their second, out at the kill, was not written. 25-39, out on
    // their first delivery, were not written either (as Kafka writes only what a change touches): the kill lost no
    // state, and the deliveries then out are not counted (KIP-932).
    expect((await fetchFrom(c, 'k2', 0, topicId))!.acquiredRecords).toEqual([
      { firstOffset: 10, lastOffset: 19, deliveryCount: 2 },
      { firstOffset: 25, lastOffset: 39, deliveryCount: 1 },
    ]);
    c.close();
  });
});

describe('a state write that fails', () => {
  it('refuses the acknowledgement and rolls it back: the records come back once their lock expires', async () => {
    let c = await WireClient.connect(broker.port);
    const created = await c.send(19, 7, { topics: [{ name: 'faulty', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    const topicId: string = created.topics[0].topicId;
    const opts = { groupId: 'fg' };
    for (const memberId of ['f1', 'f2']) {
      expect((await c.send(76, 1, { groupId: 'fg', memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['faulty'] })).errorCode).toBe(0);
    }
    await fetchFrom(c, 'f1', 0, topicId, [], opts); // the share partition starts at the end of the empty log, written
    await produceBatches(c, 'faulty', 1);
    c.close();

    // From here every append to __share_group_state fails (ENOSPC: no disk failure, the log dir stays online).
    const { dataDir, port } = broker;
    expect(await broker.stop()).toBe(0);
    broker = await startBroker({
      dataDir, port, env: { KAFKITE_FAULT_INJECTION: `${dataDir}/__share_group_state-:ENOSPC` },
      overrides: ['group.share.min.record.lock.duration.ms=1000', 'group.share.record.lock.duration.ms=3000'],
    });
    c = await WireClient.connect(broker.port);
    // Acquiring writes nothing, so it works; the acknowledgement's write fails: COORDINATOR_NOT_AVAILABLE, as Kafka's
    // share partition answers a write its share coordinator could not make.
    expect((await fetchFrom(c, 'f1', 0, topicId, [], opts))!.acquiredRecords).toEqual([{ firstOffset: 0, lastOffset: 9, deliveryCount: 1 }]);
    const refused = await fetchFrom(c, 'f1', 1, topicId, [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }], opts);
    expect(refused!.acknowledgeErrorCode).toBe(15);
    // Rolled back: still f1's until the lock expires, then f2 gets them (had the acceptance stayed, never).
    const other = await WireClient.connect(broker.port);
    let redelivered: unknown[] = [];
    let epoch = 0;
    await until(async () => {
      redelivered = (await fetchFrom(other, 'f2', epoch++, topicId, [], { ...opts, maxWaitMs: 5000 }))?.acquiredRecords ?? [];
      return redelivered.length > 0;
    }, 'the records to come back', 30_000);
    expect(redelivered).toEqual([{ firstOffset: 0, lastOffset: 9, deliveryCount: 2 }]);
    other.close();
    c.close();
  }, 60_000);
});
