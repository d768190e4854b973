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
}

export const DEFAULT_GROUP_COORDINATOR_CONFIG: Readonly<GroupCoordinatorConfig> = Object.freeze({
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1800000,
  groupInitialRebalanceDelayMs: 3000,
  groupMaxSize: 2147483647,
  offsetsRetentionMs: 10080 * 60000,
  offsetsRetentionCheckIntervalMs: 600000,
  offsetMetadataMaxBytes: 4096,
});

export function groupCoordinatorConfigOf(config: BrokerConfig): GroupCoordinatorConfig {
  return {
    groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
    groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
    groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
    groupMaxSize: config.groupMaxSize,
    offsetsRetentionMs: config.offsetsRetentionMinutes * 60000,
    offsetsRetentionCheckIntervalMs: config.get('offsets.retention.check.interval.ms') as number,
    offsetMetadataMaxBytes: config.get('offset.metadata.max.bytes') as number,
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
