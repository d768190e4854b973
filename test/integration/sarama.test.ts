// sarama 1.22.1 (Debian's golang-github-shopify-sarama-dev), the Go client, built from Debian's sources
// with Debian's Go. Its protocol follows the Kafka version it is configured with, not ApiVersions:
// 0.8.2 sends message format v0 (Produce v0, Fetch v0), 0.10.2 message format v1 (Produce v2, Fetch v3) and
// its consumer groups (JoinGroup v1), 2.1 record batches (Produce v3, Fetch v4). What it writes is checked
// on disk, what its group commits through a second client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { CompressionType } from '../../protocol/records/batch-header.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { batchesOnDisk } from '../helpers/disk-batches.js';
import { goBuild } from '../helpers/go-build.js';
import { runJsonClient } from '../helpers/json-client.js';

const SOURCE = join(import.meta.dirname, 'sarama');
const RECORDS = 100;
/** UNSUPPORTED_COMPRESSION_TYPE, as sarama words it. */
const UNSUPPORTED_COMPRESSION = 'The requesting client does not support the compression type of given partition.';

const CASES = [
  { version: '0.8.2.0', codec: 'snappy', compression: CompressionType.Snappy, group: null },
  { version: '0.10.2.0', codec: 'gzip', compression: CompressionType.Gzip, group: 'sarama-g-0.10' },
  { version: '2.1.0', codec: 'lz4', compression: CompressionType.Lz4, group: 'sarama-g-2.1' },
] as const;

let broker: BrokerProcess;
let client: WireClient;
let buildDir: string;
let binary: string;

/** Builds the Go client in GOPATH mode over Debian's packaged sources: no module download. */
function buildSarama(): Promise<void> {
  return goBuild(SOURCE, binary, { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: join(buildDir, 'cache'), GOFLAGS: '' });
}

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), 'kafkite-sarama-'));
  binary = join(buildDir, 'sarama');
  await buildSarama();
  broker = await startBroker({ overrides: ['offsets.topic.num.partitions=3', 'auto.create.topics.enable=false'] });
  client = await WireClient.connect(broker.port);
  for (const name of [...CASES.map((c) => `sarama-${c.version}`), 'sarama-zstd']) {
    const res = await client.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(res.topics[0].errorCode).toBe(0);
  }
}, 180_000);

afterAll(async () => {
  client?.close();
  if (broker) {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  }
  rmSync(buildDir, { recursive: true, force: true });
});

/** sarama's outcome, its error included: the zstd case expects one. */
function sarama(version: string, codec: string, topic: string, group: string | null): Promise<any> {
  return runJsonClient(binary, [`127.0.0.1:${broker.port}`, version, codec, topic, ...(group ? [group] : [])], { allowError: true });
}

describe('sarama 1.22.1', () => {
  for (const { version, codec, compression, group } of CASES) {
    it(`as Kafka ${version}: produces with ${codec} (stored as v2 batches with ${codec}) and reads back${group ? ' in a group that commits' : ''}`, async () => {
      const topic = `sarama-${version}`;
      const result = await sarama(version, codec, topic, group);
      expect(result.error).toBeUndefined();
      expect(result.offsets).toEqual([...Array(RECORDS).keys()]);
      const stored = batchesOnDisk(broker.dataDir, topic);
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.every((b) => b.magic === 2 && b.compression === compression)).toBe(true);
      expect(stored.reduce((n, b) => n + b.records, 0)).toBe(RECORDS);
      // Key and value of every record as produced.
      expect(result).toMatchObject({ consumed: RECORDS, matching: RECORDS });
      if (group) {
        const fetched = await client.send(9, 7, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], groups: [], requireStable: false });
        expect(fetched.topics[0].partitions.map((p: any) => [p.errorCode, p.committedOffset])).toEqual([[0, RECORDS]]);
      }
    });
  }

  it('zstd from sarama 1.22 (in Produce v3) is refused with UNSUPPORTED_COMPRESSION_TYPE, as Kafka does below v7, and nothing is stored', async () => {
    const result = await sarama('2.1.0', 'zstd', 'sarama-zstd', null);
    expect(result.error).toBe(`kafka server: ${UNSUPPORTED_COMPRESSION}`);
    expect(batchesOnDisk(broker.dataDir, 'sarama-zstd')).toEqual([]);
  });
});
