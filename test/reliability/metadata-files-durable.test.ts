// The broker's own metadata files (the topic registry, the producer id block) are replaced by a rename, and
// a rename only survives an OS crash once its directory is synced. The registry decides which partition
// directories are kept at start-up: a topic missing from an older copy would have its directories removed
// as leftovers of a failed creation, acknowledged records and all. An older producer id block would hand
// out ids again. Checked on the syscalls the running broker makes (strace attached to it), since no test
// can cut the power: after each rename, an fsync of the directory holding the file.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let traceDir: string;

beforeAll(async () => {
  broker = await startBroker();
  traceDir = mkdtempSync(join(tmpdir(), 'kafkite-strace-'));
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
  rmSync(traceDir, { recursive: true, force: true });
});

/** Runs `during` with strace attached to every thread of the broker; returns the trace's lines. */
async function traced(during: () => Promise<void>): Promise<string[]> {
  const file = join(traceDir, 'trace.txt');
  // -y: file descriptors with their paths, so an fsync names what it synced.
  const strace = spawn('strace', ['-f', '-y', '-e', 'trace=fsync,fdatasync,syncfs,rename,renameat,renameat2', '-o', file, '-p', String(broker.child.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => strace.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    strace.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/attached/.test(stderr)) resolve();
    });
    strace.on('error', reject);
    void exited.then(() => reject(new Error(`strace exited before attaching: ${stderr}`)));
  });
  try {
    await during();
  } finally {
    strace.kill('SIGINT');
    await exited;
  }
  return readFileSync(file, 'utf8').split('\n');
}

/** Whether the trace renames `<name>.tmp` over `name`, and then syncs the directory it is in. */
function renameThenDirectorySync(lines: string[], name: string): { renamed: boolean; directorySynced: boolean } {
  const at = lines.findIndex((l) => /\brename(at2?)?\(/.test(l) && l.includes(`/${name}.tmp"`));
  if (at < 0) return { renamed: false, directorySynced: false };
  // rename("<from>", "<to>") or renameat2(AT_FDCWD, "<from>", AT_FDCWD, "<to>", 0): the last path is the target.
  const target = [...lines[at]!.matchAll(/"([^"]+)"/g)].at(-1)![1]!;
  const directorySynced = lines.slice(at + 1).some((l) => /\b(fsync|fdatasync|syncfs)\(/.test(l) && l.includes(`<${dirname(target)}>`));
  return { renamed: true, directorySynced };
}

describe('metadata files', () => {
  it('after renaming the producer id block into place, the broker syncs its directory (topics are records in the fsynced metadata log)', async () => {
    const lines = await traced(async () => {
      const client = await WireClient.connect(broker.port);
      try {
        const created = await client.send(19, 7, { topics: [{ name: 'durable-registry', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
        expect(created.topics[0].errorCode).toBe(0);
        // The first idempotent producer reserves the first block of producer ids.
        const init = await client.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
        expect(init.errorCode).toBe(0);
      } finally {
        client.close();
      }
    });
    expect(renameThenDirectorySync(lines, 'kafkite-producer-ids')).toEqual({ renamed: true, directorySynced: true });
  });
});
