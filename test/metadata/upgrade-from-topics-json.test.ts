// An existing kafkite data dir upgraded in place: fixtures/kafkite-0af3c2f-data.tar.gz is a log dir made by kafkite
// at 0af3c2f (topics in kafkite-topics.json, a SCRAM user in the metadata log without KRaft framing): topics
// `orders` (2 partitions, retention.ms) and `accounts` (compacted), 15 and 6 records, user bob. Started under this
// code, everything is served, and kafkite-topics.json is no longer the source.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { readPartition } from '../reliability/support.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'kafkite-0af3c2f-data.tar.gz');
const TOPIC_IDS = { orders: 'e1ea0661033736362ac9b8d6601953a7', accounts: '39499c1b3e8f66c7a3dae39c4a74c163' };

let broker: BrokerProcess | undefined;
afterEach(async () => {
  await broker?.kill();
  broker?.cleanup();
  broker = undefined;
});

async function servesEverything(b: BrokerProcess): Promise<void> {
  const client = await WireClient.connect(b.port);
  try {
    const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(metadata.clusterId).toBe('5PwCm3wfMtoh7qZpuJkU6Q');
    expect(metadata.topics.map((t: any) => [t.name, t.topicId, t.partitions.length]).sort()).toEqual([['accounts', TOPIC_IDS.accounts, 1], ['orders', TOPIC_IDS.orders, 2]]);
    expect((await readPartition(client, 'orders', 0)).values).toEqual(Array.from({ length: 10 }, (_, i) => `order-${i}`));
    expect((await readPartition(client, 'orders', 1)).values).toEqual(Array.from({ length: 5 }, (_, i) => `order-${10 + i}`));
    expect((await readPartition(client, 'accounts', 0)).values).toEqual(Array.from({ length: 6 }, (_, i) => `balance-${i}`));
    const configs = await client.send(32, 4, {
      resources: [{ resourceType: 2, resourceName: 'orders', configurationKeys: ['retention.ms'] }, { resourceType: 2, resourceName: 'accounts', configurationKeys: ['cleanup.policy', 'min.compaction.lag.ms'] }],
      includeSynonyms: false, includeDocumentation: false,
    });
    expect(configs.results.map((r: any) => r.configs.map((c: any) => [c.name, c.value]).sort())).toEqual([[['retention.ms', '600000']], [['cleanup.policy', 'compact'], ['min.compaction.lag.ms', '60000']]]);
    const users = await client.send(50, 0, { users: null });
    expect(users.results.map((r: any) => [r.user, r.credentialInfos.map((c: any) => c.iterations)])).toEqual([['bob', [4096]]]);
  } finally {
    client.close();
  }
}

describe('a data dir of kafkite before the metadata log held topics', () => {
  it('is upgraded in place on its first start: every topic, partition, config, record and user is served, from the metadata log', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkite-upgrade-'));
    execFileSync('tar', ['-xzf', FIXTURE, '-C', dataDir]);
    broker = await startBroker({ dataDir });
    await servesEverything(broker);
    expect(await broker.stop()).toBe(0);
    expect(existsSync(join(dataDir, 'kafkite-topics.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'kafkite-topics.json.migrated'))).toBe(true);

    // The file is no longer the source: gone, the next start serves the same from the metadata log.
    rmSync(join(dataDir, 'kafkite-topics.json.migrated'));
    broker = await startBroker({ dataDir, port: broker.port });
    await servesEverything(broker);
    expect(broker.logs.map((l) => String(l.msg))).not.toContainEqual(expect.stringMatching(/rebuilt .* topic/));
  });
});
