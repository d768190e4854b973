// The share coordinator's settings and its topic, as Kafka's ShareCoordinatorConfig and
// ShareCoordinatorService.shareGroupStateTopicConfigs have them.
import type { BrokerConfig } from '../../../config/broker-config.js';
import { brokerConfigDef } from '../../../config/definitions.js';

export const SHARE_GROUP_STATE_TOPIC_NAME = '__share_group_state';

export interface ShareCoordinatorConfig {
  numPartitions: number;
  snapshotUpdateRecordsPerSnapshot: number;
  pruneIntervalMs: number;
  coldPartitionSnapshotIntervalMs: number;
}

/**
 * A 4.4 setting kafkite's config definitions (generated from an older Kafka) may not have yet: its 4.4 default
 * until they do.
 */
function kafka44Setting(config: BrokerConfig, name: string, kafka44Default: number): number {
  return brokerConfigDef(name) ? (config.get(name) as number) : kafka44Default;
}

export function shareCoordinatorConfigOf(config: BrokerConfig): ShareCoordinatorConfig {
  return {
    numPartitions: config.get('share.coordinator.state.topic.num.partitions') as number,
    snapshotUpdateRecordsPerSnapshot: config.get('share.coordinator.snapshot.update.records.per.snapshot') as number,
    pruneIntervalMs: kafka44Setting(config, 'share.coordinator.state.topic.prune.interval.ms', 300_000),
    coldPartitionSnapshotIntervalMs: kafka44Setting(config, 'share.coordinator.cold.partition.snapshot.interval.ms', 300_000),
  };
}

/**
 * What Kafka 4.4 gives __share_group_state: delete (not compact) with no time limit, since the coordinator
 * itself moves the log start past records every key has a newer snapshot for (KIP-932's pruning).
 */
export function shareGroupStateTopicConfigs(config: BrokerConfig): Record<string, string> {
  return {
    'cleanup.policy': 'delete',
    'compression.type': 'producer',
    'segment.bytes': String(config.get('share.coordinator.state.topic.segment.bytes')),
    'min.insync.replicas': String(config.get('share.coordinator.state.topic.min.isr')),
    'retention.ms': '-1',
  };
}
