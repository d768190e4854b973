// The reference broker itself: Apache Kafka 4.4 starts from the test jars, answers our wire client, stores a
// record a second connection reads back, logs to its file, and stops on SIGTERM.
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { referenceForFile } from '../helpers/reference-broker.js';

const kafka = referenceForFile({ properties: ['num.partitions=2'] });

it('answers ApiVersions and Metadata as a registered KRaft broker on its own port', async () => {
  const client = await WireClient.connect(kafka().port);
  try {
    const versions = await client.send(18, 3, { clientSoftwareName: 'kafkite-test', clientSoftwareVersion: '1' });
    expect(versions.errorCode).toBe(0);
    // KRaft-only APIs mark a real Kafka, not kafkite answering by mistake: DescribeQuorum (55) is served.
    expect(versions.apiKeys.map((k: { apiKey: number }) => k.apiKey)).toContain(55);
    const metadata = await client.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(metadata.brokers).toEqual([expect.objectContaining({ nodeId: 1, host: '127.0.0.1', port: kafka().port })]);
    expect(metadata.controllerId).toBe(1);
  } finally {
    client.close();
  }
});

it('stores a produced record that a second connection fetches, with the extra properties applied', async () => {
  const producer = await WireClient.connect(kafka().port);
  const consumer = await WireClient.connect(kafka().port);
  try {
    const created = await producer.send(19, 7, { topics: [{ name: 'ref-check', numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    expect(created.topics[0].errorCode).toBe(0);
    expect(created.topics[0].numPartitions).toBe(2); // num.partitions=2 reached the node
    const records = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from('hello kafka'), headers: [] }] });
    // Kafka answers CreateTopics before its broker has the leadership (NOT_LEADER_OR_FOLLOWER for a moment).
    await expect.poll(async () => {
      const produced = await producer.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name: 'ref-check', partitionData: [{ index: 0, records }] }] });
      return produced.responses[0].partitionResponses[0];
    }, { timeout: 10_000, interval: 100 }).toMatchObject({ errorCode: 0, baseOffset: 0 });
    const fetched = await consumer.send(1, 12, {
      clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 'ref-check', topicId: '0'.repeat(32), partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: '0'.repeat(32) }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const partition = fetched.responses[0].partitions[0];
    expect(partition.errorCode).toBe(0);
    const buf: Buffer = partition.records;
    const values = [...batchesIn(buf)].flatMap((h) => decodeBatch(buf.subarray(h.pos, h.pos + h.sizeInBytes)).records.map((r) => r.value?.toString()));
    expect(values).toEqual(['hello kafka']);
  } finally {
    producer.close();
    consumer.close();
  }
});

it('logs to its own file', () => {
  expect(existsSync(kafka().logFile)).toBe(true);
  expect(readFileSync(kafka().logFile, 'utf8')).toContain('Kafka Server started');
});
