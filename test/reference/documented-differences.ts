// Where kafkite answers differently from Apache Kafka 4.4, on purpose or for now, with the reason. The
// differential suite fails on any difference not listed here; the README's section
// "Where kafkite differs from Apache Kafka" is generated from this list (the suite checks they agree).
import type { DocumentedDifference } from './differential.js';

const KIP_896 = 'kafkite still serves the request versions Kafka 4.0 removed (KIP-896), so that clients of the Kafka 0.8-2.0 era '
  + '(kafka-node, sarama as Kafka 0.8.2 and 0.10.2) keep working; Kafka 4.4 closes the connection on them.';

export const DOCUMENTED_DIFFERENCES: readonly DocumentedDifference[] = [
  {
    apis: ['Produce', 'Fetch', 'ListOffsets', 'OffsetCommit', 'OffsetFetch', 'CreateTopics', 'DeleteTopics', 'OffsetForLeaderEpoch', 'WriteTxnMarkers', 'DescribeAcls', 'CreateAcls', 'DeleteAcls', 'DescribeConfigs', 'DescribeLogDirs'],
    scenario: /^minimal-(0-v[0-2]|1-v[0-3]|2-v0|8-v[01]|9-v0|19-v[01]|20-v0|23-v[01]|27-v0|29-v0|30-v0|31-v0|32-v0|35-v0)$/,
    path: /^\w+ v\d+ $/,
    reason: KIP_896,
  },
  { apis: ['ApiVersions'], scenario: /^minimal-18-/, path: /^ApiVersions v\d+ \.apiKeys\.\w+\.minVersion$/, reason: KIP_896 },
  {
    apis: ['ApiVersions'],
    scenario: /^minimal-18-/,
    path: /^ApiVersions v\d+ \.apiKeys\.\w+$/,
    reason: 'APIs kafkite does not implement: delegation tokens (38-41), AlterReplicaLogDirs (34, one log dir per partition is placed at creation), '
      + 'the KRaft quorum APIs (DescribeQuorum, UnregisterBroker, Add/RemoveRaftVoter), client metrics (KIP-714) '
      + 'and StreamsGroupTopologyDescriptionUpdate (93, KIP-1071\'s topology description plugin, off by default in Kafka 4.4).',
  },
  {
    apis: ['ApiVersions'],
    scenario: /^minimal-18-/,
    path: /^ApiVersions v\d+ \.(supportedFeatures|finalizedFeatures)(\.length|\[\]\.\w+)$|\.finalizedFeaturesEpoch$/,
    reason: 'kafkite lists the seven features of a Kafka 4.4 node at the levels it implements (src/metadata/features.ts): metadata.version 26-33 '
      + '(Kafka 4.4: 7-33), kraft.version and eligible.leader.replicas.version 0-1, not finalized '
      + 'in a new data dir (Kafka 4.4 finalizes both at 1).',
  },
  {
    apis: ['FindCoordinator'],
    scenario: /^first-find-coordinator-/,
    path: /^FindCoordinator v3 \.(errorCode|errorMessage|nodeId|host|port)$/,
    reason: 'Kafka creates __consumer_offsets and __transaction_state on the first FindCoordinator for them and answers COORDINATOR_NOT_AVAILABLE '
      + 'until their partitions are led (clients retry); kafkite\'s coordinators are ready when it starts.',
  },
  {
    apis: ['Metadata', 'DescribeTopicPartitions'],
    scenario: /^minimal-(3-v0|75-v\d+)$/,
    path: /^(Metadata|DescribeTopicPartitions) v\d+ \.topics\.length$/,
    reason: 'Kafka lists its internal topics __consumer_offsets and __transaction_state among all topics; kafkite keeps them outside its topic '
      + 'registry, so Metadata and DescribeTopicPartitions for all topics do not list them.',
  },
  {
    apis: ['AddPartitionsToTxn'],
    scenario: /^minimal-24-v[45]$/,
    path: /^AddPartitionsToTxn v[45] $/,
    reason: 'Kafka 4.4 never answers a v4+ (broker-to-broker, KIP-890) request that lists no transactions; kafkite answers it with no results.',
  },
  {
    apis: ['ConsumerGroupHeartbeat'],
    scenario: /^consumer-group-/,
    path: /^ConsumerGroupHeartbeat v1 (join|heartbeat \d) \.(memberEpoch|assignment(\..*)?)$/,
    reason: 'A new member of a new KIP-848 group: Kafka 4.4 answers its first heartbeat with member epoch 2 and assigns asynchronously, '
      + 'the literal topics in one heartbeat and a regex\'s topics (resolved in the background) in a later one, or nothing at first; '
      + 'kafkite resolves the regex and assigns everything in the first heartbeat, at epoch 1. Clients echo the epoch they are given '
      + 'and take the assignment whenever it comes, so both converge to the same assignment.',
  },
  {
    apis: ['ShareGroupHeartbeat'],
    scenario: /^share-group-errors-and-other-group-types$/,
    path: /^ShareGroupHeartbeat v1 future epoch \.errorMessage$/,
    reason: 'A share member joining a topic: Kafka answers at group epoch 2 with no partitions (their share-partition state is being '
      + 'initialized, asynchronously) and bumps the epoch to 3 when it is; kafkite initializes the state before it answers, so the join '
      + 'answer is at epoch 3 with the partitions. The FENCED_MEMBER_EPOCH message names the member\'s current epoch (2 against 3).',
  },
  {
    apis: ['CreateTopics'],
    scenario: /^topic-admin-happy-path$/,
    path: /^CreateTopics v7 validate only \.topics\[\]\.configs\.message\.downconversion\.enable$/,
    reason: 'kafkite keeps Kafka 3.x\'s topic config message.downconversion.enable (config/legacy-definitions.ts), which Kafka 4.0 removed '
      + 'with Fetch v0-3 (KIP-896): kafkite still serves those versions and converts batches down for them unless it is false.',
  },
  {
    apis: ['CreateTopics'],
    scenario: /^topic-admin-happy-path$/,
    path: /^CreateTopics v7 validate only \.topics\[\]\.configs\.min\.insync\.replicas\.configSource$/,
    reason: 'Kafka 4.4, with eligible leader replicas enabled (KIP-966), keeps a cluster-wide min.insync.replicas, so its source is '
      + 'DYNAMIC_DEFAULT_BROKER_CONFIG; kafkite has no cluster-wide configs and reports DEFAULT_CONFIG.',
  },
  {
    apis: ['EndTxn'],
    scenario: /^transaction-happy-path$/,
    path: /^last stable offset right after EndTxn $/,
    reason: 'Kafka answers EndTxn once the transaction is prepared and writes its markers afterwards, so for a moment the last stable '
      + 'offset stays before the transaction and read_committed consumers do not see it yet; kafkite answers EndTxn with the markers '
      + 'written (and records CompleteCommit just after). Once both are complete, they show the same state.',
  },
  {
    apis: ['ShareFetch', 'ShareAcknowledge'],
    scenario: /^share-(fetch-sessions-and-acknowledgements|renew-acknowledge-disabled|fetch-write-leaves-acquired-records)$/,
    path: /^ReadShareGroupState v0 (state left|after the accept, the rest still out) \.results\[\d*\]\.partitions\[\d*\]\.(startOffset|stateBatches\.length)$/,
    reason: 'A share partition\'s start offset moves past acknowledged and archived records in the same write as the acknowledgement that '
      + 'completes them; Kafka 4.4 writes each acknowledgement with the start offset from before it (SharePartition updates it once the '
      + 'write is done), so its persisted state trails by one write, with the completed batches still listed. Both deliver the same records.',
  },
];
