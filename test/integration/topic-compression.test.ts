// A topic's compression.type (Kafka's LogValidator recompression, KIP-390 levels) and the request rules that
// go with codecs (ProduceRequest.validateRecords, KafkaApis' ZSTD rule for Fetch below v10). What is checked
// is what the .log files hold, read directly, and what a second client reads back.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { BatchHeader, batchesIn, CompressionType } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { brokerForFile } from '../helpers/broker-process.js';
import { batchesOnDisk, compressibleValue } from '../helpers/disk-batches.js';
import { kcat } from '../helpers/kcat.js';

const brokerProcess = brokerForFile({ overrides: ['num.partitions=1'] });
let client: WireClient;

beforeAll(async () => {
  client = await WireClient.connect(brokerProcess().port);
});

afterAll(() => client?.close());

async function createTopic(name: string, configs: Record<string, string>): Promise<void> {
  const res = await client.send(19, 7, {
    topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 10_000, validateOnly: false,
  });
  expect(res.topics[0].errorCode, res.topics[0].errorMessage).toBe(0);
}

function records(count: number, value: (i: number) => Buffer): KafkaRecord[] {
  return Array.from({ length: count }, (_, i) => ({ offset: i, timestamp: Date.now(), key: Buffer.from(`k${i}`), value: value(i), headers: [] }));
}

async function produce(topic: string, batch: Buffer, version = 9): Promise<any> {
  const res = await client.send(0, version, { transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }] });
  return res.responses[0].partitionResponses[0];
}

async function fetch(topic: string, version: number): Promise<any> {
  const res = await client.send(1, version, {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
    isolationLevel: 0, sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
    topics: [{ topic, topicId: '', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: '' }] }],
  });
  return res.responses[0].partitions[0];
}

/** The stored batches with their headers, read from the partition's .log files. */
function storedHeaders(topic: string): BatchHeader[] {
  const dir = join(brokerProcess().dataDir, `${topic}-0`);
  return readdirSync(dir).filter((f) => f.endsWith('.log')).sort().flatMap((f) => [...batchesIn(readFileSync(join(dir, f)))]);
}

const storedSize = (topic: string): number => storedHeaders(topic).reduce((n, b) => n + b.sizeInBytes, 0);

describe('compression.type on a topic', () => {
  it('stores what kcat sends uncompressed as zstd, and a consumer reads every record back', async () => {
    await createTopic('to-zstd', { 'compression.type': 'zstd' });
    const lines = Array.from({ length: 300 }, (_, i) => `k${i}:${compressibleValue(i)}`);
    const res = await kcat(['-b', brokerProcess().bootstrap, '-P', '-t', 'to-zstd', '-K', ':', '-z', 'none'], lines.join('\n') + '\n');
    expect(res.code, res.stderr).toBe(0);
    const stored = batchesOnDisk(brokerProcess().dataDir, 'to-zstd');
    expect(stored.reduce((n, b) => n + b.records, 0)).toBe(300);
    expect(new Set(stored.map((b) => CompressionType[b.compression]))).toEqual(new Set(['Zstd']));
    const consumed = await kcat(['-b', brokerProcess().bootstrap, '-C', '-t', 'to-zstd', '-e', '-q', '-f', '%k:%s\\n']);
    expect(consumed.code, consumed.stderr).toBe(0);
    expect(consumed.stdout.split('\n').filter((l) => l.length > 0)).toEqual(lines);
  });

  it('stores gzip batches uncompressed on a topic with compression.type=uncompressed', async () => {
    await createTopic('to-none', { 'compression.type': 'uncompressed' });
    const sent = encodeBatch({ baseOffset: 0, records: records(50, (i) => Buffer.from(compressibleValue(i))), compression: CompressionType.Gzip });
    expect((await produce('to-none', sent)).errorCode).toBe(0);
    const [stored] = storedHeaders('to-none');
    expect(stored!.compression).toBe(CompressionType.None);
    expect(stored!.isCrcValid()).toBe(true);
    expect(decodeBatch(Buffer.from(stored!.buf.subarray(stored!.pos, stored!.pos + stored!.sizeInBytes))).records.map((r) => r.value!.toString()))
      .toEqual(records(50, (i) => Buffer.from(compressibleValue(i))).map((r) => r.value!.toString()));
  });

  it('follows a change of compression.type made with IncrementalAlterConfigs, for the batches after it', async () => {
    await createTopic('altered', {});
    const batch = () => encodeBatch({ baseOffset: 0, records: records(10, (i) => Buffer.from(compressibleValue(i))) });
    expect((await produce('altered', batch())).errorCode).toBe(0);
    const altered = await client.send(44, 1, {
      resources: [{ resourceType: 2, resourceName: 'altered', configs: [{ name: 'compression.type', configOperation: 0, value: 'snappy' }] }], validateOnly: false,
    });
    expect(altered.responses[0].errorCode).toBe(0);
    expect((await produce('altered', batch())).errorCode).toBe(0);
    expect(storedHeaders('altered').map((b) => CompressionType[b.compression])).toEqual(['None', 'Snappy']);
  });

  it("keeps an idempotent batch's producer id, epoch and sequence, so a retry is still a duplicate", async () => {
    await createTopic('to-lz4', { 'compression.type': 'lz4' });
    const init = await client.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    expect(init.errorCode).toBe(0);
    const batch = encodeBatch({
      baseOffset: 0, records: records(20, (i) => Buffer.from(compressibleValue(i))), producerId: init.producerId, producerEpoch: init.producerEpoch, baseSequence: 0,
    });
    const first = await produce('to-lz4', batch);
    const retry = await produce('to-lz4', batch);
    expect(first.errorCode).toBe(0);
    expect(retry.errorCode).toBe(0);
    expect(retry.baseOffset).toBe(first.baseOffset);
    const stored = storedHeaders('to-lz4');
    expect(stored).toHaveLength(1);
    expect(stored[0]!.compression).toBe(CompressionType.Lz4);
    expect([stored[0]!.producerId, stored[0]!.producerEpoch, stored[0]!.baseSequence, stored[0]!.recordsCount]).toEqual([init.producerId, init.producerEpoch, 0, 20]);
    // The next sequence goes on from the first batch's.
    const next = encodeBatch({ baseOffset: 0, records: records(5, (i) => Buffer.from(`n${i}`)), producerId: init.producerId, producerEpoch: init.producerEpoch, baseSequence: 20 });
    expect(await produce('to-lz4', next)).toMatchObject({ errorCode: 0, baseOffset: 20 });
  });

  it('applies compression.gzip.level (KIP-390)', async () => {
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
    let seed = 7;
    const text = (i: number) => Buffer.from(Array.from({ length: 300 }, () => words[(seed = (seed * 1103515245 + 12345) % 2147483648) % words.length]).join(' ') + i);
    const batch = encodeBatch({ baseOffset: 0, records: records(100, text) });
    for (const level of ['1', '9']) {
      await createTopic(`gzip-${level}`, { 'compression.type': 'gzip', 'compression.gzip.level': level });
      expect((await produce(`gzip-${level}`, batch)).errorCode).toBe(0);
      expect(storedHeaders(`gzip-${level}`).map((b) => b.compression)).toEqual([CompressionType.Gzip]);
    }
    expect(storedSize('gzip-9')).toBeLessThan(storedSize('gzip-1'));
  });

  it('refuses a batch that recompression makes larger than max.message.bytes, and stores nothing', async () => {
    const batch = encodeBatch({ baseOffset: 0, records: records(4, () => randomBytes(2000)) });
    await createTopic('grows', { 'compression.type': 'gzip', 'max.message.bytes': String(batch.length) });
    const p = await produce('grows', batch);
    expect(p.errorCode).toBe(10); // MESSAGE_TOO_LARGE
    // Kafka's ReplicaManager answers a RecordTooLargeException with its code alone (test/reference/conformance.test.ts).
    expect(p.errorMessage).toBeNull();
    expect(storedHeaders('grows')).toEqual([]);
  });

  it('is not served to Fetch below v10 when it is zstd (UNSUPPORTED_COMPRESSION_TYPE), and is from v10', async () => {
    await createTopic('zstd-fetch', { 'compression.type': 'zstd' });
    expect((await produce('zstd-fetch', encodeBatch({ baseOffset: 0, records: records(3, (i) => Buffer.from(`v${i}`)) }))).errorCode).toBe(0);
    expect((await fetch('zstd-fetch', 9)).errorCode).toBe(76);
    const v10 = await fetch('zstd-fetch', 10);
    expect(v10.errorCode).toBe(0);
    expect(decodeBatch(Buffer.from(v10.records)).records.map((r) => r.value!.toString())).toEqual(['v0', 'v1', 'v2']);
    // A topic that keeps the producer's codec is served to old fetchers as before.
    await createTopic('producer-codec', {});
    expect((await produce('producer-codec', encodeBatch({ baseOffset: 0, records: records(1, () => Buffer.from('x')), compression: CompressionType.Zstd }))).errorCode).toBe(0);
    expect((await fetch('producer-codec', 9)).errorCode).toBe(0);
  });
});

describe("Produce v3+ records (Kafka's ProduceRequest.validateRecords)", () => {
  it('refuses two batches for one partition with INVALID_RECORD and stores neither', async () => {
    await createTopic('two-batches', {});
    const one = encodeBatch({ baseOffset: 0, records: records(2, (i) => Buffer.from(`a${i}`)) });
    const two = encodeBatch({ baseOffset: 0, records: records(2, (i) => Buffer.from(`b${i}`)) });
    const p = await produce('two-batches', Buffer.concat([one, two]));
    expect(p.errorCode).toBe(87);
    expect(p.errorMessage).toBeNull(); // as Kafka 4.4 (test/reference/conformance.test.ts)
    expect(storedHeaders('two-batches')).toEqual([]);
    expect((await produce('two-batches', one)).errorCode).toBe(0);
  });

  it('refuses ZSTD below Produce v7 with UNSUPPORTED_COMPRESSION_TYPE, and takes it from v7', async () => {
    await createTopic('zstd-produce', {});
    const zstdBatch = encodeBatch({ baseOffset: 0, records: records(3, (i) => Buffer.from(`z${i}`)), compression: CompressionType.Zstd });
    const v6 = await produce('zstd-produce', zstdBatch, 6);
    expect(v6.errorCode).toBe(76); // Produce v6 answers carry no message (v8+)
    expect(storedHeaders('zstd-produce')).toEqual([]);
    expect((await produce('zstd-produce', zstdBatch, 7)).errorCode).toBe(0);
    expect(storedHeaders('zstd-produce').map((b) => b.compression)).toEqual([CompressionType.Zstd]);
  });

  it('refuses a partition without records with INVALID_RECORD', async () => {
    await createTopic('no-records', {});
    const p = await produce('no-records', Buffer.alloc(0));
    expect(p.errorCode).toBe(87);
    expect(p.errorMessage).toBeNull();
  });
});
