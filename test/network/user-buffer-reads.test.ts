// Plain TCP connections read into kafkite's own buffers (src/network/user-buffer-reads.ts): large
// frames straight into their frame buffer, the rest into one scratch buffer that every connection
// shares. Whatever the read boundaries, what lands on disk must be the bytes each client sent: checked
// on the .log files, with several connections interleaving their reads, requests written in pieces of
// random sizes (size prefixes split, frames in the scratch buffer, frames read directly), and one client
// pipelining more requests than the broker decodes at once (the rest kept while reading is paused)
// while others keep the scratch buffer busy. A request whose bytes a handler keeps across a wait (a
// transactional produce waits for its AddPartitionsToTxn to be durable before appending) must not see
// them overwritten by other connections' reads meanwhile.
import { randomBytes, randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reader, Writer } from '../../protocol/primitives.js';
import { API_KEYS, ApiKey, requestHeaderVersion, responseHeaderVersion, writeRequestHeader } from '../../protocol/generated/index.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { BenchConnection } from '../../bench/lib/wire.js';
import { encodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { createTopic } from '../../bench/loadgen.js';
import { installUserBufferReads, takeBuffered } from '../../src/network/user-buffer-reads.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

/** magic .. end of a batch: everything the broker keeps as sent (it sets baseOffset and the leader epoch). */
const MAGIC_ONWARD = 16;
const PRODUCE_VERSION = 9;

function batchOf(records: number, valueBytes: number): Buffer {
  const list: KafkaRecord[] = [];
  for (let i = 0; i < records; i++) list.push({ offset: i, timestamp: Date.now(), key: null, value: randomBytes(valueBytes), headers: [] });
  return encodeBatch({ baseOffset: 0, records: list });
}

function requestFrame(apiKey: number, version: number, correlationId: number, body: unknown): Buffer {
  const w = new Writer();
  w.int32(0);
  writeRequestHeader(w, requestHeaderVersion(apiKey, version), { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'user-buffer-test' });
  API_KEYS[apiKey]!.writeRequest(w, version, body);
  const frame = w.toBuffer();
  frame.writeInt32BE(frame.length - 4, 0);
  return frame;
}

function produceFrame(correlationId: number, topic: string, partition: number, batch: Buffer, acks = 1): Buffer {
  return requestFrame(ApiKey.Produce, PRODUCE_VERSION, correlationId, {
    transactionalId: null, acks, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }],
  });
}

/** Collects `expected` responses to requests of one API from the socket: correlation id → decoded body. */
function responses(socket: Socket, expected: number, apiKey: number = ApiKey.Produce, version = PRODUCE_VERSION): Promise<Map<number, any>> {
  const bodies = new Map<number, any>();
  let pending = Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed after ${bodies.size} of ${expected} responses`)));
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const r = new Reader(pending.subarray(4, 4 + pending.readInt32BE(0)));
        pending = pending.subarray(4 + pending.readInt32BE(0));
        const correlationId = r.int32();
        if (responseHeaderVersion(apiKey, version) >= 1) r.skipTaggedFields();
        bodies.set(correlationId, API_KEYS[apiKey]!.readResponse(r, version));
        if (bodies.size === expected) resolve(bodies);
      }
    });
  });
}

const produceErrors = (bodies: Map<number, any>): number[] => [...bodies.values()].map((b) => b.responses[0].partitionResponses[0].errorCode);

/** Connections that keep the shared scratch buffer busy: `requests` produce requests each, in pieces. */
async function flood(bootstrap: string, topic: string, connections: number, requests: number): Promise<void> {
  const sockets = await Promise.all(Array.from({ length: connections }, () => openSocket(bootstrap)));
  try {
    const answered = sockets.map((s) => responses(s, requests));
    await Promise.all(sockets.map((socket) =>
      writeInPieces(socket, Buffer.concat(Array.from({ length: requests }, (_, i) => produceFrame(i + 1, topic, 0, batchOf(randomInt(1, 40), 1000)))))));
    for (const bodies of await Promise.all(answered)) expect(produceErrors(bodies).every((c) => c === 0)).toBe(true);
  } finally {
    for (const s of sockets) s.destroy();
  }
}

/** Writes `bytes` in pieces of random sizes (1 byte .. 200 KB), yielding to the event loop between them. */
async function writeInPieces(socket: Socket, bytes: Buffer): Promise<void> {
  for (let pos = 0; pos < bytes.length;) {
    const size = Math.min(bytes.length - pos, randomInt(4) === 0 ? randomInt(1, 8) : randomInt(1, 200_000));
    if (!socket.write(bytes.subarray(pos, pos + size))) await new Promise((r) => socket.once('drain', r));
    pos += size;
    await new Promise((r) => setImmediate(r));
  }
}

function openSocket(bootstrap: string): Promise<Socket> {
  const colon = bootstrap.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const socket = connect({ host: bootstrap.slice(0, colon), port: Number(bootstrap.slice(colon + 1)) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function storedBatches(dataDir: string, topic: string, partition: number): Buffer[] {
  const dir = join(dataDir, `${topic}-${partition}`);
  const log = Buffer.concat(readdirSync(dir).filter((f) => f.endsWith('.log')).sort().map((f) => readFileSync(join(dir, f))));
  return [...batchesIn(log)].map((b) => log.subarray(b.pos, b.pos + b.sizeInBytes));
}

/** The control flag of a stored batch's attributes (offset 21, bit 5). */
const isControlBatch = (batch: Buffer): boolean => (batch.readInt16BE(21) & 0x20) !== 0;

function expectStoredAsSent(stored: Buffer[], sent: Buffer[]): void {
  expect(stored.length).toBe(sent.length);
  stored.forEach((batch, i) => {
    expect(batch.length, `batch ${i}`).toBe(sent[i]!.length);
    expect(batch.subarray(MAGIC_ONWARD).equals(sent[i]!.subarray(MAGIC_ONWARD)), `batch ${i}`).toBe(true);
  });
}

describe('installUserBufferReads', () => {
  it('reads an accepted socket into the buffers it is given, after what the socket had buffered', async () => {
    const buffers = [Buffer.alloc(5000), Buffer.alloc(3)];
    let turn = 0;
    const received: Buffer[] = [];
    const done = new Promise<{ installed: boolean; buffered: Buffer[] }>((resolve) => {
      const server = createServer({ pauseOnConnect: true }, (socket) => {
        // Let the client's first bytes arrive and sit in the paused socket's stream buffer.
        socket.once('readable', () => {
          const installed = installUserBufferReads(socket, {
            next: () => buffers[turn++ % 2]!,
            onRead: (bytes, buffer) => {
              expect(buffers).toContain(buffer);
              received.push(Buffer.from(buffer.subarray(0, bytes)));
            },
          });
          const buffered = takeBuffered(socket);
          socket.resume();
          socket.on('end', () => {
            socket.end();
            server.close();
            resolve({ installed, buffered });
          });
        });
        socket.read(0);
      });
      server.listen(0, '127.0.0.1', () => {
        const client = connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
          client.write('first bytes;');
          setTimeout(() => client.end('x'.repeat(20_000)), 50);
        });
      });
    });
    const { installed, buffered } = await done;
    expect(installed).toBe(true);
    expect(Buffer.concat(buffered).toString()).toBe('first bytes;');
    expect(Buffer.concat(received).toString()).toBe('x'.repeat(20_000));
    // Both buffers were used, the small one for reads of at most its size.
    expect(received.some((r) => r.length > 3)).toBe(true);
    expect(received.some((r) => r.length <= 3)).toBe(true);
  });
});

describe('Produce over connections reading into shared buffers', () => {
  let broker: BrokerProcess;

  beforeAll(async () => {
    broker = await startBroker({ overrides: ['transaction.state.log.num.partitions=2'] });
  });

  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  it('stores what six interleaved connections send in random pieces, byte for byte', async () => {
    const topic = 'user-buffers';
    const connections = 6;
    const requests = 40;
    await createTopic(broker.bootstrap, topic, connections);
    const sent = Array.from({ length: connections }, () => Array.from({ length: requests }, () => {
      // From a few hundred bytes (many frames per scratch read) to ~360 KB (read straight into the frame).
      const small = randomInt(2) === 0;
      return batchOf(small ? randomInt(1, 4) : randomInt(1, 120), small ? randomInt(10, 300) : randomInt(50, 3000));
    }));
    const sockets = await Promise.all(sent.map(() => openSocket(broker.bootstrap)));
    try {
      const answered = sockets.map((s) => responses(s, requests));
      await Promise.all(sockets.map((socket, partition) =>
        writeInPieces(socket, Buffer.concat(sent[partition]!.map((batch, i) => produceFrame(i + 1, topic, partition, batch))))));
      for (const bodies of await Promise.all(answered)) {
        expect([...bodies.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: requests }, (_, i) => i + 1));
        expect(produceErrors(bodies).every((c) => c === 0)).toBe(true);
      }
    } finally {
      for (const s of sockets) s.destroy();
    }
    for (let partition = 0; partition < connections; partition++) expectStoredAsSent(storedBatches(broker.dataDir, topic, partition), sent[partition]!);
  });

  it('starts a frame whose size prefix came alone in its own read only with its first bytes', async () => {
    // The prefix read alone, then the frame whole in the next read, then a frame too big for one read:
    // a frame buffer begun for the first frame with no bytes once outlived it, and the big frame was
    // copied into it (truncated: malformed requests, hangs, reads into a zero-length buffer).
    const topic = 'user-buffers-lone-prefix';
    await createTopic(broker.bootstrap, topic, 1);
    const sent = [batchOf(1, 100), batchOf(200, 1000)];
    const frames = sent.map((batch, i) => produceFrame(i + 1, topic, 0, batch));
    const socket = await openSocket(broker.bootstrap);
    try {
      const answered = responses(socket, 2);
      socket.write(frames[0]!.subarray(0, 4));
      await new Promise((r) => setTimeout(r, 100));
      socket.write(Buffer.concat([frames[0]!.subarray(4), frames[1]!]));
      expect(produceErrors(await answered)).toEqual([0, 0]);
    } finally {
      socket.destroy();
    }
    expectStoredAsSent(storedBatches(broker.dataDir, topic, 0), sent);
  });

  it('keeps the requests a client pipelines beyond the in-flight limit in one write, in order, while others read', async () => {
    const topic = 'user-buffers-pipelined';
    const requests = 250; // more than the 100 requests a connection has decoded at once
    await createTopic(broker.bootstrap, topic, 1);
    await createTopic(broker.bootstrap, 'user-buffers-flood', 1);
    const sent = Array.from({ length: requests }, () => batchOf(1, 60));
    const socket = await openSocket(broker.bootstrap);
    try {
      const answered = responses(socket, requests);
      // acks=all: answers wait for flushes, so reading stays paused while the flood fills the scratch buffer.
      socket.write(Buffer.concat(sent.map((batch, i) => produceFrame(i + 1, topic, 0, batch, -1))));
      await flood(broker.bootstrap, 'user-buffers-flood', 3, 30);
      expect(produceErrors(await answered).every((c) => c === 0)).toBe(true);
    } finally {
      socket.destroy();
    }
    expectStoredAsSent(storedBatches(broker.dataDir, topic, 0), sent);
  });

  it('appends transactional batches intact that waited for their partition to be added while others read', async () => {
    const topic = 'user-buffers-txn';
    await createTopic(broker.bootstrap, topic, 1);
    await createTopic(broker.bootstrap, 'user-buffers-txn-flood', 1);
    const connection = await BenchConnection.open(broker.bootstrap);
    const sent: Buffer[] = [];
    try {
      const init = (await connection.send(ApiKey.InitProducerId, 4, { transactionalId: 'user-buffers', transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 })).response;
      expect(init.errorCode).toBe(0);
      const transactions = (async () => {
        for (let t = 0; t < 30; t++) {
          const batch = encodeBatch({
            baseOffset: 0, producerId: init.producerId, producerEpoch: init.producerEpoch, baseSequence: t * 5, isTransactional: true,
            records: Array.from({ length: 5 }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: randomBytes(200), headers: [] })),
          });
          sent.push(batch);
          // The add is answered before its state record is durable; the produce waits for that flush.
          const add = await connection.send(ApiKey.AddPartitionsToTxn, 3, {
            transactions: [], v3AndBelowTransactionalId: 'user-buffers', v3AndBelowProducerId: init.producerId,
            v3AndBelowProducerEpoch: init.producerEpoch, v3AndBelowTopics: [{ name: topic, partitions: [0] }],
          });
          expect(add.response.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(0);
          const produce = await connection.send(ApiKey.Produce, PRODUCE_VERSION, {
            transactionalId: 'user-buffers', acks: -1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
          });
          expect(produce.response.responses[0].partitionResponses[0].errorCode).toBe(0);
          const end = await connection.send(ApiKey.EndTxn, 3, { transactionalId: 'user-buffers', producerId: init.producerId, producerEpoch: init.producerEpoch, committed: true });
          expect(end.response.errorCode).toBe(0);
        }
      })();
      await Promise.all([transactions, flood(broker.bootstrap, 'user-buffers-txn-flood', 3, 150)]);
    } finally {
      connection.close();
    }
    const data = storedBatches(broker.dataDir, topic, 0).filter((b) => !isControlBatch(b));
    expectStoredAsSent(data, sent);
  });
});
