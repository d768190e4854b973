// The long version of test/reliability/crash.test.ts: an idempotent acks=all producer on several
// partitions while the broker is SIGKILLed at random moments, many times, and restarted on the same
// log dir and port. Prints kills, records acknowledged vs present (duplicates, missing, out of order),
// batches resent after a lost answer, restart times, and the broker's memory.
//
//   npx tsc -p . && node dist/bench/soak-kill.js
//   SOAK_KILLS=100 SOAK_PARTITIONS=8 SOAK_MAX_INTERVAL_MS=3000 node dist/bench/soak-kill.js
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchesIn } from '../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../protocol/records/record-batch.js';
import { memoryOf, spawnBroker, type SpawnedBroker } from './soak-support.js';
import { WireClient } from './lib/wire-client.js';

const KILLS = Number(process.env.SOAK_KILLS ?? 20);
const PARTITIONS = Number(process.env.SOAK_PARTITIONS ?? 4);
const MAX_INTERVAL_MS = Number(process.env.SOAK_MAX_INTERVAL_MS ?? 2000);
const BATCH = 20;
const TOPIC = 'soak';
const ZERO_UUID = '0'.repeat(32);

interface Producer {
  partition: number;
  acked: number;
  resent: number;
}

function batchOf(p: Producer, producerId: number, producerEpoch: number): Buffer {
  const now = Date.now();
  return encodeBatch({
    baseOffset: 0,
    records: Array.from({ length: BATCH }, (_, i) => ({ offset: i, timestamp: now, key: null, value: Buffer.from(`p${p.partition}-${p.acked + i}`), headers: [] })),
    producerId,
    producerEpoch,
    baseSequence: p.acked,
  });
}

async function readAll(client: WireClient, partition: number): Promise<string[]> {
  const values: string[] = [];
  let offset = 0;
  for (;;) {
    const res = await client.send(1, 12, {
      clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 8 << 20,
      isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
      topics: [{ topic: TOPIC, topicId: ZERO_UUID, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 8 << 20, replicaDirectoryId: ZERO_UUID }] }],
    });
    const data = res.responses[0].partitions[0];
    if (data.errorCode !== 0) throw new Error(`fetch of partition ${partition}: error ${data.errorCode}`);
    const buf = data.records as Buffer;
    const before = offset;
    for (const h of batchesIn(buf)) {
      for (const r of decodeBatch(buf.subarray(h.pos, h.pos + h.sizeInBytes)).records) {
        if (r.offset < offset) continue;
        values.push(r.value!.toString());
        offset = r.offset + 1;
      }
    }
    if (offset === before || offset >= data.highWatermark) return values;
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkite-soak-kill-'));
  let broker: SpawnedBroker = await spawnBroker({ dataDir });
  const port = broker.port;
  const admin = await WireClient.connect(port);
  await admin.send(19, 7, { topics: [{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [{ name: 'segment.bytes', value: String(1 << 20) }] }], timeoutMs: 5000, validateOnly: false });
  const { producerId, producerEpoch } = await admin.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
  admin.close();

  let client: Promise<WireClient> | null = null;
  const getClient = () => (client ??= WireClient.connectWithRetry(port));
  const lost = async (c: WireClient) => {
    if (client && (await client.catch(() => null)) === c) {
      c.close();
      client = null;
    }
  };
  const producers: Producer[] = Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, acked: 0, resent: 0 }));
  let running = true;
  const loops = producers.map(async (p) => {
    while (running) {
      const c = await getClient();
      let res;
      try {
        res = await c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: TOPIC, partitionData: [{ index: p.partition, records: batchOf(p, producerId, producerEpoch) }] }] });
      } catch {
        p.resent++;
        await lost(c);
        continue;
      }
      const part = res.responses[0].partitionResponses[0];
      if (part.errorCode !== 0) throw new Error(`partition ${p.partition}: produce error ${part.errorCode} ${part.errorMessage}`);
      p.acked += BATCH;
    }
  });
  const failed = Promise.all(loops).then(() => null, (err: Error) => err);

  const startTimes: number[] = [];
  let peakRssMiB = 0;
  const started = Date.now();
  for (let i = 1; i <= KILLS; i++) {
    await new Promise((r) => setTimeout(r, 100 + Math.random() * MAX_INTERVAL_MS));
    peakRssMiB = Math.max(peakRssMiB, (await memoryOf(broker.child.pid!)).hwmMiB);
    await broker.kill();
    broker = await spawnBroker({ dataDir, port });
    startTimes.push(broker.startMs);
    if (i % 10 === 0) console.log(`  ${i} kills, ${producers.reduce((n, p) => n + p.acked, 0)} records acknowledged so far`);
  }
  await new Promise((r) => setTimeout(r, 500));
  running = false;
  const error = await failed;
  // (TypeScript cannot see the closures assigning `client`.)
  (await (client as Promise<WireClient> | null))?.close();
  if (error) throw error;

  const reader = await WireClient.connectWithRetry(port);
  let present = 0;
  let duplicates = 0;
  let missing = 0;
  let outOfOrder = 0;
  for (const p of producers) {
    const values = await readAll(reader, p.partition);
    present += values.length;
    const seen = new Set<string>();
    let expected = 0;
    for (const v of values) {
      if (seen.has(v)) duplicates++;
      seen.add(v);
      if (v !== `p${p.partition}-${expected}`) outOfOrder++;
      expected++;
    }
    for (let i = 0; i < p.acked; i++) if (!seen.has(`p${p.partition}-${i}`)) missing++;
  }
  reader.close();
  await broker.stop();
  rmSync(dataDir, { recursive: true, force: true });

  const acked = producers.reduce((n, p) => n + p.acked, 0);
  const sorted = [...startTimes].sort((a, b) => a - b);
  console.log(`soak-kill: ${KILLS} SIGKILLs over ${((Date.now() - started) / 1000).toFixed(1)} s, ${PARTITIONS} partitions, acks=all idempotent`);
  console.log(`  records acknowledged ${acked}, present ${present}, missing ${missing}, duplicates ${duplicates}, out of order ${outOfOrder}`);
  console.log(`  batches resent after a lost answer ${producers.reduce((n, p) => n + p.resent, 0)}`);
  console.log(`  restart to "kafkite started": median ${sorted[sorted.length >> 1]} ms, max ${sorted.at(-1)} ms; broker peak RSS ${peakRssMiB} MiB`);
  if (missing + duplicates + outOfOrder > 0 || present !== acked) process.exitCode = 1;
}

await main();
