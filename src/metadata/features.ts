// The features kafkite supports (KIP-584), the same features a Kafka 4.4 combined node lists, at the levels that
// are true of kafkite (Kafka's org.apache.kafka.server.common.Feature and MetadataVersion define them; a feature
// kafkite does not implement is supported at level 0 only), and the level each is finalized at in a new data dir:
// its bootstrap records, share and streams groups on as a new Kafka 4.4 cluster has them (Kafka formatted at
// 4.1-IV0 leaves them off). What a data dir finalizes is its metadata log's FeatureLevelRecords
// (finalized-features.ts), which UpdateFeatures raises.
import { FINALIZED_TRANSACTION_VERSION } from '../coordinator/transaction/transaction-version.js';

interface FeatureLevels {
  readonly name: string;
  readonly minSupported: number;
  readonly maxSupported: number;
  /** The level a new data dir finalizes; 0: not finalized (disabled). */
  readonly defaultLevel: number;
}

/**
 * metadata.version 26 (4.1-IV0): the highest level whose replica Fetch (v17) and ListOffsets (v10) versions
 * kafkite serves (MetadataVersion.fetchRequestVersion/listOffsetRequestVersion: 4.1-IV1 moves to Fetch v18,
 * 4.2-IV1 to ListOffsets v11); at least 4.0-IV2, which transaction.version 2 needs, and 4.0-IV0, group.version
 * 1's; below 4.3-IV0 (cordoned log dirs) and 4.4-IV1 (CIDR ACLs), which kafkite lacks.
 */
const METADATA_VERSION = 26;

export const FEATURES: readonly FeatureLevels[] = [
  { name: 'metadata.version', minSupported: METADATA_VERSION, maxSupported: METADATA_VERSION, defaultLevel: METADATA_VERSION },
  // No KRaft quorum: level 1 (KIP-853 dynamic voters) means nothing on one node without a controller.
  { name: 'kraft.version', minSupported: 0, maxSupported: 0, defaultLevel: 0 },
  { name: 'transaction.version', minSupported: 0, maxSupported: FINALIZED_TRANSACTION_VERSION, defaultLevel: FINALIZED_TRANSACTION_VERSION },
  // Level 1: KIP-848 consumer groups (ConsumerGroupHeartbeat, ConsumerGroupDescribe).
  { name: 'group.version', minSupported: 0, maxSupported: 1, defaultLevel: 1 },
  // Level 1: KIP-932 share groups (ShareVersion.SV_1); 2: their dead-letter queue (SV_2, KIP-1191), which a new
  // Kafka 4.4 cluster finalizes (ShareVersion.LATEST_PRODUCTION); neither level depends on metadata.version.
  { name: 'share.version', minSupported: 0, maxSupported: 2, defaultLevel: 2 },
  // Level 1: KIP-1071 streams groups (StreamsGroupHeartbeat, StreamsGroupDescribe), as a new Kafka 4.4 cluster finalizes it.
  { name: 'streams.version', minSupported: 0, maxSupported: 1, defaultLevel: 1 },
  { name: 'eligible.leader.replicas.version', minSupported: 0, maxSupported: 0, defaultLevel: 0 },
];
