import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerConfig } from '../../config/broker-config.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { Broker } from '../../src/broker.js';
import { ErrorCode } from '../../src/errors.js';
import { ClusterMetadataLog, PRE_KRAFT_BACKUP_FILE } from '../../src/metadata/cluster-metadata-log.js';
import { frameMetadataRecord, unframeMetadataRecord, type MetadataRecord } from '../../src/metadata/metadata-frame.js';
import { FEATURES } from '../../src/metadata/features.js';
import { readMetadataRecord, recordTypeOf } from '../../src/metadata/metadata-records.js';
import { DEFAULT_LOG_CONFIG } from '../../storage/log-config.js';

const log = pino({ level: 'silent' });
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkite-metadata-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = () => ClusterMetadataLog.open({ dir, config: DEFAULT_LOG_CONFIG, logger: log, nodeId: 1 });
const FEATURE_LEVEL = recordTypeOf('FeatureLevelRecord');
/** The feature levels a new log's bootstrap records finalize: FEATURES' default levels, metadata.version first. */
const FINALIZED = FEATURES.filter((f) => f.defaultLevel > 0).map((f) => ({ name: f.name, featureLevel: f.defaultLevel }));
/** The records kafkite's own tests appended (types the bootstrap does not write). */
const appended = (records: Iterable<MetadataRecord>) => [...records].filter((r) => r.type >= 200 || [6, 14, 21, 7].includes(r.type));

function batchesOf(file: string) {
  const bytes = readFileSync(file);
  return [...batchesIn(bytes)].map((h) => ({ header: h, records: decodeBatch(bytes.subarray(h.pos, h.pos + h.sizeInBytes)).records }));
}

describe('ClusterMetadataLog', () => {
  it('opens a new log as a KRaft leader does: quorum-state, bootstrap checkpoint, LeaderChange, the bootstrap records, all at epoch 1', async () => {
    const a = await open();
    await a.close();
    const partitionDir = join(dir, '__cluster_metadata-0');
    expect(JSON.parse(readFileSync(join(partitionDir, 'quorum-state'), 'utf8'))).toEqual({
      clusterId: '', leaderId: 1, leaderEpoch: 1, votedId: -1, appliedOffset: 0, currentVoters: [{ voterId: 1 }], data_version: 0,
    });
    // Control key: int16 version 0, int16 type (2 = LEADER_CHANGE); value: LeaderChangeMessage v0 (leader 1, voters [1], granting [1]).
    const log0 = batchesOf(join(partitionDir, '00000000000000000000.log'));
    expect(log0[0]!.header.isControl).toBe(true);
    expect(log0[0]!.records[0]!.key).toEqual(Buffer.from([0, 0, 0, 2]));
    expect(log0[0]!.records[0]!.value!.toString('hex')).toBe('0000' + '00000001' + '02' + '0000000100' + '02' + '0000000100' + '00');
    expect(log0.map((b) => b.header.partitionLeaderEpoch)).toEqual([1, 1]);
    const bootstrap = log0[1]!.records.map((r) => unframeMetadataRecord(r.value!));
    expect(bootstrap.map((r) => r.type)).toEqual([recordTypeOf('BeginTransactionRecord'), ...FINALIZED.map(() => FEATURE_LEVEL), recordTypeOf('EndTransactionRecord')]);
    expect(bootstrap.filter((r) => r.type === FEATURE_LEVEL).map((r) => readMetadataRecord('FeatureLevelRecord', r))).toEqual(FINALIZED);
    expect(FINALIZED.slice(0, 3)).toEqual([{ name: 'metadata.version', featureLevel: 33 }, { name: 'transaction.version', featureLevel: 2 }, { name: 'group.version', featureLevel: 1 }]);
    expect(readFileSync(join(partitionDir, 'leader-epoch-checkpoint'), 'utf8')).toBe('0\n1\n1 0\n');
    // The snapshot kafka-storage format writes: header (type 3), the feature levels, footer (type 4).
    const checkpoint = batchesOf(join(partitionDir, '00000000000000000000-0000000000.checkpoint'));
    expect(checkpoint.map((b) => b.header.isControl)).toEqual([true, false, true]);
    expect(checkpoint[0]!.records[0]!.key).toEqual(Buffer.from([0, 0, 0, 3]));
    expect(checkpoint[2]!.records[0]!.key).toEqual(Buffer.from([0, 0, 0, 4]));
    expect(checkpoint[1]!.records.map((r) => readMetadataRecord<{ name: string }>('FeatureLevelRecord', unframeMetadataRecord(r.value!)).name))
      .toEqual(FINALIZED.map((f) => f.name));
  });

  it('frames records as MetadataRecordSerde does and replays them in order after a reopen', async () => {
    const a = await open();
    await a.append([
      { type: 6, version: 0, body: Buffer.from([1, 2, 3]) },
      { type: 14, version: 0, body: Buffer.from('quota') },
    ]);
    await a.append([{ type: 21, version: 0, body: Buffer.alloc(200, 7) }]);
    await a.close();

    // On disk: v2 batches, null keys, values framed [frame version 1][type][version][body].
    const data = batchesOf(join(dir, '__cluster_metadata-0', '00000000000000000000.log')).filter((b) => !b.header.isControl).slice(1);
    const records = data.flatMap((b) => b.records);
    expect(records.map((r) => r.key)).toEqual([null, null, null]);
    expect(records[0]!.value).toEqual(Buffer.from([1, 6, 0, 1, 2, 3]));
    expect(records[1]!.value).toEqual(Buffer.concat([Buffer.from([1, 14, 0]), Buffer.from('quota')]));
    expect(data.map((b) => b.header.partitionLeaderEpoch)).toEqual([1, 1]);

    const b = await open();
    expect(appended(b.records()).map((r) => ({ ...r, body: r.body.toString('hex') }))).toEqual([
      { type: 6, version: 0, body: '010203' },
      { type: 14, version: 0, body: Buffer.from('quota').toString('hex') },
      { type: 21, version: 0, body: Buffer.alloc(200, 7).toString('hex') },
    ]);
    await b.append([{ type: 300, version: 2, body: Buffer.from([0]) }]);
    expect(appended(b.records()).map((r) => r.type)).toEqual([6, 14, 21, 300]);
    // Bootstrapped once: a reopen writes no second opening.
    expect([...b.records()].filter((r) => r.type === FEATURE_LEVEL)).toHaveLength(FINALIZED.length);
    await b.close();
  });

  it('rewrites a log kafkite wrote before KRaft framing with the opening first, keeping every record', async () => {
    // The former form: records from offset 0, epoch 0, no LeaderChange, no feature levels.
    const partitionDir = join(dir, '__cluster_metadata-0');
    mkdirSync(partitionDir, { recursive: true });
    const old = [{ type: 6, version: 0, body: Buffer.from([5]) }, { type: 21, version: 0, body: Buffer.from([6]) }];
    writeFileSync(join(partitionDir, '00000000000000000000.log'), encodeBatch({
      baseOffset: 0, records: old.map((r, i) => ({ offset: i, timestamp: 1, key: null, value: frameMetadataRecord(r), headers: [] })),
    }));
    const a = await open();
    expect(appended(a.records())).toEqual(old);
    expect([...a.records()][0]!.type).toBe(recordTypeOf('BeginTransactionRecord'));
    expect(existsSync(join(dir, PRE_KRAFT_BACKUP_FILE))).toBe(false);
    await a.close();
    expect(batchesOf(join(partitionDir, '00000000000000000000.log'))[0]!.header.isControl).toBe(true);
  });

  it('resumes a rewrite cut short from the saved copy, not from the half-written log', async () => {
    const old = [{ type: 7, version: 0, body: Buffer.from([9]) }];
    writeFileSync(join(dir, PRE_KRAFT_BACKUP_FILE), encodeBatch({
      baseOffset: 0, records: old.map((r, i) => ({ offset: i, timestamp: 1, key: null, value: frameMetadataRecord(r), headers: [] })),
    }));
    const a = await open();
    expect(appended(a.records())).toEqual(old);
    expect(existsSync(join(dir, PRE_KRAFT_BACKUP_FILE))).toBe(false);
    await a.close();
  });

  it('refuses a quorum-state it cannot read with an error naming the file, leaving the log as it is', async () => {
    const a = await open();
    await a.append([{ type: 6, version: 0, body: Buffer.from([1]) }]);
    await a.close();
    const segment = join(dir, '__cluster_metadata-0', '00000000000000000000.log');
    const bytes = readFileSync(segment);
    writeFileSync(join(dir, '__cluster_metadata-0', 'quorum-state'), '{"leaderId":1,"leaderEp');
    await expect(open()).rejects.toThrow(/cannot read .*quorum-state/);
    expect(readFileSync(segment)).toEqual(bytes);
  });

  it('truncates a torn tail as Kafka log recovery does, keeping the whole batches before it', async () => {
    const a = await open();
    await a.append([{ type: 6, version: 0, body: Buffer.from([1]) }]);
    await a.append([{ type: 21, version: 0, body: Buffer.alloc(100, 2) }]);
    await a.close();
    const segment = join(dir, '__cluster_metadata-0', '00000000000000000000.log');
    truncateSync(segment, readFileSync(segment).length - 30);
    const b = await open();
    expect(appended(b.records())).toEqual([{ type: 6, version: 0, body: Buffer.from([1]) }]);
    expect([...b.records()].filter((r) => r.type === FEATURE_LEVEL)).toHaveLength(FINALIZED.length);
    await b.close();
  });
});

const TOPIC = recordTypeOf('TopicRecord');

describe('the metadata log in the broker', () => {
  it('holds the topics: records on create, config change, new partitions and delete, replayed after a restart', async () => {
    const config = new BrokerConfig({ 'log.dirs': dir, listeners: 'PLAINTEXT://127.0.0.1:0' });
    let broker = await Broker.open(config, log);
    await expect(broker.autoCreateTopic('__cluster_metadata')).rejects.toThrow(expect.objectContaining({ code: ErrorCode.INVALID_REQUEST }));
    const t = await broker.createTopic('t', { partitions: 2, replicationFactor: -1, configs: { 'cleanup.policy': 'compact' }, validateOnly: false });
    await broker.createTopic('gone', { partitions: 1, replicationFactor: -1, configs: {}, validateOnly: false });
    await broker.alterTopicConfigs('t', { 'cleanup.policy': 'compact', 'retention.ms': '1000' }, false);
    await broker.createPartitions('t', 3, false);
    await broker.deleteTopic('gone');
    await broker.shutdown();
    expect(existsSync(join(dir, 'kafkite-topics.json'))).toBe(false);

    broker = await Broker.open(config, log);
    expect([...broker.topics.all()].map((x) => ({ ...x }))).toEqual([{ name: 't', topicId: t.topicId, partitions: 3, configs: { 'cleanup.policy': 'compact', 'retention.ms': '1000' } }]);
    const directoryId = Buffer.from(/directory\.id=(\S+)/.exec(readFileSync(join(dir, 'meta.properties'), 'utf8'))![1]!, 'base64url').toString('hex');
    const partitions = [...broker.metadataLog.records()].filter((r) => r.type === recordTypeOf('PartitionRecord')).map((r) => readMetadataRecord<{ partitionId: number; directories: string[]; topicId: string }>('PartitionRecord', r));
    expect(partitions.filter((p) => p.topicId === t.topicId).map((p) => [p.partitionId, p.directories])).toEqual([[0, [directoryId]], [1, [directoryId]], [2, [directoryId]]]);
    expect([...broker.metadataLog.records()].filter((r) => r.type === recordTypeOf('RemoveTopicRecord'))).toHaveLength(1);
    // Logs load lazily at start-up: ask for each by name rather than listing what happens to be loaded.
    expect(broker.getLog('t', 2)?.topic).toBe('t');
    expect(broker.getLog('__cluster_metadata', 0)).toBeUndefined();
    await broker.shutdown();
    expect(readdirSync(dir).filter((n) => n.startsWith('__cluster_metadata'))).toEqual(['__cluster_metadata-0']);
  });

  it('takes the topics of kafkite-topics.json into the log on the first start, then no longer reads the file', async () => {
    const config = new BrokerConfig({ 'log.dirs': dir, listeners: 'PLAINTEXT://127.0.0.1:0' });
    const topicId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    mkdirSync(join(dir, 'old-0'));
    writeFileSync(join(dir, 'kafkite-topics.json'), JSON.stringify({
      version: 1, clusterId: 'q1Sh-9_ISia_zwGINzRvyQ', topics: [{ name: 'old', topicId, partitions: 2, configs: { 'retention.ms': '5000' } }],
    }));
    writeFileSync(join(dir, 'kafkite-producer-ids'), '3000\n');
    let broker = await Broker.open(config, log);
    expect(broker.clusterId).toBe('q1Sh-9_ISia_zwGINzRvyQ');
    expect({ ...broker.topics.get('old') }).toEqual({ name: 'old', topicId, partitions: 2, configs: { 'retention.ms': '5000' } });
    expect(existsSync(join(dir, 'kafkite-topics.json'))).toBe(false);
    expect(existsSync(join(dir, 'kafkite-topics.json.migrated'))).toBe(true);
    expect([...broker.metadataLog.records()].filter((r) => r.type === recordTypeOf('ProducerIdsRecord')).map((r) => readMetadataRecord<{ nextProducerId: number }>('ProducerIdsRecord', r).nextProducerId)).toEqual([3000]);
    expect(broker.producerIds.nextId()).toBe(3000);
    await broker.shutdown();

    // The file is no longer the source: a changed copy put back changes nothing.
    writeFileSync(join(dir, 'kafkite-topics.json'), JSON.stringify({ version: 1, clusterId: 'q1Sh-9_ISia_zwGINzRvyQ', topics: [] }));
    broker = await Broker.open(config, log);
    expect(broker.topics.get('old')?.partitions).toBe(2);
    expect([...broker.metadataLog.records()].filter((r) => r.type === TOPIC)).toHaveLength(1);
    expect(broker.producerIds.nextId()).toBeGreaterThanOrEqual(4000);
    await broker.shutdown();
  });

  it('lives in metadata.log.dir when that is set', async () => {
    const metaDir = join(dir, 'meta');
    const broker = await Broker.open(new BrokerConfig({ 'log.dirs': join(dir, 'data'), 'metadata.log.dir': metaDir }), log);
    await broker.metadataLog.append([{ type: 6, version: 0, body: Buffer.from([1]) }]);
    await broker.shutdown();
    expect(existsSync(join(metaDir, '__cluster_metadata-0', '00000000000000000000.log'))).toBe(true);
    expect(existsSync(join(metaDir, 'meta.properties'))).toBe(true);
    expect(existsSync(join(dir, 'data', '__cluster_metadata-0'))).toBe(false);
  });
});
