// What the soak and fuzz scripts share: the real broker process, restartable on the same port, and
// its memory as /proc reports it.
import type { ChildProcess } from 'node:child_process';
import { spawnKafkite } from './lib/kafkite-process.js';

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
export async function spawnBroker(opts: { dataDir: string; port?: number; overrides?: string[]; env?: Record<string, string>; nodeArgs?: string[] }): Promise<SpawnedBroker> {
  const { child, port, logs, readyMs, exited } = await spawnKafkite(opts);
  return {
    port,
    child,
    startMs: Math.round(readyMs),
    logs,
    stop: () => (child.kill('SIGTERM'), exited),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** VmRSS and VmHWM of a process, in MiB. */
export async function memoryOf(pid: number): Promise<{ rssMiB: number; hwmMiB: number }> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: Math.round(kib('VmRSS') / 1024), hwmMiB: Math.round(kib('VmHWM') / 1024) };
}
