// Idle partition logs are unloaded (kafkite.log.unload.idle.ms, issue 13 part 3: idle memory follows the
// partitions in use) and loaded again on use with the same high watermark, LSO, log start offset,
// producer state and data; a kill -9 after an unload loses nothing; and the background load after a
// restart leaves room for requests.
import { afterEach, describe, expect, it } from 'vitest';
import type { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess, adminAddress } from '../helpers/broker-process.js';
import { connectWithRetry, createTopic, fetchPartition, initProducerId, produce, readPartition, recordBatch, sleep } from './support.js';

let broker: BrokerProcess | undefined;
let client: WireClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await broker?.kill();
  broker?.cleanup();
  broker = undefined;
});

const TOPIC = 'idle';

async function metrics(b: BrokerProcess): Promise<string> {
  const address = adminAddress(b);
  return (await fetch(`${address}/metrics`)).text();
}

/** Whether the partition's log is loaded: only loaded logs export kafkite_log_end_offset. */
async function isLoaded(b: BrokerProcess, partition: number): Promise<boolean> {
  return (await metrics(b)).includes(`kafkite_log_end_offset{topic="${TOPIC}",partition="${partition}"}`);
}

async function waitUnloaded(b: BrokerProcess, partition: number): Promise<void> {
  for (let i = 0; i < 200 && (await isLoaded(b, partition)); i++) await sleep(50);
  expect(await isLoaded(b, partition), `${TOPIC}-${partition} unloaded`).toBe(false);
}

function flushCount(text: string): number {
  return Number(/^kafkite_log_flush_duration_seconds_count (\S+)$/m.exec(text)?.[1] ?? 0);
}

/** What a fetch at the log start offset (2 on partition 0, after DeleteRecords) answers. */
async function offsetsOf(c: WireClient, partition: number) {
  const p = await fetchPartition(c, TOPIC, partition, partition === 0 ? 2 : 0);
  return { errorCode: p.errorCode, highWatermark: p.highWatermark, lastStableOffset: p.lastStableOffset, logStartOffset: p.logStartOffset };
}

describe('unloading idle logs', () => {
  it('reloads an unloaded log with the same offsets, producer state and data, and loses nothing to a kill -9', async () => {
    broker = await startBroker({ overrides: ['kafkite.log.unload.idle.ms=300'] });
    client = await connectWithRetry(broker.port);
    await createTopic(client, TOPIC, 4);
    // Created unloaded: nothing of the topic is loaded before it is used.
    expect(await isLoaded(broker, 0)).toBe(false);

    const producer = await initProducerId(client);
    const acked = new Map<number, string[]>([[0, []], [1, []], [2, []]]);
    const send = async (partition: number, values: string[], acks: number, baseSequence?: number) => {
      const res = await produce(client!, TOPIC, partition, recordBatch(values, baseSequence === undefined ? undefined : { ...producer, baseSequence }), acks);
      if (res.errorCode === 0) acked.get(partition)!.push(...values);
      return res;
    };
    // Partition 0: idempotent batches (acks=all), then DeleteRecords moves its log start offset.
    expect((await send(0, ['a0', 'a1', 'a2'], -1, 0)).baseOffset).toBe(0);
    expect((await send(0, ['a3', 'a4'], -1, 3)).baseOffset).toBe(3);
    const deleted = await client.send(21, 2, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, offset: 2 }] }], timeoutMs: 5000 });
    expect(deleted.topics[0].partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: 2 });
    acked.set(0, acked.get(0)!.slice(2));
    // Partition 1: acks=1 only, so its data is not flushed when it goes idle.
    for (let i = 0; i < 5; i++) expect((await send(1, [`b${i}`], 1)).errorCode).toBe(0);
    const before = await offsetsOf(client, 0);
    expect(before).toEqual({ errorCode: 0, highWatermark: 5, lastStableOffset: 5, logStartOffset: 2 });
    const flushesBefore = flushCount(await metrics(broker));

    await waitUnloaded(broker, 0);
    await waitUnloaded(broker, 1);
    // The dirty one was flushed before it was unloaded.
    expect(flushCount(await metrics(broker))).toBeGreaterThan(flushesBefore);

    // Loaded again on use: same offsets and data.
    expect(await offsetsOf(client, 0)).toEqual(before);
    expect((await readPartition(client, TOPIC, 0, 2)).values).toEqual(acked.get(0));
    expect((await readPartition(client, TOPIC, 1)).values).toEqual(acked.get(1));
    // Producer state came back: a retry of the last batch is a duplicate answered with its original
    // offset, a sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER, the next batch follows on.
    const retried = await produce(client, TOPIC, 0, recordBatch(['a3', 'a4'], { ...producer, baseSequence: 3 }));
    expect([retried.errorCode, retried.baseOffset]).toEqual([0, 3]);
    expect((await produce(client, TOPIC, 0, recordBatch(['gap'], { ...producer, baseSequence: 9 }))).errorCode).toBe(45);
    expect((await send(0, ['a5'], -1, 5)).baseOffset).toBe(5);
    expect((await offsetsOf(client, 0)).highWatermark).toBe(6);

    // Unloaded again, more acks=1 data on partition 2 (loaded, unflushed), then kill -9.
    await send(1, ['b5'], 1);
    await waitUnloaded(broker, 0);
    await waitUnloaded(broker, 1);
    await send(2, ['c0', 'c1'], 1);
    const { dataDir, port } = broker;
    await broker.kill();
    broker = await startBroker({ dataDir, port, overrides: ['kafkite.log.unload.idle.ms=300'] });
    client.close();
    client = await connectWithRetry(broker.port);
    expect(await offsetsOf(client, 0)).toEqual({ errorCode: 0, highWatermark: 6, lastStableOffset: 6, logStartOffset: 2 });
    for (const [partition, values] of acked) {
      expect((await readPartition(client, TOPIC, partition, partition === 0 ? 2 : 0)).values, `${TOPIC}-${partition}`).toEqual(values);
    }
    expect((await produce(client, TOPIC, 0, recordBatch(['a5'], { ...producer, baseSequence: 5 }))).baseOffset).toBe(5);
  });

  it('answers requests while the background load after a restart is still going', async () => {
    const TOPICS = 15;
    const PARTITIONS = 100;
    broker = await startBroker();
    client = await connectWithRetry(broker.port);
    const res = await client.send(19, 7, {
      topics: Array.from({ length: TOPICS }, (_, t) => ({ name: `bg-${t}`, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 60_000,
      validateOnly: false,
    });
    expect((res.topics as Array<{ errorCode: number }>).every((t) => t.errorCode === 0)).toBe(true);
    expect((await produce(client, 'bg-0', 0, recordBatch(['x']))).errorCode).toBe(0);
    client.close();
    const { dataDir, port } = broker;
    expect(await broker.stop()).toBe(0);

    broker = await startBroker({ dataDir, port });
    const restarted = broker;
    const loadedLine = () => restarted.logs.find((l) => /^Loaded \d+ logs in the background/.test(String(l.msg)));
    client = await connectWithRetry(broker.port);
    // Produce and fetch on partitions the background load has (most likely) not reached yet, until it is done.
    let answeredDuringLoad = 0;
    for (let i = 0; i < 10_000 && loadedLine() === undefined; i++) {
      const topic = `bg-${TOPICS - 1 - (i % TOPICS)}`;
      const partition = PARTITIONS - 1 - Math.floor(i / TOPICS);
      const produced = await produce(client, topic, partition, recordBatch([`r${i}`]), 1);
      const fetched = await fetchPartition(client, topic, partition, 0);
      expect([produced.errorCode, fetched.errorCode]).toEqual([0, 0]);
      if (loadedLine() === undefined) answeredDuringLoad++;
    }
    for (let i = 0; i < 600 && loadedLine() === undefined; i++) await sleep(100);
    expect(String(loadedLine()?.msg)).toMatch(new RegExp(`^Loaded ${TOPICS * PARTITIONS} logs in the background`));
    expect(answeredDuringLoad).toBeGreaterThan(0);
    // Recovered and unloaded again at once (kafkite.log.unload.idle.ms defaults to 10 minutes, which only the
    // partitions just used wait for).
    const text = await metrics(broker);
    const loaded = Number(/^kafkite_partition_logs\{state="loaded"\} (\d+)$/m.exec(text)![1]);
    const unloaded = Number(/^kafkite_partition_logs\{state="unloaded"\} (\d+)$/m.exec(text)![1]);
    expect(loaded + unloaded).toBeGreaterThanOrEqual(TOPICS * PARTITIONS);
    expect(loaded).toBeLessThanOrEqual(answeredDuringLoad + 100);
    expect((await readPartition(client, 'bg-0', 0)).values).toEqual(['x']);
  });
});
