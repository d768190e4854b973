// Produce requests bigger than a socket read arrive in many chunks and are assembled in reused frame
// buffers (src/network/buffer-pool.ts). Whatever the assembly, what lands on disk must be the
// bytes the client sent: checked here on the .log and .index files themselves, with pipelined requests
// (several frames in flight, buffers reused between them), several batches and partitions per request,
// compressed batches, and with kcat as a real client.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { batchesIn, CompressionType } from '../../protocol/records/batch-header.js';
import { encodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { BenchConnection } from '../../bench/lib/wire.js';
import { createTopic } from '../../bench/loadgen.js';
import { BufferPool } from '../../src/network/buffer-pool.js';
import { REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { batchesOnDisk } from '../helpers/disk-batches.js';
import { kcat } from '../helpers/kcat.js';

/** magic .. end of a batch: everything the broker must keep as sent (it sets baseOffset and the leader epoch). */
const MAGIC_ONWARD = 16;

function logBytes(dataDir: string, topic: string, partition: number): Buffer {
  const dir = join(dataDir, `${topic}-${partition}`);
  return Buffer.concat(readdirSync(dir).filter((f) => f.endsWith('.log')).sort().map((f) => readFileSync(join(dir, f))));
}

/** (relative offset, position) entries of the single segment's .index. */
function indexEntries(dataDir: string, topic: string, partition: number): Array<{ offset: number; position: number }> {
  const dir = join(dataDir, `${topic}-${partition}`);
  const file = readdirSync(dir).find((f) => f.endsWith('.index'))!;
  const buf = readFileSync(join(dir, file));
  const entries: Array<{ offset: number; position: number }> = [];
  for (let pos = 0; pos + 8 <= buf.length; pos += 8) {
    const offset = buf.readInt32BE(pos);
    const position = buf.readInt32BE(pos + 4);
    if (pos > 0 && offset === 0 && position === 0) break; // preallocated tail
    entries.push({ offset, position });
  }
  return entries;
}

function batchOf(count: number, valueBytes: number, compression: CompressionType): Buffer {
  const records: KafkaRecord[] = [];
  for (let i = 0; i < count; i++) records.push({ offset: i, timestamp: Date.now(), key: Buffer.from(`k${i}`), value: randomBytes(valueBytes), headers: [] });
  return encodeBatch({ baseOffset: 0, records, compression });
}

describe('BufferPool', () => {
  it('reuses a given-back buffer of the size asked, keeps at most maxFreeBytes, and never pools what it did not lend', () => {
    const pool = new BufferPool({ minBytes: 1024, maxBytes: 1024, maxFreeBytes: 1024 });
    const a = pool.take(600);
    expect(a.length).toBe(600);
    pool.give(a);
    pool.give(a); // twice: still one free buffer
    expect(pool.freeCount).toBe(1);
    const b = pool.take(1000);
    expect(b.buffer).toBe(a.buffer);
    expect(b.length).toBe(1000);
    const c = pool.take(10);
    pool.give(b);
    pool.give(c); // over maxFreeBytes: left to the GC
    expect(pool.freeCount).toBe(1);
    const big = pool.take(4096); // larger than maxBytes: fresh, never pooled
    expect(big.length).toBe(4096);
    pool.give(big);
    pool.give(Buffer.alloc(100));
    expect(pool.freeCount).toBe(1);
  });

  it('lends power-of-two buffers from minBytes to maxBytes, each size reused for its own', () => {
    const pool = new BufferPool({ minBytes: 1024, maxBytes: 16384, maxFreeBytes: 1024 + 8192 });
    const small = pool.take(1);
    const mid = pool.take(4097);
    const top = pool.take(16384);
    expect([small.buffer.byteLength, mid.buffer.byteLength, top.buffer.byteLength]).toEqual([1024, 8192, 16384]);
    pool.give(small);
    pool.give(mid);
    pool.give(top); // would pass maxFreeBytes
    expect(pool.freeCount).toBe(2);
    expect(pool.take(8000).buffer).toBe(mid.buffer);
    expect(pool.take(1024).buffer).toBe(small.buffer);
    expect(pool.take(5000).buffer).not.toBe(mid.buffer); // taken already: a new one
  });
});

describe('Produce frames spanning socket chunks', () => {
  let broker: BrokerProcess;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  it('says at start which CRC32C checks the batches: the native addon wherever it is built', () => {
    const started = broker.logs.find((l) => l.msg === 'kafkite started')!;
    expect(started.crc32c).toBe(existsSync(join(REPO_ROOT, 'build/Release/kafkite_crc32c.node')) ? 'native-sse4.2' : '@node-rs/crc32');
  });

  it('stores every pipelined request byte for byte, with offsets and index entries right', async () => {
    const topic = 'frames-wire';
    await createTopic(broker.bootstrap, topic, 2);
    const codecs = [CompressionType.None, CompressionType.Lz4, CompressionType.None, CompressionType.Gzip];
    // 12 requests of 2 partitions × 1 batch (Kafka's rule from Produce v3), 500-1,000 KB each: many chunks
    // per frame, pool reuse in between.
    const requests = Array.from({ length: 12 }, (_, r) =>
      [0, 1].map((partition) => [batchOf(250 + r * 10 + partition * 50, 1000, codecs[(r + partition) % 4]!)]));
    const connection = await BenchConnection.open(broker.bootstrap);
    try {
      const replies = await Promise.all(requests.map((perPartition) => connection.send(ApiKey.Produce, 9, {
        transactionalId: null, acks: 1, timeoutMs: 30_000,
        topicData: [{ name: topic, partitionData: perPartition.map((batches, index) => ({ index, records: Buffer.concat(batches) })) }],
      })));
      for (const reply of replies) for (const p of reply.response.responses[0].partitionResponses) expect(p.errorCode).toBe(0);
    } finally {
      connection.close();
    }
    for (const partition of [0, 1]) {
      const sent = requests.flatMap((perPartition) => perPartition[partition]!);
      const log = logBytes(broker.dataDir, topic, partition);
      const stored = [...batchesIn(log)];
      expect(stored.length).toBe(sent.length);
      let nextOffset = 0;
      let position = 0;
      const lastOffsetAt = new Map<number, number>();
      stored.forEach((batch, i) => {
        const original = sent[i]!;
        expect(batch.sizeInBytes).toBe(original.length);
        expect(log.subarray(batch.pos + MAGIC_ONWARD, batch.pos + batch.sizeInBytes).equals(original.subarray(MAGIC_ONWARD)), `batch ${i}`).toBe(true);
        expect(batch.baseOffset).toBe(nextOffset);
        expect(batch.isCrcValid()).toBe(true);
        expect(batch.pos).toBe(position);
        lastOffsetAt.set(batch.pos, batch.lastOffset);
        nextOffset = batch.lastOffset + 1;
        position += batch.sizeInBytes;
      });
      // Every index entry names the last offset of the batch at its position (index.interval.bytes is far below a batch).
      const entries = indexEntries(broker.dataDir, topic, partition);
      expect(entries.length).toBeGreaterThan(10);
      for (const e of entries) expect(lastOffsetAt.get(e.position)).toBe(e.offset);
    }
  });

  it('keeps what kcat produces in 1 MB requests, uncompressed and lz4, record for record', async () => {
    for (const codec of ['none', 'lz4']) {
      const topic = `frames-kcat-${codec}`;
      await createTopic(broker.bootstrap, topic, 1);
      const values = Array.from({ length: 6000 }, (_, i) => `${i}:` + randomBytes(700).toString('base64'));
      const res = await kcat(['-b', broker.bootstrap, '-P', '-t', topic, '-z', codec, '-X', 'linger.ms=50', '-X', 'batch.num.messages=10000'], values.join('\n') + '\n', 60_000);
      expect(res.code, res.stderr).toBe(0);
      const stored = batchesOnDisk(broker.dataDir, topic);
      expect(stored.reduce((n, b) => n + b.records, 0)).toBe(values.length);
      expect(stored.every((b) => b.compression === (codec === 'lz4' ? CompressionType.Lz4 : CompressionType.None))).toBe(true);
      const back = await kcat(['-b', broker.bootstrap, '-C', '-t', topic, '-e', '-q'], undefined, 60_000);
      expect(back.code, back.stderr).toBe(0);
      expect(back.stdout.split('\n').filter((l) => l.length > 0)).toEqual(values);
    }
  });
});
