// Kafka's RangeAssignor ("range"): per topic, its subscribers in member id order each take one
// contiguous range of partitions; the first (partitions % subscribers) take one more. Members with the
// same subscriptions thus get the same partition numbers of co-partitioned topics.
import { addPartition, emptyAssignments, type Assignment, type GroupSpec, type PartitionAssignor } from './assignor.js';

export class RangeAssignor implements PartitionAssignor {
  readonly name = 'range';

  assign(group: GroupSpec): Map<string, Assignment> {
    const memberIds = [...group.members.keys()].sort();
    const result = emptyAssignments(memberIds);
    for (const topic of group.topics.values()) {
      const subscribers = memberIds.filter((id) => group.members.get(id)!.subscribedTopicIds.has(topic.topicId));
      if (subscribers.length === 0) continue;
      const quota = Math.floor(topic.numPartitions / subscribers.length);
      const extra = topic.numPartitions % subscribers.length;
      subscribers.forEach((id, i) => {
        const start = i * quota + Math.min(i, extra);
        const end = start + quota + (i < extra ? 1 : 0);
        for (let p = start; p < end; p++) addPartition(result.get(id)!, topic.topicId, p);
      });
    }
    return result;
  }
}
