// librdkafka's in-memory mock cluster (bench/peers/mock-cluster.c) as the peer of the produce
// benches: compiled with gcc on first use into a temp dir, started per bench, stopped with SIGTERM.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './kafkite-process.js';
import { cpuSecondsOf } from './broker-process.js';

const SOURCE = join(REPO_ROOT, 'bench/peers/mock-cluster.c');

class MockClusterError extends Error {
  override name = 'MockClusterError';
}

function hasLibrdkafkaDev(): boolean {
  return existsSync('/usr/include/librdkafka/rdkafka_mock.h');
}

/**
 * The path of the compiled peer, building it if needed. Installs librdkafka-dev with apt-get when it
 * is missing and we are root; otherwise throws an error that says what to install.
 */
function buildMockCluster(): string {
  const source = readFileSync(SOURCE);
  const binary = join(tmpdir(), `kafkite-mock-cluster-${createHash('sha256').update(source).digest('hex').slice(0, 12)}`);
  if (existsSync(binary)) return binary;
  if (!hasLibrdkafkaDev() && process.getuid?.() === 0) {
    try {
      execFileSync('apt-get', ['install', '-y', '-qq', 'librdkafka-dev'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch {
      // reported below
    }
  }
  if (!hasLibrdkafkaDev()) throw new MockClusterError('librdkafka mock peer needs librdkafka-dev (apt-get install -y librdkafka-dev)');
  const partial = `${binary}.${process.pid}`;
  try {
    execFileSync('gcc', ['-O2', '-o', partial, SOURCE, '-lrdkafka'], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new MockClusterError('librdkafka mock peer needs gcc (apt-get install -y gcc)');
    throw new MockClusterError(`gcc failed on ${SOURCE}: ${e.stderr?.toString() ?? e.message}`);
  }
  renameSync(partial, binary);
  return binary;
}

export class MockCluster {
  private constructor(
    readonly child: ChildProcess,
    readonly bootstrap: string,
    private readonly exited: Promise<number | null>,
  ) {}

  /** Starts the mock with `topics` created at `partitions` partitions each. */
  static async start(partitions: number, topics: string[]): Promise<MockCluster> {
    const binary = buildMockCluster();
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
