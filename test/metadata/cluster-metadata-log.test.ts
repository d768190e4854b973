import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerConfig } from '../../config/broker-config.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import { Broker } from '../../src/broker.js';
import { ErrorCode } from '../../src/errors.js';
import { ClusterMetadataLog, unframeMetadataRecord } from '../../src/metadata/cluster-metadata-log.js';
import { DEFAULT_LOG_CONFIG } from '../../storage/log-config.js';

const log = pino({ level: 'silent' });
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkite-metadata-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('ClusterMetadataLog', () => {
  it('frames records as MetadataRecordSerde does and replays them in order after a reopen', async () => {
    const a = ClusterMetadataLog.open({ dir, config: DEFAULT_LOG_CONFIG, logger: log });
    expect([...a.records()]).toEqual([]);
    await a.append([
      { type: 6, version: 0, body: Buffer.from([1, 2, 3]) },
      { type: 14, version: 0, body: Buffer.from('quota') },
    ]);
    await a.append([{ type: 21, version: 0, body: Buffer.alloc(200, 7) }]);
    await a.close();

    // On disk: one partition dir, v2 batches, null keys, values framed [frame version 1][type][version][body].
    const segment = join(dir, '__cluster_metadata-0', '00000000000000000000.log');
    const bytes = readFileSync(segment);
    const values: Buffer[] = [];
    const keys: Array<Buffer | null> = [];
    for (const h of batchesIn(bytes)) {
      for (const r of decodeBatch(bytes.subarray(h.pos, h.pos + h.sizeInBytes)).records) {
        keys.push(r.key);
        values.push(r.value!);
      }
    }
    expect(keys).toEqual([null, null, null]);
    expect(values[0]).toEqual(Buffer.from([1, 6, 0, 1, 2, 3]));
    expect(values[1]).toEqual(Buffer.concat([Buffer.from([1, 14, 0]), Buffer.from('quota')]));
    expect(unframeMetadataRecord(values[2]!).type).toBe(21);

    const b = ClusterMetadataLog.open({ dir, config: DEFAULT_LOG_CONFIG, logger: log });
    expect([...b.records()].map((r) => ({ ...r, body: r.body.toString('hex') }))).toEqual([
      { type: 6, version: 0, body: '010203' },
      { type: 14, version: 0, body: Buffer.from('quota').toString('hex') },
      { type: 21, version: 0, body: Buffer.alloc(200, 7).toString('hex') },
    ]);
    await b.append([{ type: 7, version: 0, body: Buffer.from([9]) }]);
    expect([...b.records()].map((r) => r.type)).toEqual([6, 14, 21, 7]);
    await b.close();
  });

  it('record types above 127 take a multi-byte unsigned varint', async () => {
    const a = ClusterMetadataLog.open({ dir, config: DEFAULT_LOG_CONFIG, logger: log });
    await a.append([{ type: 300, version: 2, body: Buffer.from([0]) }]);
    expect([...a.records()]).toEqual([{ type: 300, version: 2, body: Buffer.from([0]) }]);
    await a.close();
  });
});

describe('the metadata log in the broker', () => {
  it('is opened by Broker.open, is no topic, survives a restart and its name cannot be created', async () => {
    const config = new BrokerConfig({ 'log.dirs': dir, listeners: 'PLAINTEXT://127.0.0.1:0' });
    let broker = await Broker.open(config, log);
    await broker.metadataLog.append([{ type: 6, version: 0, body: Buffer.from([42]) }]);
    await expect(broker.autoCreateTopic('__cluster_metadata')).rejects.toThrow(expect.objectContaining({ code: ErrorCode.INVALID_REQUEST }));
    await broker.createTopic('t', { partitions: 1, replicationFactor: -1, configs: {}, validateOnly: false });
    await broker.shutdown();
    expect(existsSync(join(dir, '__cluster_metadata-0'))).toBe(true);

    // A lost topic registry is rebuilt from the partition dirs: the metadata log must not become a topic.
    rmSync(join(dir, 'kafkite-topics.json'));
    broker = await Broker.open(config, log);
    expect([...broker.topics.all()].map((t) => t.name)).toEqual(['t']);
    // Logs load lazily at start-up: ask for each by name rather than listing what happens to be loaded.
    expect(broker.getLog('t', 0)?.topic).toBe('t');
    expect(broker.getLog('__cluster_metadata', 0)).toBeUndefined();
    expect([...broker.logManager.allLogs()].map((l) => l.topic)).not.toContain('__cluster_metadata');
    expect([...broker.metadataLog.records()]).toEqual([{ type: 6, version: 0, body: Buffer.from([42]) }]);
    await broker.shutdown();
    expect(readdirSync(dir).filter((n) => n.startsWith('__cluster_metadata'))).toEqual(['__cluster_metadata-0']);
  });

  it('lives in metadata.log.dir when that is set', async () => {
    const metaDir = join(dir, 'meta');
    const broker = await Broker.open(new BrokerConfig({ 'log.dirs': join(dir, 'data'), 'metadata.log.dir': metaDir }), log);
    await broker.metadataLog.append([{ type: 6, version: 0, body: Buffer.from([1]) }]);
    await broker.shutdown();
    expect(existsSync(join(metaDir, '__cluster_metadata-0', '00000000000000000000.log'))).toBe(true);
    expect(existsSync(join(dir, 'data', '__cluster_metadata-0'))).toBe(false);
  });
});
