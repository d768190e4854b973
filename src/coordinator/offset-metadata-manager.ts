// Committed offsets (Kafka's OffsetMetadataManager): written to __consumer_offsets first, then
// applied in memory; fetched, deleted and expired per group. Group membership checks happen
// in the GroupCoordinator before any of this is called.
import type { Logger } from 'pino';
import type { GroupCoordinatorConfig } from './coordinator-config.js';
import { ErrorCode as E } from '../errors.js';
import { GroupState, type ClassicGroup } from './classic/classic-group.js';
import { OffsetStore, type OffsetAndMetadata, type TopicPartition } from './offset-store.js';
import { partitionFor, type CoordinatorRecord, type OffsetsTopic, type TransactionalProducer } from './offsets-topic.js';
import { offsetCommitKey, offsetCommitValue } from './records.js';
import type { FetchedOffset, OffsetCommitRequest, OffsetDeleteResult, TopicPartitionErrors } from './types.js';

export class OffsetMetadataManager {
  private readonly store = new OffsetStore();
  /**
   * TxnOffsetCommit offsets per producer id, written to __consumer_offsets in a transactional batch and
   * held here until the transaction's marker: COMMIT moves them to the store, ABORT drops them.
   */
  private readonly pendingTransactional = new Map<number, OffsetStore>();
  /** Offset commits per group appended and not yet flushed: the group is in use though its store has none yet. */
  private readonly committing = new Map<string, number>();

  constructor(
    private readonly config: GroupCoordinatorConfig,
    private readonly offsetsTopic: OffsetsTopic,
    private readonly log?: Logger,
  ) {}

  /** Replays an offset read from __consumer_offsets at start-up. */
  load(groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): void {
    this.store.put(groupId, topic, partition, offset);
  }

  hasOffsets(groupId: string): boolean {
    return this.store.hasOffsets(groupId);
  }

  /** Whether offsets of the group are on their way: a commit waiting for its flush, or a transaction's awaiting its marker. */
  hasPendingOffsets(groupId: string): boolean {
    if (this.committing.has(groupId)) return true;
    for (const store of this.pendingTransactional.values()) if (store.hasOffsets(groupId)) return true;
    return false;
  }

  /** Tombstones for every offset of the group, for its deletion. */
  tombstonesOf(groupId: string): CoordinatorRecord[] {
    return this.store.partitions(groupId).map((tp) => ({ key: offsetCommitKey(groupId, tp.topic, tp.partition), value: null }));
  }

  forgetGroup(groupId: string): void {
    this.store.deleteGroup(groupId);
  }

  partitionsOfTopic(groupId: string, topic: string): TopicPartition[] {
    return this.store.partitions(groupId).filter((tp) => tp.topic === topic);
  }

  /** Replays a transactional offset still pending at start-up. */
  loadPending(producerId: number, groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): void {
    this.pendingStoreOf(producerId).put(groupId, topic, partition, offset);
  }

  private pendingStoreOf(producerId: number): OffsetStore {
    let store = this.pendingTransactional.get(producerId);
    if (!store) this.pendingTransactional.set(producerId, (store = new OffsetStore()));
    return store;
  }

  /** Whether a transaction has offsets of this partition pending (OffsetFetch with requireStable waits for them). */
  hasPendingTransactionalOffsets(groupId: string, topic: string, partition: number): boolean {
    for (const store of this.pendingTransactional.values()) if (store.get(groupId, topic, partition) !== undefined) return true;
    return false;
  }

  /**
   * A transaction's marker reached the __consumer_offsets partition `offsetsPartition`: its offsets for
   * the groups there become committed (COMMIT) or are dropped (ABORT), as Kafka's replayEndTransactionMarker.
   */
  completeTransaction(producerId: number, offsetsPartition: number, commit: boolean): void {
    const pending = this.pendingTransactional.get(producerId);
    if (!pending) return;
    for (const groupId of pending.groupIds()) {
      if (partitionFor(groupId, this.offsetsTopic.numPartitions) !== offsetsPartition) continue;
      if (commit) for (const [topic, partition, offset] of pending.entries(groupId)) this.store.put(groupId, topic, partition, offset);
      pending.deleteGroup(groupId);
    }
    if (!pending.hasAnyOffsets()) this.pendingTransactional.delete(producerId);
  }

  /** `validate`: a partition's own check by the group (streams groups' per-task assignment epochs), NONE to commit it. */
  async commit(
    groupId: string, topics: OffsetCommitRequest['topics'], retentionTimeMs: number, producer?: TransactionalProducer,
    validate?: (topic: string, partition: number) => number,
  ): Promise<TopicPartitionErrors[]> {
    const now = Date.now();
    const records: CoordinatorRecord[] = [];
    const accepted: Array<[string, number, OffsetAndMetadata]> = [];
    const result = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const metadata = p.committedMetadata ?? '';
        const refused = validate?.(t.name, p.partitionIndex) ?? E.NONE;
        if (refused !== E.NONE) return { partitionIndex: p.partitionIndex, errorCode: refused };
        if (Buffer.byteLength(metadata) > this.config.offsetMetadataMaxBytes) {
          return { partitionIndex: p.partitionIndex, errorCode: E.OFFSET_METADATA_TOO_LARGE };
        }
        const commitTimestamp = p.commitTimestamp >= 0 ? p.commitTimestamp : now;
        const offset: OffsetAndMetadata = {
          offset: p.committedOffset,
          leaderEpoch: p.committedLeaderEpoch,
          metadata,
          commitTimestamp,
          expireTimestamp: retentionTimeMs >= 0 ? commitTimestamp + retentionTimeMs : -1,
        };
        records.push({ key: offsetCommitKey(groupId, t.name, p.partitionIndex), value: offsetCommitValue(offset) });
        accepted.push([t.name, p.partitionIndex, offset]);
        return { partitionIndex: p.partitionIndex, errorCode: E.NONE };
      }),
    }));
    if (records.length === 0) return result;
    const failed = (err: unknown): TopicPartitionErrors[] => {
      this.log?.warn({ err, group: groupId }, 'failed to persist committed offsets');
      return result.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => (p.errorCode === E.NONE ? { ...p, errorCode: E.COORDINATOR_NOT_AVAILABLE } : p)),
      }));
    };
    // Transactional offsets are pending from before their append, as in Kafka's prepareTxnOffsetCommit: a
    // marker written while the batch is flushed (an EndTxn sent before this answer came, a timed-out
    // transaction's abort) must find them, or they would stay pending after it.
    const pending = producer ? this.pendingStoreOf(producer.producerId) : null;
    if (pending) for (const [topic, partition, offset] of accepted) pending.put(groupId, topic, partition, offset);
    this.committing.set(groupId, (this.committing.get(groupId) ?? 0) + 1);
    try {
      await this.append(groupId, records, producer);
    } catch (err) {
      if (pending) this.dropPending(producer!.producerId, groupId, accepted);
      return failed(err);
    } finally {
      const left = this.committing.get(groupId)! - 1;
      if (left === 0) this.committing.delete(groupId);
      else this.committing.set(groupId, left);
    }
    if (!pending) for (const [topic, partition, offset] of accepted) this.store.put(groupId, topic, partition, offset);
    return result;
  }

  /** A failed TxnOffsetCommit's offsets still pending (Kafka's failedTxnOffsetCommit); a marker may have taken them already. */
  private dropPending(producerId: number, groupId: string, offsets: ReadonlyArray<[string, number, OffsetAndMetadata]>): void {
    const pending = this.pendingTransactional.get(producerId);
    if (!pending) return;
    for (const [topic, partition, offset] of offsets) if (pending.get(groupId, topic, partition) === offset) pending.delete(groupId, topic, partition);
    if (!pending.hasAnyOffsets()) this.pendingTransactional.delete(producerId);
  }

  /**
   * The listed partitions' offsets (-1 when none), or every committed partition when `topics` is null.
   * `requireStable`: a partition with transactional offsets pending answers UNSTABLE_OFFSET_COMMIT (KIP-447).
   */
  fetch(
    groupId: string,
    topics: ReadonlyArray<{ name: string; partitionIndexes: ReadonlyArray<number> }> | null,
    requireStable = false,
  ): Array<{ name: string; partitions: FetchedOffset[] }> {
    const toFetched = (topic: string, partitionIndex: number, o: OffsetAndMetadata | undefined): FetchedOffset => {
      if (requireStable && this.hasPendingTransactionalOffsets(groupId, topic, partitionIndex)) {
        return { partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: E.UNSTABLE_OFFSET_COMMIT };
      }
      return {
        partitionIndex,
        committedOffset: o?.offset ?? -1,
        committedLeaderEpoch: o?.leaderEpoch ?? -1,
        metadata: o?.metadata ?? '',
        errorCode: E.NONE,
      };
    };
    if (topics !== null) {
      return topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => toFetched(t.name, p, this.store.get(groupId, t.name, p))),
      }));
    }
    const byTopic = new Map<string, FetchedOffset[]>();
    for (const [topic, partition, offset] of this.store.entries(groupId)) {
      let list = byTopic.get(topic);
      if (!list) byTopic.set(topic, (list = []));
      list.push(toFetched(topic, partition, offset));
    }
    return [...byTopic].map(([name, partitions]) => ({ name, partitions }));
  }

  /** OffsetDelete: partitions of `subscribed` topics are in use and stay (GROUP_SUBSCRIBED_TO_TOPIC). */
  async delete(
    groupId: string,
    topics: ReadonlyArray<{ name: string; partitions: ReadonlyArray<number> }>,
    subscribed: ReadonlySet<string>,
  ): Promise<OffsetDeleteResult> {
    const deleted: TopicPartition[] = [];
    const result = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partitionIndex) => {
        if (subscribed.has(t.name)) return { partitionIndex, errorCode: E.GROUP_SUBSCRIBED_TO_TOPIC };
        if (this.store.get(groupId, t.name, partitionIndex) !== undefined) deleted.push({ topic: t.name, partition: partitionIndex });
        return { partitionIndex, errorCode: E.NONE };
      }),
    }));
    try {
      await this.remove(groupId, deleted);
    } catch (err) {
      this.log?.warn({ err, group: groupId }, 'failed to persist offset deletion');
      return { errorCode: E.COORDINATOR_NOT_AVAILABLE, topics: [] };
    }
    return { errorCode: E.NONE, topics: result };
  }

  /** Writes tombstones for the partitions' offsets, then forgets them. */
  async remove(groupId: string, partitions: ReadonlyArray<TopicPartition>): Promise<void> {
    if (partitions.length === 0) return;
    await this.append(groupId, partitions.map((tp) => ({ key: offsetCommitKey(groupId, tp.topic, tp.partition), value: null })));
    for (const tp of partitions) this.store.delete(groupId, tp.topic, tp.partition);
  }

  /**
   * offsets.retention.minutes, as Kafka applies it: a standalone consumer's offsets age from their
   * commit; an Empty group's from when it became Empty; a Stable consumer group's only for topics it
   * no longer subscribes to. An explicit expire timestamp (OffsetCommit v2-v4) wins.
   */
  expired(group: ClassicGroup, subscribedTopics: ReadonlySet<string> | undefined, now: number): TopicPartition[] {
    let baseTimestamp: (o: OffsetAndMetadata) => number;
    let keep: ReadonlySet<string> = new Set();
    if (group.protocolType === null) {
      baseTimestamp = (o) => o.commitTimestamp;
    } else if (group.is(GroupState.Empty)) {
      baseTimestamp = () => group.currentStateTimestamp;
    } else if (group.is(GroupState.Stable) && subscribedTopics !== undefined) {
      keep = subscribedTopics;
      baseTimestamp = (o) => o.commitTimestamp;
    } else {
      return [];
    }
    return this.expiredBy(group.groupId, keep, baseTimestamp, now);
  }

  /** Kafka 4's rule for consumer-protocol groups: offsets of topics no member subscribes to age from their commit. */
  expiredInConsumerGroup(groupId: string, subscribedTopics: ReadonlySet<string>, now: number): TopicPartition[] {
    return this.expiredBy(groupId, subscribedTopics, (o) => o.commitTimestamp, now);
  }

  private expiredBy(groupId: string, keep: ReadonlySet<string>, baseTimestamp: (o: OffsetAndMetadata) => number, now: number): TopicPartition[] {
    const expired: TopicPartition[] = [];
    for (const [topic, partition, o] of this.store.entries(groupId)) {
      if (keep.has(topic)) continue;
      const isExpired = o.expireTimestamp >= 0 ? now >= o.expireTimestamp : now - baseTimestamp(o) >= this.config.offsetsRetentionMs;
      if (isExpired) expired.push({ topic, partition });
    }
    return expired;
  }

  private append(groupId: string, records: ReadonlyArray<CoordinatorRecord>, producer?: TransactionalProducer): Promise<void> {
    return this.offsetsTopic.append(partitionFor(groupId, this.offsetsTopic.numPartitions), records, producer);
  }
}
