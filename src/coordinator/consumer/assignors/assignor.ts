// The server-side assignor contract of KIP-848 (Kafka's ConsumerGroupPartitionAssignor): given every
// member's subscription and current target, compute the next target assignment of the group.

/** topic id → partition indexes. */
export type Assignment = Map<string, Set<number>>;

export interface TopicMetadata {
  readonly topicId: string;
  readonly name: string;
  readonly numPartitions: number;
}

export interface AssignmentMemberSpec {
  readonly subscribedTopicIds: ReadonlySet<string>;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  /** The member's current target assignment, which sticky assignors try to keep. */
  readonly assignment: Assignment;
}

export interface GroupSpec {
  readonly members: ReadonlyMap<string, AssignmentMemberSpec>;
  /** Metadata of every subscribed topic that exists, by topic id. */
  readonly topics: ReadonlyMap<string, TopicMetadata>;
}

export interface PartitionAssignor {
  readonly name: string;
  /** The new target of every member of the group (members without partitions map to an empty assignment). */
  assign(group: GroupSpec): Map<string, Assignment>;
}

export function emptyAssignments(memberIds: Iterable<string>): Map<string, Assignment> {
  return new Map([...memberIds].map((id) => [id, new Map()]));
}

export function addPartition(assignment: Assignment, topicId: string, partition: number): void {
  let partitions = assignment.get(topicId);
  if (!partitions) assignment.set(topicId, (partitions = new Set()));
  partitions.add(partition);
}

export function removePartition(assignment: Assignment, topicId: string, partition: number): void {
  const partitions = assignment.get(topicId);
  if (!partitions) return;
  partitions.delete(partition);
  if (partitions.size === 0) assignment.delete(topicId);
}

export function partitionCount(assignment: Assignment): number {
  let n = 0;
  for (const partitions of assignment.values()) n += partitions.size;
  return n;
}

export function assignmentsEqual(a: Assignment, b: Assignment): boolean {
  if (a.size !== b.size) return false;
  for (const [topicId, partitions] of a) {
    const other = b.get(topicId);
    if (!other || other.size !== partitions.size) return false;
    for (const p of partitions) if (!other.has(p)) return false;
  }
  return true;
}

/** Every (topic id, partition) of the assignment, topics and partitions in ascending order. */
export function* partitionsOf(assignment: Assignment): Generator<[string, number]> {
  for (const topicId of [...assignment.keys()].sort()) {
    for (const p of [...assignment.get(topicId)!].sort((x, y) => x - y)) yield [topicId, p];
  }
}
