// producer.id.expiration.ms through the broker (small values): an idle idempotent producer id is
// forgotten at the next producer.id.expiration.check.interval.ms, one with an open transaction is kept,
// and the forgotten producer continues at its next sequence as Kafka accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  broker = await startBroker({
    overrides: ['producer.id.expiration.ms=1000', 'producer.id.expiration.check.interval.ms=200', 'transaction.state.log.num.partitions=1'],
  });
  client = await WireClient.connect(broker.port);
  const res = await client.send(19, 7, { topics: [{ name: 'expiring', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(res.topics[0].errorCode).toBe(0);
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

/** One record whose timestamp is a minute old: its producer is idle for longer than the expiration already. */
function oldBatch(producerId: number, producerEpoch: number, baseSequence: number, isTransactional = false): Buffer {
  return encodeBatch({
    baseOffset: 0, records: [{ offset: 0, timestamp: Date.now() - 60_000, key: null, value: Buffer.from('v'), headers: [] }],
    producerId, producerEpoch, baseSequence, isTransactional,
  });
}

async function produce(transactionalId: string | null, records: Buffer): Promise<{ errorCode: number; baseOffset: number }> {
  const res = await client.send(0, 9, { transactionalId, acks: -1, timeoutMs: 5000, topicData: [{ name: 'expiring', partitionData: [{ index: 0, records }] }] });
  return res.responses[0].partitionResponses[0];
}

async function activeProducerIds(): Promise<number[]> {
  const res = await client.send(61, 0, { topics: [{ name: 'expiring', partitionIndexes: [0] }] });
  return res.topics[0].partitions[0].activeProducers.map((p: { producerId: number }) => Number(p.producerId)).sort((a: number, b: number) => a - b);
}

describe('producer.id.expiration.ms', () => {
  it('forgets an idle producer id, keeps one with an open transaction', async () => {
    const idle = await client.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    expect((await produce(null, oldBatch(idle.producerId, idle.producerEpoch, 0))).errorCode).toBe(0);

    const txn = await client.send(22, 4, { transactionalId: 'expiring-txn', transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    const added = await client.send(24, 3, {
      transactions: [], v3AndBelowTransactionalId: 'expiring-txn', v3AndBelowProducerId: txn.producerId, v3AndBelowProducerEpoch: txn.producerEpoch,
      v3AndBelowTopics: [{ name: 'expiring', partitions: [0] }],
    });
    expect(added.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(0);
    expect((await produce('expiring-txn', oldBatch(txn.producerId, txn.producerEpoch, 0, true))).errorCode).toBe(0);

    // The expiration check runs every 200 ms; give it time on a busy machine.
    const deadline = Date.now() + 20_000;
    let ids = await activeProducerIds();
    while (ids.includes(Number(idle.producerId)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      ids = await activeProducerIds();
    }
    expect(ids).toEqual([Number(txn.producerId)]);

    // The forgotten producer continues at sequence 1: accepted, as Kafka accepts any sequence from a producer it has no state for.
    const next = await produce(null, oldBatch(idle.producerId, idle.producerEpoch, 1));
    expect(next).toMatchObject({ errorCode: 0, baseOffset: 2 });
    expect((await client.send(26, 3, { transactionalId: 'expiring-txn', producerId: txn.producerId, producerEpoch: txn.producerEpoch, committed: true })).errorCode).toBe(0);
  });
});
