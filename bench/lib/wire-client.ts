// A minimal Kafka client on kafkite's own codecs, shared by the protocol-level tests and the bench
// scripts (which run from dist/, so it lives here rather than in test/).
import { connect, type Socket } from 'node:net';
import { Reader, Writer } from '../../protocol/primitives.js';
import { API_KEYS, requestHeaderVersion, responseHeaderVersion, writeRequestHeader } from '../../protocol/generated/index.js';

/** A framed request, size prefix included. */
export function encodeRequest(apiKey: number, version: number, correlationId: number, body: unknown, clientId = 'wire-client'): Buffer {
  const w = new Writer();
  w.int32(0);
  writeRequestHeader(w, requestHeaderVersion(apiKey, version), { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId });
  API_KEYS[apiKey]!.writeRequest(w, version, body);
  const frame = w.toBuffer();
  frame.writeInt32BE(frame.length - 4, 0);
  return frame;
}

export class WireClient {
  private correlationId = 0;
  private buffered = Buffer.alloc(0);
  private readonly waiting = new Map<number, { apiKey: number; version: number; resolve(v: any): void; reject(e: Error): void }>();
  private closedError: Error | null = null;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.fail(new Error('connection closed')));
    socket.on('error', (err) => this.fail(err));
  }

  /** Wraps a socket already connected (e.g. a TLS one). */
  static over(socket: Socket): WireClient {
    return new WireClient(socket);
  }

  static connect(port: number, host = '127.0.0.1'): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host }, () => resolve(new WireClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Connects, retrying while the broker is (re)starting. */
  static async connectWithRetry(port: number, timeoutMs = 30_000): Promise<WireClient> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await WireClient.connect(port);
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** Encodes a request with our codecs, sends it, and decodes the response. */
  send<Res = any>(apiKey: number, version: number, body: unknown): Promise<Res> {
    const correlationId = ++this.correlationId;
    return this.sendRaw(encodeRequest(apiKey, version, correlationId, body), correlationId, apiKey, version);
  }

  /** Sends a request that gets no response (Produce with acks=0). */
  sendOneWay(apiKey: number, version: number, body: unknown): void {
    this.socket.write(encodeRequest(apiKey, version, ++this.correlationId, body));
  }

  /** Sends raw bytes; when `correlationId` is given, resolves with the decoded response to it. */
  sendRaw<Res = any>(bytes: Buffer, correlationId?: number, apiKey = 0, version = 0): Promise<Res> {
    if (this.closedError) return Promise.reject(this.closedError);
    const pending = correlationId === undefined ? Promise.resolve(undefined as Res) : new Promise<Res>((resolve, reject) => {
      this.waiting.set(correlationId, { apiKey, version, resolve, reject });
    });
    this.socket.write(bytes);
    return pending;
  }

  /** Resolves when the broker closes the connection. */
  closed(): Promise<void> {
    if (this.closedError) return Promise.resolve();
    return new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  close(): void {
    this.socket.destroy();
  }

  private fail(err: Error): void {
    this.closedError ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  private onData(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0);
      if (this.buffered.length < 4 + size) return;
      const frame = this.buffered.subarray(4, 4 + size);
      this.buffered = this.buffered.subarray(4 + size);
      const r = new Reader(frame);
      const correlationId = r.int32();
      const waiter = this.waiting.get(correlationId);
      if (!waiter) continue;
      this.waiting.delete(correlationId);
      if (responseHeaderVersion(waiter.apiKey, waiter.version) >= 1) r.skipTaggedFields();
      waiter.resolve(API_KEYS[waiter.apiKey]!.readResponse(r, waiter.version));
    }
  }
}
