// A full disk (issue 13 part 4) on a real 8 MiB tmpfs: with kafkite.storage.min.free.bytes at 2 MiB a
// producer fills it until Produce answers a retriable KAFKA_STORAGE_ERROR saying the disk is full; the
// broker keeps running, /ready says degraded, a metric and one warning say why, a consumer reads every
// acknowledged record, ListOffsets works, and after DeleteRecords frees segments produce works again
// by itself. Needs mount privileges (root); skipped with a message otherwise.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { connectWithRetry, createTopic, produce, readPartition, recordBatch, sleep } from './support.js';

const TOPIC = 'fill';
const PARTITIONS = 2;

function mountTmpfs(dir: string, size: string): string | null {
  if (process.getuid?.() !== 0) return 'not root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return (err as Error).message.split('\n')[0]!;
  }
}

let broker: BrokerProcess | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await broker?.kill();
  broker = undefined;
  for (const c of cleanups.splice(0).reverse()) c();
});

describe('full disk', () => {
  it('refuses produce below kafkite.storage.min.free.bytes, keeps serving reads and deletes, and resumes by itself', async (ctx) => {
    const root = mkdtempSync(join(tmpdir(), 'kafkite-full-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const why = mountTmpfs(root, '8m');
    if (why !== null) {
      console.log(`[full-disk] skipped: cannot mount a tmpfs (${why})`);
      ctx.skip();
      return;
    }
    cleanups.push(() => execFileSync('umount', ['-l', root]));

    broker = await startBroker({ dataDir: root, overrides: ['kafkite.storage.min.free.bytes=2097152', 'log.segment.delete.delay.ms=200'] });
    const running = broker;
    let exited = false;
    running.child.once('exit', () => (exited = true));
    const adminAddress = String(running.logs.find((l) => l.msg === 'admin http started')!.address);
    const client = await connectWithRetry(running.port);
    await createTopic(client, TOPIC, PARTITIONS, [{ name: 'internal.segment.bytes', value: '262144' }]);

    // Fill it: 16 KB batches round-robin until the broker refuses.
    const acked = new Map<number, string[]>(Array.from({ length: PARTITIONS }, (_, p) => [p, []]));
    let refusal: { errorCode: number; errorMessage: string | null } | null = null;
    for (let round = 0; refusal === null && round < 1000; round++) {
      for (let p = 0; p < PARTITIONS && refusal === null; p++) {
        const values = Array.from({ length: 16 }, (_, i) => `p${p}-r${round}-${i}-${'x'.repeat(1000)}`);
        const res = await produce(client, TOPIC, p, recordBatch(values));
        if (res.errorCode === 0) acked.get(p)!.push(...values);
        else refusal = res;
      }
    }
    expect(refusal).not.toBeNull();
    expect(refusal!.errorCode).toBe(56); // KAFKA_STORAGE_ERROR, retriable
    expect(refusal!.errorMessage).toMatch(/disk is full/);
    const ackedBefore = [...acked.values()].reduce((n, v) => n + v.length, 0);
    // Roughly 8 MiB - 2 MiB of 1 KB records went in before the threshold.
    expect(ackedBefore).toBeGreaterThan(3000);

    // Still refused, clean and retriable, every time; the broker does not exit.
    for (let p = 0; p < PARTITIONS; p++) expect((await produce(client, TOPIC, p, recordBatch(['more']))).errorCode).toBe(56);
    const ready = await (await fetch(`${adminAddress}/ready`)).json();
    expect(ready).toMatchObject({ status: 'degraded', diskFullLogDirs: [root] });
    const metrics = await (await fetch(`${adminAddress}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^kafkite_log_dir_disk_full\\{log_dir="${root}"\\} 1$`, 'm'));
    expect(running.logs.filter((l) => String(l.msg).startsWith('The disk is full'))).toHaveLength(1);

    // Reads go on: a consumer gets every acknowledged record, ListOffsets answers.
    for (let p = 0; p < PARTITIONS; p++) {
      const read = await readPartition(client, TOPIC, p);
      expect(read.errorCode).toBe(0);
      expect(read.values).toEqual(acked.get(p));
    }
    const offsets = await client.send(2, 7, {
      replicaId: -1, isolationLevel: 0,
      topics: [{ name: TOPIC, partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: -1 })) }],
    });
    expect(offsets.topics[0].partitions.map((x: { offset: number }) => x.offset)).toEqual([...acked.values()].map((v) => v.length));

    // DeleteRecords frees the old segments; produce works again without a restart.
    const deleted = await client.send(21, 2, {
      topics: [{ name: TOPIC, partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partitionIndex: p, offset: -1 })) }],
      timeoutMs: 5000,
    });
    expect(deleted.topics[0].partitions.map((x: { errorCode: number }) => x.errorCode)).toEqual([0, 0]);
    let resumedAfterMs = -1;
    const started = Date.now();
    while (Date.now() - started < 30_000) {
      const res = await produce(client, TOPIC, 0, recordBatch(['after delete']));
      if (res.errorCode === 0) {
        resumedAfterMs = Date.now() - started;
        break;
      }
      await sleep(200);
    }
    expect(resumedAfterMs).toBeGreaterThanOrEqual(0);
    expect((await produce(client, TOPIC, 1, recordBatch(['after delete']))).errorCode).toBe(0);
    expect(await (await fetch(`${adminAddress}/ready`)).json()).toMatchObject({ status: 'ready' });
    expect(running.logs.some((l) => /free again/.test(String(l.msg)))).toBe(true);
    expect((await readPartition(client, TOPIC, 1, acked.get(1)!.length)).values).toEqual(['after delete']);
    expect(running.logs.some((l) => /offline|all log dirs have failed/.test(String(l.msg)))).toBe(false);
    expect(exited).toBe(false);
    client.close();
    console.log(
      `[full-disk] 8 MiB tmpfs, min free 2 MiB: ${ackedBefore} records acknowledged before produce was refused, ` +
        `all ${ackedBefore} read back; produce resumed ${resumedAfterMs} ms after DeleteRecords; broker never exited`,
    );
  });
});
