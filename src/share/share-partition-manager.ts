// The broker's share partitions and share sessions (Kafka's kafka.server.share.SharePartitionManager): a
// SharePartition per group and topic partition, made and initialized through the Persister on first use;
// acknowledgements routed to them; what a closed session, a dropped connection or a departed member held
// released.
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/broker-config.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { ErrorCode } from '../errors.js';
import { groupConfigValue } from '../metadata/group-configs.js';
import { PersisterError, persisterErrorCode, type Persister } from './persister.js';
import { ShareGroupDLQManager, type DlqBroker } from './share-group-dlq-manager.js';
import { SharePartition, type AcknowledgementBatch, type SharePartitionConfig } from './share-partition.js';
import { ShareSessionCache, type ShareSession } from './share-session-cache.js';

/**
 * What the share partitions need of the broker (its config, topics, logs, the fetch purgatory to wake, and what
 * the dead-letter queue writes through).
 */
export interface ShareBroker extends DlqBroker {
  readonly config: Pick<BrokerConfig, 'get'>;
  readonly dynamicConfigs: { groupConfigs(groupId: string): ReadonlyMap<string, string> };
  /** share.version 2 turns the dead-letter queue on (ShareVersion.supportsShareGroupDLQ). */
  readonly features: { level(name: string): number };
  readonly log: Logger;
  readonly metrics?: { readonly shareGroups: ShareGroupMetricsSink };
  getLog(topic: string, partition: number): UnifiedLog | undefined;
}

/** Kafka's ShareGroupMetrics, as far as the share partitions feed it (kafkite's /metrics implements it). */
export interface ShareGroupMetricsSink {
  /** The types of acknowledgement batches applied, one per batch and type (Kafka's recordAcknowledgement). */
  recordAcknowledgement(acknowledgeTypes: readonly number[]): void;
  /** How long a share partition's state took to load (Kafka's PartitionLoadTimeMs). */
  partitionLoadTime(millis: number): void;
  /**
   * One ShareFetch's or one acknowledgement's topics, and those of them a partition failed in (Kafka's BrokerTopicStats
   * Total/FailedShareFetchRequestsPerSec and Total/FailedShareAcknowledgementRequestsPerSec, once per topic and request).
   */
  shareRequest(kind: ShareRequestKind, topics: ReadonlySet<string>, failedTopics: ReadonlySet<string>): void;
  /** How long a share fetch waited before acquiring from its partitions (Kafka's TopicPartitionsAcquireTimeMs{group}). */
  topicPartitionsAcquireTime(groupId: string, millis: number): void;
}

export type ShareRequestKind = 'fetch' | 'acknowledgement';

export class SharePartitionManager {
  /** The share-partition state store; set at start-up by whoever implements it (the share coordinator). */
  persister: Persister | undefined;
  readonly sessions: ShareSessionCache;
  private readonly partitions = new Map<string, SharePartition>();
  private readonly dlq: ShareGroupDLQManager;

  constructor(private readonly broker: ShareBroker) {
    this.sessions = new ShareSessionCache(() => Number(this.broker.config.get('group.share.max.share.sessions')));
    this.dlq = new ShareGroupDLQManager(broker, (groupId, name) => this.groupSetting(groupId, name));
  }

  /** A group config (share.*): the group's own value, else the broker's group.share.* one or GroupConfig's default. */
  private groupSetting(groupId: string, name: string): string {
    return groupConfigValue(name, this.broker.dynamicConfigs.groupConfigs(groupId), this.broker.config);
  }

  lockDurationMs(groupId: string): number {
    return Number(this.groupSetting(groupId, 'share.record.lock.duration.ms'));
  }

  /** share.isolation.level: read_uncommitted (default) or read_committed. */
  readCommitted(groupId: string): boolean {
    return this.groupSetting(groupId, 'share.isolation.level').toLowerCase() === 'read_committed';
  }

  private configFor(groupId: string, topicId: string, partition: number): SharePartitionConfig {
    return {
      lockDurationMs: () => this.lockDurationMs(groupId),
      deliveryCountLimit: () => Number(this.groupSetting(groupId, 'share.delivery.count.limit')),
      maxInFlightRecords: () => Number(this.groupSetting(groupId, 'share.partition.max.record.locks')),
      autoOffsetReset: () => this.groupSetting(groupId, 'share.auto.offset.reset'),
      renewAcknowledgeEnabled: () => this.groupSetting(groupId, 'share.renew.acknowledge.enable').toLowerCase() === 'true',
      deadLetterQueue: {
        // Kafka's BrokerServer gives SharePartition ShareVersion.supportsShareGroupDLQ as the switch.
        enabled: () => this.broker.features.level('share.version') >= 2 && this.groupSetting(groupId, 'errors.deadletterqueue.topic.name') !== '',
        write: (batch) => this.dlq.write({ groupId, topicId, partition }, batch),
      },
    };
  }

  private static key(groupId: string, topicId: string, partition: number): string {
    return `${groupId}\u0000${topicId}\u0000${partition}`;
  }

  /** The share partition, initialized, or the error code the partition answers with. */
  async get(groupId: string, topicId: string, partition: number): Promise<SharePartition | number> {
    const topic = this.broker.topics.getById(topicId);
    if (!topic) return ErrorCode.UNKNOWN_TOPIC_ID;
    const log = partition >= 0 && partition < topic.partitions ? this.broker.getLog(topic.name, partition) : undefined;
    if (!log) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (!this.persister) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const key = SharePartitionManager.key(groupId, topicId, partition);
    let sp = this.partitions.get(key);
    if (sp?.fenced) {
      sp.close();
      sp = undefined;
    }
    const loadStart = sp ? undefined : performance.now();
    if (!sp) {
      const name = topic.name;
      sp = new SharePartition({ groupId, topicId, partition }, this.persister, this.configFor(groupId, topicId, partition), () => this.broker.purgatory.notify(name, partition));
      this.partitions.set(key, sp);
    }
    try {
      await sp.initialize({
        logStartOffset: log.logStartOffset,
        highWatermark: log.highWatermark,
        leaderEpoch: log.leaderEpoch,
        offsetForTimestamp: (ts) => log.fetchOffsetByTimestamp(ts)?.offset,
      });
    } catch (err) {
      this.partitions.delete(key);
      sp.close();
      this.broker.log.warn({ groupId, topic: topic.name, partition, error: (err as Error).message }, 'share partition initialization failed');
      // A refused read answers as a refused write does (SharePartition.maybeInitialize's fetchPersisterError):
      // a fenced leader or state epoch is NOT_LEADER_OR_FOLLOWER.
      return err instanceof PersisterError ? persisterErrorCode(err) : ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }
    if (loadStart !== undefined) this.broker.metrics?.shareGroups.partitionLoadTime(performance.now() - loadStart);
    return sp;
  }

  /** The share partitions of a group that exist on this broker, for the console and the admin APIs. */
  ofGroup(groupId: string): SharePartition[] {
    return [...this.partitions.values()].filter((sp) => sp.key.groupId === groupId);
  }

  async acknowledge(groupId: string, memberId: string, topicId: string, partition: number, batches: readonly AcknowledgementBatch[]): Promise<number> {
    const sp = await this.get(groupId, topicId, partition);
    if (typeof sp === 'number') return sp;
    const code = await sp.acknowledge(memberId, batches);
    // Kafka's SharePartitionManager records each applied batch's types in ShareGroupMetrics.
    if (code === ErrorCode.NONE) for (const b of batches) this.broker.metrics?.shareGroups.recordAcknowledgement(b.acknowledgeTypes);
    return code;
  }

  /** Counts a request's topics, and those with a partition in error, in the per-topic share request metrics. */
  recordRequest(kind: ShareRequestKind, partitions: ReadonlyArray<{ topicId: string; errorCode: number }>): void {
    const sink = this.broker.metrics?.shareGroups;
    if (!sink || partitions.length === 0) return;
    const topics = new Set<string>();
    const failed = new Set<string>();
    for (const p of partitions) {
      const name = this.broker.topics.getById(p.topicId)?.name;
      if (name === undefined) continue;
      topics.add(name);
      if (p.errorCode !== ErrorCode.NONE) failed.add(name);
    }
    sink.shareRequest(kind, topics, failed);
  }

  /** Releases what the member acquired on the session's partitions (its session closed or its connection dropped). */
  async releaseSession(session: ShareSession, undoDeliveryCount: boolean): Promise<void> {
    await this.releaseMember(session.groupId, session.memberId, undoDeliveryCount);
  }

  private async releaseMember(groupId: string, memberId: string, undoDeliveryCount: boolean): Promise<void> {
    await Promise.all(this.ofGroup(groupId).map((sp) => sp.releaseMember(memberId, undoDeliveryCount).catch(() => {})));
  }

  /** A connection closed: its share sessions end and what they acquired becomes available (as Kafka 4.4 does). */
  connectionClosed(connectionId: number): void {
    for (const session of this.sessions.removeConnection(connectionId)) void this.releaseSession(session, false);
  }

  /** A member left its share group (Kafka's ShareGroupListener): its session ends, its records are released. */
  onMemberLeave(groupId: string, memberId: string): void {
    this.sessions.removeMember(groupId, memberId);
    void this.releaseMember(groupId, memberId, false);
  }

  /** The group has no member left (ShareGroupListener): its share partitions leave the cache; their state is persisted. */
  onGroupEmpty(groupId: string): void {
    for (const [key, sp] of this.partitions) {
      if (sp.key.groupId !== groupId) continue;
      sp.close();
      this.partitions.delete(key);
    }
  }

  /**
   * share.version went to 0 (Kafka's SharePartitionManager.onShareVersionToggle): every share session ends and
   * every share partition leaves the cache. Their persisted state stays; what members had acquired is not
   * persisted, so once share groups are back those records are available again.
   */
  onShareVersionToggle(enabled: boolean): void {
    if (enabled) return;
    this.sessions.removeAll();
    for (const [key, sp] of this.partitions) {
      sp.close();
      this.partitions.delete(key);
    }
  }

  shutdown(): void {
    for (const sp of this.partitions.values()) sp.close();
  }
}

/** The acknowledgements of one request, by partition, as both ShareFetch and ShareAcknowledge carry them. */
export interface PartitionAcknowledgements {
  topicId: string;
  partition: number;
  batches: AcknowledgementBatch[];
}

/**
 * Applies a request's acknowledgements, partition by partition, each answered once durable (or refused); keyed
 * topicId:partition.
 */
export async function acknowledgeAll(
  manager: SharePartitionManager, groupId: string, memberId: string, acks: readonly PartitionAcknowledgements[],
): Promise<Map<string, number>> {
  const results = await Promise.all(acks.map((a) => manager.acknowledge(groupId, memberId, a.topicId, a.partition, a.batches)));
  manager.recordRequest('acknowledgement', acks.map((a, i) => ({ topicId: a.topicId, errorCode: results[i]! })));
  return new Map(acks.map((a, i) => [`${a.topicId}:${a.partition}`, results[i]!]));
}
