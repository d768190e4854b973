// The log side of transactions through the real broker: read_committed fetches and ListOffsets, and
// control batches refused from clients. Driven with kafkite's own codecs over TCP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchRequest } from '../../protocol/generated/FetchRequest.js';
import type { FetchResponse } from '../../protocol/generated/FetchResponse.js';
import type { ProduceResponse } from '../../protocol/generated/ProduceResponse.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

const ZERO_UUID = '0'.repeat(32);
let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  broker = await startBroker();
  client = await WireClient.connect(broker.port);
});

afterAll(async () => {
  client.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

async function createTopic(name: string): Promise<void> {
  const res = await client.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(res.topics[0].errorCode).toBe(0);
}

function produce(topic: string, records: Buffer): Promise<ProduceResponse> {
  return client.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
}

function fetchRequest(topic: string, fetchOffset: number, isolationLevel: number, partitionMaxBytes = 1 << 20): FetchRequest {
  return {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0,
    maxBytes: 50 << 20, isolationLevel, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
    topics: [{ topic, topicId: ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes, replicaDirectoryId: ZERO_UUID }] }],
  };
}

async function latestOffset(topic: string, isolationLevel: number): Promise<number> {
  const res = await client.send(2, 7, { replicaId: -1, isolationLevel, timeoutMs: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] });
  return res.topics[0].partitions[0].offset;
}

const plain = (n: number) =>
  encodeBatch({ baseOffset: 0, records: Array.from({ length: n }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(`v${i}`), headers: [] })) });

describe('read_committed without transactions', () => {
  it('reads up to the high watermark with an empty aborted-transaction list', async () => {
    await createTopic('rc-plain');
    await produce('rc-plain', plain(3));
    const committed = (await client.send<FetchResponse>(1, 12, fetchRequest('rc-plain', 0, 1))).responses[0].partitions[0];
    expect(committed).toMatchObject({ errorCode: 0, highWatermark: 3, lastStableOffset: 3, abortedTransactions: [] });
    expect([...batchesIn(committed.records as Buffer)].map((h) => h.recordsCount)).toEqual([3]);
    const uncommitted = (await client.send<FetchResponse>(1, 12, fetchRequest('rc-plain', 0, 0))).responses[0].partitions[0];
    expect(uncommitted.abortedTransactions).toBeNull();
    expect(await latestOffset('rc-plain', 1)).toBe(3);
    expect(await latestOffset('rc-plain', 0)).toBe(3);
  });
});

describe('control batches from clients', () => {
  it('are refused with INVALID_RECORD and change nothing', async () => {
    await createTopic('rc-forged');
    await produce('rc-forged', plain(2));
    const forged = encodeBatch({
      baseOffset: 0,
      records: [{ offset: 0, timestamp: Date.now(), key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]), headers: [] }],
      producerId: 1,
      producerEpoch: 0,
      isTransactional: true,
      isControl: true,
    });
    const res = (await produce('rc-forged', forged)).responses[0].partitionResponses[0];
    expect(res.errorCode).toBe(87);
    // Kafka's LogValidator refuses it with an InvalidRecordException, which ReplicaManager answers without a
    // message (only a RecordValidationException carries one).
    expect(res.errorMessage).toBeNull();
    expect(await latestOffset('rc-forged', 0)).toBe(2);
    const read = (await client.send<FetchResponse>(1, 12, fetchRequest('rc-forged', 0, 0))).responses[0].partitions[0];
    expect([...batchesIn(read.records as Buffer)].every((h) => !h.isControl)).toBe(true);
  });
});

describe('abortedTransactions in read_committed fetches', () => {
  it('lists only the aborted transactions overlapping the batches returned', async () => {
    await createTopic('rc-bound');
    await produce('rc-bound', plain(2)); // 0-1
    const init = await client.send(22, 4, { transactionalId: 'rc-bound-txn', transactionTimeoutMs: 30000, producerId: -1, producerEpoch: -1 });
    const { producerId, producerEpoch } = init;
    const added = await client.send(24, 3, {
      transactions: [], v3AndBelowTransactionalId: 'rc-bound-txn', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch,
      v3AndBelowTopics: [{ name: 'rc-bound', partitions: [0] }],
    });
    expect(added.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(0);
    const txnBatch = encodeBatch({
      baseOffset: 0, records: [0, 1, 2].map((i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(`aborted-${i}`), headers: [] })),
      producerId, producerEpoch, baseSequence: 0, isTransactional: true,
    });
    const res = await client.send(0, 9, { transactionalId: 'rc-bound-txn', acks: -1, timeoutMs: 5000, topicData: [{ name: 'rc-bound', partitionData: [{ index: 0, records: txnBatch }] }] });
    expect(res.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 2 }); // 2-4
    expect((await client.send(26, 3, { transactionalId: 'rc-bound-txn', producerId, producerEpoch, committed: false })).errorCode).toBe(0); // marker 5
    await produce('rc-bound', plain(1)); // 6

    const fetch = async (offset: number, maxBytes: number) => (await client.send<FetchResponse>(1, 12, fetchRequest('rc-bound', offset, 1, maxBytes))).responses[0].partitions[0];
    // One byte of room: only the first batch (offsets 0-1) comes back, which the aborted transaction does not overlap.
    const first = await fetch(0, 1);
    expect([...batchesIn(first.records as Buffer)].map((h) => h.baseOffset)).toEqual([0]);
    expect(first.abortedTransactions).toEqual([]);
    // Everything: the aborted transaction is listed for the consumer to skip.
    const all = await fetch(0, 1 << 20);
    expect([...batchesIn(all.records as Buffer)].map((h) => h.baseOffset)).toEqual([0, 2, 5, 6]);
    expect(all.abortedTransactions).toEqual([{ producerId, firstOffset: 2 }]);
    // From inside it, and past it.
    expect((await fetch(2, 1)).abortedTransactions).toEqual([{ producerId, firstOffset: 2 }]);
    expect((await fetch(6, 1 << 20)).abortedTransactions).toEqual([]);
  });
});
