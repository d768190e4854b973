// Quota resolution (DefaultQuotaCallback's precedence) and Kafka's throttle-time arithmetic, over a real metadata log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerConfig } from '../../config/broker-config.js';
import { ClusterMetadataLog } from '../../src/metadata/cluster-metadata-log.js';
import { ClientQuotaManager, QuotaType, Rate } from '../../src/quota/client-quota-manager.js';
import { ClientQuotaStore } from '../../src/quota/client-quotas.js';

const alice = { principalType: 'User', name: 'alice' };
const bob = { principalType: 'User', name: 'bob' };
let dir: string;
let metadataLog: ClusterMetadataLog;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kafkite-quotas-'));
  metadataLog = await ClusterMetadataLog.open({ dir, config: new BrokerConfig().logConfig({}), logger: pino({ level: 'silent' }), nodeId: 1 });
});
afterEach(async () => {
  await metadataLog.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ClientQuotaManager', () => {
  it('measures a rate over at least numSamples - 1 windows (Kafka Rate.windowSize)', () => {
    const rate = new Rate(2, 1000);
    rate.record(3000, 0);
    // One sample, so the span is the minimum of one full window: 3000 per second.
    expect(rate.measure(0)).toBe(3000);
    expect(rate.windowSize(500)).toBe(1500);
  });

  it('picks the most specific quota and keeps one sensor per user for a default-user quota', async () => {
    const store = new ClientQuotaStore(metadataLog);
    await store.alter([{ entityType: 'user', entityName: null }], [{ key: 'producer_byte_rate', value: 1000, remove: false }], false);
    await store.alter([{ entityType: 'user', entityName: 'alice' }, { entityType: 'client-id', entityName: 'fast' }], [{ key: 'producer_byte_rate', value: 1e9, remove: false }], false);
    await store.alter([{ entityType: 'client-id', entityName: null }], [{ key: 'consumer_byte_rate', value: 500, remove: false }], false);
    const replayed = new ClientQuotaStore(metadataLog);
    metadataLog.replay([replayed]);
    const manager = new ClientQuotaManager(replayed, 2, 1000);
    // alice with client "fast": her own user+client quota (1e9), never throttled.
    expect(manager.recordAndGetThrottleTimeMs(QuotaType.PRODUCE, alice, 'fast', 100_000, 0)).toBe(0);
    // alice with another client: the default user quota, 1000 B/s; 2000 B in one window is twice it.
    expect(manager.recordAndGetThrottleTimeMs(QuotaType.PRODUCE, alice, 'slow', 2000, 0)).toBe(1000);
    // bob has his own sensor under the same default quota.
    expect(manager.recordAndGetThrottleTimeMs(QuotaType.PRODUCE, bob, 'slow', 1500, 0)).toBe(500);
    // Fetch falls through to the default client-id quota.
    expect(manager.recordAndGetThrottleTimeMs(QuotaType.FETCH, bob, 'x', 750, 0)).toBe(500);
    expect([...manager.allSensors()].map((s) => [s.quotaType, s.user, s.clientId, s.quota])).toEqual([
      ['Produce', 'alice', 'fast', 1e9], ['Produce', 'alice', '', 1000], ['Produce', 'bob', '', 1000], ['Fetch', '', 'x', 500],
    ]);
  });
});
