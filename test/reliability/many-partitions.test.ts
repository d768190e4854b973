// Many partitions under a low RLIMIT_NOFILE (issue 13 part 3, scaled down): the broker runs with
// `ulimit -n 1024` and gets 900 partitions (2,700 segment files) in one CreateTopics request, serves
// produce and fetch on a random subset, restarts on that data dir, and, when the descriptors really run
// out (the test holds hundreds of connections open), answers a retriable KAFKA_STORAGE_ERROR, leaves
// no half-made topic behind, logs one warning naming the limit and keeps its log dir online.
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { connectWithRetry, produce, readPartition, recordBatch, sleep } from './support.js';

const LIMIT = 1024;
const TOPICS = 6;
const PARTITIONS = 150;

let broker: BrokerProcess | undefined;
const clients: WireClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await broker?.kill();
  broker?.cleanup();
  broker = undefined;
});

const topicName = (t: number) => `many-${t}`;

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function partitionDirs(dataDir: string, prefix: string): string[] {
  return readdirSync(dataDir).filter((n) => n.startsWith(prefix) && !n.endsWith('-delete'));
}

async function createTopics(client: WireClient, names: string[], partitions: number) {
  const res = await client.send(19, 7, {
    topics: names.map((name) => ({ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] })),
    timeoutMs: 30_000,
    validateOnly: false,
  });
  return res.topics as Array<{ name: string; errorCode: number; errorMessage: string | null; numPartitions: number }>;
}

/** `n` distinct random (topic, partition) pairs. */
function randomPartitions(n: number): Array<[string, number]> {
  const picked = new Map<string, [string, number]>();
  while (picked.size < n) {
    const t = topicName(Math.floor(Math.random() * TOPICS));
    const p = Math.floor(Math.random() * PARTITIONS);
    picked.set(`${t}-${p}`, [t, p]);
  }
  return [...picked.values()];
}

async function produceAndCheck(client: WireClient, targets: Array<[string, number]>, tag: string, acked: Map<string, string[]>): Promise<void> {
  for (const [t, p] of targets) {
    const values = [0, 1, 2].map((i) => `${tag}-${t}-${p}-${i}`);
    const res = await produce(client, t, p, recordBatch(values));
    expect(res.errorCode, `${t}-${p}`).toBe(0);
    acked.set(`${t}-${p}`, [...(acked.get(`${t}-${p}`) ?? []), ...values]);
  }
  for (const [t, p] of targets) {
    const read = await readPartition(client, t, p);
    expect(read.errorCode).toBe(0);
    expect(read.values).toEqual(acked.get(`${t}-${p}`));
  }
}

describe(`many partitions with RLIMIT_NOFILE ${LIMIT}`, () => {
  it('creates 900 partitions in one request, serves a random subset, restarts, and survives running out of descriptors', async () => {
    broker = await startBroker({ openFileLimit: LIMIT });
    const { dataDir, port } = broker;
    const pid = broker.child.pid!;
    const admin = await connectWithRetry(port);
    clients.push(admin);

    const created = await createTopics(admin, Array.from({ length: TOPICS }, (_, t) => topicName(t)), PARTITIONS);
    expect(created.map((t) => [t.errorCode, t.numPartitions])).toEqual(Array.from({ length: TOPICS }, () => [0, PARTITIONS]));
    expect(partitionDirs(dataDir, 'many-')).toHaveLength(TOPICS * PARTITIONS);
    expect(broker.logs).toContainEqual(expect.objectContaining({ msg: 'open file limit (RLIMIT_NOFILE)', openFileLimit: LIMIT }));

    const acked = new Map<string, string[]>();
    const first = randomPartitions(60);
    await produceAndCheck(admin, first, 'a', acked);
    await produceAndCheck(admin, first, 'b', acked);
    const fdsServing = openFds(pid);
    expect(fdsServing).toBeLessThanOrEqual(LIMIT);

    // Restart on the same data dir, same limit: every partition is there, reads and writes work.
    const code = await broker.stop();
    expect(code).toBe(0);
    broker = await startBroker({ dataDir, port, openFileLimit: LIMIT });
    const again = await connectWithRetry(broker.port);
    clients.push(again);
    expect(broker.logs).toContainEqual(expect.objectContaining({ msg: expect.stringMatching(new RegExp(`^Found ${TOPICS * PARTITIONS} logs`)) }));
    for (const [t, p] of first) expect((await readPartition(again, t, p)).values).toEqual(acked.get(`${t}-${p}`));
    await produceAndCheck(again, randomPartitions(60), 'c', acked);

    // Use up the descriptors: hold connections open until the broker cannot accept more.
    const restartedPid = broker.child.pid!;
    for (let i = 0; i < LIMIT + 50 && openFds(restartedPid) < LIMIT; i++) {
      const c = await WireClient.connect(broker.port).catch(() => null);
      if (c) clients.push(c);
      if (i % 20 === 19) await sleep(20);
    }
    await sleep(200);
    expect(openFds(restartedPid)).toBeGreaterThanOrEqual(LIMIT - 2);

    const failed = await createTopics(again, ['starved'], 50);
    expect(failed[0]!.errorCode).toBe(56); // KAFKA_STORAGE_ERROR: retriable
    expect(failed[0]!.errorMessage).toMatch(/EMFILE|too many open files/i);
    // Nothing half made: no directory, no topic.
    expect(partitionDirs(broker.dataDir, 'starved-')).toEqual([]);
    const metadata = await again.send(3, 12, { topics: [{ topicId: '0'.repeat(32), name: 'starved' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(metadata.topics[0].errorCode).toBe(3); // UNKNOWN_TOPIC_OR_PARTITION

    // The log dir stayed online; the broker said why, naming the limit (its log lines are buffered: waited for).
    const isWarning = (l: { msg?: unknown }) => String(l.msg).startsWith('Too many open files');
    for (let i = 0; i < 50 && !broker.logs.some(isWarning); i++) await sleep(100);
    const warnings = broker.logs.filter(isWarning);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toContain(`soft limit ${LIMIT}`);
    expect(broker.logs.some((l) => /offline|all log dirs have failed/.test(String(l.msg)))).toBe(false);

    // Free the descriptors: the same request succeeds, and produce/fetch work on old and new partitions.
    for (const c of clients.splice(2)) c.close();
    await sleep(300);
    const retried = await createTopics(again, ['starved'], 50);
    expect(retried[0]!.errorCode).toBe(0);
    expect(partitionDirs(broker.dataDir, 'starved-')).toHaveLength(50);
    await produceAndCheck(again, [...randomPartitions(10), ['starved', 7]], 'd', acked);
    console.log(
      `[many-partitions] ${TOPICS * PARTITIONS} partitions under RLIMIT_NOFILE ${LIMIT}: ${fdsServing} fds open while serving; ` +
        `EMFILE on CreateTopics answered 56 and left nothing behind; ${acked.size} partitions read back after restart`,
    );
  });
});
