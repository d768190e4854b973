// A share group (KIP-932) as the console shows it: ShareGroupDescribe's members, and per share partition its
// start and end offsets, the in-flight records by state and their delivery counts, as kafka-share-groups
// --describe --offsets and Kafka's SharePartitionMetrics (InFlightMessageCount) report them.
import type { Broker } from '../broker.js';
import { PersistedDeliveryState, type PersisterStateBatch, type SharePartitionKey } from '../share/persister.js';

interface ShareMemberView {
  memberId: string;
  clientId: string;
  clientHost: string;
  memberEpoch: number;
  subscribedTopics: string[];
  assignment: Array<{ topic: string; partitions: number[] }>;
}

interface InFlightCounts {
  available: number;
  acquired: number;
  acknowledged: number;
  archived: number;
}

interface SharePartitionView extends InFlightCounts {
  topic: string;
  partition: number;
  /** live: the broker's share partition in memory; persisted: the share coordinator's state on __share_group_state. */
  source: 'live' | 'persisted';
  startOffset: number;
  /** The last offset in flight, startOffset - 1 when none. */
  endOffset: number;
  /** In-flight records per delivery count: [count, records]. */
  deliveryCounts: Array<[number, number]>;
}

/** What a share partition in memory gives the console (src/share/SharePartition). */
export interface LiveSharePartition {
  readonly key: SharePartitionKey;
  readonly startOffset: number;
  readonly endOffset: number;
  counts(): InFlightCounts;
  /** Acquired records appear as available with their delivery count. */
  stateBatches(): PersisterStateBatch[];
}

export interface ShareGroupView {
  groupEpoch: number;
  assignmentEpoch: number;
  assignor: string;
  members: ShareMemberView[];
  partitions: SharePartitionView[];
}

/** Records per delivery count over the batches at or above the start offset. */
function deliveryHistogram(startOffset: number, batches: readonly PersisterStateBatch[]): Array<[number, number]> {
  const byCount = new Map<number, number>();
  for (const b of batches) {
    const n = b.lastOffset - Math.max(b.firstOffset, startOffset) + 1;
    if (n > 0) byCount.set(b.deliveryCount, (byCount.get(b.deliveryCount) ?? 0) + n);
  }
  return [...byCount].sort((a, b) => a[0] - b[0]);
}

/** Counts from the persisted batches: Kafka never persists ACQUIRED, so nothing is acquired here. */
function persistedCounts(startOffset: number, batches: readonly PersisterStateBatch[]): InFlightCounts {
  const c = { available: 0, acquired: 0, acknowledged: 0, archived: 0 };
  for (const b of batches) {
    const n = b.lastOffset - Math.max(b.firstOffset, startOffset) + 1;
    if (n <= 0) continue;
    if (b.deliveryState === PersistedDeliveryState.Acknowledged) c.acknowledged += n;
    // ARCHIVING (on its way to the dead-letter queue) shows as archived, as the live share partition counts it.
    else if (b.deliveryState === PersistedDeliveryState.Archived || b.deliveryState === PersistedDeliveryState.Archiving) c.archived += n;
    else c.available += n;
  }
  return c;
}

function keyOf(key: SharePartitionKey): string {
  return `${key.topicId}:${key.partition}`;
}

/**
 * The share partitions of a group: live from the broker's share partitions where one is loaded, else from
 * the share coordinator's persisted state.
 */
function sharePartitionViews(broker: Broker, groupId: string, live: readonly LiveSharePartition[]): SharePartitionView[] {
  const views = new Map<string, SharePartitionView>();
  const topicName = (topicId: string) => broker.topics.getById(topicId)?.name;
  for (const sp of live) {
    const topic = topicName(sp.key.topicId);
    if (topic === undefined) continue;
    views.set(keyOf(sp.key), {
      topic, partition: sp.key.partition, source: 'live', startOffset: sp.startOffset, endOffset: sp.endOffset,
      ...sp.counts(), deliveryCounts: deliveryHistogram(sp.startOffset, sp.stateBatches()),
    });
  }
  for (const key of broker.shareCoordinator.sharePartitionsOf(groupId)) {
    const topic = topicName(key.topicId);
    const state = broker.shareCoordinator.storedStateOf(key);
    if (topic === undefined || !state || views.has(keyOf(key))) continue;
    const last = state.stateBatches[state.stateBatches.length - 1];
    views.set(keyOf(key), {
      topic, partition: key.partition, source: 'persisted', startOffset: state.startOffset,
      endOffset: Math.max(last?.lastOffset ?? -1, state.startOffset - 1),
      ...persistedCounts(state.startOffset, state.stateBatches), deliveryCounts: deliveryHistogram(state.startOffset, state.stateBatches),
    });
  }
  return [...views.values()].sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

/** A share group's members and share partitions (ShareGroupDescribe, SharePartitionManager, share coordinator). */
export function shareGroupView(broker: Broker, groupId: string, live: readonly LiveSharePartition[]): ShareGroupView {
  const group = broker.groupCoordinator.shareGroups.describe(groupId, broker.topics);
  return {
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignor: group.assignorName,
    members: group.members.map((m) => ({
      memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, memberEpoch: m.memberEpoch, subscribedTopics: m.subscribedTopicNames,
      assignment: m.assignment.topicPartitions.map((tp) => ({ topic: tp.topicName, partitions: tp.partitions })),
    })),
    partitions: sharePartitionViews(broker, groupId, live),
  };
}
