// Damaged files under a real broker process: each case writes data, stops the broker, damages one
// file, restarts on the same log dir and reads everything back. The broker must start, repair, say
// what it did (file and position), serve everything before the damage, and go on appending.
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { connectWithRetry, createTopic, produce, readPartition, recordBatch } from './support.js';

const TOPIC = 'damaged';
const RECORDS = 500;
const PER_BATCH = 10;

let broker: BrokerProcess | undefined;
afterEach(async () => {
  await broker?.kill();
  broker?.cleanup();
  broker = undefined;
});

const values = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `value-${String(from + i).padStart(5, '0')}-${'x'.repeat(80)}`);

/** A broker with RECORDS records in several small segments, then stopped (SIGTERM, or SIGKILL when `crash`). */
async function brokerWithData(crash = false): Promise<{ dataDir: string; port: number; partitionDir: string; segments: string[] }> {
  broker = await startBroker();
  const client = await connectWithRetry(broker.port);
  await createTopic(client, TOPIC, 1, [{ name: 'internal.segment.bytes', value: '16384' }]);
  for (let i = 0; i < RECORDS; i += PER_BATCH) {
    const res = await produce(client, TOPIC, 0, recordBatch(values(i, i + PER_BATCH)));
    expect(res.errorCode).toBe(0);
  }
  client.close();
  if (crash) await broker.kill();
  else expect(await broker.stop()).toBe(0);
  const partitionDir = join(broker.dataDir, `${TOPIC}-0`);
  const segments = readdirSync(partitionDir).filter((f) => f.endsWith('.log')).sort().map((f) => join(partitionDir, f));
  expect(segments.length).toBeGreaterThan(2);
  return { dataDir: broker.dataDir, port: broker.port, partitionDir, segments };
}

/** Restarts, reads everything back, appends one more batch and reads it; returns the broker's log lines. */
async function restartAndVerify(dataDir: string, port: number): Promise<string[]> {
  broker = await startBroker({ dataDir, port });
  const client = await connectWithRetry(port);
  const before = await readPartition(client, TOPIC, 0);
  expect(before.errorCode).toBe(0);
  expect(before.values).toEqual(values(0, RECORDS));
  const res = await produce(client, TOPIC, 0, recordBatch(values(RECORDS, RECORDS + PER_BATCH)));
  expect(res.errorCode).toBe(0);
  expect(res.baseOffset).toBe(RECORDS);
  const after = await readPartition(client, TOPIC, 0, RECORDS - 5);
  expect(after.values).toEqual(values(RECORDS - 5, RECORDS + PER_BATCH));
  client.close();
  return broker.logs.map((l) => String(l.msg));
}

describe('damaged files', () => {
  it('truncates garbage appended to the active .log', async () => {
    const { dataDir, port, segments } = await brokerWithData();
    const active = segments.at(-1)!;
    const size = statSync(active).size;
    appendFileSync(active, Buffer.from('this is not a record batch, just garbage at the end of the log'));
    const logs = await restartAndVerify(dataDir, port);
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`truncated ${active} at position ${size} \\(\\d+ bytes: `)));
  });

  it('truncates a half-written batch after a crash', async () => {
    const { dataDir, port, segments } = await brokerWithData(true);
    const active = segments.at(-1)!;
    const size = statSync(active).size;
    const batch = encodeBatch({
      baseOffset: RECORDS,
      records: [{ offset: RECORDS, timestamp: Date.now(), key: null, value: Buffer.alloc(500, 1), headers: [] }],
    });
    appendFileSync(active, batch.subarray(0, batch.length >> 1));
    const logs = await restartAndVerify(dataDir, port);
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`truncated ${active} at position ${size} .*incomplete batch`)));
  });

  it('rebuilds a truncated .index', async () => {
    const { dataDir, port, segments } = await brokerWithData();
    const index = segments[0]!.replace(/\.log$/, '.index');
    expect(statSync(index).size).toBeGreaterThan(8);
    truncateSync(index, 5);
    const logs = await restartAndVerify(dataDir, port);
    expect(logs).toContainEqual(expect.stringContaining(`Rebuilt indexes of ${segments[0]} (corrupt ${index}`));
  });

  it('rebuilds a deleted .timeindex', async () => {
    const { dataDir, port, segments } = await brokerWithData();
    const timeIndex = segments[1]!.replace(/\.log$/, '.timeindex');
    rmSync(timeIndex);
    const logs = await restartAndVerify(dataDir, port);
    expect(logs).toContainEqual(expect.stringContaining(`Rebuilt indexes of ${segments[1]} (missing ${timeIndex})`));
  });

  it('ignores corrupt checkpoint files and recovers the whole log instead', async () => {
    const { dataDir, port } = await brokerWithData(true);
    for (const name of ['recovery-point-offset-checkpoint', 'log-start-offset-checkpoint']) {
      writeFileSync(join(dataDir, name), '0\n7\ndamaged dam\x00ged\n');
    }
    const logs = await restartAndVerify(dataDir, port);
    for (const name of ['recovery-point-offset-checkpoint', 'log-start-offset-checkpoint']) {
      expect(logs).toContainEqual(expect.stringContaining(`Ignoring ${join(dataDir, name)}: malformed checkpoint file`));
    }
  });

  it('writes a new meta.properties when it is missing', async () => {
    const { dataDir, port } = await brokerWithData();
    rmSync(join(dataDir, 'meta.properties'));
    const logs = await restartAndVerify(dataDir, port);
    expect(logs).toContainEqual(expect.stringContaining(`${join(dataDir, 'meta.properties')} is missing`));
    // Kafka keeps the cluster id only there (it refuses to start without it); kafkite writes a new one and serves on.
    expect(readFileSync(join(dataDir, 'meta.properties'), 'utf8')).toMatch(/cluster\.id=\S+/);
  });

  it('rebuilds the topics from the partition directories when the metadata log is gone and kafkite-topics.json is corrupt', async () => {
    const { dataDir, port } = await brokerWithData();
    const topicId = readFileSync(join(dataDir, `${TOPIC}-0`, 'partition.metadata'), 'utf8');
    rmSync(join(dataDir, '__cluster_metadata-0'), { recursive: true });
    const file = join(dataDir, 'kafkite-topics.json');
    writeFileSync(file, '{"version": 1, "clusterId": "x", "top');
    const logs = await restartAndVerify(dataDir, port);
    expect(logs).toContainEqual(expect.stringMatching(/cannot read .*kafkite-topics\.json .*rebuilt 1 topic\(s\) from the log dirs/));
    expect(readFileSync(`${file}.corrupt`, 'utf8')).toBe('{"version": 1, "clusterId": "x", "top');
    expect(readFileSync(join(dataDir, `${TOPIC}-0`, 'partition.metadata'), 'utf8')).toBe(topicId);
  });
});
