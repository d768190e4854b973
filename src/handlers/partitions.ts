// The partition states Metadata and DescribeTopicPartitions both report, and the leader epoch check of the requests
// naming the epoch their client knows.
import type { MetadataResponsePartition } from '../../protocol/generated/MetadataResponse.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import type { Broker } from '../broker.js';
import { ErrorCode } from '../errors.js';
import type { TopicInfo } from '../metadata/topic-registry.js';

/** Each partition of the topic: this broker leads every one, unless its log dir is offline. */
export function partitionsOf(topic: TopicInfo, broker: Broker): MetadataResponsePartition[] {
  const nodeId = broker.nodeId;
  const epochs = broker.topics.leaderEpochs(topic.name);
  return Array.from({ length: topic.partitions }, (_, partitionIndex) => {
    // A partition whose log dir failed has no leader left: Kafka answers LEADER_NOT_AVAILABLE, the replica offline.
    const offline = broker.isPartitionOffline(topic.name, partitionIndex);
    return {
      errorCode: offline ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
      partitionIndex,
      leaderId: offline ? -1 : nodeId,
      leaderEpoch: epochs[partitionIndex] ?? 0,
      replicaNodes: [nodeId],
      isrNodes: offline ? [] : [nodeId],
      offlineReplicas: offline ? [nodeId] : [],
    };
  });
}

/**
 * Kafka's Partition.checkCurrentLeaderEpoch (Fetch, ListOffsets, OffsetForLeaderEpoch): a client's current leader
 * epoch older than the partition's is fenced, a newer one unknown (its metadata is ahead); a negative one is no check.
 */
export function currentLeaderEpochError(requested: number, log: UnifiedLog): number {
  if (requested < 0 || requested === log.leaderEpoch) return ErrorCode.NONE;
  return requested < log.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}
