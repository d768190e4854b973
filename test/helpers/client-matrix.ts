// One suite for every current client under test/clients/<lang>/ (confluent-kafka, kafka-python 3, aiokafka;
// franz-go, sarama, kafka-go): each client program takes the same scenarios (`produce <topic> <codec>`,
// `consume <topic> <group> <classic|consumer>`, `transact <topic> <transactional id>`, `read-committed
// <topic>`, `create-topic <topic>`, `delete-topic <topic>`) and prints their JSON. What the client did is
// checked on disk (the stored batches, their codec, the transaction markers) or through a second client
// (kafkite's wire client, or a second process of the client), never through the client's own answers
// alone. The README's client matrix lists these tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { CompressionType } from '../../protocol/records/batch-header.js';
import { REPO_ROOT, type BrokerProcess } from './broker-process.js';
import { batchesOnDisk } from './disk-batches.js';

export interface ClientUnderTest {
  /** The client and its pinned version: the first two cells of its row in the README's client matrix. */
  name: string;
  version: string;
  /** Prefix of its topics, groups and transactional ids. */
  id: string;
  run(scenario: string, ...args: string[]): Promise<any>;
  groupProtocols: Array<'classic' | 'consumer'>;
  /** The transaction version (KIP-890) of its committed and of its aborted transaction; none without transactions. */
  transactionVersions: [1 | 2, 1 | 2] | null;
}

/** As the client programs' RECORDS and TXN_RECORDS. */
const RECORDS = 100;
const TXN_RECORDS = 10;
const CODECS = [['none', CompressionType.None], ['gzip', CompressionType.Gzip], ['snappy', CompressionType.Snappy], ['lz4', CompressionType.Lz4], ['zstd', CompressionType.Zstd]] as const;
const ALL = [...Array(RECORDS).keys()];

async function createTopic(wire: WireClient, name: string): Promise<void> {
  const res = await wire.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(res.topics[0].errorCode).toBe(0);
}

/** The topic's partition count as Metadata tells a second client; null when it is not there. */
async function partitionsOf(wire: WireClient, name: string): Promise<number | null> {
  const res = await wire.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  const topic = res.topics.find((t: any) => t.name === name);
  return topic ? topic.partitions.length : null;
}

export function describeClient(broker: () => BrokerProcess, wire: () => WireClient, client: ClientUnderTest): void {
  const { id } = client;
  describe(`${client.name} ${client.version}`, () => {
    it('is in the README\'s client matrix at its pinned version', () => {
      const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
      expect(readme).toContain(`\n| ${client.name} | ${client.version} |`);
    });

    for (const [codec, compression] of CODECS) {
      it(`produces with ${codec}: stored as v2 batches with ${codec}`, async () => {
        const topic = `${id}-${codec}`;
        await createTopic(wire(), topic);
        const produced = await client.run('produce', topic, codec);
        expect(produced.offsets).toEqual(ALL);
        const stored = batchesOnDisk(broker().dataDir, topic);
        expect(stored.length).toBeGreaterThan(0);
        expect(stored.map((b) => [b.magic, b.compression])).toEqual(stored.map(() => [2, compression]));
        expect(stored.reduce((n, b) => n + b.records, 0)).toBe(RECORDS);
      });
    }

    for (const protocol of client.groupProtocols) {
      it(`consumes in a ${protocol} group and commits: the offset and the group's type as a second client reads them`, async () => {
        const topic = `${id}-group-${protocol}`;
        const group = `${id}-g-${protocol}`;
        await createTopic(wire(), topic);
        expect((await client.run('produce', topic, 'lz4')).offsets).toEqual(ALL);
        const consumed = await client.run('consume', topic, group, protocol);
        expect(consumed.offsets).toEqual(ALL);
        expect(consumed.matching).toBe(RECORDS);

        const fetched = await wire().send(9, 7, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], groups: [], requireStable: true });
        expect(fetched.topics[0].partitions.map((p: any) => [p.errorCode, p.committedOffset])).toEqual([[0, RECORDS]]);
        // KIP-848's ListGroups v5 names the protocol the group was formed with: the client did use it.
        const listed = await wire().send(16, 5, { statesFilter: [], typesFilter: [] });
        expect(listed.groups.find((g: any) => g.groupId === group)?.groupType).toBe(protocol);
      });
    }

    const versions = client.transactionVersions;
    if (versions) {
      it(`commits one transaction and aborts the next (transaction versions ${versions.join(' and ')}): both markers on disk, a read_committed reader sees only the committed`, async () => {
        const topic = `${id}-txn`;
        await createTopic(wire(), topic);
        await client.run('transact', topic, `${id}-tid`);
        // The data batches of each transaction, then its marker.
        const stored = batchesOnDisk(broker().dataDir, topic);
        const markers = stored.filter((b) => b.marker !== null);
        expect(markers.map((b) => b.marker)).toEqual(['COMMIT', 'ABORT']);
        const [commit, abort] = markers.map((b) => b.baseOffset);
        const data = stored.filter((b) => b.marker === null);
        expect(data.every((b) => b.isTransactional)).toBe(true);
        const count = (from: number, to: number): number => data.filter((b) => b.baseOffset > from && b.baseOffset < to).reduce((n, b) => n + b.records, 0);
        expect([count(-1, commit), count(commit, abort)]).toEqual([TXN_RECORDS, TXN_RECORDS]);
        // Transaction version 2 bumps the producer epoch at each EndTxn: its marker carries the next epoch.
        const epochOfData = (after: number): number => data.find((b) => b.baseOffset > after)!.producerEpoch;
        expect([markers[0].producerEpoch - epochOfData(-1), markers[1].producerEpoch - epochOfData(commit)].map((bump) => bump + 1)).toEqual(versions);

        const read = await client.run('read-committed', topic);
        expect(read.values).toEqual([...Array(TXN_RECORDS).keys()].map((i) => `committed-${i}`));
      });
    }

    it('creates a topic (its description has 3 partitions, as Metadata tells a second client) and deletes it', async () => {
      const topic = `${id}-admin`;
      const created = await client.run('create-topic', topic);
      expect(created.partitions).toBe(3);
      expect(await partitionsOf(wire(), topic)).toBe(3);
      await client.run('delete-topic', topic);
      expect(await partitionsOf(wire(), topic)).toBeNull();
    });
  });
}
