// The partition states Metadata and DescribeTopicPartitions both report.
import type { MetadataResponsePartition } from '../../protocol/generated/MetadataResponse.js';
import type { Broker } from '../broker.js';
import { ErrorCode } from '../errors.js';
import type { TopicInfo } from '../metadata/topic-registry.js';

/** Each partition of the topic: this broker leads every one, unless its log dir is offline. */
export function partitionsOf(topic: TopicInfo, broker: Broker): MetadataResponsePartition[] {
  const nodeId = broker.nodeId;
  return Array.from({ length: topic.partitions }, (_, partitionIndex) => {
    // A partition whose log dir failed has no leader left: Kafka answers LEADER_NOT_AVAILABLE, the replica offline.
    const offline = broker.isPartitionOffline(topic.name, partitionIndex);
    return {
      errorCode: offline ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
      partitionIndex,
      leaderId: offline ? -1 : nodeId,
      leaderEpoch: 0,
      replicaNodes: [nodeId],
      isrNodes: offline ? [] : [nodeId],
      offlineReplicas: offline ? [nodeId] : [],
    };
  });
}
