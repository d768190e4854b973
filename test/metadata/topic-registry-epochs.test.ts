// Each partition's leader epoch as the topic registry replays it from the metadata log (Kafka's PartitionRegistration:
// a PartitionChangeRecord naming a leader, -1 included, bumps it; one leaving the leader unchanged does not).
import { describe, expect, it } from 'vitest';
import type { ClusterMetadataLog } from '../../src/metadata/cluster-metadata-log.js';
import { metadataRecord } from '../../src/metadata/metadata-records.js';
import { TopicRegistry, type Placement } from '../../src/metadata/topic-registry.js';

const TOPIC_ID = '00112233445566778899aabbccddeeff';
const placement: Placement = { nodeId: 1, directoryOf: () => '0'.repeat(32) };

const partition = (partitionId: number, leaderEpoch: number) => metadataRecord('PartitionRecord', 1, {
  partitionId, topicId: TOPIC_ID, replicas: [1], isr: [1], removingReplicas: [], addingReplicas: [], leader: 1, leaderRecoveryState: 0,
  leaderEpoch, partitionEpoch: leaderEpoch, directories: ['0'.repeat(32)], eligibleLeaderReplicas: null, lastKnownElr: null,
});
const change = (partitionId: number, leader: number) => metadataRecord('PartitionChangeRecord', 2, {
  partitionId, topicId: TOPIC_ID, leader, isr: null, leaderRecoveryState: -1,
  replicas: null, removingReplicas: null, addingReplicas: null, directories: null, eligibleLeaderReplicas: null, lastKnownElr: null,
});

describe('TopicRegistry leader epochs', () => {
  it('replays PartitionRecord and each PartitionChangeRecord naming a leader; a removed topic takes its epochs along', () => {
    // The registry reads the log only when it appends; replay needs neither the log nor the placement's directories.
    const registry = new TopicRegistry({} as ClusterMetadataLog, placement);
    registry.replay(metadataRecord('TopicRecord', 0, { name: 'moved', topicId: TOPIC_ID }));
    for (const r of [partition(0, 4), partition(1, 0), change(0, -1), change(0, -2), change(0, 1)]) registry.replay(r);
    expect(registry.leaderEpochs('moved')).toEqual([6, 0]);
    expect(registry.leaderEpochs('missing')).toEqual([]);
    // Only the partitions the election names leaderless get a record.
    registry.replay(change(0, -1));
    expect(registry.leaderless.electionRecords(1)).toHaveLength(1);
    registry.replay(metadataRecord('RemoveTopicRecord', 0, { topicId: TOPIC_ID }));
    registry.replay(metadataRecord('TopicRecord', 0, { name: 'moved', topicId: TOPIC_ID }));
    registry.replay(partition(0, 0));
    expect(registry.leaderEpochs('moved')).toEqual([]);
  });
});
