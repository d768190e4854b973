// A pipelined Kafka connection on kafkite's own codecs: any number of requests in flight, each
// resolved with its decoded response and its round-trip time.
import { connect, type Socket } from 'node:net';
import { Reader, Writer } from '../../protocol/primitives.js';
import { API_KEYS, requestHeaderVersion, responseHeaderVersion, writeRequestHeader } from '../../protocol/generated/index.js';

interface Waiter {
  apiKey: number;
  version: number;
  sentAt: bigint;
  resolve(reply: Reply): void;
  reject(err: Error): void;
}

export interface Reply<T = any> {
  response: T;
  /** Round-trip time in microseconds. */
  latencyUs: number;
}

export class BenchConnection {
  private correlationId = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly waiting = new Map<number, Waiter>();
  private closedError: Error | null = null;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.fail(new Error('connection closed')));
    socket.on('error', (err) => this.fail(err));
  }

  static open(bootstrap: string): Promise<BenchConnection> {
    const colon = bootstrap.lastIndexOf(':');
    return new Promise((resolve, reject) => {
      const socket = connect({ host: bootstrap.slice(0, colon), port: Number(bootstrap.slice(colon + 1)) }, () => resolve(new BenchConnection(socket)));
      socket.once('error', reject);
    });
  }

  get inFlight(): number {
    return this.waiting.size;
  }

  /** Encodes and sends a request; resolves with the decoded response. */
  send<T = any>(apiKey: number, version: number, body: unknown): Promise<Reply<T>> {
    const w = new Writer();
    w.int32(0);
    const correlationId = ++this.correlationId;
    writeRequestHeader(w, requestHeaderVersion(apiKey, version), {
      requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'kafkite-bench',
    });
    API_KEYS[apiKey]!.writeRequest(w, version, body);
    const frame = w.toBuffer();
    frame.writeInt32BE(frame.length - 4, 0);
    return this.sendFrame(frame, correlationId, apiKey, version);
  }

  /**
   * Sends a request encoded once and reused, so the load generator spends its CPU on the broker,
   * not on encoding: `headerTemplate` (from preparedHeader) gets this request's correlation id.
   */
  sendPrepared<T = any>(headerTemplate: Buffer, body: Buffer, apiKey: number, version: number): Promise<Reply<T>> {
    const correlationId = ++this.correlationId;
    const header = Buffer.from(headerTemplate);
    header.writeInt32BE(correlationId, 8);
    const waiter = this.expect<T>(correlationId, apiKey, version);
    this.socket.cork();
    this.socket.write(header);
    this.socket.write(body);
    process.nextTick(() => this.socket.uncork());
    return waiter;
  }

  /** Encodes the request header of a prepared request for `bodyLength` bytes of body. */
  static encodeBody(apiKey: number, version: number, body: unknown): Buffer {
    const w = new Writer();
    API_KEYS[apiKey]!.writeRequest(w, version, body);
    return w.toBuffer();
  }

  static preparedHeader(apiKey: number, version: number, bodyLength: number): Buffer {
    const w = new Writer();
    w.int32(0);
    writeRequestHeader(w, requestHeaderVersion(apiKey, version), {
      requestApiKey: apiKey, requestApiVersion: version, correlationId: 0, clientId: 'kafkite-bench',
    });
    const header = w.toBuffer();
    header.writeInt32BE(header.length - 4 + bodyLength, 0);
    return header;
  }

  close(): void {
    this.socket.destroy();
  }

  private sendFrame<T>(frame: Buffer, correlationId: number, apiKey: number, version: number): Promise<Reply<T>> {
    const waiter = this.expect<T>(correlationId, apiKey, version);
    this.socket.write(frame);
    return waiter;
  }

  private expect<T>(correlationId: number, apiKey: number, version: number): Promise<Reply<T>> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise<Reply<T>>((resolve, reject) => {
      this.waiting.set(correlationId, { apiKey, version, sentAt: process.hrtime.bigint(), resolve, reject });
    });
  }

  private fail(err: Error): void {
    this.closedError ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  // Collects chunks until a whole frame is there, so large Fetch responses are concatenated once.
  private onData(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    while (this.pendingBytes >= 4) {
      const first = this.pending[0]!.length >= 4 ? this.pending[0]! : this.flatten();
      const size = first.readInt32BE(0);
      if (this.pendingBytes < 4 + size) return;
      const buffered = this.flatten();
      const frame = buffered.subarray(4, 4 + size);
      const rest = buffered.subarray(4 + size);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingBytes = rest.length;
      this.onFrame(frame);
    }
  }

  private flatten(): Buffer {
    if (this.pending.length > 1) this.pending = [Buffer.concat(this.pending, this.pendingBytes)];
    return this.pending[0]!;
  }

  private onFrame(frame: Buffer): void {
    const r = new Reader(frame);
    const correlationId = r.int32();
    const waiter = this.waiting.get(correlationId);
    if (!waiter) return;
    this.waiting.delete(correlationId);
    const latencyUs = Number(process.hrtime.bigint() - waiter.sentAt) / 1e3;
    if (responseHeaderVersion(waiter.apiKey, waiter.version) >= 1) r.skipTaggedFields();
    waiter.resolve({ response: API_KEYS[waiter.apiKey]!.readResponse(r, waiter.version), latencyUs });
  }
}
