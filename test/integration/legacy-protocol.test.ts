// The protocol versions KIP-896 removed, over TCP with our own wire client: Produce v0-2 and Fetch v0-3
// with message formats v0/v1, ListOffsets v0, Metadata v0, OffsetCommit v0-1, OffsetFetch v0, JoinGroup v0-1.
import { crc32 } from '@node-rs/crc32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { CompressionType, batchesIn } from '../../protocol/records/batch-header.js';
import { decodeMessageSet, encodeMessageSet } from '../../protocol/records/legacy-records.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { batchesOnDisk } from '../helpers/disk-batches.js';

let broker: BrokerProcess;
let client: WireClient;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['num.partitions=1', 'auto.create.topics.enable=true'] });
  client = await WireClient.connect(broker.port);
});

afterAll(async () => {
  client.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

const messages = (n: number, from = 0): Array<{ offset: number; timestamp: number; key: Buffer; value: Buffer }> =>
  Array.from({ length: n }, (_, i) => ({ offset: i, timestamp: 1_600_000_000_000 + from + i, key: Buffer.from(`k${from + i}`), value: Buffer.from(`v${from + i}`) }));

async function produce(version: number, topic: string, records: Buffer, c = client): Promise<{ errorCode: number; baseOffset: number }> {
  const res = await c.send(0, version, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
  return res.responses[0].partitionResponses[0];
}

async function fetch(version: number, topic: string, fetchOffset: number, partitionMaxBytes = 1 << 20, c = client): Promise<{ errorCode: number; highWatermark: number; records: Buffer | null }> {
  const res = await c.send(1, version, {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
    isolationLevel: 0, sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
    topics: [{ topic, topicId: '', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes, replicaDirectoryId: '' }] }],
  });
  return res.responses[0].partitions[0];
}

async function metadata(topic: string, c = client): Promise<void> {
  const res = await c.send(3, 0, { topics: [{ name: topic, topicId: '' }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  expect(res.topics[0].errorCode).toBe(0);
}

describe('protocol versions older than Kafka 4 baseline', () => {
  it('Metadata v0 auto-creates and describes a topic; ApiVersions lists Produce and Fetch from v0', async () => {
    await metadata('legacy-meta');
    const res = await client.send(3, 0, { topics: [], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(res.topics.map((t: { name: string }) => t.name)).toContain('legacy-meta');
    expect(res.brokers[0].port).toBe(broker.port);
    const versions = await client.send(18, 0, { clientSoftwareName: '', clientSoftwareVersion: '' });
    const range = (key: number): number[] => { const k = versions.apiKeys.find((a: { apiKey: number }) => a.apiKey === key); return [k.minVersion, k.maxVersion]; };
    expect(range(0)[0]).toBe(0);
    expect(range(1)).toEqual([0, 18]);
  });

  for (const [version, magic] of [[0, 0], [1, 0], [2, 1]] as const) {
    for (const compression of [CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4]) {
      it(`Produce v${version} (magic ${magic}, ${CompressionType[compression]}) stores v2 batches with the same codec`, async () => {
        const topic = `legacy-p${version}-${CompressionType[compression]}`;
        await metadata(topic);
        const before = Date.now();
        const first = await produce(version, topic, Buffer.concat(encodeMessageSet({ magic, compression, records: messages(5) })));
        expect(first).toMatchObject({ errorCode: 0, baseOffset: 0 });
        const second = await produce(version, topic, Buffer.concat(encodeMessageSet({ magic, compression, records: messages(3, 5) })));
        expect(second).toMatchObject({ errorCode: 0, baseOffset: 5 });
        const stored = batchesOnDisk(broker.dataDir, topic);
        expect(stored.map((b) => [b.magic, b.compression, b.records])).toEqual(
          compression === CompressionType.None ? [[2, 0, 5], [2, 0, 3]] : [[2, compression, 5], [2, compression, 3]]);
        // Read back as v2 (Fetch v4): v1 timestamps kept, v0 ones from the broker's clock.
        const v2 = await fetch(4, topic, 0);
        const records = [...batchesIn(v2.records!)].flatMap((h) => decodeBatch(v2.records!.subarray(h.pos, h.pos + h.sizeInBytes)).records);
        expect(records.map((r) => r.value!.toString())).toEqual(Array.from({ length: 8 }, (_, i) => `v${i}`));
        if (magic === 1) expect(records.map((r) => r.timestamp)).toEqual(Array.from({ length: 8 }, (_, i) => 1_600_000_000_000 + i));
        else expect(records.every((r) => r.timestamp >= before && r.timestamp <= Date.now())).toBe(true);
      });
    }
  }

  it('refuses a v2 batch in Produce v2 and a message set in Produce v3', async () => {
    await metadata('legacy-refuse');
    const batch = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: 1, key: null, value: Buffer.from('x'), headers: [] }] });
    expect((await produce(2, 'legacy-refuse', batch)).errorCode).toBe(87);
    const set = Buffer.concat(encodeMessageSet({ magic: 1, compression: CompressionType.None, records: messages(1) }));
    expect((await produce(3, 'legacy-refuse', set)).errorCode).not.toBe(0);
    const zstd = encodeMessageSet({ magic: 1, compression: CompressionType.None, records: messages(1) })[0]!;
    // The same message marked zstd, with a valid CRC: magic 0/1 cannot carry zstd.
    zstd.writeInt8(CompressionType.Zstd, 17);
    zstd.writeUInt32BE(crc32(zstd.subarray(16)) >>> 0, 12);
    expect((await produce(2, 'legacy-refuse', zstd)).errorCode).toBe(76);
    expect(batchesOnDisk(broker.dataDir, 'legacy-refuse')).toEqual([]);
  });

  for (const [version, magic] of [[0, 0], [1, 0], [2, 1], [3, 1]] as const) {
    it(`Fetch v${version} converts v2 batches down to magic ${magic}, from the fetch offset, within the partition limit`, async () => {
      const topic = `legacy-f${version}`;
      await metadata(topic);
      // Stored through Produce v3: v2 batches with headers, one gzip, one plain.
      const rec = (o: number): { offset: number; timestamp: number; key: Buffer; value: Buffer; headers: Array<{ key: string; value: Buffer }> } =>
        ({ offset: o, timestamp: 1_700_000_000_000 + o, key: Buffer.from(`k${o}`), value: Buffer.from(`v${o}`), headers: [{ key: 'h', value: Buffer.from('x') }] });
      expect((await produce(3, topic, encodeBatch({ baseOffset: 0, records: [0, 1, 2, 3].map(rec), compression: CompressionType.Gzip }))).errorCode).toBe(0);
      expect((await produce(3, topic, encodeBatch({ baseOffset: 0, records: [0, 1, 2].map(rec) }))).errorCode).toBe(0);
      const all = await fetch(version, topic, 2);
      expect(all.errorCode).toBe(0);
      expect(all.highWatermark).toBe(7);
      const entries = decodeMessageSet(all.records!);
      expect(entries.map((e) => e.compression)).toEqual([CompressionType.Gzip, 0, 0, 0]);
      const got = entries.flatMap((e) => e.records);
      expect(got.map((r) => [r.offset, r.magic, r.key!.toString(), r.value!.toString()])).toEqual(
        [[2, magic, 'k2', 'v2'], [3, magic, 'k3', 'v3'], [4, magic, 'k0', 'v0'], [5, magic, 'k1', 'v1'], [6, magic, 'k2', 'v2']]);
      if (magic === 1) expect(got.map((r) => r.timestamp)).toEqual([1_700_000_000_002, 1_700_000_000_003, 1_700_000_000_000, 1_700_000_000_001, 1_700_000_000_002]);
      // A limit of one plain message (v0: 26 + 4 bytes; v1: 34 + 4) returns exactly one.
      const one = await fetch(version, topic, 5, magic === 0 ? 30 : 38);
      expect(decodeMessageSet(one.records!).flatMap((e) => e.records).map((r) => r.offset)).toEqual([5]);
      const end = await fetch(version, topic, 7);
      expect(end.records?.length ?? 0).toBe(0);
    });
  }

  it('ListOffsets v0 answers the offsets array', async () => {
    const topic = 'legacy-p2-Gzip';
    const res = await client.send(2, 0, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] });
    expect(res.topics[0].partitions[0]).toMatchObject({ errorCode: 0, oldStyleOffsets: [8] });
    const earliest = await client.send(2, 0, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2, maxNumOffsets: 1 }] }] });
    expect(earliest.topics[0].partitions[0].oldStyleOffsets).toEqual([0]);
  });

  it('ListOffsets v0 lists segment base offsets before a time, newest first (Kafka 3.x legacyFetchOffsetsBefore)', async () => {
    const topic = 'legacy-segments';
    const created = await client.send(19, 7, { topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'internal.segment.bytes', value: '100' }] }], timeoutMs: 5000, validateOnly: false });
    expect(created.topics[0].errorCode).toBe(0);
    const before = Date.now() - 60_000;
    for (let i = 0; i < 3; i++) {
      const batch = encodeBatch({ baseOffset: 0, records: [0, 1].map((j) => ({ offset: j, timestamp: Date.now(), key: null, value: Buffer.alloc(80, i), headers: [] })) });
      expect((await produce(3, topic, batch)).errorCode).toBe(0);
    }
    const v0 = async (timestamp: number, maxNumOffsets: number): Promise<number[]> => {
      const res = await client.send(2, 0, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets }] }] });
      expect(res.topics[0].partitions[0].errorCode).toBe(0);
      return res.topics[0].partitions[0].oldStyleOffsets;
    };
    // Each 2-record batch outgrows the 100-byte segment, so the log has segments at 0, 2, 4 and an empty active one at 6.
    expect(await v0(-1, 10)).toEqual([6, 4, 2, 0]);
    expect(await v0(-1, 2)).toEqual([6, 4]);
    expect(await v0(-2, 10)).toEqual([0]);
    expect(await v0(Date.now() + 60_000, 10)).toEqual([6, 4, 2, 0]);
    expect(await v0(before, 10)).toEqual([]);
  });

  it('OffsetCommit v0 and v1 store offsets that OffsetFetch v0 reads back', async () => {
    const commit = (version: number, groupId: string, committedOffset: number): Promise<any> => client.send(8, version, {
      groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
      topics: [{ name: 'legacy-p2-Gzip', partitions: [{ partitionIndex: 0, committedOffset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: 'm' }] }],
    });
    for (const [version, groupId, offset] of [[0, 'legacy-g0', 3], [1, 'legacy-g1', 6]] as const) {
      const res = await commit(version, groupId, offset);
      expect(res.topics[0].partitions[0].errorCode).toBe(0);
      const fetched = await client.send(9, 0, { groupId, topics: [{ name: 'legacy-p2-Gzip', partitionIndexes: [0] }], groups: [], requireStable: false });
      expect(fetched.topics[0].partitions[0]).toMatchObject({ errorCode: 0, committedOffset: offset, metadata: 'm' });
    }
  });

  it('JoinGroup v0 and v1 form a group', async () => {
    for (const version of [0, 1]) {
      const groupId = `legacy-join-${version}`;
      const fc = await client.send(10, 0, { key: groupId, keyType: 0, coordinatorKeys: [] });
      expect(fc.errorCode).toBe(0);
      const res = await client.send(11, version, {
        groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }], reason: null,
      });
      expect(res.errorCode).toBe(0);
      expect(res.memberId).not.toBe('');
      expect(res.leader).toBe(res.memberId);
      expect(res.protocolName).toBe('range');
    }
  });
});

describe('message.timestamp.type=LogAppendTime', () => {
  it('stamps up-converted v1 messages with the broker clock and hands the v1 consumer a LogAppendTime message', async () => {
    const lat = await startBroker({ overrides: ['num.partitions=1', 'log.message.timestamp.type=LogAppendTime'] });
    const c = await WireClient.connect(lat.port);
    try {
      await metadata('lat', c);
      const before = Date.now();
      const res = await c.send(0, 2, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'lat', partitionData: [{ index: 0, records: Buffer.concat(encodeMessageSet({ magic: 1, compression: CompressionType.Gzip, records: messages(3) })) }] }] });
      const appended = res.responses[0].partitionResponses[0];
      expect(appended.errorCode).toBe(0);
      expect(appended.logAppendTimeMs).toBeGreaterThanOrEqual(before);
      const [stored] = batchesOnDisk(lat.dataDir, 'lat');
      expect(stored!.maxTimestamp).toBe(Number(appended.logAppendTimeMs));
      const [entry] = decodeMessageSet((await fetch(3, 'lat', 0, 1 << 20, c)).records!);
      expect(entry!.logAppendTime).toBe(true);
      expect(entry!.records.map((r) => r.timestamp)).toEqual([0, 1, 2].map(() => Number(appended.logAppendTimeMs)));
    } finally {
      c.close();
      await lat.stop();
      lat.cleanup();
    }
  });
});

describe('message.downconversion.enable=false', () => {
  it('answers Fetch v0-3 with UNSUPPORTED_VERSION and still serves v4+', async () => {
    const off = await startBroker({ overrides: ['num.partitions=1', 'log.message.downconversion.enable=false'] });
    const c = await WireClient.connect(off.port);
    try {
      await metadata('no-down', c);
      expect((await produce(2, 'no-down', Buffer.concat(encodeMessageSet({ magic: 1, compression: 0, records: messages(2) })), c)).errorCode).toBe(0);
      for (const v of [0, 1, 2, 3]) expect((await fetch(v, 'no-down', 0, 1 << 20, c)).errorCode).toBe(35);
      expect((await fetch(4, 'no-down', 0, 1 << 20, c)).records!.length).toBeGreaterThan(0);
    } finally {
      c.close();
      await off.stop();
      off.cleanup();
    }
  });
});
