// Crash safety of the real process: an idempotent acks=all producer on several partitions while the
// broker is SIGKILLed at random moments and restarted on the same log dirs and port. Every acknowledged
// record must be there exactly once, in order; a SIGTERM mid-load must lose nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { probeStorageAddon } from '../../storage/native-storage.js';
import type { WireClient } from '../../bench/lib/wire-client.js';
import {
  connectWithRetry,
  createTopic,
  initProducerId,
  produce,
  readPartition,
  recordBatch,
  sleep,
  type ProducerIdentity,
} from './support.js';

const TOPIC = 'crash';
const PARTITIONS = 3;
const BATCH = 10;

/** One connection shared by the partition producers; replaced after the broker went away. */
class ReconnectingClient {
  private current: Promise<WireClient> | null = null;
  constructor(private readonly port: () => number) {}

  get(): Promise<WireClient> {
    this.current ??= connectWithRetry(this.port(), 30_000);
    return this.current;
  }

  /** The connection failed: the next get() reconnects (once, however many callers saw the failure). */
  async failed(client: WireClient): Promise<void> {
    if (this.current && (await this.current.catch(() => null)) === client) {
      client.close();
      this.current = null;
    }
  }

  async close(): Promise<void> {
    (await this.current?.catch(() => null))?.close();
  }
}

/**
 * Sends numbered records to one partition, one batch in flight. A batch whose answer was lost with the
 * connection is resent with the same sequence: the broker either has it (duplicate: original offsets
 * back) or appends it. Records count as acknowledged only on an error-free answer.
 */
class PartitionProducer {
  acked = 0;
  retries = 0;
  constructor(
    private readonly client: ReconnectingClient,
    private readonly producer: ProducerIdentity,
    readonly partition: number,
  ) {}

  async run(running: () => boolean): Promise<void> {
    while (running()) {
      const values = Array.from({ length: BATCH }, (_, i) => `p${this.partition}-${this.acked + i}`);
      const batch = recordBatch(values, { ...this.producer, baseSequence: this.acked });
      const client = await this.client.get();
      let res;
      try {
        res = await produce(client, TOPIC, this.partition, batch);
      } catch {
        this.retries++;
        await this.client.failed(client);
        continue;
      }
      if (res.errorCode !== 0) throw new Error(`partition ${this.partition}: produce error ${res.errorCode} (${res.errorMessage})`);
      this.acked += BATCH;
    }
  }
}

function expectedValues(partition: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `p${partition}-${i}`);
}

let broker: BrokerProcess | undefined;
afterEach(async () => {
  await broker?.kill();
  broker?.cleanup();
  broker = undefined;
});

describe('crash safety', () => {
  it('keeps every acknowledged record exactly once, in order, across 5 SIGKILLs under load', async () => {
    broker = await startBroker();
    const { dataDir, port } = broker;
    const admin = await connectWithRetry(port);
    await createTopic(admin, TOPIC, PARTITIONS);
    const producerId = await initProducerId(admin);
    admin.close();

    const client = new ReconnectingClient(() => port);
    const producers = Array.from({ length: PARTITIONS }, (_, p) => new PartitionProducer(client, producerId, p));
    let running = true;
    const loops = producers.map((p) => p.run(() => running));
    const failures = Promise.all(loops).then(() => null, (err: Error) => err);

    const kills: Array<{ afterMs: number; ackedBefore: number }> = [];
    for (let i = 0; i < 5; i++) {
      const afterMs = 150 + Math.floor(Math.random() * 600);
      await sleep(afterMs);
      kills.push({ afterMs, ackedBefore: producers.reduce((n, p) => n + p.acked, 0) });
      await broker.kill();
      broker = await startBroker({ dataDir, port });
    }
    await sleep(300);
    running = false;
    expect(await failures).toBeNull();
    await client.close();

    const reader = await connectWithRetry(port);
    let present = 0;
    for (const p of producers) {
      const read = await readPartition(reader, TOPIC, p.partition);
      expect(read.errorCode).toBe(0);
      // Every acknowledged record, once, in order; nothing else (unacknowledged resends were deduplicated).
      expect(read.values).toEqual(expectedValues(p.partition, p.acked));
      expect(read.offsets).toEqual(read.offsets.map((_, i) => i));
      present += read.values.length;
    }
    reader.close();
    const acked = producers.reduce((n, p) => n + p.acked, 0);
    const retries = producers.reduce((n, p) => n + p.retries, 0);
    console.log(`[crash] kills=${kills.length} (after ms ${kills.map((k) => k.afterMs).join(',')}), acked=${acked}, present=${present}, resent batches=${retries}`);
    expect(acked).toBeGreaterThan(kills[kills.length - 1]!.ackedBefore);
    expect(present).toBe(acked);
    // Recovery ran and said so.
    expect(broker.logs.some((l) => typeof l.msg === 'string' && l.msg.includes('(with recovery)'))).toBe(true);
  }, 90_000);

  it('loses nothing on SIGTERM mid-load, and the producer continues after the restart', async () => {
    broker = await startBroker();
    const { dataDir, port } = broker;
    const admin = await connectWithRetry(port);
    await createTopic(admin, TOPIC, PARTITIONS);
    const producerId = await initProducerId(admin);
    admin.close();

    const client = new ReconnectingClient(() => port);
    const producers = Array.from({ length: PARTITIONS }, (_, p) => new PartitionProducer(client, producerId, p));
    let running = true;
    const failures = Promise.all(producers.map((p) => p.run(() => running))).then(() => null, (err: Error) => err);
    await sleep(500);
    const stopping = broker.stop();
    const ackedAtStop = producers.map((p) => p.acked);
    expect(await stopping).toBe(0);
    expect(broker.logs.some((l) => l.msg === 'kafkite stopped')).toBe(true);
    const ackedWhileStopping = producers.map((p) => p.acked);

    broker = await startBroker({ dataDir, port });
    // A clean shutdown: no recovery needed.
    expect(broker.logs.some((l) => typeof l.msg === 'string' && l.msg.includes('(with recovery)'))).toBe(false);
    await sleep(400);
    running = false;
    expect(await failures).toBeNull();
    await client.close();

    const reader = await connectWithRetry(port);
    for (const p of producers) {
      const read = await readPartition(reader, TOPIC, p.partition);
      expect(read.values).toEqual(expectedValues(p.partition, p.acked));
      // The same producer id kept its sequences across the restart and went on appending.
      expect(p.acked).toBeGreaterThan(ackedWhileStopping[p.partition]!);
    }
    reader.close();
    console.log(`[sigterm] acked at stop=${ackedAtStop.reduce((a, b) => a + b, 0)}, acked in total=${producers.reduce((n, p) => n + p.acked, 0)}`);
  }, 60_000);
});

// The commit round (storage/group-commit.ts) answers acks=all for many partitions after one syncfs; the
// fallback after an fdatasync per file. Either way an acknowledged record is on disk when the process dies.
describe.each([true, false])('acks=all on many partitions, kafkite.log.flush.syncfs.enable=%s', (syncfs) => {
  const MANY = 12;

  it(`a SIGKILL right after acknowledgements from ${MANY} partitions loses none of them`, async () => {
    broker = await startBroker({ overrides: [`kafkite.log.flush.syncfs.enable=${syncfs}`] });
    const { dataDir, port } = broker;
    const mode = syncfs && probeStorageAddon().addon !== null ? 'syncfs per log dir' : 'fdatasync per file';
    expect(broker.logs.some((l) => l.flush === mode)).toBe(true);
    const admin = await connectWithRetry(port);
    await createTopic(admin, TOPIC, MANY);
    const producerId = await initProducerId(admin);
    admin.close();

    // A connection per partition: their acks=all flushes arrive together and share rounds.
    const clients = Array.from({ length: MANY }, () => new ReconnectingClient(() => port));
    const producers = clients.map((client, p) => new PartitionProducer(client, producerId, p));
    let running = true;
    const loops = Promise.all(producers.map((p) => p.run(() => running))).then(() => null, (err: Error) => err);
    // Killed the moment every partition has had a few batches acknowledged (no waiting after that).
    while (running && producers.some((p) => p.acked < 3 * BATCH)) await sleep(5);
    running = false;
    await broker.kill();
    const acked = producers.map((p) => p.acked);
    expect(await loops).toBeNull();
    for (const client of clients) await client.close();

    broker = await startBroker({ dataDir, port });
    expect(broker.logs.some((l) => typeof l.msg === 'string' && l.msg.includes('(with recovery)'))).toBe(true);
    const reader = await connectWithRetry(port);
    for (const p of producers) {
      const read = await readPartition(reader, TOPIC, p.partition);
      expect(read.errorCode).toBe(0);
      // Every acknowledged record, in order; a batch appended whose answer the kill cut off may follow.
      expect(read.values.slice(0, acked[p.partition])).toEqual(expectedValues(p.partition, acked[p.partition]!));
      expect(read.values.length - acked[p.partition]!).toBeLessThanOrEqual(BATCH);
    }
    reader.close();
  }, 60_000);
});
