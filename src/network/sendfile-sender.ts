// Zero-copy Fetch: file slices go from the page cache to the socket with sendfile(2) (native/sendfile.cc),
// never through JS memory. In-memory chunks (headers, other responses) still go through socket.write.
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { FileSlice } from '../../protocol/primitives.js';
import { CopyingResponseSender, type ResponseSender } from './response-sender.js';

export interface SendfileAddon {
  /** Sends `length` bytes of `fileFd` from `position` to the (non-blocking) socket, on the libuv pool. */
  sendfile(
    socketFd: number,
    fileFd: number,
    position: number,
    length: number,
    callback: (err: NodeJS.ErrnoException | null, bytesSent: number) => void,
  ): void;
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

/** The kernel fd of a plain TCP socket; undefined for TLS or handles without one (use the fallback). */
function socketFd(socket: Socket): number | undefined {
  if (socket instanceof TLSSocket) return undefined;
  const fd = (socket as Socket & { _handle?: { fd?: number } | null })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * Sends file slices with sendfile(2). It owns the socket's output while a send is in progress (the
 * connection waits for the promise), so in-memory chunks and slices cannot interleave.
 */
export class SendfileResponseSender implements ResponseSender {
  private readonly fallback = new CopyingResponseSender();

  constructor(private readonly addon: SendfileAddon) {}

  send(socket: Socket, chunks: ReadonlyArray<Buffer | FileSlice>): Promise<void> | undefined {
    const fd = socketFd(socket);
    if (fd === undefined || chunks.every((c) => Buffer.isBuffer(c))) return this.fallback.send(socket, chunks);
    return this.sendMixed(socket, fd, chunks);
  }

  private async sendMixed(socket: Socket, fd: number, chunks: ReadonlyArray<Buffer | FileSlice>): Promise<void> {
    let i = 0;
    while (i < chunks.length) {
      const buffers: Buffer[] = [];
      while (i < chunks.length && Buffer.isBuffer(chunks[i])) buffers.push(chunks[i++] as Buffer);
      if (i === chunks.length) {
        writeBuffers(socket, buffers);
        return;
      }
      // sendfile writes to the kernel directly: bytes Node still holds must reach the kernel first.
      await flushed(socket, buffers);
      const slice = chunks[i++] as FileSlice;
      if (slice.length === 0) continue;
      if (socket.destroyed) throw new Error('socket closed before sendfile');
      await this.sendSlice(fd, slice);
    }
  }

  private sendSlice(socketFd: number, slice: FileSlice): Promise<void> {
    return new Promise((resolve, reject) => {
      this.addon.sendfile(socketFd, slice.fd, slice.position, slice.length, (err) => (err ? reject(err) : resolve()));
    });
  }
}

function writeBuffers(socket: Socket, buffers: ReadonlyArray<Buffer>, onWritten?: () => void): void {
  socket.cork();
  for (let i = 0; i < buffers.length - 1; i++) socket.write(buffers[i]!);
  socket.write(buffers[buffers.length - 1]!, onWritten);
  socket.uncork();
}

const EMPTY = Buffer.alloc(0);

/**
 * Writes the buffers and resolves once Node's write queue is empty, i.e. every byte is in the kernel.
 * Write callbacks run in order, and also (with an error) when the socket is destroyed: this always settles.
 */
function flushed(socket: Socket, buffers: ReadonlyArray<Buffer>): Promise<void> {
  if (buffers.length === 0) {
    if (socket.writableLength === 0) return Promise.resolve();
    buffers = [EMPTY]; // a marker whose callback runs after the writes still queued from an earlier send
  }
  return new Promise((resolve) => {
    writeBuffers(socket, buffers, () => resolve());
    // Writes the kernel takes at once complete synchronously: no need to wait for the callback's tick.
    if (socket.writableLength === 0) resolve();
  });
}
