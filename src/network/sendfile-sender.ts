// Zero-copy Fetch: file slices go from the page cache to the socket with sendfile(2) (native/sendfile.cc),
// never through JS memory. A response batch goes to the native side whole, buffers and slices in order:
// first on the JS thread for what goes out without waiting, then, for the rest (a full socket, data not
// in the page cache), on the libuv pool.
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { FileSlice } from '../../protocol/primitives.js';
import { CopyingResponseSender, fileBytesOf, pinSlices, SMALL_RESPONSE_FILE_BYTES, type ResponseSender } from './response-sender.js';

export interface SendfileAddon {
  /**
   * Writes the chunks in order to the (non-blocking) socket on the libuv pool: buffers with sendmsg,
   * file slices with sendfile. Errors carry an errno `code` (EPIPE, ECONNRESET, ETIMEDOUT when the peer
   * accepted nothing for 30 s, ECANCELED when the socket was destroyed meanwhile, EOF for a slice past
   * the end of its file) and `bytesSent`.
   */
  sendChunks(
    socketFd: number,
    chunks: ReadonlyArray<Buffer | FileSlice>,
    callback: (err: (NodeJS.ErrnoException & { bytesSent: number }) | null, bytesSent: number) => void,
  ): void;
  /**
   * Sends the chunks in order on the calling thread as far as they go without waiting: it stops, without
   * error, at a full socket or at a slice not wholly in the page cache (or wherever cachestat(2) is
   * missing), or once `maxFileBytes` of file data went out. Returns the bytes sent; throws sendChunks's
   * errors. Absent in older builds.
   */
  sendChunksNow?(socketFd: number, chunks: ReadonlyArray<Buffer | FileSlice>, maxFileBytes?: number): number;
  /** Raises RLIMIT_NOFILE's soft limit to the hard one; the limits in force after (-1: unlimited). Absent in older builds. */
  raiseOpenFileLimit?(): { soft: number; hard: number; error?: string };
  /** TCP_QUICKACK on a socket: acknowledges what it received at once; false if not a TCP socket. Absent in older builds. */
  quickAck?(fd: number): boolean;
}

// Relative to this module: src/network/ when run from source, dist/src/network/ when compiled.
const ADDON_PATHS = ['../../build/Release/kafkite_sendfile.node', '../../../build/Release/kafkite_sendfile.node'];

type AddonProbe = { addon: SendfileAddon } | { addon: null; reason: string };

function probeAddon(): AddonProbe {
  if (process.platform !== 'linux') return { addon: null, reason: `sendfile(2) is Linux-only (platform ${process.platform})` };
  const require = createRequire(import.meta.url);
  const failures: string[] = [];
  for (const path of ADDON_PATHS) {
    try {
      return { addon: require(path) as SendfileAddon };
    } catch (err) {
      failures.push((err as Error).message.split('\n')[0]!);
    }
  }
  return { addon: null, reason: `native addon not built (npm run install): ${failures.join('; ')}` };
}

/** The native sendfile addon, or null when it is not built or the platform is not Linux. */
export function loadSendfileAddon(): SendfileAddon | null {
  return probeAddon().addon;
}

/** The sender the server uses; logs once which path responses take and why. */
export function createResponseSender(opts: { zeroCopy: boolean; log: Logger }): ResponseSender {
  const probe: AddonProbe = opts.zeroCopy ? probeAddon() : { addon: null, reason: 'kafkite.zero.copy.enable=false' };
  if (probe.addon) {
    opts.log.info({ responseSender: 'zero-copy sendfile' }, 'fetch data is sent with sendfile(2)');
    return new SendfileResponseSender(probe.addon);
  }
  opts.log.info({ responseSender: 'copying fallback', reason: probe.reason }, 'fetch data is read into memory and written');
  return new CopyingResponseSender();
}

/**
 * File bytes one send may put out on the JS thread: a big multi-partition response to a fast reader
 * would otherwise hold the event loop for its whole length (about 0.2 ms per MiB here); the pool sends
 * the rest. Kafka's own processors send whole responses, but each has a thread to itself.
 */
const SEND_NOW_MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The kernel fd of the TCP connection under a socket, TLS or not (a TLSSocket's handle reports its TCP
 * socket's fd), for socket options; undefined for handles without one.
 */
export function tcpFd(socket: Socket): number | undefined {
  const fd = (socket as Socket & { _handle?: { fd?: number } | null })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** The kernel fd of a plain TCP socket, to send to; undefined for TLS (whose bytes must be encrypted) or handles without one (use the fallback). */
function socketFd(socket: Socket): number | undefined {
  return socket instanceof TLSSocket ? undefined : tcpFd(socket);
}

/**
 * Sends responses with file slices through the native addon. It owns the socket's output while a
 * send is in progress (the connection waits for the promise), so nothing interleaves.
 */
export class SendfileResponseSender implements ResponseSender {
  private readonly fallback = new CopyingResponseSender();

  constructor(private readonly addon: SendfileAddon) {}

  send(socket: Socket, chunks: ReadonlyArray<Buffer | FileSlice>): Promise<void> | undefined {
    const fd = socketFd(socket);
    if (fd === undefined || fileBytesOf(chunks) <= SMALL_RESPONSE_FILE_BYTES) return this.fallback.send(socket, chunks);
    // Bytes an earlier send left in Node's queue go first: then the pool path waits for them.
    if (socket.writableLength > 0 || this.addon.sendChunksNow === undefined) return this.sendNative(socket, fd, chunks);
    let sent: number;
    // Pinned while the addon reads the fds: reading one slice's fd must not close another's (a reused number).
    const release = pinSlices(chunks);
    try {
      sent = this.addon.sendChunksNow(fd, chunks, SEND_NOW_MAX_FILE_BYTES);
    } catch (err) {
      return Promise.reject(err);
    } finally {
      release();
    }
    // Most fetches of page-cached data end here: no pool round trip, no promise.
    if (sent === bytesOf(chunks)) return undefined;
    return this.sendNative(socket, fd, withoutFirstBytes(chunks, sent));
  }

  private async sendNative(socket: Socket, fd: number, chunks: ReadonlyArray<Buffer | FileSlice>): Promise<void> {
    // The addon writes to the kernel directly: bytes an earlier send left in Node's queue go first.
    if (socket.writableLength > 0) await writesFlushed(socket);
    if (socket.destroyed) throw new Error('socket closed before sendfile');
    // Pinned while the addon dup()s them: reading one slice's fd must not close another's (a reused number).
    const release = pinSlices(chunks);
    try {
      await new Promise<void>((resolve, reject) => {
        this.addon.sendChunks(fd, chunks, (err) => (err ? reject(err) : resolve()));
      });
    } finally {
      release();
    }
  }
}

function bytesOf(chunks: ReadonlyArray<Buffer | FileSlice>): number {
  let bytes = 0;
  for (const c of chunks) bytes += c.length;
  return bytes;
}

/** The part of a slice after its first `skip` bytes; its fd is still read on use, and pins the same file. */
class SliceRest implements FileSlice {
  constructor(
    private readonly whole: FileSlice,
    private readonly skip: number,
  ) {}

  get fd(): number {
    return this.whole.fd;
  }

  get position(): number {
    return this.whole.position + this.skip;
  }

  get length(): number {
    return this.whole.length - this.skip;
  }

  pin(): () => void {
    return this.whole.pin?.() ?? (() => {});
  }
}

/** The chunks still to send once the first `sent` bytes went out. */
export function withoutFirstBytes(chunks: ReadonlyArray<Buffer | FileSlice>, sent: number): Array<Buffer | FileSlice> {
  let i = 0;
  let skip = sent;
  while (i < chunks.length && chunks[i]!.length <= skip) skip -= chunks[i++]!.length;
  const rest = chunks.slice(i);
  if (skip > 0 && rest.length > 0) {
    const first = rest[0]!;
    rest[0] = Buffer.isBuffer(first) ? first.subarray(skip) : new SliceRest(first, skip);
  }
  return rest;
}

/**
 * Resolves once Node's queued writes are in the kernel: write callbacks run in order, so an empty
 * write's callback runs after them (also, with an error, when the socket is destroyed).
 */
function writesFlushed(socket: Socket): Promise<void> {
  return new Promise((resolve) => socket.write(EMPTY, () => resolve()));
}

const EMPTY = Buffer.alloc(0);
