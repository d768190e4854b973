// kafka-python 2.0.2 (Debian's python3-kafka), the pure-Python client. It picks its protocol versions
// from a broker version it guesses from ApiVersions (kafkite reads as 2.5): Produce v7, Fetch v4,
// ListOffsets v1, JoinGroup v2, OffsetCommit v2, OffsetFetch v1, and its own admin requests. What it
// writes is checked on disk, what it commits and creates through a second client.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { CompressionType } from '../../protocol/records/batch-header.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { batchesOnDisk } from '../helpers/disk-batches.js';
import { runJsonClient } from '../helpers/json-client.js';

const SCRIPT = join(import.meta.dirname, 'kafka_python_client.py');
/** Debian's interpreter, where python3-kafka and its codec modules are installed (.ci/run installs them). */
const PYTHON = '/usr/bin/python3';
const RECORDS = 200;
const CODECS = [['none', CompressionType.None], ['gzip', CompressionType.Gzip], ['snappy', CompressionType.Snappy], ['lz4', CompressionType.Lz4], ['zstd', CompressionType.Zstd]] as const;

let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['offsets.topic.num.partitions=3'] });
  client = await WireClient.connect(broker.port);
  for (const [codec] of CODECS) {
    const res = await client.send(19, 7, { topics: [{ name: `kp-${codec}`, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(res.topics[0].errorCode).toBe(0);
  }
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function run(scenario: string, ...args: string[]): Promise<any> {
  return runJsonClient(PYTHON, [SCRIPT, `127.0.0.1:${broker.port}`, scenario, ...args]);
}

function topicNames(metadata: any): string[] {
  return metadata.topics.map((t: any) => t.name).filter((n: string) => !n.startsWith('__')).sort();
}

describe('kafka-python 2.0.2', () => {
  for (const [codec, compression] of CODECS) {
    it(`produces with ${codec} (stored as sent: v2 batches with ${codec}) and a group consumes, commits and seeks by time`, async () => {
      const topic = `kp-${codec}`;
      const produced = await run('produce', topic, codec);
      expect(produced.apiVersion).toEqual([2, 5, 0]);
      expect(produced.offsets).toEqual([...Array(RECORDS).keys()]);
      const stored = batchesOnDisk(broker.dataDir, topic);
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.every((b) => b.magic === 2 && b.compression === compression)).toBe(true);
      expect(stored.reduce((n, b) => n + b.records, 0)).toBe(RECORDS);

      const consumed = await run('consume', topic, `kp-group-${codec}`);
      expect(consumed.offsets).toEqual([...Array(RECORDS).keys()]);
      // Key, value and header of every record as produced.
      expect(consumed.matching).toBe(RECORDS);
      expect(consumed.committed).toBe(RECORDS);
      expect(consumed.endOffset).toBe(RECORDS);
      const firstAtOrAfter = consumed.timestamps.findIndex((t: number) => t >= consumed.middleTimestamp);
      expect(consumed.offsetForMiddleTimestamp).toBe(firstAtOrAfter);

      // The group's offset as a second client reads it.
      const fetched = await client.send(9, 7, { groupId: `kp-group-${codec}`, topics: [{ name: topic, partitionIndexes: [0] }], groups: [], requireStable: false });
      expect(fetched.topics[0].partitions.map((p: any) => [p.errorCode, p.committedOffset])).toEqual([[0, RECORDS]]);
    });
  }

  it('creates a topic with a config, adds a partition, lists and describes groups, and deletes the topic', async () => {
    const created = await run('create-topic', 'kp-admin');
    expect(created.retentionMs).toBe('7200000');
    expect(created.groups).toMatchObject({ 'kp-group-none': 'Empty' });

    const metadata = await client.send(3, 12, { topics: [{ topicId: '0'.repeat(32), name: 'kp-admin' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(metadata.topics[0].errorCode).toBe(0);
    expect(metadata.topics[0].partitions).toHaveLength(3);
    const configs = await client.send(32, 4, { resources: [{ resourceType: 2, resourceName: 'kp-admin', configurationKeys: ['retention.ms'] }], includeSynonyms: false, includeDocumentation: false });
    expect(configs.results[0].configs.map((c: any) => [c.name, c.value])).toEqual([['retention.ms', '7200000']]);

    await run('delete-topic', 'kp-admin');
    const all = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(topicNames(all)).not.toContain('kp-admin');
  });
});
