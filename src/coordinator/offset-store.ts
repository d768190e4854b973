// Committed offsets per group, in memory; the __consumer_offsets topic is their durable copy.

export interface OffsetAndMetadata {
  offset: number;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
  /** Only from OffsetCommit v2-v4 with an explicit retention time; -1 otherwise. */
  expireTimestamp: number;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export class OffsetStore {
  /** groupId → topic → partition → offset. */
  private readonly groups = new Map<string, Map<string, Map<number, OffsetAndMetadata>>>();

  get(groupId: string, topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.groups.get(groupId)?.get(topic)?.get(partition);
  }

  put(groupId: string, topic: string, partition: number, offset: OffsetAndMetadata): void {
    let topics = this.groups.get(groupId);
    if (!topics) this.groups.set(groupId, (topics = new Map()));
    let partitions = topics.get(topic);
    if (!partitions) topics.set(topic, (partitions = new Map()));
    partitions.set(partition, offset);
  }

  delete(groupId: string, topic: string, partition: number): boolean {
    const topics = this.groups.get(groupId);
    const partitions = topics?.get(topic);
    if (!topics || !partitions?.delete(partition)) return false;
    if (partitions.size === 0) topics.delete(topic);
    if (topics.size === 0) this.groups.delete(groupId);
    return true;
  }

  /** Removes every offset of the group; returns the partitions that had one. */
  deleteGroup(groupId: string): TopicPartition[] {
    const removed = this.partitions(groupId);
    this.groups.delete(groupId);
    return removed;
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  hasAnyOffsets(): boolean {
    return this.groups.size > 0;
  }

  hasOffsets(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  /** All (topic, partition, offset) of a group, topics and partitions in commit order. */
  *entries(groupId: string): Generator<[string, number, OffsetAndMetadata]> {
    const topics = this.groups.get(groupId);
    if (!topics) return;
    for (const [topic, partitions] of topics) {
      for (const [partition, offset] of partitions) yield [topic, partition, offset];
    }
  }

  partitions(groupId: string): TopicPartition[] {
    return [...this.entries(groupId)].map(([topic, partition]) => ({ topic, partition }));
  }
}
