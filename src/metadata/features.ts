// The features kafkite supports (KIP-584), the same features a Kafka 4.4 combined node lists, at the levels that
// are true of kafkite (Kafka's org.apache.kafka.server.common.Feature and MetadataVersion define them; a feature
// kafkite does not implement is supported at level 0 only), and the level each is finalized at in a new data dir:
// its bootstrap records, share and streams groups on as a new Kafka 4.4 cluster has them (Kafka formatted at
// 4.1-IV0 leaves them off). A Kafka 4.4 node's directory formatted the default way (4.4-IV2, kraft.version 1,
// ELR 1) is within these ranges. What a data dir finalizes is its metadata log's FeatureLevelRecords
// (finalized-features.ts), which UpdateFeatures raises.
import { FINALIZED_TRANSACTION_VERSION } from '../coordinator/transaction/transaction-version.js';
import { MAX_METADATA_VERSION, MIN_METADATA_VERSION } from './metadata-version.js';

interface FeatureLevels {
  readonly name: string;
  readonly minSupported: number;
  readonly maxSupported: number;
  /** The level a new data dir finalizes; 0: not finalized (disabled). */
  readonly defaultLevel: number;
}

export const FEATURES: readonly FeatureLevels[] = [
  // 4.1-IV0..4.4-IV2 (metadata-version.ts); a new data dir is written at 4.4-IV2, as `kafka-storage format` writes one
  // (with static voters and ELR off: Kafka 4.4 starts on it, kafka-takeover.test.ts).
  { name: 'metadata.version', minSupported: MIN_METADATA_VERSION, maxSupported: MAX_METADATA_VERSION, defaultLevel: MAX_METADATA_VERSION },
  // Level 1 (KIP-853 dynamic voters, what `kafka-storage format --standalone` writes): served when this node is the
  // only voter, its VotersRecord and KRaftVersionRecord kept in the snapshots kafkite writes. A new dir is written at 0.
  { name: 'kraft.version', minSupported: 0, maxSupported: 1, defaultLevel: 0 },
  { name: 'transaction.version', minSupported: 0, maxSupported: FINALIZED_TRANSACTION_VERSION, defaultLevel: FINALIZED_TRANSACTION_VERSION },
  // Level 1: KIP-848 consumer groups (ConsumerGroupHeartbeat, ConsumerGroupDescribe).
  { name: 'group.version', minSupported: 0, maxSupported: 1, defaultLevel: 1 },
  // Level 1: KIP-932 share groups (ShareVersion.SV_1); 2: their dead-letter queue (SV_2, KIP-1191), which a new
  // Kafka 4.4 cluster finalizes (ShareVersion.LATEST_PRODUCTION); neither level depends on metadata.version.
  { name: 'share.version', minSupported: 0, maxSupported: 2, defaultLevel: 2 },
  // Level 1: KIP-1071 streams groups (StreamsGroupHeartbeat, StreamsGroupDescribe), as a new Kafka 4.4 cluster finalizes it.
  { name: 'streams.version', minSupported: 0, maxSupported: 1, defaultLevel: 1 },
  // Level 1 (KIP-966, on in a new Kafka 4.4 cluster): one node's partitions have no other replica to elect; kafkite
  // keeps the ELR fields of Kafka's records and clears them when it leads a partition again (partition-leadership.ts).
  { name: 'eligible.leader.replicas.version', minSupported: 0, maxSupported: 1, defaultLevel: 0 },
];
