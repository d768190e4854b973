// The broker settings the group coordinator acts on, with Kafka's names and defaults.
import type { BrokerConfig } from '../../config/broker-config.js';

export interface GroupCoordinatorConfig {
  groupMinSessionTimeoutMs: number;
  groupMaxSessionTimeoutMs: number;
  groupInitialRebalanceDelayMs: number;
  groupMaxSize: number;
  offsetsRetentionMs: number;
  offsetsRetentionCheckIntervalMs: number;
  offsetMetadataMaxBytes: number;
  /** KIP-848 consumer groups (group.consumer.*). */
  consumerGroupHeartbeatIntervalMs: number;
  consumerGroupSessionTimeoutMs: number;
  consumerGroupMaxSize: number;
  /** group.consumer.assignors as assignor names ("uniform", "range"); the first is the default. */
  consumerGroupAssignors: readonly string[];
  /** KIP-932 share groups (group.share.*). */
  shareGroupHeartbeatIntervalMs: number;
  shareGroupSessionTimeoutMs: number;
  shareGroupMaxSize: number;
  shareGroupInitializeRetryIntervalMs: number;
}

export const DEFAULT_GROUP_COORDINATOR_CONFIG: Readonly<GroupCoordinatorConfig> = Object.freeze({
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1800000,
  groupInitialRebalanceDelayMs: 3000,
  groupMaxSize: 2147483647,
  offsetsRetentionMs: 10080 * 60000,
  offsetsRetentionCheckIntervalMs: 600000,
  offsetMetadataMaxBytes: 4096,
  consumerGroupHeartbeatIntervalMs: 5000,
  consumerGroupSessionTimeoutMs: 45000,
  consumerGroupMaxSize: 2147483647,
  consumerGroupAssignors: Object.freeze(['uniform', 'range']),
  shareGroupHeartbeatIntervalMs: 5000,
  shareGroupSessionTimeoutMs: 45000,
  shareGroupMaxSize: 200,
  shareGroupInitializeRetryIntervalMs: 30000,
});

/** Kafka accepts an assignor's class name or its short name (UniformAssignor → "uniform"). */
function assignorNameOf(classOrName: string): string {
  const simpleName = classOrName.slice(classOrName.lastIndexOf('.') + 1);
  return simpleName.endsWith('Assignor') ? simpleName.slice(0, -'Assignor'.length).toLowerCase() : simpleName;
}

export function groupCoordinatorConfigOf(config: BrokerConfig): GroupCoordinatorConfig {
  return {
    groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
    groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
    groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
    groupMaxSize: config.groupMaxSize,
    offsetsRetentionMs: config.offsetsRetentionMinutes * 60000,
    offsetsRetentionCheckIntervalMs: config.get('offsets.retention.check.interval.ms') as number,
    offsetMetadataMaxBytes: config.get('offset.metadata.max.bytes') as number,
    consumerGroupHeartbeatIntervalMs: config.get('group.consumer.heartbeat.interval.ms') as number,
    consumerGroupSessionTimeoutMs: config.get('group.consumer.session.timeout.ms') as number,
    consumerGroupMaxSize: config.get('group.consumer.max.size') as number,
    consumerGroupAssignors: (config.get('group.consumer.assignors') as readonly string[]).map(assignorNameOf),
    shareGroupHeartbeatIntervalMs: config.get('group.share.heartbeat.interval.ms') as number,
    shareGroupSessionTimeoutMs: config.get('group.share.session.timeout.ms') as number,
    shareGroupMaxSize: config.get('group.share.max.size') as number,
    shareGroupInitializeRetryIntervalMs: config.get('group.share.initialize.retry.interval.ms') as number,
  };
}

/** The topic configs Kafka gives __consumer_offsets when it creates it. */
export function offsetsTopicConfigs(config: BrokerConfig): Record<string, string> {
  return {
    'cleanup.policy': 'compact',
    'compression.type': 'producer',
    'segment.bytes': String(config.get('offsets.topic.segment.bytes')),
  };
}
