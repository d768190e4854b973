// Per-record errors in Produce (Kafka's LogValidator and RecordValidationException), spoken with our wire
// client: the batch is refused as a whole, recordErrors lists each bad record, and nothing reaches the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { encodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  broker = await startBroker();
  client = await WireClient.connect(broker.port);
  const res = await client.send(ApiKey.CreateTopics, 7, {
    topics: [
      { name: 'compacted', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'cleanup.policy', value: 'compact' }] },
      {
        name: 'bounded-time', numPartitions: 1, replicationFactor: 1, assignments: [],
        configs: [{ name: 'message.timestamp.before.max.ms', value: '3600000' }, { name: 'message.timestamp.after.max.ms', value: '3600000' }],
      },
      { name: 'plain', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
    ],
    timeoutMs: 10_000, validateOnly: false,
  });
  expect(res.topics.map((t: any) => t.errorCode)).toEqual([0, 0, 0]);
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function records(count: number, fill: (i: number) => Partial<KafkaRecord>): KafkaRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    offset: i, timestamp: Date.now(), key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), headers: [], ...fill(i),
  }));
}

async function produce(topic: string, batch: Buffer) {
  const res = await client.send(ApiKey.Produce, 9, {
    transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
  });
  return res.responses[0].partitionResponses[0];
}

async function endOffset(topic: string): Promise<bigint | number> {
  const res = await client.send(ApiKey.ListOffsets, 7, {
    replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }],
  });
  return res.topics[0].partitions[0].offset;
}

describe('Produce recordErrors', () => {
  it('lists every keyless record of a batch to a compacted topic and stores none of the batch', async () => {
    const keyless = new Set([3, 11, 19, 27, 35, 43, 51, 59, 67, 75]);
    const batch = encodeBatch({ baseOffset: 0, records: records(100, (i) => (keyless.has(i) ? { key: null } : {})) });
    const p = await produce('compacted', batch);
    expect(p.errorCode).toBe(87); // INVALID_RECORD
    expect(p.recordErrors.map((e: any) => e.batchIndex)).toEqual([...keyless]);
    expect(p.recordErrors[0].batchIndexErrorMessage).toBe('Compacted topic cannot accept message without key in topic partition compacted-0.');
    expect(p.errorMessage).toMatch(/^One or more records have been rejected due to 10 record errors in total, and only showing the first three errors at most: \[RecordError\(batchIndex=3, /);
    expect(Number(await endOffset('compacted'))).toBe(0);
    // The same records, all keyed, go in.
    const ok = await produce('compacted', encodeBatch({ baseOffset: 0, records: records(100, () => ({})) }));
    expect(ok.errorCode).toBe(0);
    expect(Number(await endOffset('compacted'))).toBe(100);
  });

  it('lists records whose timestamps fall outside message.timestamp.before/after.max.ms', async () => {
    const now = Date.now();
    const batch = encodeBatch({
      baseOffset: 0,
      records: records(5, (i) => ({ timestamp: i === 1 ? now - 2 * 3600_000 : i === 4 ? now + 2 * 3600_000 : now })),
    });
    const p = await produce('bounded-time', batch);
    expect(p.errorCode).toBe(32); // INVALID_TIMESTAMP
    expect(p.errorMessage).toBe('One or more records have been rejected due to invalid timestamp');
    expect(p.recordErrors.map((e: any) => e.batchIndex)).toEqual([1, 4]);
    expect(p.recordErrors[0].batchIndexErrorMessage).toMatch(/^Timestamp \d+ of message with offset 1 is out of range\. The timestamp should be within \[\d+, \d+\]$/);
    expect(Number(await endOffset('bounded-time'))).toBe(0);
    // A topic with Kafka 4.4's defaults: the past is unbounded, the future an hour (message.timestamp.after.max.ms,
    // 3600000 since Kafka 4.0, KIP-1030).
    const plain = await produce('plain', batch);
    expect(plain.errorCode).toBe(32);
    expect(plain.recordErrors.map((e: any) => e.batchIndex)).toEqual([4]);
    expect(Number(await endOffset('plain'))).toBe(0);
    const past = encodeBatch({ baseOffset: 0, records: records(2, (i) => ({ timestamp: i === 1 ? now - 2 * 3600_000 : now + 1000 })) });
    expect((await produce('plain', past)).errorCode).toBe(0);
    expect(Number(await endOffset('plain'))).toBe(2);
  });

  // Without a message, as Kafka 4.4 answers both (test/reference/conformance.test.ts compares them).
  it('answers a corrupt batch with CORRUPT_MESSAGE, and a wrong magic with INVALID_RECORD', async () => {
    const corrupt = encodeBatch({ baseOffset: 0, records: records(3, () => ({})) });
    corrupt[corrupt.length - 1] ^= 0xff;
    const c = await produce('plain', corrupt);
    expect(c.errorCode).toBe(2);
    expect(c.errorMessage).toBeNull();

    const wrongMagic = encodeBatch({ baseOffset: 0, records: records(3, () => ({})) });
    wrongMagic[16] = 1;
    const m = await produce('plain', wrongMagic);
    expect(m.errorCode).toBe(87);
    expect(m.errorMessage).toBeNull();
  });
});
