// librdkafka's in-memory mock cluster (bench/peers/mock-cluster.c) as the peer of the produce
// benches: compiled with gcc on first use into a temp dir, started per bench, stopped with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cpuSecondsOf } from './broker-process.js';
import { buildPeer } from './c-peer.js';

class MockClusterError extends Error {
  override name = 'MockClusterError';
}

export class MockCluster {
  private constructor(
    readonly child: ChildProcess,
    readonly bootstrap: string,
    private readonly exited: Promise<number | null>,
  ) {}

  /** Starts the mock with `topics` created at `partitions` partitions each. */
  static async start(partitions: number, topics: string[]): Promise<MockCluster> {
    const binary = buildPeer('mock-cluster');
    const child = spawn(binary, [String(partitions), ...topics], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const bootstrap = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(line.split(',')[0]!.trim()));
      exited.then((code) => reject(new MockClusterError(`mock cluster exited with ${code}: ${stderr}`)));
    });
    return new MockCluster(child, bootstrap, exited);
  }

  /** User + system CPU seconds of the mock (all threads). */
  cpuSeconds(): number {
    return cpuSecondsOf(this.child.pid!);
  }

  async stop(): Promise<void> {
    this.child.kill('SIGTERM');
    await this.exited;
  }
}
