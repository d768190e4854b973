// A KIP-932 share group (Kafka's modern.share.ShareGroup): members, the group epoch, the target assignment and
// its epoch, and which partitions' share-partition state is initialized (ShareGroupStatePartitionMetadata).
import type { Assignment, TopicMetadata } from '../consumer/assignors/assignor.js';
import type { ShareGroupMember } from './share-group-member.js';

export const SHARE_GROUP_TYPE = 'share';

/** Kafka's ShareGroup.ShareGroupState, as DescribeGroups, ListGroups and ShareGroupDescribe name them. */
export enum ShareGroupState {
  Empty = 'Empty',
  Stable = 'Stable',
  Dead = 'Dead',
}

/** A topic's partitions whose share-partition state is initialized (Kafka's InitMapValue without its timestamp). */
export interface InitializedTopic {
  topicName: string;
  partitions: Set<number>;
}

/** A topic's partitions being initialized, since when (Kafka's InitMapValue with its timestamp). */
export interface InitializingTopic extends InitializedTopic {
  timestamp: number;
}

export class ShareGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  /** When the target assignment was last computed (ms since the epoch; 0: never, or the group emptied since). */
  assignmentTimestamp = 0;
  /** The subscribed topics' metadata hash the group epoch was last bumped for (ShareGroupMetadataValue). */
  metadataHash = 0n;
  readonly members = new Map<string, ShareGroupMember>();
  readonly targetAssignment = new Map<string, Assignment>();
  /** topic id → initialized partitions: only these are assigned (GroupMetadataManager.initializedAssignmentPending). */
  readonly initializedTopics = new Map<string, InitializedTopic>();
  /** topic id → partitions whose initialization was sent and not answered (not stored: replayed ones are stamped then). */
  readonly initializingTopics = new Map<string, InitializingTopic>();
  /** The subscribed topics at the last heartbeat, by name (not stored). */
  subscriptionMetadata = new Map<string, TopicMetadata>();

  constructor(readonly groupId: string) {}

  get state(): ShareGroupState {
    return this.members.size === 0 ? ShareGroupState.Empty : ShareGroupState.Stable;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  subscribedTopicNames(): Set<string> {
    const names = new Set<string>();
    for (const m of this.members.values()) for (const t of m.subscribedTopicNames) names.add(t);
    return names;
  }

  isInitialized(topicId: string, partition: number): boolean {
    return this.initializedTopics.get(topicId)?.partitions.has(partition) === true;
  }

  /** Whether the partition's initialization started less than `retryIntervalMs` ago (not to be sent again yet). */
  isInitializing(topicId: string, partition: number, now: number, retryIntervalMs: number): boolean {
    const t = this.initializingTopics.get(topicId);
    return t !== undefined && t.partitions.has(partition) && now - t.timestamp < retryIntervalMs;
  }

  /** Records partitions as initializing at `now`; a topic's earlier ones are stamped anew, as Kafka's combineInitMaps does. */
  markInitializing(pending: ReadonlyMap<string, InitializedTopic>, now: number): void {
    for (const [topicId, { topicName, partitions }] of pending) {
      const known = this.initializingTopics.get(topicId)?.partitions ?? [];
      this.initializingTopics.set(topicId, { topicName, partitions: new Set([...known, ...partitions]), timestamp: now });
    }
  }

  /** The partition's initialization ended, either way (Kafka's initializeShareGroupState / uninitializeShareGroupState). */
  doneInitializing(topicId: string, partition: number): void {
    const t = this.initializingTopics.get(topicId);
    t?.partitions.delete(partition);
    if (t?.partitions.size === 0) this.initializingTopics.delete(topicId);
  }
}
