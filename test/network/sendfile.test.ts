import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FileSlice } from '../../protocol/primitives.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/certs.js';
import { CopyingResponseSender, type ResponseSender } from '../../src/network/response-sender.js';
import { FileHandleCache } from '../../storage/file-handle-cache.js';
import {
  SendfileResponseSender,
  createResponseSender,
  loadSendfileAddon,
  withoutFirstBytes,
} from '../../src/network/sendfile-sender.js';

const FILE_BYTES = 24 * 1024 * 1024; // well beyond loopback socket buffers, so sendfile hits EAGAIN

let dir: string;
let content: Buffer;
let fd: number;
let server: Server;
const openSockets: Socket[] = [];
const addon = loadSendfileAddon();
let tls: { server: TlsServer; certs: TestCertificates } | null = null;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkite-sendfile-'));
  content = randomBytes(FILE_BYTES);
  const path = join(dir, '00000000000000000000.log');
  writeFileSync(path, content);
  fd = openSync(path, 'r');
  server = createServer();
  return new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterEach(() => {
  for (const socket of openSockets.splice(0)) socket.destroy();
});

afterAll(async () => {
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
  if (tls) {
    await new Promise((resolve) => tls!.server.close(resolve));
    tls.certs.cleanup();
  }
});

/** A connected pair: `serverSide` is what a sender writes to, `client` reads (paused until told). */
async function connectPair(): Promise<{ serverSide: Socket; client: Socket }> {
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const address = server.address() as { port: number };
  const client = connect(address.port, '127.0.0.1');
  client.pause();
  client.on('error', () => {});
  const serverSide = await accepted;
  serverSide.on('error', () => {});
  openSockets.push(client, serverSide);
  return { serverSide, client };
}

/**
 * A connected TLS pair (the copying sender's main user): `serverSide` is the broker's TLSSocket, `client`
 * reads the decrypted bytes (paused until told). Its certificates are made on first use.
 */
async function connectTlsPair(): Promise<{ serverSide: Socket; client: Socket }> {
  if (!tls) {
    const certs = makeTestCertificates();
    const server = createTlsServer({ key: readFileSync(certs.serverKey), cert: readFileSync(certs.serverCert) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tls = { server, certs };
  }
  const { server, certs } = tls;
  const accepted = new Promise<Socket>((resolve) => server.once('secureConnection', resolve));
  const client = tlsConnect({ port: (server.address() as { port: number }).port, host: '127.0.0.1', ca: readFileSync(certs.caPem), servername: 'localhost' });
  client.pause();
  client.on('error', () => {});
  await new Promise<void>((resolve) => client.once('secureConnect', () => resolve()));
  const serverSide = await accepted;
  serverSide.on('error', () => {});
  openSockets.push(client, serverSide);
  return { serverSide, client };
}

/** Reads `total` bytes; with `delayMs` the client pauses after every chunk (a slow consumer). */
function readAll(client: Socket, total: number, delayMs = 0): Promise<Buffer> {
  const parts: Buffer[] = [];
  let received = 0;
  return new Promise((resolve, reject) => {
    client.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      received += chunk.length;
      if (received >= total) return resolve(Buffer.concat(parts));
      if (delayMs > 0) {
        client.pause();
        setTimeout(() => client.resume(), delayMs);
      }
    });
    client.on('close', () => reject(new Error(`closed after ${received} of ${total} bytes`)));
    client.resume();
  });
}

type WriteCallback = (err?: Error | null) => void;
type WriteFn = (chunk: Buffer, done?: WriteCallback) => boolean;

function slice(position: number, length: number): FileSlice {
  return { fd, position, length };
}

function expected(chunks: ReadonlyArray<Buffer | FileSlice>): Buffer {
  return Buffer.concat(chunks.map((c) => (Buffer.isBuffer(c) ? c : content.subarray(c.position, c.position + c.length))));
}

/** Sends each batch after the previous one finished, as Connection does. */
async function sendAll(sender: ResponseSender, socket: Socket, batches: Array<Array<Buffer | FileSlice>>): Promise<void> {
  for (const batch of batches) await sender.send(socket, batch);
}

const senders: Array<[string, () => ResponseSender]> = [['copying', () => new CopyingResponseSender()]];
if (addon) senders.push(['sendfile', () => new SendfileResponseSender(addon)]);
// An addon build without the JS-thread fast path: everything goes through the pool.
if (addon) senders.push(['sendfile (pool only)', () => new SendfileResponseSender({ sendChunks: addon.sendChunks.bind(addon) })]);

describe.each(senders)('%s sender', (_name, makeSender) => {
  it('sends buffers and file slices in order, including a slice of several MB', async () => {
    const { serverSide, client } = await connectPair();
    const batch = [
      Buffer.from('header-1'),
      slice(0, 1000),
      Buffer.from('between'),
      Buffer.from('two buffers'),
      slice(5000, 12),
      slice(1_000_000, 20 * 1024 * 1024),
      Buffer.from('trailer'),
    ];
    const want = expected(batch);
    const received = readAll(client, want.length);
    await makeSender().send(serverSide, batch);
    expect((await received).equals(want)).toBe(true);
  });

  it('sends a response of many partitions: more buffers in a row than one sendmsg takes, empty buffers', async () => {
    const { serverSide, client } = await connectPair();
    const batch: Array<Buffer | FileSlice> = [];
    for (let i = 0; i < 1500; i++) batch.push(Buffer.from([i & 0xff, i >> 8]));
    for (let p = 0; p < 500; p++) batch.push(Buffer.from(`partition ${p}`), Buffer.alloc(0), slice(p * 9973, 1 + (p % 7) * 3000));
    const want = expected(batch);
    const received = readAll(client, want.length);
    await makeSender().send(serverSide, batch);
    expect((await received).equals(want)).toBe(true);
  });

  it('keeps order across sends to a slow-reading client', async () => {
    const { serverSide, client } = await connectPair();
    const batches: Array<Array<Buffer | FileSlice>> = [
      [Buffer.from('first response')],
      [Buffer.from('a'), slice(7, 6 * 1024 * 1024), slice(FILE_BYTES - 3 * 1024 * 1024, 3 * 1024 * 1024)],
      [randomBytes(4 * 1024 * 1024)], // usually left partly queued in Node when the next send starts
      [slice(123, 4 * 1024 * 1024), Buffer.from('end')],
    ];
    const want = expected(batches.flat());
    const received = readAll(client, want.length, 1);
    await sendAll(makeSender(), serverSide, batches);
    expect((await received).equals(want)).toBe(true);
  });
});

describe('copying sender', () => {
  it.each([
    // Built in the test: the file is opened in beforeAll.
    ['small, read on the JS thread', () => [Buffer.from('header'), slice(10, 3000), Buffer.from('next'), Buffer.alloc(0), slice(70_000, 500)]],
    ['large, read on the pool', () => [Buffer.from('header'), slice(10, 300_000), Buffer.from('next'), slice(2_000_000, 1_000_000)]],
    // A fetch whose first batch is over its partition's limit reads nothing (LogSegment.read).
    ['only empty slices', () => [Buffer.from('header'), slice(10, 0), Buffer.from('next'), slice(500, 0)]],
  ] as Array<[string, () => Array<Buffer | FileSlice>]>)('writes a response with file data as one buffer (%s)', async (_what, makeBatch) => {
    const batch = makeBatch();
    const { serverSide, client } = await connectPair();
    const writes: number[] = [];
    const write = serverSide.write.bind(serverSide) as WriteFn;
    (serverSide as { write: unknown }).write = (chunk: Buffer, done?: WriteCallback) => (writes.push(chunk.length), write(chunk, done));
    const want = expected(batch);
    const received = readAll(client, want.length);
    await new CopyingResponseSender().send(serverSide, batch);
    expect((await received).equals(want)).toBe(true);
    // Several buffers would be copied into one by a TLS socket before encrypting (Node's TLSWrap::DoWrite).
    expect(writes).toEqual([want.length]);
  });

  it.each([
    ['plain TCP', () => connectPair()],
    ['TLS', () => connectTlsPair()],
  ] as Array<[string, () => Promise<{ serverSide: Socket; client: Socket }>]>)('reuses a response buffer once the socket has written it, never before (%s)', async (_what, pair) => {
    const { serverSide, client } = await pair();
    const written: ArrayBufferLike[] = [];
    const write = serverSide.write.bind(serverSide) as WriteFn;
    (serverSide as { write: unknown }).write = (chunk: Buffer, done?: WriteCallback) => (written.push(chunk.buffer), write(chunk, done));
    const sender = new CopyingResponseSender();
    // Small and large responses, each with other file data, to a reader slower than the sends: the writes
    // queue in Node, and a buffer handed out again before its write finished would corrupt what is queued.
    const slow = Array.from({ length: 12 }, (_, i) => [Buffer.from(`response ${i}`), slice(i * 150_001, i % 3 === 0 ? 40_000 : 1_200_000)]);
    const wantSlow = expected(slow.flat());
    const receivedSlow = readAll(client, wantSlow.length, 1);
    await sendAll(sender, serverSide, slow);
    expect((await receivedSlow).equals(wantSlow)).toBe(true);
    client.removeAllListeners('data');
    client.removeAllListeners('close');
    // Written by now: the next responses of both sizes (2 MiB and 64 KiB buffers) go out in buffers the slow ones used.
    const next = [[Buffer.from('again'), slice(333, 1_100_000)], [Buffer.from('small'), slice(99, 40_000)]];
    const wantNext = expected(next.flat());
    const receivedNext = readAll(client, wantNext.length);
    const before = written.length;
    for (const batch of next) {
      await sender.send(serverSide, batch);
      await new Promise<void>((resolve) => serverSide.write(Buffer.alloc(0), () => resolve()));
    }
    expect((await receivedNext).equals(wantNext)).toBe(true);
    expect(written.slice(0, before)).toContain(written[before]);
    expect(written.slice(0, before)).toContain(written[before + 2]);
    // A response under Buffer.poolSize / 2 (4 KiB to Node 22, 32 KiB from Node 24) is cut from Node's shared
    // Buffer slab, not given a pooled buffer of its own: it shares its ArrayBuffer with small allocations
    // made around it (the slab is not Buffer.poolSize long on every line: Node 26 over-allocates it to align it).
    const tiny = [Buffer.from('tiny'), slice(5, 100)];
    const receivedTiny = readAll(client, expected(tiny).length);
    const slabBefore = Buffer.allocUnsafe(1).buffer;
    const sending = new CopyingResponseSender().send(serverSide, tiny);
    const slabAfter = Buffer.allocUnsafe(1).buffer;
    await sending;
    expect((await receivedTiny).equals(expected(tiny))).toBe(true);
    expect([slabBefore, slabAfter]).toContain(written.at(-1));
  });
});

describe.skipIf(!addon)('sendfile sender errors', () => {
  it('rejects when the peer closes mid-transfer, without crashing', async () => {
    const { serverSide, client } = await connectPair();
    let received = 0;
    client.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= 512 * 1024) client.destroy();
    });
    client.resume();
    const sending = new SendfileResponseSender(addon!).send(serverSide, [Buffer.from('x'), slice(0, FILE_BYTES)]);
    const err = (await sending!.then(() => null, (e: NodeJS.ErrnoException) => e))!;
    expect(err).toBeInstanceOf(Error);
    expect(['EPIPE', 'ECONNRESET']).toContain(err.code);
  });

  it('releases the pinned segment file and closes its descriptors when the peer goes away mid-transfer', async () => {
    const openFds = () => readdirSync('/proc/self/fd').length;
    const cache = new FileHandleCache(16);
    const file = cache.file(join(dir, '00000000000000000000.log'), 'r');
    const segmentSlice: FileSlice = { get fd() { return file.fd; }, position: 0, length: FILE_BYTES, pin: () => file.pin() };
    const { serverSide, client } = await connectPair();
    file.fd; // opened before the baseline is taken
    const before = openFds();
    let received = 0;
    client.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= 256 * 1024) client.destroy();
    });
    client.resume();
    const sending = new SendfileResponseSender(addon!).send(serverSide, [Buffer.from('x'), segmentSlice]);
    const err = (await sending!.then(() => null, (e: NodeJS.ErrnoException) => e))!;
    expect(['EPIPE', 'ECONNRESET']).toContain(err.code);
    expect(file.pins).toBe(0);
    // The pool's dup()s go when its work is deleted, right after the callback; the client socket's fd went with destroy().
    for (let i = 0; i < 100 && openFds() > before - 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(openFds()).toBeLessThanOrEqual(before - 1);
    file.close();
  });

  it('gives up on a stalled transfer once the server destroys the socket', async () => {
    const { serverSide, client } = await connectPair(); // the client never reads
    const sending = new SendfileResponseSender(addon!).send(serverSide, [Buffer.from('x'), slice(0, FILE_BYTES)]);
    setTimeout(() => serverSide.destroy(), 300);
    const started = Date.now();
    const err = (await sending!.then(() => null, (e: NodeJS.ErrnoException) => e))!;
    expect(err.code).toBe('ECANCELED');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports a slice beyond the end of the file', async () => {
    const { serverSide, client } = await connectPair();
    const socketFd = (serverSide as unknown as { _handle: { fd: number } })._handle.fd;
    const err = await new Promise<(NodeJS.ErrnoException & { bytesSent: number }) | null>((resolve) =>
      addon!.sendChunks(socketFd, [Buffer.from('abc'), slice(FILE_BYTES - 10, 20)], resolve),
    );
    expect(err?.code).toBe('EOF');
    expect(err?.bytesSent).toBe(13);
  });

  it('rejects bad arguments synchronously', () => {
    expect(() => addon!.sendChunks(-1, [slice(0, 1)], () => {})).toThrow(TypeError);
    expect(() => addon!.sendChunks(1, [slice(0.5, 1)], () => {})).toThrow(TypeError);
    expect(() => addon!.sendChunks(1, ['text' as unknown as Buffer], () => {})).toThrow(TypeError);
  });
});

describe.skipIf(!addon)('sendChunksNow (on the JS thread, without waiting)', () => {
  const fdOf = (socket: Socket): number => (socket as unknown as { _handle: { fd: number } })._handle.fd;

  it('stops at a full socket instead of blocking, and the pool sends the rest byte for byte', async () => {
    const { serverSide, client } = await connectPair(); // not reading yet: the socket fills up
    const batch = [Buffer.from('header'), slice(0, FILE_BYTES), Buffer.from('trailer')];
    const want = expected(batch);
    let sent = addon!.sendChunksNow!(fdOf(serverSide), batch);
    expect(sent).toBeGreaterThan(0);
    // Until a call sends nothing (still full): between two calls the kernel may still move queued bytes to
    // the peer, the more so on a loaded machine (seen with Node 26 there: 333,312 more bytes).
    for (let n = -1, calls = 0; n !== 0; calls++) {
      expect(calls).toBeLessThan(100);
      n = addon!.sendChunksNow!(fdOf(serverSide), withoutFirstBytes(batch, sent));
      sent += n;
    }
    expect(sent).toBeLessThan(want.length);
    const received = readAll(client, want.length);
    const err = await new Promise((resolve) => addon!.sendChunks(fdOf(serverSide), withoutFirstBytes(batch, sent), resolve));
    expect(err).toBeNull();
    expect((await received).equals(want)).toBe(true);
  });

  it('sends a page-cached response whole when the socket has room', async () => {
    const { serverSide, client } = await connectPair();
    const batch = [Buffer.from('size+header'), slice(4096, 8192), Buffer.from('partition 2'), slice(100, 3)];
    const want = expected(batch);
    const received = readAll(client, want.length);
    const sent = addon!.sendChunksNow!(fdOf(serverSide), batch);
    // The file was just written, so it is in the page cache; only a kernel without cachestat(2) (before
    // 6.5, or refused by seccomp) makes it stop before the first slice and leave that to the pool.
    expect([want.length, 'size+header'.length]).toContain(sent);
    if (sent < want.length) await new Promise((resolve) => addon!.sendChunks(fdOf(serverSide), withoutFirstBytes(batch, sent), resolve));
    expect((await received).equals(want)).toBe(true);
  });

  it('stops after maxFileBytes of file data, leaving the rest to the pool', async () => {
    const { serverSide, client } = await connectPair();
    const batch = [Buffer.from('header'), slice(0, 3000), slice(50_000, 3000), Buffer.from('trailer')];
    const want = expected(batch);
    const received = readAll(client, want.length);
    const sent = addon!.sendChunksNow!(fdOf(serverSide), batch, 4000);
    expect([6 + 4000, 6]).toContain(sent); // 6: no cachestat(2), see above
    const err = await new Promise((resolve) => addon!.sendChunks(fdOf(serverSide), withoutFirstBytes(batch, sent), resolve));
    expect(err).toBeNull();
    expect((await received).equals(want)).toBe(true);
  });

  it('rejects bad arguments', () => {
    expect(() => addon!.sendChunksNow!(1, [slice(0, 1)], -1)).toThrow(TypeError);
    expect(() => addon!.sendChunksNow!(-1, [slice(0, 1)])).toThrow(TypeError);
    expect(() => addon!.sendChunksNow!(1, [{ fd, position: -1, length: 1 }])).toThrow(TypeError);
    expect(() => addon!.sendChunksNow!(1, [7 as unknown as Buffer])).toThrow(TypeError);
  });
});

describe('withoutFirstBytes', () => {
  const pins: string[] = [];
  const pinned: FileSlice = { fd: 9, position: 100, length: 50, pin: () => (pins.push('pin'), () => pins.push('release')) };

  it('drops whole chunks, then cuts the one the send stopped in', () => {
    const chunks = [Buffer.from('abc'), Buffer.alloc(0), pinned, Buffer.from('xyz')];
    expect(withoutFirstBytes(chunks, 0)).toEqual(chunks);
    expect(withoutFirstBytes(chunks, 2)).toEqual([Buffer.from('c'), Buffer.alloc(0), pinned, Buffer.from('xyz')]);
    const [rest, ...after] = withoutFirstBytes(chunks, 3 + 20);
    expect(after).toEqual([Buffer.from('xyz')]);
    expect(Buffer.isBuffer(rest)).toBe(false);
    expect({ fd: rest!.fd, position: (rest as FileSlice).position, length: rest!.length }).toEqual({ fd: 9, position: 120, length: 30 });
    (rest as FileSlice).pin!()(); // pins the same file as the whole slice
    expect(pins).toEqual(['pin', 'release']);
    expect(withoutFirstBytes(chunks, 53)).toEqual([Buffer.from('xyz')]);
    expect(withoutFirstBytes(chunks, 56)).toEqual([]);
  });
});

describe.skipIf(!addon)('quickAck (TCP_QUICKACK)', () => {
  it('sets it on a connected TCP socket, refuses a file and bad arguments', async () => {
    const { serverSide, client } = await connectPair();
    const socketFd = (serverSide as Socket & { _handle: { fd: number } })._handle.fd;
    expect(addon!.quickAck!(socketFd)).toBe(true);
    // The socket still works both ways after it.
    client.resume();
    const got = new Promise<Buffer>((resolve) => client.once('data', resolve));
    serverSide.write('after quickack');
    expect((await got).toString()).toBe('after quickack');
    expect(addon!.quickAck!(fd)).toBe(false); // a regular file: ENOTSOCK / EOPNOTSUPP
    expect(() => addon!.quickAck!(-1)).toThrow(TypeError);
  });
});

describe('the native addon', () => {
  // Every addon test skips when it does not load, so a build that fails at load time (dlopen, its init)
  // would otherwise pass unnoticed with the copying fallback.
  const built = join(import.meta.dirname, '../../build/Release/kafkite_sendfile.node');
  it.runIf(process.platform === 'linux' && existsSync(built))('loads when it is built', () => {
    expect(addon).not.toBeNull();
    expect(typeof addon!.sendChunksNow).toBe('function');
  });
});

describe('createResponseSender', () => {
  function capture(): { log: Logger; lines: Array<Record<string, unknown>> } {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    return { log: pino(sink), lines };
  }

  it('uses the copying fallback when zero-copy is disabled, and says why', () => {
    const { log, lines } = capture();
    expect(createResponseSender({ zeroCopy: false, log })).toBeInstanceOf(CopyingResponseSender);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ responseSender: 'copying fallback', reason: 'kafkite.zero.copy.enable=false' });
  });

  it.skipIf(!addon)('uses sendfile when the addon is built', () => {
    const { log, lines } = capture();
    expect(createResponseSender({ zeroCopy: true, log })).toBeInstanceOf(SendfileResponseSender);
    expect(lines).toEqual([expect.objectContaining({ responseSender: 'zero-copy sendfile' })]);
  });
});
