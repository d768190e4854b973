// A disk that fails or fills up under a real broker with two log dirs. An I/O error (EIO) takes the
// failed dir offline as Kafka does (produce and fetch answer KAFKA_STORAGE_ERROR, Metadata shows the
// replica offline); an ENOSPC during an append is no disk failure (issue 13): the producer gets a
// retriable KAFKA_STORAGE_ERROR saying the disk is full and the dir stays online for reads. Either way
// no partial batch stays, the other dir keeps serving, and a restart brings back every acknowledged record.
// Two ways to fail: a real full tmpfs (needs mount privileges; skipped without them) and the
// KAFKITE_FAULT_INJECTION hook (storage/fault-injection.ts), which works anywhere.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import type { WireClient } from '../../bench/lib/wire-client.js';
import { connectWithRetry, createTopic, fetchPartition, produce, readPartition, recordBatch } from './support.js';

const TOPIC = 'disk';
const PARTITIONS = 4;

function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'kafkite-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

let broker: BrokerProcess | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await broker?.kill();
  broker = undefined;
  for (const c of cleanups.splice(0).reverse()) c();
});

interface Setup {
  root: string;
  dirA: string;
  dirB: string;
  env?: Record<string, string>;
  overrides?: string[];
}

function twoLogDirs(): Setup {
  const root = mkdtempSync(join(tmpdir(), 'kafkite-disk-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const dirA = join(root, 'a');
  const dirB = join(root, 'b');
  mkdirSync(dirA);
  mkdirSync(dirB);
  return { root, dirA, dirB };
}

async function start(setup: Setup, port = 0): Promise<BrokerProcess> {
  broker = await startBroker({ dataDir: setup.root, port, overrides: [`log.dirs=${setup.dirA},${setup.dirB}`, ...(setup.overrides ?? [])], env: setup.env });
  return broker;
}

function partitionsIn(dir: string): number[] {
  return readdirSync(dir).filter((n) => n.startsWith(`${TOPIC}-`)).map((n) => Number(n.slice(TOPIC.length + 1))).sort();
}

/** Produces numbered 1 KB records round-robin until a partition in B fails; returns what was acknowledged. */
async function produceUntilFailure(client: WireClient, inB: number[]): Promise<{ acked: Map<number, string[]>; failed: number; errorCode: number; errorMessage: string | null }> {
  const acked = new Map<number, string[]>(Array.from({ length: PARTITIONS }, (_, p) => [p, []]));
  for (let round = 0; round < 2000; round++) {
    for (let p = 0; p < PARTITIONS; p++) {
      const values = Array.from({ length: 4 }, (_, i) => `p${p}-r${round}-${i}-${'x'.repeat(250)}`);
      const res = await produce(client, TOPIC, p, recordBatch(values));
      if (res.errorCode !== 0) {
        expect(inB).toContain(p);
        return { acked, failed: p, errorCode: res.errorCode, errorMessage: res.errorMessage };
      }
      acked.get(p)!.push(...values);
    }
  }
  throw new Error('the disk never failed');
}

/**
 * `offline`: an I/O failure (the dir goes offline) rather than a full disk (the dir stays online for reads).
 * `beforeRestart` heals the disk (the fault hook is simply not passed to the restarted broker).
 */
async function runScenario(setup: Setup, describeFault: string, offline: boolean, beforeRestart = () => {}): Promise<void> {
  const first = await start(setup);
  const port = first.port;
  const client = await connectWithRetry(port);
  await createTopic(client, TOPIC, PARTITIONS);
  const inA = partitionsIn(setup.dirA);
  const inB = partitionsIn(setup.dirB);
  expect(inA.length).toBeGreaterThan(0);
  expect(inB.length).toBeGreaterThan(0);

  const { acked, failed, errorCode, errorMessage } = await produceUntilFailure(client, inB);
  expect(errorCode).toBe(56); // KAFKA_STORAGE_ERROR
  if (!offline) expect(errorMessage).toMatch(/disk is full/);
  const ackedCount = [...acked.values()].reduce((n, v) => n + v.length, 0);

  // The failed write left no partial batch: the file ends on a batch boundary.
  const failedDir = join(setup.dirB, `${TOPIC}-${failed}`);
  for (const f of readdirSync(failedDir).filter((n) => n.endsWith('.log'))) {
    const bytes = readFileSync(join(failedDir, f));
    const whole = [...batchesIn(bytes)].reduce((n, h) => n + h.sizeInBytes, 0);
    expect(whole).toBe(bytes.length);
  }

  const metadata = await client.send(3, 12, { topics: [{ topicId: '0'.repeat(32), name: TOPIC }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  const nodeId = metadata.brokers[0].nodeId;
  const logDirs = await client.send(35, 4, { topics: null });
  if (offline) {
    // Dir B is offline: produce and fetch answer KAFKA_STORAGE_ERROR, Metadata shows no leader and the replica offline.
    for (const p of inB) {
      expect((await produce(client, TOPIC, p, recordBatch(['after failure']))).errorCode).toBe(56);
      expect((await fetchPartition(client, TOPIC, p, 0)).errorCode).toBe(56);
    }
    for (const part of metadata.topics[0].partitions) {
      if (inB.includes(part.partitionIndex)) expect(part).toMatchObject({ errorCode: 5, leaderId: -1, offlineReplicas: [nodeId] });
      else expect(part).toMatchObject({ errorCode: 0, leaderId: nodeId, offlineReplicas: [] });
    }
    expect(logDirs.results.find((r: { logDir: string }) => r.logDir === setup.dirB)).toMatchObject({ errorCode: 56, topics: [] });
    expect(first.logs).toContainEqual(expect.objectContaining({ msg: expect.stringContaining(`Log dir ${setup.dirB} is offline`) }));
  } else {
    // Dir B is full, not failed: writes are refused, everything acknowledged reads back, nothing is offline.
    for (const p of inB) {
      expect((await produce(client, TOPIC, p, recordBatch(['after failure']))).errorCode).toBe(56);
      expect((await readPartition(client, TOPIC, p)).values).toEqual(acked.get(p));
    }
    for (const part of metadata.topics[0].partitions) expect(part).toMatchObject({ errorCode: 0, leaderId: nodeId, offlineReplicas: [] });
    expect(logDirs.results.find((r: { logDir: string }) => r.logDir === setup.dirB)).toMatchObject({ errorCode: 0 });
    expect(first.logs.some((l) => String(l.msg).includes('is offline'))).toBe(false);
    expect(first.logs.filter((l) => String(l.msg).startsWith('The disk is full'))).toHaveLength(1);
  }
  expect(logDirs.results.find((r: { logDir: string }) => r.logDir === setup.dirA)).toMatchObject({ errorCode: 0 });

  // Dir A keeps serving: appends and reads.
  for (const p of inA) {
    const values = [`p${p}-after-failure`];
    expect((await produce(client, TOPIC, p, recordBatch(values))).errorCode).toBe(0);
    acked.get(p)!.push(...values);
    expect((await readPartition(client, TOPIC, p)).values).toEqual(acked.get(p));
  }
  client.close();

  // SIGTERM still exits cleanly; an offline dir gets no clean-shutdown marker, so it is recovered at the next start.
  expect(await first.stop()).toBe(0);
  setup.env = undefined;
  beforeRestart();
  await start(setup, port);
  const again = await connectWithRetry(port);
  for (let p = 0; p < PARTITIONS; p++) {
    const read = await readPartition(again, TOPIC, p);
    expect(read.errorCode).toBe(0);
    expect(read.values).toEqual(acked.get(p));
    expect((await produce(again, TOPIC, p, recordBatch([`p${p}-after-restart`]))).errorCode).toBe(0);
  }
  again.close();
  console.log(`[disk-errors] ${describeFault}: failed on partition ${failed} after ${ackedCount} acknowledged records; all present after restart`);
}

describe('disk errors', () => {
  it('ENOSPC from the fault-injection hook refuses writes to that log dir, which stays online for reads', async () => {
    const setup = twoLogDirs();
    setup.env = { KAFKITE_FAULT_INJECTION: `${setup.dirB}/:ENOSPC:40000` };
    setup.overrides = ['kafkite.storage.min.free.bytes=0'];
    await runScenario(setup, 'injected ENOSPC after 40000 bytes', false);
  });

  it('EIO from the fault-injection hook takes the log dir offline; the other keeps serving', async () => {
    const setup = twoLogDirs();
    setup.env = { KAFKITE_FAULT_INJECTION: `${setup.dirB}/:EIO:25000` };
    await runScenario(setup, 'injected EIO after 25000 bytes', true);
  });

  it('halts the broker when its only log dir fails, as Kafka does; a restart recovers every acknowledged record', async () => {
    const root = mkdtempSync(join(tmpdir(), 'kafkite-disk-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const first = await startBroker({ dataDir: root, env: { KAFKITE_FAULT_INJECTION: `${join(root, TOPIC)}-:EIO:30000` } });
    broker = first;
    const exited = new Promise<number | null>((r) => first.child.once('exit', (code) => r(code)));
    const client = await connectWithRetry(first.port);
    await createTopic(client, TOPIC, 2);
    const acked = new Map<number, string[]>([[0, []], [1, []]]);
    let errorCode = 0;
    for (let round = 0; errorCode === 0 && round < 1000; round++) {
      for (const p of [0, 1]) {
        const values = [`p${p}-${round}-${'y'.repeat(500)}`];
        const res = await produce(client, TOPIC, p, recordBatch(values)).catch(() => ({ errorCode: -1 }));
        if (res.errorCode !== 0) {
          errorCode = res.errorCode;
          break;
        }
        acked.get(p)!.push(...values);
      }
    }
    // The failing produce is answered KAFKA_STORAGE_ERROR, or the connection drops as the broker halts.
    expect([56, -1]).toContain(errorCode);
    expect(await exited).toBe(1);
    expect(first.logs).toContainEqual(expect.objectContaining({ msg: 'Shutdown broker because all log dirs have failed' }));
    client.close();

    broker = await startBroker({ dataDir: root, port: first.port });
    const again = await connectWithRetry(broker.port);
    for (const p of [0, 1]) expect((await readPartition(again, TOPIC, p)).values).toEqual(acked.get(p));
    again.close();
  });

  it.skipIf(!canMountTmpfs())('a real full tmpfs (ENOSPC, no free-space threshold) refuses writes and stays online', async () => {
    const setup = twoLogDirs();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', setup.dirB]);
    cleanups.push(() => execFileSync('umount', ['-l', setup.dirB]));
    setup.overrides = ['kafkite.storage.min.free.bytes=0'];
    await runScenario(setup, 'tmpfs of 256 KiB', false, () => execFileSync('mount', ['-o', 'remount,size=64m', setup.dirB]));
  });
});
