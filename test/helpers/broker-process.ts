// Starts the real kafkite process (bin/kafkite.js, built dist/) on a free loopback port with its own data dir.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(REPO_ROOT, 'bin/kafkite.js');

export interface BrokerProcess {
  readonly port: number;
  readonly bootstrap: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** Every JSON log line the broker printed so far. */
  readonly logs: Array<Record<string, unknown>>;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
  /** Removes the data dir (after stop/kill). */
  cleanup(): void;
}

export interface StartOptions {
  /** Reuse a data dir (restart); a fresh temp dir otherwise. */
  dataDir?: string;
  /** Extra `key=value` overrides. */
  overrides?: string[];
  /** Fixed port (restart on the same port); 0 picks a free one. */
  port?: number;
  host?: string;
  configFile?: string;
  env?: Record<string, string>;
}

export async function startBroker(opts: StartOptions = {}): Promise<BrokerProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'kafkite-test-'));
  const host = opts.host ?? '127.0.0.1';
  const args = [BIN, 'start'];
  if (opts.configFile) args.push(opts.configFile);
  const overrides = [
    `log.dirs=${dataDir}`,
    `listeners=PLAINTEXT://${host.includes(':') ? `[${host}]` : host}:${opts.port ?? 0}`,
    'advertised.listeners=',
    // config/server.properties binds the admin HTTP on 9644; tests take a free port instead.
    'admin.listener=http://127.0.0.1:0',
    ...(opts.overrides ?? []),
  ];
  for (const o of overrides) args.push('--override', o);
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const port = await new Promise<number>((resolvePort, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
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
    exited.then((code) => reject(new Error(`broker exited with ${code} before starting: ${stderr}${JSON.stringify(logs)}`)));
  });
  const bootstrapHost = host.includes(':') ? `[${host}]` : host;
  return {
    port,
    bootstrap: `${bootstrapHost}:${port}`,
    dataDir,
    child,
    logs,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
