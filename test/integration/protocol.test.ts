// Protocol-level behaviour of the real broker process, driven with kafkite's own codecs over TCP:
// the error codes Kafka sends, long polling, fetch sessions, and hostile frames.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchPartition, FetchRequest } from '../../protocol/generated/FetchRequest.js';
import type { FetchResponse } from '../../protocol/generated/FetchResponse.js';
import type { ProduceResponse } from '../../protocol/generated/ProduceResponse.js';
import { encodeBatch, decodeBatch } from '../../protocol/records/record-batch.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { WireClient } from '../../bench/lib/wire-client.js';

const ZERO_UUID = '0'.repeat(32);
let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['message.max.bytes=20000'] });
  client = await WireClient.connect(broker.port);
});

afterAll(async () => {
  client.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function batch(values: string[], opts: { producerId?: number; producerEpoch?: number; baseSequence?: number; timestamp?: number } = {}): Buffer {
  const now = opts.timestamp ?? Date.now();
  return encodeBatch({
    baseOffset: 0,
    records: values.map((v, i) => ({ offset: i, timestamp: now, key: Buffer.from(`k${i}`), value: Buffer.from(v), headers: [] })),
    producerId: opts.producerId,
    producerEpoch: opts.producerEpoch,
    baseSequence: opts.baseSequence,
  });
}

function produce(topic: string, records: Buffer, acks = -1, partition = 0, version = 9): Promise<ProduceResponse> {
  return client.send(0, version, { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
}

function produceResult(res: ProduceResponse) {
  return res.responses[0]!.partitionResponses[0]!;
}

async function createTopic(name: string, partitions = 1, configs: Array<{ name: string; value: string }> = []) {
  const res = await client.send(19, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  expect(res.topics[0].errorCode).toBe(0);
  return res.topics[0];
}

function fetchPartition(partition: number, fetchOffset: number, partitionMaxBytes = 1 << 20): FetchPartition {
  return { partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes, replicaDirectoryId: ZERO_UUID };
}

function fetchRequest(topic: string, partitions: FetchPartition[], over: Partial<FetchRequest> = {}): FetchRequest {
  return {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0,
    maxBytes: 50 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, topicId: ZERO_UUID, partitions }], forgottenTopicsData: [], rackId: '', ...over,
  };
}

function fetch(req: FetchRequest, version = 12): Promise<FetchResponse> {
  return client.send(1, version, req);
}

function recordsOf(data: { records: unknown }): string[] {
  const buf = data.records as Buffer;
  return [...batchesIn(buf)].flatMap((h) => decodeBatch(buf.subarray(h.pos, h.pos + h.sizeInBytes)).records.map((r) => r.value!.toString()));
}

describe('ApiVersions', () => {
  it('answers a too-new version with v0, UNSUPPORTED_VERSION and its own range alone, as Kafka does (KIP-511)', async () => {
    const c = await WireClient.connect(broker.port);
    // Version 99 of ApiVersions: the broker must answer in v0 so the client can downgrade.
    const res = await c.send(18, 0, {}).catch(() => null);
    expect(res).not.toBeNull();
    const frame = Buffer.alloc(4 + 10 + 'x'.length);
    frame.writeInt32BE(frame.length - 4, 0);
    frame.writeInt16BE(18, 4);
    frame.writeInt16BE(99, 6);
    frame.writeInt32BE(4242, 8);
    frame.writeInt16BE(1, 12);
    frame.write('x', 14);
    const answer = await c.sendRaw<any>(frame, 4242, 18, 0);
    expect(answer.errorCode).toBe(35);
    // Only the range to retry in: the whole table comes with the retry, features and all (franz-go keeps a
    // whole table given here, and v0 has no features).
    expect(answer.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 5 }]);
    c.close();
  });
});

describe('Produce', () => {
  it('assigns offsets and answers base offset, log append time and log start offset', async () => {
    await createTopic('p-basic');
    const first = produceResult(await produce('p-basic', batch(['a', 'b', 'c'])));
    expect(first).toMatchObject({ errorCode: 0, baseOffset: 0, logAppendTimeMs: -1, logStartOffset: 0 });
    const second = produceResult(await produce('p-basic', batch(['d'])));
    expect(second.baseOffset).toBe(3);
  });

  it('stamps LogAppendTime when the topic asks for it', async () => {
    await createTopic('p-append-time', 1, [{ name: 'message.timestamp.type', value: 'LogAppendTime' }]);
    const before = Date.now();
    const res = produceResult(await produce('p-append-time', batch(['x'], { timestamp: 1000 })));
    expect(res.logAppendTimeMs).toBeGreaterThanOrEqual(before);
    const fetched = await fetch(fetchRequest('p-append-time', [fetchPartition(0, 0)]));
    const buf = fetched.responses[0]!.partitions[0]!.records as Buffer;
    expect(decodeBatch(buf).records[0]!.timestamp).toBe(res.logAppendTimeMs);
  });

  it('rejects a corrupt batch with CORRUPT_MESSAGE and stores nothing', async () => {
    await createTopic('p-corrupt');
    const bad = batch(['a', 'b']);
    bad[bad.length - 1] ^= 0xff;
    expect(produceResult(await produce('p-corrupt', bad)).errorCode).toBe(2);
    const ok = produceResult(await produce('p-corrupt', batch(['c'])));
    expect(ok).toMatchObject({ errorCode: 0, baseOffset: 0 });
  });

  it('rejects a batch over message.max.bytes with MESSAGE_TOO_LARGE', async () => {
    await createTopic('p-large');
    const res = produceResult(await produce('p-large', batch(['x'.repeat(30_000)])));
    expect(res.errorCode).toBe(10);
  });

  it('answers unknown topics, bad acks and keyless records on compacted topics as Kafka does', async () => {
    expect(produceResult(await produce('p-missing', batch(['a']))).errorCode).toBe(3);
    await createTopic('p-acks');
    expect(produceResult(await produce('p-acks', batch(['a']), 2)).errorCode).toBe(21);
    await createTopic('p-compacted', 1, [{ name: 'cleanup.policy', value: 'compact' }]);
    const keyless = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now(), key: null, value: Buffer.from('v'), headers: [] }] });
    expect(produceResult(await produce('p-compacted', keyless)).errorCode).toBe(87);
  });

  it('deduplicates idempotent retries and refuses sequence gaps', async () => {
    await createTopic('p-idempotent');
    const init = await client.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
    expect(init.errorCode).toBe(0);
    const pid = { producerId: init.producerId, producerEpoch: init.producerEpoch };
    const first = produceResult(await produce('p-idempotent', batch(['a', 'b'], { ...pid, baseSequence: 0 })));
    const retry = produceResult(await produce('p-idempotent', batch(['a', 'b'], { ...pid, baseSequence: 0 })));
    expect(retry).toMatchObject({ errorCode: 0, baseOffset: first.baseOffset });
    const gap = produceResult(await produce('p-idempotent', batch(['z'], { ...pid, baseSequence: 5 })));
    expect(gap.errorCode).toBe(45);
    const next = produceResult(await produce('p-idempotent', batch(['c'], { ...pid, baseSequence: 2 })));
    expect(next).toMatchObject({ errorCode: 0, baseOffset: 2 });
  });

  it('answers acks=0 with nothing and keeps the connection in order', async () => {
    await createTopic('p-acks0');
    client.sendOneWay(0, 9, { transactionalId: null, acks: 0, timeoutMs: 5000, topicData: [{ name: 'p-acks0', partitionData: [{ index: 0, records: batch(['fire-and-forget']) }] }] });
    // acks=0 has no response: the next request's answer must still match its own correlation id.
    const res = produceResult(await produce('p-acks0', batch(['acked'])));
    expect(res.baseOffset).toBe(1);
  });
});

describe('Fetch', () => {
  it('returns the whole batch when the fetch offset is inside it, and empty records at the end', async () => {
    await createTopic('f-middle');
    await produce('f-middle', batch(['a', 'b', 'c', 'd']));
    const res = await fetch(fetchRequest('f-middle', [fetchPartition(0, 2)]));
    const p = res.responses[0]!.partitions[0]!;
    expect(p).toMatchObject({ errorCode: 0, highWatermark: 4, lastStableOffset: 4, logStartOffset: 0 });
    expect(recordsOf(p)).toEqual(['a', 'b', 'c', 'd']);
    const atEnd = (await fetch(fetchRequest('f-middle', [fetchPartition(0, 4)]))).responses[0]!.partitions[0]!;
    expect(atEnd.records).toEqual(Buffer.alloc(0));
  });

  it('answers OFFSET_OUT_OF_RANGE past the log end', async () => {
    await createTopic('f-range');
    const res = await fetch(fetchRequest('f-range', [fetchPartition(0, 10)]));
    expect(res.responses[0]!.partitions[0]!.errorCode).toBe(1);
  });

  it('returns at least the first batch even when it exceeds max_bytes (KIP-74)', async () => {
    await createTopic('f-kip74');
    await produce('f-kip74', batch(['x'.repeat(5000)]));
    await produce('f-kip74', batch(['y'.repeat(5000)]));
    const res = await fetch(fetchRequest('f-kip74', [fetchPartition(0, 0, 100)], { maxBytes: 100 }));
    expect(recordsOf(res.responses[0]!.partitions[0]!)).toEqual(['x'.repeat(5000)]);
  });

  it('long-polls until a produce arrives, without waiting out max_wait_ms', async () => {
    await createTopic('f-poll');
    const consumer = await WireClient.connect(broker.port);
    const started = Date.now();
    const pending = consumer.send<FetchResponse>(1, 12, fetchRequest('f-poll', [fetchPartition(0, 0)], { maxWaitMs: 10_000, minBytes: 1 }));
    await new Promise((r) => setTimeout(r, 200));
    await produce('f-poll', batch(['wake-up']));
    const res = await pending;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(recordsOf(res.responses[0]!.partitions[0]!)).toEqual(['wake-up']);
    consumer.close();
  });

  it('waits max_wait_ms when nothing arrives', async () => {
    await createTopic('f-idle');
    const started = Date.now();
    const res = await fetch(fetchRequest('f-idle', [fetchPartition(0, 0)], { maxWaitMs: 300, minBytes: 1 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(res.responses[0]!.partitions[0]!.records).toEqual(Buffer.alloc(0));
  });

  it('fetches by topic ID from v13 and answers UNKNOWN_TOPIC_ID for an unknown one', async () => {
    const created = await createTopic('f-ids');
    await produce('f-ids', batch(['by-id']));
    const req = fetchRequest('', [fetchPartition(0, 0)]);
    req.topics[0]!.topicId = created.topicId;
    const res = await fetch(req, 13);
    expect(res.responses[0]!.topicId).toBe(created.topicId);
    expect(recordsOf(res.responses[0]!.partitions[0]!)).toEqual(['by-id']);
    req.topics[0]!.topicId = 'ab'.repeat(16);
    expect((await fetch(req, 13)).responses[0]!.partitions[0]!.errorCode).toBe(100);
  });
});

describe('incremental fetch sessions (KIP-227)', () => {
  it('creates a session, sends only changed partitions, and checks epochs', async () => {
    await createTopic('f-session', 3);
    const full = await fetch(fetchRequest('f-session', [0, 1, 2].map((p) => fetchPartition(p, 0)), { sessionId: 0, sessionEpoch: 0 }));
    expect(full.sessionId).toBeGreaterThan(0);
    expect(full.responses[0]!.partitions).toHaveLength(3);

    const quiet = await fetch(fetchRequest('f-session', [], { sessionId: full.sessionId, sessionEpoch: 1 }));
    expect(quiet.errorCode).toBe(0);
    expect(quiet.responses).toHaveLength(0);

    await produce('f-session', batch(['news']), -1, 1);
    const news = await fetch(fetchRequest('f-session', [], { sessionId: full.sessionId, sessionEpoch: 2 }));
    expect(news.responses[0]!.partitions.map((p) => p.partitionIndex)).toEqual([1]);
    expect(recordsOf(news.responses[0]!.partitions[0]!)).toEqual(['news']);

    const stale = await fetch(fetchRequest('f-session', [], { sessionId: full.sessionId, sessionEpoch: 2 }));
    expect(stale.errorCode).toBe(71);
    const unknown = await fetch(fetchRequest('f-session', [], { sessionId: 12345, sessionEpoch: 1 }));
    expect(unknown.errorCode).toBe(70);
  });

  it('returns records of session partitions the request leaves out, at once, without waiting for the named ones', async () => {
    await createTopic('f-omitted', 2);
    const full = await fetch(fetchRequest('f-omitted', [fetchPartition(0, 0), fetchPartition(1, 0)], { sessionId: 0, sessionEpoch: 0 }));
    await produce('f-omitted', batch(['for-p1']), -1, 1);
    // Names only partition 0, which has nothing, and would wait 20 s for a byte: partition 1 of the session has one.
    const started = Date.now();
    const res = await fetch(fetchRequest('f-omitted', [fetchPartition(0, 0)], { sessionId: full.sessionId, sessionEpoch: 1, maxWaitMs: 20_000, minBytes: 1 }));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.responses[0]!.partitions.map((p) => p.partitionIndex)).toEqual([1]);
    expect(recordsOf(res.responses[0]!.partitions[0]!)).toEqual(['for-p1']);
  });

  it('answers at once, without waiting max_wait_ms, when the session has no partition left (Kafka: nothing to fetch)', async () => {
    await createTopic('f-emptied');
    const full = await fetch(fetchRequest('f-emptied', [fetchPartition(0, 0)], { sessionId: 0, sessionEpoch: 0 }));
    // The Java consumer forgets a partition while it still holds buffered records of it: here the only one.
    const started = Date.now();
    const res = await fetch(fetchRequest('f-emptied', [], {
      sessionId: full.sessionId, sessionEpoch: 1, maxWaitMs: 20_000, minBytes: 1,
      forgottenTopicsData: [{ topic: 'f-emptied', topicId: ZERO_UUID, partitions: [0] }],
    }));
    expect(res.errorCode).toBe(0);
    expect(res.responses).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
    // A sessionless fetch of nothing too.
    const before = Date.now();
    const empty = await fetch({ ...fetchRequest('f-emptied', []), topics: [], maxWaitMs: 20_000, minBytes: 1 });
    expect(empty.responses).toEqual([]);
    expect(Date.now() - before).toBeLessThan(10_000);
  });

  it('moves a partition that returned records behind the others, so a full max_bytes starves none', async () => {
    await createTopic('f-rotate', 3);
    for (const p of [0, 1, 2]) {
      for (const b of [0, 1]) await produce('f-rotate', batch([`p${p}b${b}:` + 'x'.repeat(5000)]), -1, p);
    }
    // max_bytes 100: each response carries one batch (KIP-74), of the first partition in the session's order with one.
    const served = (res: FetchResponse): string[] =>
      res.responses.flatMap((t) => t.partitions.flatMap((p) => recordsOf(p).map((v) => v.slice(0, 4))));
    const full = await fetch(fetchRequest('f-rotate', [0, 1, 2].map((p) => fetchPartition(p, 0)), { sessionId: 0, sessionEpoch: 0, maxBytes: 100 }));
    const order = served(full);
    const offsets = [0, 0, 0];
    for (let epoch = 1; epoch <= 3; epoch++) {
      // The client names only the partition whose position moved, as the Java consumer does.
      const moved = Number(order.at(-1)![1]);
      offsets[moved]!++;
      const res = await fetch(fetchRequest('f-rotate', [fetchPartition(moved, offsets[moved]!)], { sessionId: full.sessionId, sessionEpoch: epoch, maxBytes: 100 }));
      expect(res.errorCode).toBe(0);
      order.push(...served(res));
    }
    // Kafka's IncrementalFetchContext: partition 0 goes behind 1 and 2 once it returned records, then 1 behind 2.
    expect(order).toEqual(['p0b0', 'p0b1', 'p1b0', 'p2b0']);
  });
});

describe('Metadata, ListOffsets, DeleteTopics', () => {
  it('auto-creates valid names only, and honours allow_auto_topic_creation', async () => {
    const res = await client.send(3, 12, {
      topics: [{ topicId: ZERO_UUID, name: 'meta-auto' }, { topicId: ZERO_UUID, name: 'bad/name' }],
      allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
    });
    expect(res.topics.map((t: any) => [t.name, t.errorCode])).toEqual([['meta-auto', 0], ['bad/name', 17]]);
    expect(res.topics[0].topicId).not.toBe(ZERO_UUID);
    const noCreate = await client.send(3, 12, {
      topics: [{ topicId: ZERO_UUID, name: 'meta-not-created' }],
      allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
    });
    expect(noCreate.topics[0].errorCode).toBe(3);
  });

  it('looks topics up by id as the Java Admin asks (name "", id set), and echoes an unknown id with UNKNOWN_TOPIC_ID', async () => {
    const created = await createTopic('meta-by-id', 3);
    const unknownId = 'cd'.repeat(16);
    const res = await client.send(3, 12, {
      topics: [{ topicId: created.topicId, name: '' }, { topicId: unknownId, name: '' }],
      allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
    });
    expect(res.topics).toHaveLength(2);
    expect(res.topics[0]).toMatchObject({ errorCode: 0, name: 'meta-by-id', topicId: created.topicId });
    expect(res.topics[0].partitions).toHaveLength(3);
    expect(res.topics[1]).toMatchObject({ errorCode: 100, name: null, topicId: unknownId, partitions: [] });
    // Nothing named "" was looked up or created.
    expect((await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }))
      .topics.map((t: any) => t.name)).not.toContain('');
  });

  it('finds the offset with the largest timestamp (-3)', async () => {
    await createTopic('lo-max');
    await produce('lo-max', batch(['a'], { timestamp: 5000 }));
    await produce('lo-max', batch(['b'], { timestamp: 9000 }));
    await produce('lo-max', batch(['c'], { timestamp: 7000 }));
    const res = await client.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name: 'lo-max', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -3, maxNumOffsets: 1 }] }] });
    expect(res.topics[0].partitions[0]).toMatchObject({ errorCode: 0, offset: 1, timestamp: 9000 });
  });

  it('deletes a topic by ID and removes its files', async () => {
    const created = await createTopic('doomed', 2);
    await produce('doomed', batch(['bye']));
    const res = await client.send(20, 6, { topics: [{ name: null, topicId: created.topicId }], timeoutMs: 5000 });
    expect(res.responses[0]).toMatchObject({ name: 'doomed', errorCode: 0 });
    expect(readdirSync(broker.dataDir).filter((d) => d.startsWith('doomed-') && !d.endsWith('-delete'))).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(join(broker.dataDir, 'doomed-0'))).toBe(false);
  });
});

describe('hostile input', () => {
  it('closes only the offending connection for an unknown API key, a truncated request or an absurd length', async () => {
    const frames = [
      Buffer.from([0, 0, 0, 8, 0x7f, 0x7f, 0, 0, 0, 0, 0, 1]),
      Buffer.from([0, 0, 0, 3, 0, 3, 0]),
      Buffer.from([0x7f, 0xff, 0xff, 0xff, 1, 2, 3]),
      Buffer.from([0, 0, 0, 14, 0, 3, 0, 9, 0, 0, 0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f]),
    ];
    for (const frame of frames) {
      const bad = await WireClient.connect(broker.port);
      await bad.sendRaw(frame);
      await bad.closed();
    }
    const res = await client.send(18, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(res.errorCode).toBe(0);
  });

  it('answers pipelined requests strictly in order', async () => {
    await createTopic('pipelined');
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => produce('pipelined', batch([`m${i}`]))));
    expect(results.map((r) => produceResult(r).baseOffset)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});
