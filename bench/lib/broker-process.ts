// Starts bin/kafkite.js as a separate process for benchmarks and reads its CPU time and RSS from /proc.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnKafkite } from './kafkite-process.js';

export { REPO_ROOT } from './kafkite-process.js';
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** User and system CPU seconds process `pid` has used so far (all threads: a JVM's too), from /proc/<pid>/stat. */
export function cpuTimesOf(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat; fields[0] here is field 3.
  return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS };
}

/** User + system CPU seconds process `pid` has used so far (all threads). */
export function cpuSecondsOf(pid: number): number {
  const { user, system } = cpuTimesOf(pid);
  return user + system;
}

/** Resident set size of process `pid` in bytes. */
export function rssBytesOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  return kb ? Number(kb[1]) * 1024 : NaN;
}

/** Samples process `pid`'s RSS every `intervalMs` until the returned stop() is called; stop() gives the peak. */
export function sampleRssOf(pid: number, intervalMs = 100): () => number {
  let peak = rssBytesOf(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytesOf(pid));
    } catch {
      // the process exited; keep the last peak
    }
  }, intervalMs);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

export interface BrokerOptions {
  /** Reuse a data dir (restart); a fresh temp dir otherwise. */
  dataDir?: string;
  overrides?: string[];
  /**
   * Extra node flags, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof']; defaults to the
   * space-separated BENCH_BROKER_NODE_ARGS, so any bench can profile its brokers.
   */
  nodeArgs?: string[];
}

export class BenchBroker {
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly dataDir: string,
    readonly port: number,
    /** Milliseconds from spawn to the 'kafkite started' log line. */
    readonly readyMs: number,
    exited: Promise<number | null>,
    /** The overrides it was started with (a restart takes them again). */
    readonly overrides: string[] = [],
  ) {
    this.exited = exited;
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  static async start(opts: BrokerOptions = {}): Promise<BenchBroker> {
    const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'kafkite-bench-'));
    const nodeArgs = opts.nodeArgs ?? (process.env.BENCH_BROKER_NODE_ARGS?.split(' ').filter(Boolean) ?? []);
    const { child, port, readyMs, exited } = await spawnKafkite({ dataDir, overrides: opts.overrides, nodeArgs });
    return new BenchBroker(child, dataDir, port, readyMs, exited, opts.overrides);
  }

  /** User + system CPU seconds the broker process has used so far (all threads). */
  cpuSeconds(): number {
    return cpuSecondsOf(this.pid);
  }

  /** Resident set size in bytes. */
  rssBytes(): number {
    return rssBytesOf(this.pid);
  }

  /** Samples RSS every `intervalMs` until the returned stop() is called; stop() gives the peak. */
  sampleRss(intervalMs = 100): () => number {
    return sampleRssOf(this.pid, intervalMs);
  }

  /** SIGTERM (clean shutdown) and wait for exit. */
  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }

  cleanup(): void {
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
