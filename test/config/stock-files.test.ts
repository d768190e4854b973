// Kafka's stock server.properties files (ZooKeeper-era and KRaft) must start kafkite unchanged.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../config/broker-config.js';

const stockDir = fileURLToPath(new URL('../../../shared/kafka-config', import.meta.url));
const stockFiles = existsSync(stockDir) ? readdirSync(stockDir).filter((f) => f.endsWith('.properties')) : [];
const kafkiteDefault = fileURLToPath(new URL('../../config/server.properties', import.meta.url));

describe.skipIf(stockFiles.length === 0)('stock Kafka config files', () => {
  it.each(stockFiles)('%s loads with no unknown keys but ZooKeeper\'s', (name) => {
    const { config, unknownKeys, inertKeys } = loadBrokerConfig({ file: join(stockDir, name) });
    expect(unknownKeys.filter((key) => !key.startsWith('zookeeper.'))).toEqual([]);
    expect(inertKeys).toContain('offsets.topic.replication.factor');
    expect(config.listeners.map((l) => l.name)).toEqual(['PLAINTEXT']);
    expect(config.listeners[0]!.port).toBe(9092);
    expect(config.logConfig({}).retentionMs).toBe(604_800_000);
  });

  it('takes the node id from broker.id (ZooKeeper) or node.id (KRaft)', () => {
    const nodeId = (name: string): number => loadBrokerConfig({ file: join(stockDir, name) }).config.nodeId;
    expect(nodeId('server.properties')).toBe(0);
    expect(nodeId('kraft-server.properties')).toBe(1);
    expect(nodeId('kraft-broker.properties')).toBe(2);
  });

  it('reports controller quorum settings as inert, and ZooKeeper\'s as unknown (Kafka 4.4 no longer defines them)', () => {
    const zk = loadBrokerConfig({ file: join(stockDir, 'server.properties') });
    expect(zk.unknownKeys).toEqual(['zookeeper.connect', 'zookeeper.connection.timeout.ms']);
    expect(zk.inertKeys).toContain('num.network.threads');
    expect(loadBrokerConfig({ file: join(stockDir, 'kraft-server.properties') }).inertKeys).toEqual(
      expect.arrayContaining(['process.roles', 'controller.quorum.voters', 'controller.listener.names', 'num.network.threads']),
    );
  });
});

describe("kafkite's config/server.properties", () => {
  it('loads with the documented values', () => {
    const { config, unknownKeys } = loadBrokerConfig({ file: kafkiteDefault });
    expect(unknownKeys).toEqual([]);
    expect(config.nodeId).toBe(1);
    expect(config.listeners).toEqual([{ name: 'PLAINTEXT', host: '', port: 9092, securityProtocol: 'PLAINTEXT' }]);
    expect(config.advertisedListeners).toEqual([{ name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 'PLAINTEXT' }]);
    expect(config.logDirs).toEqual([join(process.cwd(), 'data')]);
    expect(config.autoCreateTopicsEnable).toBe(true);
    expect(config.groupInitialRebalanceDelayMs).toBe(0);
    expect(config.logConfig({})).toMatchObject({ retentionMs: 604_800_000, segmentBytes: 1073741824 });
  });
});
