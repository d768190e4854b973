// The real kafkite process for integration tests: a free loopback port and its own data dir.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { spawnKafkite, type KafkiteProcessOptions } from '../../bench/lib/kafkite-process.js';

export { REPO_ROOT } from '../../bench/lib/kafkite-process.js';

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

/** Without a dataDir, a fresh temporary one. */
export type StartOptions = Partial<KafkiteProcessOptions>;

export async function startBroker(opts: StartOptions = {}): Promise<BrokerProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'kafkite-test-'));
  const { child, port, logs, exited } = await spawnKafkite({ ...opts, dataDir });
  const host = opts.host ?? '127.0.0.1';
  return {
    port,
    bootstrap: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    dataDir,
    child,
    logs,
    stop() {
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

/** SIGKILLs the broker and starts another on the same data dir and port, so that its clients reconnect to it. */
export async function killAndRestart(broker: BrokerProcess, opts: StartOptions = {}): Promise<BrokerProcess> {
  await broker.kill();
  return startBroker({ ...opts, dataDir: broker.dataDir, port: broker.port });
}

/** One broker for a test file: started before its tests, stopped after them (and checked to exit cleanly). */
export function brokerForFile(opts: StartOptions = {}): () => BrokerProcess {
  let broker: BrokerProcess | undefined;
  beforeAll(async () => {
    broker = await startBroker(opts);
  });
  afterAll(async () => {
    if (!broker) return;
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });
  return () => broker!;
}

/** The admin HTTP's address, from its 'admin http started' line. */
export function adminAddress(broker: BrokerProcess): string {
  return String(broker.logs.find((l) => l.msg === 'admin http started')!.address);
}
