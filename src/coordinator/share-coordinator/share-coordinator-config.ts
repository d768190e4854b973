// The share coordinator's settings and its topic, as Kafka's ShareCoordinatorConfig and
// ShareCoordinatorService.shareGroupStateTopicConfigs have them.
import type { BrokerConfig } from '../../../config/broker-config.js';

export const SHARE_GROUP_STATE_TOPIC_NAME = '__share_group_state';

export interface ShareCoordinatorConfig {
  numPartitions: number;
  snapshotUpdateRecordsPerSnapshot: number;
  /** share.coordinator.state.topic.prune.interval.ms (4.4's default; not yet among kafkite's config names). */
  pruneIntervalMs: number;
  /** share.coordinator.cold.partition.snapshot.interval.ms (likewise). */
  coldPartitionSnapshotIntervalMs: number;
}

const PRUNE_INTERVAL_MS_DEFAULT = 300_000;
const COLD_PARTITION_SNAPSHOT_INTERVAL_MS_DEFAULT = 300_000;

export function shareCoordinatorConfigOf(config: BrokerConfig): ShareCoordinatorConfig {
  return {
    numPartitions: config.get('share.coordinator.state.topic.num.partitions') as number,
    snapshotUpdateRecordsPerSnapshot: config.get('share.coordinator.snapshot.update.records.per.snapshot') as number,
    pruneIntervalMs: PRUNE_INTERVAL_MS_DEFAULT,
    coldPartitionSnapshotIntervalMs: COLD_PARTITION_SNAPSHOT_INTERVAL_MS_DEFAULT,
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
