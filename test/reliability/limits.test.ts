// Kafka's network limits on the real broker process, and its memory under hostile or careless clients:
// request size, connection counts, idle timeout, requests in flight, message size, 1,000 idle
// connections, a 2 GB length prefix, a 100 MB prefix trickled, and a consumer that never reads.
// Memory is the broker's VmRSS / VmHWM from /proc, printed and checked against generous bounds.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRequest } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { connectWithRetry, createTopic, fetchRequest, memoryOf, produce, recordBatch, sleep } from './support.js';

type Outcome = 'answered' | 'closed' | 'silent';

function open(port: number, localAddress = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends ApiVersions and reports whether the broker answered, closed the connection, or neither within `ms`. */
function probe(socket: Socket, ms = 1000): Promise<Outcome> {
  return new Promise((resolve) => {
    const done = (o: Outcome) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(o);
    };
    const onData = () => done('answered');
    const onClose = () => done('closed');
    const timer = setTimeout(() => done('silent'), ms);
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', () => {});
    if (socket.destroyed) return done('closed');
    socket.write(encodeRequest(18, 3, 1, { clientSoftwareName: 'limits', clientSoftwareVersion: '1' }));
  });
}

function closed(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function sizePrefix(size: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(size);
  return b;
}

describe('connection limits', () => {
  let broker: BrokerProcess;
  beforeAll(async () => {
    broker = await startBroker({ overrides: ['max.connections=8', 'max.connections.per.ip=5'] });
  });
  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  it('enforces max.connections.per.ip and max.connections', async () => {
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 5; i++) sockets.push(await open(broker.port, '127.0.0.1'));
      for (const s of sockets) expect(await probe(s)).toBe('answered');
      const sixthFromSameIp = await open(broker.port, '127.0.0.1');
      expect(await probe(sixthFromSameIp)).toBe('closed');
      // Another address still gets in, up to max.connections (8) in all.
      for (let i = 0; i < 3; i++) sockets.push(await open(broker.port, '127.0.0.2'));
      for (const s of sockets.slice(5)) expect(await probe(s)).toBe('answered');
      // At max.connections a new connection is not refused but waits, unread, as Kafka's acceptor blocks...
      const ninth = await open(broker.port, '127.0.0.2');
      const ninthAnswer = probe(ninth, 5000);
      expect(await Promise.race([ninthAnswer, sleep(500).then(() => 'waiting')])).toBe('waiting');
      // ...until a slot frees up.
      sockets.shift()!.destroy();
      expect(await ninthAnswer).toBe('answered');
      sockets.push(ninth);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe('request limits and idle connections', () => {
  let broker: BrokerProcess;
  beforeAll(async () => {
    broker = await startBroker({
      overrides: ['connections.max.idle.ms=600', 'socket.request.max.bytes=10000', 'message.max.bytes=2000'],
    });
  });
  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  it('closes a connection whose request is larger than socket.request.max.bytes', async () => {
    const ok = await open(broker.port);
    ok.write(Buffer.concat([sizePrefix(10_000), Buffer.alloc(100)]));
    expect(await closed(ok, 300)).toBe(false);
    ok.destroy();
    const tooLarge = await open(broker.port);
    tooLarge.write(sizePrefix(10_001));
    expect(await closed(tooLarge, 2000)).toBe(true);
    const negative = await open(broker.port);
    negative.write(sizePrefix(-5));
    expect(await closed(negative, 2000)).toBe(true);
  });

  it('reads a request arriving a byte at a time, size prefix included', async () => {
    const socket = await open(broker.port);
    const frame = encodeRequest(18, 3, 7, { clientSoftwareName: 'slow', clientSoftwareVersion: '1' });
    const got = new Promise<Buffer>((resolve) => socket.once('data', resolve));
    for (const byte of frame) {
      socket.write(Buffer.of(byte));
      await sleep(2);
    }
    expect((await got).readInt32BE(4)).toBe(7);
    socket.destroy();
  });

  it('closes connections idle for connections.max.idle.ms', async () => {
    const idle = await open(broker.port);
    expect(await probe(idle)).toBe('answered');
    const started = Date.now();
    expect(await closed(idle, 5000)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('answers a batch above message.max.bytes with MESSAGE_TOO_LARGE', async () => {
    const client = await WireClient.connect(broker.port);
    await createTopic(client, 'limits', 1);
    expect((await produce(client, 'limits', 0, recordBatch(['x'.repeat(3000)]))).errorCode).toBe(10);
    expect((await produce(client, 'limits', 0, recordBatch(['x'.repeat(500)]))).errorCode).toBe(0);
    client.close();
  });
});

describe('memory under hostile and careless clients', () => {
  let broker: BrokerProcess;
  const mem = () => memoryOf(broker.child.pid!);
  beforeAll(async () => {
    broker = await startBroker();
    const client = await connectWithRetry(broker.port);
    await createTopic(client, 'big', 1);
    // 8 MB to fetch: 16 batches of 512 KB.
    for (let i = 0; i < 16; i++) {
      const res = await produce(client, 'big', 0, recordBatch(Array.from({ length: 8 }, (_, j) => `${i}-${j}-`.padEnd(64 * 1024, 'z'))), 1);
      expect(res.errorCode).toBe(0);
    }
    client.close();
  });
  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  it('caps the requests decoded but unanswered per connection (MAX_IN_FLIGHT_PER_CONNECTION = 100)', async () => {
    // 500 long-polling fetches in one write: the broker decodes 100, stops reading until they are
    // answered, then takes the next ones. Each wave waits max_wait_ms, so 500 take at least 5 waves.
    const socket = await open(broker.port);
    const maxWaitMs = 300;
    const frames: Buffer[] = [];
    for (let i = 1; i <= 500; i++) {
      frames.push(encodeRequest(1, 12, i, { ...fetchRequest('big', 0, 16 * 8), maxWaitMs, minBytes: 1 }));
    }
    const started = Date.now();
    let buffered = Buffer.alloc(0);
    const correlationIds: number[] = [];
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
          correlationIds.push(buffered.readInt32BE(4));
          buffered = buffered.subarray(4 + buffered.readInt32BE(0));
        }
        if (correlationIds.length === 500) resolve();
      });
      socket.write(Buffer.concat(frames));
    });
    const elapsed = Date.now() - started;
    socket.destroy();
    expect(correlationIds).toEqual(frames.map((_, i) => i + 1));
    console.log(`[limits] 500 pipelined long-poll fetches answered in order in ${elapsed} ms (waves of 100 x ${maxWaitMs} ms)`);
    expect(elapsed).toBeGreaterThanOrEqual(4 * maxWaitMs);
  });

  it('stays small with 1,000 idle connections, a 2 GB length prefix and 100 MB prefixes trickled', async () => {
    const before = mem();
    const sockets: Socket[] = [];
    for (let i = 0; i < 1000; i++) sockets.push(await open(broker.port));
    const outcomes = await Promise.all(sockets.slice(0, 50).map((s) => probe(s, 5000)));
    expect(outcomes.every((o) => o === 'answered')).toBe(true);
    await sleep(200);
    const idle = mem();

    // 2 GB promised: refused at once, nothing allocated.
    const huge = await open(broker.port);
    huge.write(Buffer.concat([sizePrefix(0x7fffffff), Buffer.alloc(1024)]));
    expect(await closed(huge, 2000)).toBe(true);

    // 100 MB promised (just within socket.request.max.bytes) by 20 connections, 256 KB delivered each:
    // the broker holds what arrived, not what was promised.
    const trickles: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const s = await open(broker.port);
      s.write(sizePrefix(100 * 1024 * 1024 - 1));
      trickles.push(s);
    }
    for (let round = 0; round < 16; round++) {
      for (const s of trickles) s.write(Buffer.alloc(16 * 1024, round));
      await sleep(10);
    }
    await sleep(300);
    const trickled = mem();
    for (const s of trickles) expect(s.destroyed).toBe(false);
    expect(broker.child.exitCode).toBeNull();
    for (const s of [...sockets, ...trickles]) s.destroy();

    console.log(
      `[limits] broker RSS: ${before.rssMiB} MiB before, ${idle.rssMiB} MiB with 1,000 idle connections, ` +
        `${trickled.rssMiB} MiB after a 2 GB prefix and 20 x 100 MB prefixes with 256 KB each (peak ${trickled.hwmMiB} MiB)`,
    );
    expect(idle.rssMiB - before.rssMiB).toBeLessThan(100);
    expect(trickled.hwmMiB - before.rssMiB).toBeLessThan(200);
  }, 60_000);

});

describe.each(['true', 'false'])('a consumer that never reads its socket (kafkite.zero.copy.enable=%s)', (zeroCopy) => {
  let broker: BrokerProcess;
  beforeAll(async () => {
    broker = await startBroker({ overrides: [`kafkite.zero.copy.enable=${zeroCopy}`] });
    const client = await connectWithRetry(broker.port);
    await createTopic(client, 'big', 1);
    for (let i = 0; i < 16; i++) {
      const res = await produce(client, 'big', 0, recordBatch(Array.from({ length: 8 }, (_, j) => `${i}-${j}-`.padEnd(64 * 1024, 'z'))), 1);
      expect(res.errorCode).toBe(0);
    }
    client.close();
  });
  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  it('stops being read once its responses back up; broker memory stays bounded', async () => {
    const before = memoryOf(broker.child.pid!);
    const socket = await open(broker.port);
    // Never read: the kernel buffers fill, the broker's writes back up, and it stops reading requests.
    socket.pause();
    // 2,000 fetches of 8 MB each, padded to 16 KB (rack id) so that requests the broker leaves unread pile up in the client.
    const rackId = 'r'.repeat(16 * 1024);
    for (let id = 1; id <= 2000; id++) socket.write(encodeRequest(1, 12, id, { ...fetchRequest('big', 0, 0, 8 << 20), rackId }));
    await sleep(2000);
    const after = memoryOf(broker.child.pid!);
    const unreadMiB = Math.round(socket.writableLength / 1024 / 1024);
    socket.destroy();
    console.log(
      `[limits] slow consumer (zero copy ${zeroCopy}): 2,000 fetches of up to 8 MB pipelined, none read back; ` +
        `broker RSS ${before.rssMiB} -> ${after.rssMiB} MiB (peak ${after.hwmMiB} MiB); ${unreadMiB} MiB of requests left unread by the broker`,
    );
    // Most requests were never taken off the socket: the broker stopped reading.
    expect(unreadMiB).toBeGreaterThan(10);
    expect(after.hwmMiB - before.rssMiB).toBeLessThan(400);
    expect(broker.child.exitCode).toBeNull();
  }, 30_000);
});

describe('queued.max.request.bytes', () => {
  let broker: BrokerProcess;
  beforeAll(async () => {
    broker = await startBroker({ overrides: ['queued.max.request.bytes=1048576'] });
  });
  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  it('stops reading every connection while received requests hold the pool, as Kafka mutes them', async () => {
    const before = memoryOf(broker.child.pid!);
    // 20 connections each promise a 100 MB request and deliver 512 KB: the first takes the pool
    // (Kafka's pool is not strict: any memory left admits one request whole), the others are not read.
    const hogs: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const s = await open(broker.port);
      s.write(Buffer.concat([sizePrefix(100 * 1024 * 1024 - 1), Buffer.alloc(512 * 1024, i)]));
      hogs.push(s);
    }
    const client = await open(broker.port);
    const answer = probe(client, 10_000);
    expect(await Promise.race([answer, sleep(700).then(() => 'still waiting')])).toBe('still waiting');
    const held = memoryOf(broker.child.pid!);
    // Closing the connections holding or awaiting memory frees it: the small request is read and answered.
    for (const s of hogs) s.destroy();
    expect(await answer).toBe('answered');
    client.destroy();
    console.log(`[limits] queued.max.request.bytes=1 MiB, 20 x 100 MB promised: broker RSS ${before.rssMiB} -> ${held.rssMiB} MiB (peak ${held.hwmMiB} MiB)`);
    expect(held.hwmMiB - before.rssMiB).toBeLessThan(100);
  });
});
