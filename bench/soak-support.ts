// What the soak and fuzz scripts share: the real broker process (bin/kafkite.js) and a minimal client
// on kafkite's own codecs. Scripts in bench/ run from dist/, so they cannot use test/helpers.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Reader, Writer } from '../protocol/primitives.js';
import { API_KEYS, requestHeaderVersion, responseHeaderVersion, writeRequestHeader } from '../protocol/generated/index.js';

/** A framed request (size prefix included). */
export function encodeRequest(apiKey: number, version: number, correlationId: number, body: unknown): Buffer {
  const w = new Writer();
  w.int32(0);
  writeRequestHeader(w, requestHeaderVersion(apiKey, version), { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'kafkite-bench' });
  API_KEYS[apiKey]!.writeRequest(w, version, body);
  const frame = w.toBuffer();
  frame.writeInt32BE(frame.length - 4, 0);
  return frame;
}

export interface SpawnedBroker {
  port: number;
  child: ChildProcess;
  /** Milliseconds from spawn to "kafkite started" (log recovery included). */
  startMs: number;
  logs: Array<Record<string, unknown>>;
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

/** Starts bin/kafkite.js with `log.dirs=<dataDir>` on `port` (0: any free one). */
export async function spawnBroker(opts: { dataDir: string; port?: number; overrides?: string[]; env?: Record<string, string> }): Promise<SpawnedBroker> {
  const bin = resolve(import.meta.dirname, '../../bin/kafkite.js');
  const overrides = [`log.dirs=${opts.dataDir}`, `listeners=PLAINTEXT://127.0.0.1:${opts.port ?? 0}`, 'advertised.listeners=', ...(opts.overrides ?? [])];
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'start', ...overrides.flatMap((o) => ['--override', o])], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...opts.env },
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const logs: Array<Record<string, unknown>> = [];
  const port = await new Promise<number>((resolvePort, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      logs.push(entry);
      if (entry.msg === 'kafkite started') {
        const listener = (entry.listeners as string[])[0]!;
        resolvePort(Number(listener.slice(listener.lastIndexOf(':') + 1)));
      }
    });
    exited.then((code) => reject(new Error(`broker exited with ${code} before starting`)));
  });
  return {
    port,
    child,
    startMs: Math.round(performance.now() - started),
    logs,
    stop: () => (child.kill('SIGTERM'), exited),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Request/response over one connection; every pending request fails when the connection does. */
export class BenchClient {
  private correlationId = 0;
  private buffered = Buffer.alloc(0);
  private readonly waiting = new Map<number, { apiKey: number; version: number; resolve(v: any): void; reject(e: Error): void }>();
  private failure: Error | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('close', () => this.fail(new Error('connection closed')));
    socket.on('error', (err) => this.fail(err));
  }

  static connect(port: number, host = '127.0.0.1'): Promise<BenchClient> {
    return new Promise((resolveClient, reject) => {
      const socket = connect({ port, host }, () => resolveClient(new BenchClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Connects, retrying while the broker is (re)starting. */
  static async connectWithRetry(port: number, timeoutMs = 30_000): Promise<BenchClient> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await BenchClient.connect(port);
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  send<Res = any>(apiKey: number, version: number, body: unknown): Promise<Res> {
    if (this.failure) return Promise.reject(this.failure);
    const id = ++this.correlationId;
    return new Promise<Res>((resolveResponse, reject) => {
      this.waiting.set(id, { apiKey, version, resolve: resolveResponse, reject });
      this.socket.write(encodeRequest(apiKey, version, id, body));
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  private onData(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
      const frame = this.buffered.subarray(4, 4 + this.buffered.readInt32BE(0));
      this.buffered = this.buffered.subarray(4 + frame.length);
      const r = new Reader(frame);
      const waiter = this.waiting.get(r.int32());
      if (!waiter) continue;
      this.waiting.delete(frame.readInt32BE(0));
      if (responseHeaderVersion(waiter.apiKey, waiter.version) >= 1) r.skipTaggedFields();
      waiter.resolve(API_KEYS[waiter.apiKey]!.readResponse(r, waiter.version));
    }
  }
}

/** VmRSS and VmHWM of a process, in MiB. */
export async function memoryOf(pid: number): Promise<{ rssMiB: number; hwmMiB: number }> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: Math.round(kib('VmRSS') / 1024), hwmMiB: Math.round(kib('VmHWM') / 1024) };
}
