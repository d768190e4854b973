// One client connection: frames in, requests dispatched, responses out strictly in request order.
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { DecodeError, Reader, Writer, type FileSlice } from '../../protocol/primitives.js';
import { API_KEYS, requestHeaderVersion, responseHeaderVersion } from '../../protocol/generated/index.js';
import { errorResponse, type ApiError } from '../../protocol/error-response.js';
import { ErrorCode } from '../errors.js';
import type { Broker } from '../broker.js';
import { HANDLERS, unsupportedApiVersionsResponse } from '../handlers/index.js';
import { NO_RESPONSE, type RequestContext, type RequestTiming } from '../handlers/handler.js';
import type { BufferPool } from './buffer-pool.js';
import type { RequestMemoryPool } from './request-memory-pool.js';
import type { ResponseSender } from './response-sender.js';
import { tcpFd } from './sendfile-sender.js';
import { installUserBufferReads, takeBuffered } from './user-buffer-reads.js';
import { ANONYMOUS, principalToString, type KafkaPrincipal } from '../security/principal.js';
import { SASL_AUTHENTICATE, SASL_HANDSHAKE, SaslServerAuthenticator, type KafkaReply, type TokenOutcome } from '../security/sasl/sasl-server-authenticator.js';
import type { SaslListenerConfig } from '../security/sasl/sasl-listener-config.js';
import type { FailedAuthenticationLog } from '../security/failed-authentication-log.js';

const PRODUCE_KEY = 0;
const KAFKA_ERROR_CODES = new Set<number>(Object.values(ErrorCode));
const API_VERSIONS_KEY = 18;
/** Record data (file slices) one send may carry before the next one waits for it to go out. */
const MAX_FILE_BYTES_PER_SEND = 1 << 20;
/**
 * The rest of a frame is read straight into its buffer when at least this much of it is missing; a
 * smaller rest goes through the scratch buffer, where one read can also bring the frames behind it.
 */
const MIN_DIRECT_READ_BYTES = 16 << 10;

/** A response slot: filled when its handler finishes; sent once every earlier slot has been sent. */
interface ResponseSlot {
  chunks: Array<Buffer | FileSlice> | null;
  ready: boolean;
  /** Where a dispatched request's time goes (Kafka's RequestMetrics); null for replies the authenticator makes. */
  timing: SlotTiming | null;
}

interface SlotTiming extends RequestTiming {
  readonly apiKey: number;
  /** performance.now() when the request was dispatched, and when its response was encoded. */
  readonly dispatched: number;
  readyAt: number;
}

export interface ConnectionOptions {
  id: number;
  listenerName: string;
  broker: Broker;
  sender: ResponseSender;
  maxRequestBytes: number;
  /** Requests decoded but not yet answered before we stop reading the socket. */
  maxInFlight: number;
  /** queued.max.request.bytes, shared by every connection. */
  memoryPool: RequestMemoryPool;
  /** Reused buffers for Produce frames that span socket chunks, shared by every connection. */
  framePool: BufferPool;
  /**
   * Plain TCP listeners: the buffer every connection reads into when not reading a large frame directly
   * (user-buffer-reads.ts). Shared: what a read leaves in it is processed or copied before the next.
   */
  receiveScratch?: Buffer;
  log: Logger;
  onClose(connection: Connection): void;
  /** SASL listeners: every request waits for authentication. */
  sasl?: SaslListenerConfig;
  /** sasl.server.max.receive.size: the largest frame accepted before authentication. */
  saslMaxReceiveSize?: number;
  /** connection.failed.authentication.delay.ms. */
  failedAuthenticationDelayMs?: number;
  /** Where failed SASL logins are logged, rate-limited; shared by every connection. */
  failedAuthentications: FailedAuthenticationLog;
  /** The TLS client certificate's principal (SSL listeners). */
  principal?: KafkaPrincipal;
  /** Sets TCP_QUICKACK on a socket fd (the native addon); absent without it. */
  quickAck?: (fd: number) => boolean;
}

export class Connection {
  private readonly queue: ResponseSlot[] = [];
  /** Bytes of a size prefix split across chunks. */
  private readonly partial: Buffer[] = [];
  /** Bytes of the current size prefix or frame received so far. */
  private partialBytes = 0;
  /** The frame being received when it spans chunks: each chunk is copied in as it arrives. */
  private frameBuffer: Buffer | null = null;
  /** frameBuffer came from the frame pool (a Produce request) and goes back once handled. */
  private frameBufferPooled = false;
  private frameSize = 0;
  /** The current frame's 4-byte size prefix has been read whole. */
  private haveSize = false;
  private paused = false;
  /** Bytes of a chunk received while paused, processed on resume before the socket is read again. */
  private unprocessed: Buffer | null = null;
  /** The part of frameBuffer the socket reads into next, when it reads directly (receiveScratch). */
  private directRead: Buffer | null = null;
  /** The frame being received waits for request memory (queued.max.request.bytes); not read meanwhile. */
  private waitingForMemory = false;
  /** Throttled by a client quota until muteTimer fires. */
  private muted = false;
  private muteTimer: NodeJS.Timeout | undefined;
  /** Request memory held for the frame being received. */
  private reserved = 0;
  private sending = false;
  /** A flush is queued as a microtask (see respond). */
  private flushQueued = false;
  /** A TCP_QUICKACK is queued for this microtask checkpoint (see ackReceived). */
  private ackQueued = false;
  private closed = false;
  readonly remoteAddress: string;
  /** Set by authentication (SASL, or the TLS client certificate); ANONYMOUS until then. */
  principal: KafkaPrincipal = ANONYMOUS;
  /** SASL listeners only. */
  private readonly authenticator: SaslServerAuthenticator | null;
  /** A failed authentication: nothing more is read; the connection closes after the delay. */
  private failing = false;

  constructor(private readonly socket: Socket, private readonly opts: ConnectionOptions) {
    this.remoteAddress = `${socket.remoteAddress}:${socket.remotePort}`;
    this.authenticator = opts.sasl ? new SaslServerAuthenticator(opts.sasl) : null;
    if (opts.principal) this.principal = opts.principal;
    socket.setNoDelay(true);
    socket.on('drain', () => this.flush());
    socket.on('error', (err) => this.opts.log.debug({ err, remote: this.remoteAddress }, 'connection error'));
    socket.on('close', () => this.onClosed());
    if (!this.readIntoOwnBuffers(socket, opts.receiveScratch)) socket.on('data', (chunk: Buffer) => this.onData(chunk, false));
  }

  /**
   * Acknowledges the bytes received so far at once (TCP_QUICKACK) when a response will wait. Without it
   * the ACK rides on the response, and a client with Nagle's algorithm on (librdkafka before 2.10) holds
   * its next request until then: every acks=all produce would wait for the previous one's fdatasync.
   * TLS connections too: the option is set on the TCP socket under the TLS one.
   * One setsockopt acknowledges everything read so far, so the requests of one read share it: it runs once
   * the handlers they started have reached their first wait (a microtask later), not once per request.
   */
  private readonly ackReceived = (): void => {
    if (this.ackQueued || !this.opts.quickAck) return;
    this.ackQueued = true;
    queueMicrotask(() => {
      this.ackQueued = false;
      const fd = this.closed ? undefined : tcpFd(this.socket);
      if (fd !== undefined) this.opts.quickAck!(fd);
    });
  };

  get id(): number {
    return this.opts.id;
  }

  /** Closes the connection (malformed input, shutdown). Responses not yet sent are dropped. */
  close(reason?: string, fields?: object): void {
    if (this.closed) return;
    this.failing = false;
    if (reason) this.opts.log.info({ remote: this.remoteAddress, connectionId: this.id, ...fields }, reason);
    this.closed = true;
    this.socket.destroy();
  }

  /** Resolves once every request received so far has been answered (graceful shutdown). */
  async drained(): Promise<void> {
    while (!this.closed && this.queue.length > 0) await new Promise((r) => setTimeout(r, 5));
  }

  private onClosed(): void {
    this.closed = true;
    if (this.waitingForMemory) this.opts.memoryPool.cancel(this.memoryGranted);
    this.releaseRequestMemory();
    this.opts.onClose(this);
  }

  /** Reads into frame buffers and the shared scratch buffer (see user-buffer-reads.ts); false: not here. */
  private readIntoOwnBuffers(socket: Socket, scratch: Buffer | undefined): boolean {
    if (!scratch) return false;
    const installed = installUserBufferReads(socket, {
      next: () => {
        const frame = this.frameBuffer;
        this.directRead = frame !== null && this.frameSize - this.partialBytes >= MIN_DIRECT_READ_BYTES ? frame.subarray(this.partialBytes, this.frameSize) : null;
        return this.directRead ?? scratch;
      },
      onRead: (bytes, buffer) => {
        if (buffer === this.directRead) this.receivedDirectly(bytes);
        else this.onData(buffer.subarray(0, bytes), true);
      },
    });
    // Anything the socket read before the switch comes first.
    if (installed) for (const chunk of takeBuffered(socket)) this.onData(chunk, false);
    return installed;
  }

  /** `bytes` more of the current frame were read straight into frameBuffer. */
  private receivedDirectly(bytes: number): void {
    this.directRead = null;
    if (this.closed) return;
    this.partialBytes += bytes;
    if (this.partialBytes === this.frameSize) this.frameReceived();
  }

  private releaseRequestMemory(): void {
    if (this.reserved === 0) return;
    const size = this.reserved;
    this.reserved = 0;
    this.opts.memoryPool.release(size);
  }

  private readonly memoryGranted = (): void => {
    this.waitingForMemory = false;
    if (this.closed) return this.opts.memoryPool.release(this.frameSize);
    this.reserved = this.frameSize;
    this.resumeReading();
  };

  /** Processes what arrived while reading was stopped, then reads the socket again unless stopped anew. */
  private resumeReading(): void {
    const rest = this.unprocessed;
    this.unprocessed = null;
    if (rest !== null) this.onData(rest, false);
    if (!this.paused && !this.waitingForMemory && !this.muted && !this.closed) this.socket.resume();
  }

  /** Quota throttling (KIP-219): the response goes out at once, then nothing is read for `ms`. */
  private mute(ms: number): void {
    if (ms <= 0 || this.closed) return;
    this.muted = true;
    this.socket.pause();
    clearTimeout(this.muteTimer);
    this.muteTimer = setTimeout(() => {
      this.muted = false;
      if (!this.closed) this.resumeReading();
    }, ms);
    this.muteTimer.unref();
  }

  /**
   * `transient`: the chunk is the shared scratch buffer, overwritten by the next read of any connection,
   * so whatever must outlive this call is copied out of it.
   */
  private onData(chunk: Buffer, transient: boolean): void {
    let pos = 0;
    while (pos < chunk.length && !this.closed && !this.failing) {
      if (this.paused || this.waitingForMemory || this.muted) {
        // socket.pause() stops further chunks, not this one: the rest waits until we resume, so a
        // client pipelining hundreds of small requests in one chunk still gets only maxInFlight decoded.
        this.unprocessed = transient ? Buffer.from(chunk.subarray(pos)) : chunk.subarray(pos);
        return;
      }
      if (!this.haveSize) {
        pos += this.takeSizePrefix(chunk, pos, transient);
        // The 4-byte prefix may arrive split across chunks.
        if (!this.haveSize) continue;
        if (this.authenticator && !this.authenticator.complete && this.frameSize > (this.opts.saslMaxReceiveSize ?? 524288)) {
          // Kafka's SaslServerAuthenticator: "Failing SASL authentication due to invalid receive size".
          this.close('closing connection: SASL frame larger than sasl.server.max.receive.size', {
            size: this.frameSize,
            max: this.opts.saslMaxReceiveSize,
            listener: this.opts.listenerName,
          });
          return;
        }
        if (this.frameSize < 0 || (this.frameSize === 0 && !this.authenticator?.expectsRawToken) || this.frameSize > this.opts.maxRequestBytes) {
          this.close('closing connection: request size out of bounds', {
            size: this.frameSize,
            max: this.opts.maxRequestBytes,
          });
          return;
        }
        if (!this.opts.memoryPool.reserve(this.frameSize, this.memoryGranted)) {
          this.waitingForMemory = true;
          this.socket.pause();
          continue;
        }
        this.reserved = this.frameSize;
      }
      const want = this.frameSize - this.partialBytes;
      const available = chunk.length - pos;
      // The size prefix ended the chunk: the frame starts with the next one. A frame buffer begun with no
      // bytes would outlive a frame that then arrives whole, and the next frame would be copied into it.
      if (available === 0 && want > 0) break;
      if (this.partialBytes === 0 && available >= want) {
        this.haveSize = false;
        this.onFrame(transient ? Buffer.from(chunk.subarray(pos, pos + want)) : chunk.subarray(pos, pos + want));
        this.releaseRequestMemory();
        pos += want;
        continue;
      }
      const take = Math.min(want, available);
      if (this.frameBuffer === null) {
        // The first bytes of the frame are the API key. Only Produce frames are pooled: their handler keeps
        // nothing of the request once it has answered (the records are in the log by then); a frame goes
        // back only after its handler finished, never on an error path.
        this.frameBufferPooled = take >= 2 && chunk.readInt16BE(pos) === PRODUCE_KEY;
        this.frameBuffer = this.frameBufferPooled ? this.opts.framePool.take(this.frameSize) : Buffer.allocUnsafe(this.frameSize);
      }
      // Copied while the chunk is fresh in cache, rather than concatenated once the frame is complete.
      chunk.copy(this.frameBuffer, this.partialBytes, pos, pos + take);
      this.partialBytes += take;
      pos += take;
      if (this.partialBytes === this.frameSize) this.frameReceived();
    }
  }

  /** frameBuffer is complete: hands it on and gets ready for the next size prefix. */
  private frameReceived(): void {
    const frame = this.frameBuffer!;
    const pooled = this.frameBufferPooled;
    this.frameBuffer = null;
    this.partialBytes = 0;
    this.haveSize = false;
    this.onFrame(frame, pooled);
    this.releaseRequestMemory();
  }

  /** Reads the 4-byte size prefix (possibly split across chunks); returns bytes consumed from chunk. */
  private takeSizePrefix(chunk: Buffer, pos: number, transient: boolean): number {
    if (this.partialBytes === 0 && chunk.length - pos >= 4) {
      this.frameSize = chunk.readInt32BE(pos);
      this.haveSize = true;
      return 4;
    }
    const take = Math.min(4 - this.partialBytes, chunk.length - pos);
    this.partial.push(transient ? Buffer.from(chunk.subarray(pos, pos + take)) : chunk.subarray(pos, pos + take));
    this.partialBytes += take;
    if (this.partialBytes < 4) return take;
    this.frameSize = Buffer.concat(this.partial, 4).readInt32BE(0);
    this.haveSize = true;
    this.partial.length = 0;
    this.partialBytes = 0;
    return take;
  }

  /** `pooled`: the frame is the frame pool's, given back once a Produce handler has finished with it. */
  private onFrame(frame: Buffer, pooled = false): void {
    if (this.authenticator?.expectsRawToken) {
      this.onAuthOutcome(this.authenticator.handleRawToken(frame));
      return;
    }
    const r = new Reader(frame);
    let apiKey: number, apiVersion: number, correlationId: number;
    try {
      apiKey = r.int16();
      apiVersion = r.int16();
      correlationId = r.int32();
    } catch {
      this.close('closing connection: truncated request header');
      return;
    }
    const handler = HANDLERS.get(apiKey);
    const api = API_KEYS[apiKey];
    if (apiKey === API_VERSIONS_KEY && handler && apiVersion > handler.maxVersion) {
      // Kafka answers a too-new ApiVersions with v0, UNSUPPORTED_VERSION and its own range, so the client can downgrade.
      this.respond(this.enqueue(), API_VERSIONS_KEY, 0, correlationId, unsupportedApiVersionsResponse());
      return;
    }
    if (!handler || !api || apiVersion < handler.minVersion || apiVersion > handler.maxVersion) {
      this.close('closing connection: unsupported API key or version', { apiKey, apiVersion });
      return;
    }
    const auth = this.authenticator;
    const authenticating = auth !== null && auth.intercepts(apiKey);
    if (authenticating && !auth.complete && apiKey !== API_VERSIONS_KEY && apiKey !== SASL_HANDSHAKE && apiKey !== SASL_AUTHENTICATE) {
      // Checked before decoding, as Kafka does: an unauthenticated client gets no further than the header.
      this.close('closing connection: request before SASL authentication', { apiKey, listener: this.opts.listenerName });
      return;
    }
    if (auth !== null && !authenticating && auth.sessionExpired()) {
      this.close('closing connection: SASL session expired without re-authentication', {
        principal: principalToString(this.principal),
        listener: this.opts.listenerName,
      });
      return;
    }
    let request: unknown;
    let clientId: string | null;
    try {
      clientId = r.nullableString(false);
      if (requestHeaderVersion(apiKey, apiVersion) >= 2) r.skipTaggedFields();
      request = api.readRequest(r, apiVersion);
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      this.close('closing connection: malformed request', { apiKey, apiVersion, error: err.message });
      return;
    }
    if (authenticating) {
      const outcome = auth.handleRequest(apiKey, apiVersion, correlationId, request);
      if (outcome.kind !== 'dispatch') {
        this.onAuthOutcome(outcome);
        return;
      }
    }
    const timing: SlotTiming = { apiKey, dispatched: performance.now(), readyAt: 0, remoteMs: 0 };
    const ctx: RequestContext = {
      apiKey,
      apiVersion,
      correlationId,
      clientId,
      connectionId: this.id,
      remoteAddress: this.remoteAddress,
      listenerName: this.opts.listenerName,
      principal: this.principal,
      broker: this.opts.broker,
      log: this.opts.log,
      timing,
      responseDelayed: this.ackReceived,
    };
    const slot = this.enqueue(timing);
    const started = timing.dispatched;
    let result: unknown;
    try {
      result = handler.handle(request, ctx);
    } catch (err) {
      this.failed(slot, ctx, request, err);
      return;
    }
    const quota = { requestBytes: frame.length, handlerMillis: performance.now() - started };
    const giveBack = pooled && apiKey === PRODUCE_KEY;
    if (result instanceof Promise) {
      result.then(
        (res) => {
          this.finish(slot, ctx, res, started, quota);
          if (giveBack) this.opts.framePool.give(frame);
        },
        (err) => this.failed(slot, ctx, request, err),
      );
    } else {
      this.finish(slot, ctx, result, started, quota);
      if (giveBack) this.opts.framePool.give(frame);
    }
  }

  private onAuthOutcome(outcome: TokenOutcome): void {
    const listener = this.opts.listenerName;
    switch (outcome.kind) {
      case 'continue':
        this.reply(outcome.reply, outcome.rawToken);
        return;
      case 'authenticated':
        this.principal = outcome.principal;
        this.opts.broker.metrics?.authentication(listener, outcome.mechanism, true);
        this.opts.log.debug(
          { remote: this.remoteAddress, principal: principalToString(outcome.principal), mechanism: outcome.mechanism, listener, reauthenticated: outcome.reauthenticated },
          'authenticated',
        );
        this.reply(outcome.reply, outcome.rawToken);
        return;
      case 'failed': {
        this.opts.broker.metrics?.authentication(listener, outcome.mechanism ?? 'unknown', false);
        this.opts.failedAuthentications.record({ remote: this.remoteAddress, user: outcome.user, mechanism: outcome.mechanism, listener, reason: outcome.reason });
        // Kafka delays both the failure response and the close (connection.failed.authentication.delay.ms),
        // so a client guessing passwords gets one try per delay per connection.
        this.failing = true;
        this.socket.pause();
        const slot = outcome.reply ? this.enqueue() : null;
        setTimeout(() => {
          if (this.closed) return;
          if (slot && outcome.reply) this.respond(slot, outcome.reply.apiKey, outcome.reply.apiVersion, outcome.reply.correlationId, outcome.reply.body);
          // Written now: the flush respond queues would find the connection closed.
          this.flush();
          this.closed = true;
          this.socket.end();
          setTimeout(() => this.socket.destroy(), 1000).unref();
        }, this.opts.failedAuthenticationDelayMs ?? 100).unref();
        return;
      }
      case 'close':
        this.close('closing connection: ' + outcome.reason, { listener });
    }
  }

  private reply(reply: KafkaReply | undefined, rawToken: Buffer | undefined): void {
    if (reply) {
      this.respond(this.enqueue(), reply.apiKey, reply.apiVersion, reply.correlationId, reply.body);
    } else if (rawToken) {
      const size = Buffer.allocUnsafe(4);
      size.writeInt32BE(rawToken.length, 0);
      const slot = this.enqueue();
      slot.chunks = [size, rawToken];
      slot.ready = true;
      this.flush();
    }
  }

  private finish(slot: ResponseSlot, ctx: RequestContext, response: unknown, started: number, quota: { requestBytes: number; handlerMillis: number }): void {
    this.opts.broker.metrics?.observeRequest(ctx.apiKey, performance.now() - started);
    const throttleMs = this.opts.broker.quotaManager?.throttleTimeMs(ctx.apiKey, ctx.principal, ctx.clientId, quota.requestBytes, response, quota.handlerMillis) ?? 0;
    if (throttleMs > 0) {
      if (response !== NO_RESPONSE && typeof (response as { throttleTimeMs?: unknown }).throttleTimeMs === 'number') {
        (response as { throttleTimeMs: number }).throttleTimeMs = Math.max((response as { throttleTimeMs: number }).throttleTimeMs, throttleMs);
      }
      this.mute(throttleMs);
    }
    if (response === NO_RESPONSE) {
      slot.ready = true;
      slot.timing = null;
      this.flush();
      return;
    }
    this.respond(slot, ctx.apiKey, ctx.apiVersion, ctx.correlationId, response);
  }

  /**
   * A handler threw: the request is answered with the error throughout and the connection stays open, as
   * Kafka's KafkaApis.handleError answers with AbstractRequest.getErrorResponse; a Produce with acks=0
   * has no response to carry the error, so its connection is closed, as Kafka does.
   */
  private failed(slot: ResponseSlot, ctx: RequestContext, request: unknown, err: unknown): void {
    this.opts.broker.metrics?.observeRequestError(ctx.apiKey);
    this.opts.log.error({ err, apiKey: ctx.apiKey, apiVersion: ctx.apiVersion, clientId: ctx.clientId }, 'request failed');
    if (ctx.apiKey === PRODUCE_KEY && (request as { acks: number }).acks === 0) return this.close();
    try {
      this.respond(slot, ctx.apiKey, ctx.apiVersion, ctx.correlationId, errorResponse(ctx.apiKey, ctx.apiVersion, request, apiErrorOf(err)));
    } catch {
      this.close();
    }
  }

  private enqueue(timing: SlotTiming | null = null): ResponseSlot {
    const slot: ResponseSlot = { chunks: null, ready: false, timing };
    this.queue.push(slot);
    if (this.queue.length >= this.opts.maxInFlight) this.pause();
    return slot;
  }

  private respond(slot: ResponseSlot, apiKey: number, version: number, correlationId: number, body: unknown): void {
    if (this.closed) return;
    const bodyWriter = new Writer(1024);
    API_KEYS[apiKey]!.writeResponse(bodyWriter, version, body);
    const flexibleHeader = responseHeaderVersion(apiKey, version) >= 1;
    const header = Buffer.allocUnsafe(flexibleHeader ? 9 : 8);
    header.writeInt32BE(bodyWriter.length + header.length - 4, 0);
    header.writeInt32BE(correlationId, 4);
    if (flexibleHeader) header[8] = 0; // no tagged fields
    slot.chunks = [header, ...bodyWriter.toChunks()];
    slot.ready = true;
    if (slot.timing) slot.timing.readyAt = performance.now();
    // The responses a commit round releases become ready one microtask after another: the flush waits
    // for them at the end of the microtask queue, so they go out in one write instead of one each.
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  /**
   * Sends the ready responses at the head of the queue, in one corked write where possible. Nothing more
   * is written while the socket's buffer is full ('drain' calls this again), and one send carries at most
   * about MAX_FILE_BYTES_PER_SEND of record data, so a client that does not read costs a bounded amount
   * of memory even when file slices are copied through memory (no sendfile).
   */
  private flush(): void {
    if (this.sending || this.closed) return;
    if (this.socket.writableNeedDrain) return this.pause();
    const batch: Array<Buffer | FileSlice> = [];
    const timings: SlotTiming[] = [];
    let fileBytes = 0;
    while (this.queue.length > 0 && this.queue[0]!.ready && fileBytes < MAX_FILE_BYTES_PER_SEND) {
      const slot = this.queue.shift()!;
      if (slot.timing) timings.push(slot.timing);
      if (slot.chunks) {
        for (const c of slot.chunks) {
          batch.push(c);
          if (!Buffer.isBuffer(c)) fileBytes += c.length;
        }
      }
    }
    if (batch.length === 0) return this.maybeResume();
    const sendStarted = performance.now();
    const pending = this.opts.sender.send(this.socket, batch);
    if (pending === undefined) {
      this.observeSent(timings, sendStarted);
      return this.afterSend();
    }
    this.sending = true;
    pending.then(
      () => {
        this.sending = false;
        this.observeSent(timings, sendStarted);
        this.afterSend();
        this.flush();
      },
      (err) => {
        this.sending = false;
        this.close('closing connection: send failed', { error: (err as Error).message });
      },
    );
  }

  /**
   * Kafka's RequestMetrics for the responses of one send. Local: the handler's own work and encoding;
   * remote: waiting in a purgatory (long-polling fetch); response queue: ready, behind earlier responses
   * or a send still going out on this connection; send: until the socket write / sendfile finished.
   */
  private observeSent(timings: readonly SlotTiming[], sendStarted: number): void {
    const metrics = this.opts.broker.metrics;
    if (!metrics || timings.length === 0) return;
    const sent = performance.now();
    for (const t of timings) {
      metrics.observeRequestTimes(t.apiKey, {
        localMs: t.readyAt - t.dispatched - t.remoteMs,
        remoteMs: t.remoteMs,
        responseQueueMs: sendStarted - t.readyAt,
        responseSendMs: sent - sendStarted,
        totalMs: sent - t.dispatched,
      });
    }
  }

  /** A client that does not read its socket stops being read from: memory stays bounded. */
  private afterSend(): void {
    if (this.socket.writableNeedDrain) this.pause();
    else this.maybeResume();
  }

  private pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.socket.pause();
  }

  private maybeResume(): void {
    if (!this.paused || this.closed) return;
    if (this.queue.length < this.opts.maxInFlight / 2 && !this.socket.writableNeedDrain) {
      this.paused = false;
      if (!this.waitingForMemory) this.resumeReading();
    }
  }
}

/**
 * Kafka's ApiError.fromThrowable: an error that carries a Kafka error code (KafkaError, the storage errors)
 * keeps it and its message; anything else is UNKNOWN_SERVER_ERROR without a message, nothing internal leaking.
 */
function apiErrorOf(err: unknown): ApiError {
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && typeof code === 'number' && KAFKA_ERROR_CODES.has(code)) return { code, message: err.message };
  return { code: ErrorCode.UNKNOWN_SERVER_ERROR, message: null };
}
