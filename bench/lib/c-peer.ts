// The C programs under bench/peers (librdkafka's mock cluster, the e2e bench's librdkafka clients):
// compiled with gcc against Debian's librdkafka-dev on first use, into a temp dir keyed by the
// source's hash.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './kafkite-process.js';

class PeerBuildError extends Error {
  override name = 'PeerBuildError';
}

function hasLibrdkafkaDev(): boolean {
  return existsSync('/usr/include/librdkafka/rdkafka_mock.h');
}

/**
 * The path of bench/peers/`name`.c compiled, building it if needed. Installs librdkafka-dev with
 * apt-get when it is missing and we are root; otherwise throws an error that says what to install.
 */
export function buildPeer(name: string): string {
  const source = join(REPO_ROOT, `bench/peers/${name}.c`);
  const text = readFileSync(source);
  const binary = join(tmpdir(), `kafkite-${name}-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`);
  if (existsSync(binary)) return binary;
  if (!hasLibrdkafkaDev() && process.getuid?.() === 0) {
    try {
      execFileSync('apt-get', ['install', '-y', '-qq', 'librdkafka-dev'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch {
      // reported below
    }
  }
  if (!hasLibrdkafkaDev()) throw new PeerBuildError(`bench/peers/${name}.c needs librdkafka-dev (apt-get install -y librdkafka-dev)`);
  const partial = `${binary}.${process.pid}`;
  try {
    execFileSync('gcc', ['-O2', '-o', partial, source, '-lrdkafka'], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new PeerBuildError(`bench/peers/${name}.c needs gcc (apt-get install -y gcc)`);
    throw new PeerBuildError(`gcc failed on ${source}: ${e.stderr?.toString() ?? e.message}`);
  }
  renameSync(partial, binary);
  return binary;
}
