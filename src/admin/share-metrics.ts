// Kafka's share-group metrics (KIP-932) in Prometheus form. Read from the broker at scrape time:
// group-coordinator-metrics group-count{protocol}, share-group-count{state} and share-group-rebalance-count
// (GroupCoordinatorMetrics), and SharePartitionMetrics' InFlightMessageCount, InFlightBatchCount and
// AcquisitionLockTimeoutPerSec's count. Counted as they happen: share-group-metrics RecordAcknowledgementsPerSec{ackType},
// PartitionLoadTimeMs and TopicPartitionsAcquireTimeMs{group} (ShareGroupMetrics), and BrokerTopicMetrics'
// Total/FailedShareFetchRequestsPerSec and Total/FailedShareAcknowledgementRequestsPerSec per topic.
import { Gauge, type Registry } from 'prom-client';
import type { Broker } from '../broker.js';
import type { SharePartition } from '../share/share-partition.js';
import type { ShareGroupMetricsSink, ShareRequestKind } from '../share/share-partition-manager.js';
import { BucketHistogram } from './bucket-histogram.js';
import { scrapedCounter } from './scraped-counter.js';

/** Share groups' states as ShareGroup.ShareGroupState names them; each is reported, 0 when none. */
const SHARE_GROUP_STATES = ['Empty', 'Stable', 'Dead'];
/** AcknowledgeType's ids and names (the ackType tag); the protocol's 0 (a gap) is no acknowledgement. */
const ACK_TYPES = new Map([[1, 'Accept'], [2, 'Release'], [3, 'Reject'], [4, 'Renew']]);
/** Seconds: reading a share partition's state from the share coordinator is in memory, a cold one waits on a write. */
const LOAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds: a share fetch acquires at once, or after waiting for records up to its MaxWaitMs (500 ms by default). */
const ACQUIRE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Per topic: share requests naming it, and those in which one of its partitions failed. */
interface TopicShareRequests {
  fetch: number;
  failedFetch: number;
  acknowledgement: number;
  failedAcknowledgement: number;
}

/** Kafka's BrokerTopicMetrics names, in Prometheus style, by what they count. */
const SHARE_REQUEST_COUNTERS = [
  ['fetch', 'kafkite_topic_share_fetch_requests_total', 'ShareFetch requests fetching from the topic (TotalShareFetchRequestsPerSec).'],
  ['failedFetch', 'kafkite_topic_failed_share_fetch_requests_total', 'ShareFetch requests in which a partition of the topic was answered an error (FailedShareFetchRequestsPerSec).'],
  ['acknowledgement', 'kafkite_topic_share_acknowledgement_requests_total',
    'Requests acknowledging records of the topic, ShareAcknowledge or a ShareFetch carrying acknowledgements (TotalShareAcknowledgementRequestsPerSec).'],
  ['failedAcknowledgement', 'kafkite_topic_failed_share_acknowledgement_requests_total',
    'Requests in which an acknowledgement on a partition of the topic failed (FailedShareAcknowledgementRequestsPerSec).'],
] as const satisfies ReadonlyArray<readonly [keyof TopicShareRequests, string, string]>;

export class ShareGroupMetrics implements ShareGroupMetricsSink {
  private readonly acknowledgements = new Map<string, number>();
  private readonly loadTime: BucketHistogram;

  private readonly topicRequests = new Map<string, TopicShareRequests>();
  private readonly acquireTime: BucketHistogram;

  constructor(private readonly broker: Broker, registry: Registry) {
    const registers = [registry];
    // Counted in plain maps and handed over at scrape time, as metrics.ts' request-path counters are.
    scrapedCounter(
      'kafkite_share_record_acknowledgements_total', "Acknowledgement types applied to share partitions, one per batch and type (Kafka's RecordAcknowledgementsPerSec{ackType}).",
      ['ack_type'], registers, () => [...this.acknowledgements].map(([ackType, value]) => ({ labels: { ack_type: ackType }, value })),
    );
    for (const [field, name, help] of SHARE_REQUEST_COUNTERS) {
      scrapedCounter(name, help, ['topic'], registers, () => [...this.topicRequests].map(([topic, c]) => ({ labels: { topic }, value: c[field] })));
    }
    scrapedCounter(
      'kafkite_share_group_rebalances_total', "Share group epoch bumps by a heartbeat (Kafka's share-group-rebalance-count; share-group-rebalance-rate is its rate).",
      [], registers, () => [{ labels: {}, value: broker.groupCoordinator.shareGroups.rebalances }],
    );
    this.loadTime = new BucketHistogram(
      'kafkite_share_partition_load_time_seconds', "Time to load a share partition's state from the share coordinator (Kafka's PartitionLoadTimeMs).", null, LOAD_BUCKETS, registry,
    );
    this.acquireTime = new BucketHistogram(
      'kafkite_share_topic_partitions_acquire_time_seconds', "Time a share fetch waited before acquiring from its partitions, per group (Kafka's TopicPartitionsAcquireTimeMs).",
      'group', ACQUIRE_BUCKETS, registry,
    );
    this.registerGroupGauges(registers);
    this.registerInFlightGauges(registers);
  }

  shareRequest(kind: ShareRequestKind, topics: ReadonlySet<string>, failedTopics: ReadonlySet<string>): void {
    for (const topic of topics) {
      let c = this.topicRequests.get(topic);
      if (!c) this.topicRequests.set(topic, (c = { fetch: 0, failedFetch: 0, acknowledgement: 0, failedAcknowledgement: 0 }));
      if (kind === 'fetch') {
        c.fetch++;
        if (failedTopics.has(topic)) c.failedFetch++;
      } else {
        c.acknowledgement++;
        if (failedTopics.has(topic)) c.failedAcknowledgement++;
      }
    }
  }

  topicPartitionsAcquireTime(groupId: string, millis: number): void {
    this.acquireTime.labels(groupId).observe(millis / 1000);
  }

  recordAcknowledgement(acknowledgeTypes: readonly number[]): void {
    for (const id of acknowledgeTypes) {
      const name = ACK_TYPES.get(id);
      if (name) this.acknowledgements.set(name, (this.acknowledgements.get(name) ?? 0) + 1);
    }
  }

  partitionLoadTime(millis: number): void {
    this.loadTime.observe(millis / 1000);
  }

  private shareGroupIds(): string[] {
    return this.broker.groupCoordinator.listGroups([], ['share']).groups.map((g) => g.groupId);
  }

  private registerGroupGauges(registers: Registry[]): void {
    const listed = () => this.broker.groupCoordinator.listGroups([], []).groups;
    new Gauge({
      name: 'kafkite_group_count',
      help: "Groups per protocol: classic, consumer, share, streams (Kafka's group-count{protocol}).",
      labelNames: ['protocol'],
      registers,
      collect() {
        this.reset();
        const counts = new Map<string, number>();
        for (const g of listed()) counts.set(g.groupType, (counts.get(g.groupType) ?? 0) + 1);
        for (const [protocol, n] of counts) this.set({ protocol }, n);
      },
    });
    new Gauge({
      name: 'kafkite_share_group_count',
      help: "Share groups per state (Kafka's share-group-count{state}).",
      labelNames: ['state'],
      registers,
      collect() {
        const counts = new Map(SHARE_GROUP_STATES.map((s) => [s, 0]));
        for (const g of listed()) if (g.groupType === 'share') counts.set(g.groupState, (counts.get(g.groupState) ?? 0) + 1);
        for (const [state, n] of counts) this.set({ state }, n);
      },
    });
  }

  /** Per loaded share partition, as Kafka's SharePartitionMetrics tags them (group, topic, partition). */
  private registerInFlightGauges(registers: Registry[]): void {
    const { broker } = this;
    const groups = () => this.shareGroupIds();
    const inFlightGauge = (name: string, help: string, valueOf: (sp: SharePartition) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['group', 'topic', 'partition'],
        registers,
        collect() {
          this.reset();
          for (const group of groups()) {
            for (const sp of broker.sharePartitions.ofGroup(group)) {
              const topic = broker.topics.getById(sp.key.topicId)?.name;
              if (topic !== undefined) this.set({ group, topic, partition: String(sp.key.partition) }, valueOf(sp));
            }
          }
        },
      });
    inFlightGauge('kafkite_share_partition_in_flight_messages', "Records in flight: from the share-partition start offset to its end offset (Kafka's InFlightMessageCount).", (sp) => {
      const c = sp.counts();
      return c.available + c.acquired + c.acknowledged + c.archived;
    });
    inFlightGauge('kafkite_share_partition_in_flight_batches', "In-flight batches the share partition keeps (Kafka's InFlightBatchCount).", (sp) => sp.inFlightBatchCount);
    // A count kept by the loaded share partition: it restarts when the partition is loaded again.
    inFlightGauge('kafkite_share_acquisition_lock_timeouts', "Records whose acquisition lock expired since the share partition was loaded (Kafka's AcquisitionLockTimeoutPerSec).", (sp) => sp.acquisitionLockTimeouts);
  }
}
