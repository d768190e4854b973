// Share-partition state across a kill -9 of the broker, through the share coordinator on __share_group_state:
// an acknowledgement answered is durable (never delivered again), what was out or released comes back with its
// delivery count, and the start offset holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShareFetchResponse } from '../../protocol/generated/ShareFetchResponse.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { killAndRestart, startBroker, type BrokerProcess } from '../helpers/broker-process.js';

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

async function fetchFrom(c: WireClient, memberId: string, epoch: number, topicId: string, acks: Array<{ firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }> = []) {
  const res: ShareFetchResponse = await c.send(78, 1, {
    groupId: 'dg', memberId, shareSessionEpoch: epoch, maxWaitMs: 200, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] }], forgottenTopicsData: [],
  });
  expect(res.errorCode).toBe(0);
  return res.responses[0]?.partitions[0];
}

describe('share partitions across kill -9', () => {
  it('keeps every answered acknowledgement and delivery count', async () => {
    let c = await WireClient.connect(broker.port);
    const created = await c.send(19, 7, { topics: [{ name: 'durable', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    const topicId: string = created.topics[0].topicId;
    const join = (client: WireClient, memberId: string) =>
      client.send(76, 1, { groupId: 'dg', memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['durable'] });
    expect((await join(c, 'k1')).errorCode).toBe(0);
    await fetchFrom(c, 'k1', 0, topicId); // starts at the end of the empty log (share.auto.offset.reset latest)
    for (let b = 0; b < 4; b++) {
      const records = encodeBatch({ baseOffset: 0, records: Array.from({ length: 10 }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(`v${b * 10 + i}`), headers: [] })) });
      await c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'durable', partitionData: [{ index: 0, records }] }] });
    }
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
    c.close();

    broker = await killAndRestart(broker);
    c = await WireClient.connect(broker.port);
    expect((await join(c, 'k2')).errorCode).toBe(0);
    expect((await fetchFrom(c, 'k2', 0, topicId))!.acquiredRecords).toEqual([
      { firstOffset: 10, lastOffset: 19, deliveryCount: 3 },
      { firstOffset: 25, lastOffset: 39, deliveryCount: 2 },
    ]);
    c.close();
  });
});
