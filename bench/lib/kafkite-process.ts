// Spawns the real broker (bin/kafkite.js, from dist/) on a loopback port for tests and benchmarks,
// and waits for its 'kafkite started' line, which names the port it bound.
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const REPO_ROOT = resolve(import.meta.dirname, '../..').replace(/\/dist$/, '');
const BIN = join(REPO_ROOT, 'bin/kafkite.js');
/** The node binary the broker runs under: KAFKITE_NODE (bench/node-lines.ts compares Node lines), or this process's. */
const NODE = process.env.KAFKITE_NODE || process.execPath;

export interface KafkiteProcessOptions {
  dataDir: string;
  /** 0 (the default) picks a free port; a fixed one lets a restart keep its clients. */
  port?: number;
  host?: string;
  /** A server.properties to start from; config/server.properties otherwise. */
  configFile?: string;
  /** `key=value` overrides, after the ones that place the broker (later ones win). */
  overrides?: string[];
  env?: Record<string, string>;
  /** Node flags, e.g. ['--cpu-prof']. */
  nodeArgs?: string[];
  /** RLIMIT_NOFILE (soft and hard) for the broker, set with the shell's `ulimit -n` before it starts. */
  openFileLimit?: number;
}

export interface KafkiteProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Every JSON log line printed so far. */
  readonly logs: Array<Record<string, unknown>>;
  /** Milliseconds from spawn to 'kafkite started'. */
  readonly readyMs: number;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

export async function spawnKafkite(opts: KafkiteProcessOptions): Promise<KafkiteProcess> {
  const host = opts.host ?? '127.0.0.1';
  const args = [...(opts.nodeArgs ?? []), BIN, 'start'];
  if (opts.configFile) args.push(opts.configFile);
  const overrides = [
    `log.dirs=${opts.dataDir}`,
    `listeners=PLAINTEXT://${host.includes(':') ? `[${host}]` : host}:${opts.port ?? 0}`,
    'advertised.listeners=',
    // config/server.properties binds the admin HTTP on 9644; spawned brokers take a free port instead.
    'admin.listener=http://127.0.0.1:0',
    // The 1 GiB default would refuse produce on a CI disk with less free; the full-disk tests set their own.
    'kafkite.storage.min.free.bytes=16777216',
    ...(opts.overrides ?? []),
  ];
  for (const o of overrides) args.push('--override', o);
  const started = performance.now();
  const [command, argv] =
    opts.openFileLimit === undefined
      ? [NODE, args]
      : ['/bin/sh', ['-c', `ulimit -n ${opts.openFileLimit} && exec "$0" "$@"`, NODE, ...args]];
  const child = spawn(command, argv, { cwd: REPO_ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
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
    exited.then((code) => reject(new Error(`broker exited with ${code} before starting: ${stderr}${JSON.stringify(logs)}`)));
  });
  return { child, port, logs, readyMs: performance.now() - started, exited };
}
