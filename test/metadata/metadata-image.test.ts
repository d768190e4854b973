// The metadata image a snapshot holds: Kafka's merges (PartitionRegistration.merge, a broker's fencing), aborted
// metadata transactions left out, removals applied, and what it cannot read kept as it is.
import { describe, expect, it } from 'vitest';
import type { MetadataRecord } from '../../src/metadata/metadata-frame.js';
import { MetadataImage } from '../../src/metadata/metadata-image.js';
import { metadataRecord, readMetadataRecord, recordNameOf } from '../../src/metadata/metadata-records.js';

const TOPIC_ID = '0123456789abcdef0123456789abcdef';
const DIR = 'fedcba9876543210fedcba9876543210';

function partition(partitionId: number): MetadataRecord {
  return metadataRecord('PartitionRecord', 1, {
    partitionId, topicId: TOPIC_ID, replicas: [1], isr: [1], removingReplicas: [], addingReplicas: [], leader: 1, leaderRecoveryState: 0,
    leaderEpoch: 3, partitionEpoch: 5, directories: [DIR], eligibleLeaderReplicas: null, lastKnownElr: null,
  });
}

function change(fields: Record<string, unknown>): MetadataRecord {
  return metadataRecord('PartitionChangeRecord', 1, {
    partitionId: 0, topicId: TOPIC_ID, isr: null, leader: -2, replicas: null, removingReplicas: null, addingReplicas: null,
    leaderRecoveryState: -1, directories: null, eligibleLeaderReplicas: null, lastKnownElr: null, ...fields,
  });
}

function broker(epoch: number): MetadataRecord {
  return metadataRecord('RegisterBrokerRecord', 3, {
    brokerId: 1, isMigratingZkBroker: false, incarnationId: TOPIC_ID, brokerEpoch: epoch, endPoints: [], features: [], rack: null,
    fenced: false, inControlledShutdown: false, logDirs: [DIR], cordonedLogDirs: null,
  });
}

const decoded = (records: MetadataRecord[]) => records.map((r) => ({ record: recordNameOf(r.type), ...readMetadataRecord<Record<string, unknown>>(recordNameOf(r.type)!, r) }));

describe('MetadataImage', () => {
  it('merges partition changes and broker fencing into the records they change, as Kafka\'s image does', () => {
    const image = new MetadataImage();
    for (const r of [
      metadataRecord('TopicRecord', 0, { name: 't', topicId: TOPIC_ID }), partition(1), partition(0), broker(7),
      change({ isr: [], leader: -1 }), change({ isr: [1], leader: 1 }), change({ directories: [TOPIC_ID] }),
      metadataRecord('BrokerRegistrationChangeRecord', 0, { brokerId: 1, brokerEpoch: 7, fenced: 1, inControlledShutdown: 0, logDirs: [], cordonedLogDirs: null }),
    ]) image.replay(r);
    const out = decoded(image.records());
    expect(out.map((r) => r.record)).toEqual(['RegisterBrokerRecord', 'TopicRecord', 'PartitionRecord', 'PartitionRecord']);
    // Two leader changes (epoch 3 -> 5), three changes (partition epoch 5 -> 8), the last directory.
    expect(out[2]).toMatchObject({ partitionId: 0, leader: 1, isr: [1], leaderEpoch: 5, partitionEpoch: 8, directories: [TOPIC_ID] });
    expect(out[3]).toMatchObject({ partitionId: 1, leaderEpoch: 3, partitionEpoch: 5 });
    expect(out[0]).toMatchObject({ brokerEpoch: 7, fenced: true, logDirs: [DIR] });
  });

  it("clears the ELR fields a ClearElrRecord names, as Kafka's TopicsDelta merges it", () => {
    const image = new MetadataImage();
    const withElr = (topicId: string) => metadataRecord('PartitionRecord', 2, {
      ...readMetadataRecord<Record<string, unknown>>('PartitionRecord', partition(0)), topicId, isr: [], leader: -1, eligibleLeaderReplicas: [1], lastKnownElr: [1],
    });
    for (const r of [
      metadataRecord('TopicRecord', 0, { name: 't', topicId: TOPIC_ID }), withElr(TOPIC_ID), partition(1),
      metadataRecord('TopicRecord', 0, { name: 'other', topicId: DIR }), withElr(DIR),
      metadataRecord('ClearElrRecord', 0, { topicName: 't' }),
    ]) image.replay(r);
    const out = decoded(image.records()).filter((r) => r.record === 'PartitionRecord');
    // t-0 cleared (a change: partition epoch 5 -> 6), t-1 had none (unchanged), other-0 is another topic's.
    expect(out.map((p) => [p.topicId, p.partitionId, p.eligibleLeaderReplicas, p.lastKnownElr, p.partitionEpoch])).toEqual([
      [TOPIC_ID, 0, [], [], 6], [TOPIC_ID, 1, null, null, 5], [DIR, 0, [1], [1], 5],
    ]);
  });

  it('leaves out an aborted metadata transaction and what was removed; keeps what it cannot read as it is', () => {
    const image = new MetadataImage();
    const config = (name: string, value: string | null) => metadataRecord('ConfigRecord', 0, { resourceType: 2, resourceName: 't', name, value });
    for (const r of [
      metadataRecord('TopicRecord', 0, { name: 't', topicId: TOPIC_ID }), config('retention.ms', '1'), config('retention.ms', '2'), config('segment.ms', '9'),
      config('segment.ms', null),
      metadataRecord('BeginTransactionRecord', 0, { name: 'x' }), metadataRecord('TopicRecord', 0, { name: 'aborted', topicId: DIR }),
      metadataRecord('AbortTransactionRecord', 0, { reason: 'test' }),
      metadataRecord('AccessControlEntryRecord', 0, { id: TOPIC_ID, resourceType: 2, resourceName: 't', patternType: 3, principal: 'User:a', host: '*', operation: 3, permissionType: 3 }),
      metadataRecord('RemoveAccessControlEntryRecord', 0, { id: TOPIC_ID }),
      { type: 6, version: 0, body: Buffer.from([1, 2, 3]) },
    ]) image.replay(r);
    expect(image.inTransaction).toBe(false);
    const out = image.records();
    expect(decoded(out.slice(0, -1))).toEqual([
      { record: 'TopicRecord', name: 't', topicId: TOPIC_ID },
      { record: 'ConfigRecord', resourceType: 2, resourceName: 't', name: 'retention.ms', value: '2' },
    ]);
    expect(out.at(-1)).toEqual({ type: 6, version: 0, body: Buffer.from([1, 2, 3]) });
    image.replay(metadataRecord('RemoveTopicRecord', 0, { topicId: TOPIC_ID }));
    expect(image.records()).toEqual([{ type: 6, version: 0, body: Buffer.from([1, 2, 3]) }]);
  });
});
