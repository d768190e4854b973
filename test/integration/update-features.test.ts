// Finalized feature levels (KIP-584) are the metadata log's: UpdateFeatures (API 57, `kafka-features upgrade|downgrade`)
// appends FeatureLevelRecords, ApiVersions lists what the log finalizes (its epoch moving on), and a kind of group
// whose feature is at 0 is off: its APIs answer UNSUPPORTED_VERSION, as Kafka's KafkaApis gates them, across a restart.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ErrorCode } from '../../src/errors.js';
import { readMetadataOnDisk } from '../../src/metadata/metadata-log-files.js';
import { recordTypeOf } from '../../src/metadata/metadata-records.js';
import { brokerForFile, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { batch, produce, request } from '../reference/scenarios.js';

const broker = brokerForFile();

async function withClient<T>(use: (client: WireClient) => Promise<T>, on: BrokerProcess = broker()): Promise<T> {
  const client = await WireClient.connectWithRetry(on.port);
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/** ApiVersions v4: the finalized levels by name, and their epoch. */
const finalized = (client: WireClient) => client.send(18, 4, request(18, { clientSoftwareName: 'test', clientSoftwareVersion: '1' }))
  .then((r) => ({ levels: Object.fromEntries(r.finalizedFeatures.map((f: { name: string; maxVersionLevel: number }) => [f.name, f.maxVersionLevel])), epoch: r.finalizedFeaturesEpoch as number }));

/** UpdateFeatures of one feature; `validateOnly` is v1+'s, `upgradeType` v1+'s, `allowDowngrade` v0's. */
const update = (client: WireClient, version: number, feature: string, maxVersionLevel: number,
  { validateOnly = false, ...fields }: { validateOnly?: boolean; upgradeType?: number; allowDowngrade?: boolean } = {}) =>
  client.send(57, version, request(57, { featureUpdates: [{ feature, maxVersionLevel, ...fields }], validateOnly }));

const shareHeartbeat = (client: WireClient) => client.send(76, 1, request(76, { groupId: 'g', memberId: 'AAAAAAAAAAAAAAAAAAAAAA', memberEpoch: 0, subscribedTopicNames: ['t'] }));

describe('UpdateFeatures and the finalized levels', () => {
  it('downgrades share.version to 0: share groups are off, their APIs answering UNSUPPORTED_VERSION', async () => {
    await withClient(async (client) => {
      const before = await finalized(client);
      // A new data dir finalizes share.version 2 (ShareVersion.LATEST_PRODUCTION, the dead-letter queue), as Kafka 4.4.
      expect(before.levels['share.version']).toBe(2);
      // Without a downgrade type, refused as Kafka's controller refuses it.
      expect(await update(client, 1, 'share.version', 0)).toEqual({
        throttleTimeMs: 0, errorCode: ErrorCode.INVALID_UPDATE_VERSION, results: [],
        errorMessage: 'The update failed for all features since the following feature had an error: Invalid update version 0 for feature share.version. '
          + "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.",
      });
      // Validated only: nothing changes.
      expect((await update(client, 1, 'share.version', 0, { upgradeType: 2, validateOnly: true })).errorCode).toBe(ErrorCode.NONE);
      expect((await finalized(client)).levels['share.version']).toBe(2);
      expect(await update(client, 1, 'share.version', 0, { upgradeType: 2 })).toEqual({
        throttleTimeMs: 0, errorCode: 0, errorMessage: null, results: [{ feature: 'share.version', errorCode: 0, errorMessage: null }],
      });
      const after = await finalized(client);
      expect(after.levels['share.version']).toBeUndefined();
      expect(after.epoch).toBeGreaterThan(before.epoch);
      expect((await shareHeartbeat(client)).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
      const fetch = await client.send(78, 1, request(78, { groupId: 'g', memberId: 'AAAAAAAAAAAAAAAAAAAAAA', shareSessionEpoch: 0 }));
      expect({ errorCode: fetch.errorCode, responses: fetch.responses }).toEqual({ errorCode: ErrorCode.UNSUPPORTED_VERSION, responses: [] });
      const described = await client.send(77, 1, request(77, { groupIds: ['g'] }));
      expect(described.groups.map((g: { groupId: string; errorCode: number }) => [g.groupId, g.errorCode])).toEqual([['g', ErrorCode.UNSUPPORTED_VERSION]]);
    });
  });

  it("downgrades streams.version with v0's AllowDowngrade: streams groups are off", async () => {
    await withClient(async (client) => {
      expect((await update(client, 0, 'streams.version', 0, { allowDowngrade: true })).errorCode).toBe(ErrorCode.NONE);
      const heartbeat = await client.send(88, 0, request(88, { groupId: 's', memberId: 'm', memberEpoch: 0, rebalanceTimeoutMs: 1000 }));
      expect(heartbeat.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    });
  });

  it('upgrades share.version back to 1, then 2, and safely down to 1 again: a share member joins', async () => {
    await withClient(async (client) => {
      expect((await update(client, 2, 'share.version', 3)).errorMessage).toContain('Invalid update version 3 for feature share.version. Local controller 1 only supports versions 0-2');
      expect(await update(client, 2, 'share.version', 1)).toEqual({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, results: [] });
      expect((await finalized(client)).levels['share.version']).toBe(1);
      const joined = await shareHeartbeat(client);
      expect({ errorCode: joined.errorCode, memberEpoch: joined.memberEpoch }).toEqual({ errorCode: 0, memberEpoch: 1 });
      // SV_2 depends on no other feature: up to 2 and back to 1 with a safe downgrade, as Kafka's controller allows.
      expect((await update(client, 2, 'share.version', 2)).errorCode).toBe(ErrorCode.NONE);
      expect((await finalized(client)).levels['share.version']).toBe(2);
      expect((await update(client, 2, 'share.version', 1)).errorCode).toBe(ErrorCode.INVALID_UPDATE_VERSION);
      expect((await update(client, 2, 'share.version', 1, { upgradeType: 2 })).errorCode).toBe(ErrorCode.NONE);
      expect((await finalized(client)).levels['share.version']).toBe(1);
    });
  });

  it('switching share.version off ends every share session and drops the share partitions: records a member held are available once it is back', async () => {
    await withClient(async (client) => {
      const created = await client.send(19, 7, request(19, { topics: [{ name: 'toggle', numPartitions: 1, replicationFactor: 1 }], timeoutMs: 5000 }));
      const topicId = created.topics[0].topicId;
      const join = (memberId: string) => client.send(76, 1, request(76, { groupId: 'toggled', memberId, memberEpoch: 0, subscribedTopicNames: ['toggle'] }));
      const fetch = (memberId: string, shareSessionEpoch: number) => client.send(78, 1, request(78, {
        groupId: 'toggled', memberId, shareSessionEpoch, maxWaitMs: 2000, minBytes: 1, maxBytes: 1 << 20, maxRecords: 100, batchSize: 100,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
      }));
      const acquired = (res: { errorCode: number; responses: Array<{ partitions: Array<{ acquiredRecords: unknown[] }> }> }) =>
        [res.errorCode, res.responses[0]?.partitions[0]?.acquiredRecords ?? []];
      const m1 = 'BBBBBBBBBBBBBBBBBBBBBB';
      const m2 = 'CCCCCCCCCCCCCCCCCCCCCC';
      expect((await join(m1)).errorCode).toBe(0);
      // The session opens and the share partition starts at the end of the empty log; then m1 acquires all ten records.
      expect(acquired(await client.send(78, 1, request(78, { groupId: 'toggled', memberId: m1, shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 100, batchSize: 100, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }] })))).toEqual([0, []]);
      expect((await client.send(0, 9, produce('toggle', batch(Array.from({ length: 10 }, (_, i) => `v${i}`))))).responses[0].partitionResponses[0].errorCode).toBe(0);
      expect(acquired(await fetch(m1, 1))).toEqual([0, [{ firstOffset: 0, lastOffset: 9, deliveryCount: 1 }]]);

      expect((await update(client, 1, 'share.version', 0, { upgradeType: 2 })).errorCode).toBe(ErrorCode.NONE);
      expect((await update(client, 1, 'share.version', 1, { upgradeType: 1 })).errorCode).toBe(ErrorCode.NONE);
      // m1's session is gone (Kafka's SharePartitionManager.onShareVersionToggle): its next epoch is not found.
      expect((await fetch(m1, 2)).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
      // Its records were acquired, never persisted as such: a new member gets them at once, well within the 30 s lock.
      expect((await join(m2)).errorCode).toBe(0);
      expect(acquired(await fetch(m2, 0))).toEqual([0, [{ firstOffset: 0, lastOffset: 9, deliveryCount: 1 }]]);
    });
  });

  it('keeps the levels across a restart: they are the log\'s', async () => {
    expect(await broker().stop()).toBe(0);
    const restarted = await startBroker({ dataDir: broker().dataDir });
    try {
      const { levels } = await withClient(finalized, restarted);
      expect(levels).toEqual({ 'metadata.version': 33, 'transaction.version': 2, 'group.version': 1, 'share.version': 1 });
    } finally {
      expect(await restarted.stop()).toBe(0);
    }
  });

  it('keeps a new data dir at 4.4-IV2: a downgrade across a level that changed metadata is refused, as Kafka refuses it', async () => {
    const node = await startBroker();
    try {
      await withClient(async (client) => {
        expect((await update(client, 1, 'metadata.version', 34, { upgradeType: 1 })).errorMessage)
          .toBe('The update failed for all features since the following feature had an error: Invalid update version 34 for feature metadata.version. Local controller 1 only supports versions 26-33');
        expect((await update(client, 1, 'metadata.version', 33, { upgradeType: 1 })).errorCode).toBe(ErrorCode.NONE);
        // 4.4-IV1 (CIDR ACLs) and 4.4-IV2 changed metadata (MetadataVersion.didMetadataChange); 4.4-IV0 did not.
        // Kafka 4.4's answers to `kafka-features downgrade [--unsafe] --metadata ...` on a node at 4.4-IV2.
        expect((await update(client, 1, 'metadata.version', 31, { upgradeType: 2 })).errorMessage).toBe('The update failed for all features since the following ' +
          'feature had an error: Unsupported metadata.version downgrade from 33 to 31. Refusing to perform the requested downgrade because it might delete metadata information.');
        expect((await update(client, 1, 'metadata.version', 26, { upgradeType: 3 })).errorMessage).toBe('The update failed for all features since the following ' +
          'feature had an error: Unsupported metadata.version downgrade from 33 to 26. Unsafe metadata downgrade is not supported in this version.');
        expect((await update(client, 1, 'kraft.version', 1, { upgradeType: 1 })).errorMessage).toContain('Invalid update version 1 for feature kraft.version. kafkite keeps kraft.version at its level (0).');
        expect((await finalized(client)).levels['metadata.version']).toBe(33);
      }, node);
      // The broker registers at the record version 4.4-IV2 calls for (RegisterBrokerRecord v4, cordoned log dirs).
      const registrations = readMetadataOnDisk(join(node.dataDir, '__cluster_metadata-0')).records.filter((r) => r.type === recordTypeOf('RegisterBrokerRecord'));
      expect(registrations.map((r) => r.version)).toEqual([4]);
    } finally {
      expect(await node.stop()).toBe(0);
    }
  });
});
