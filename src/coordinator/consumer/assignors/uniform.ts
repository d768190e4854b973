// Kafka's UniformAssignor ("uniform", the default): spreads all subscribed partitions as evenly as
// the subscriptions allow, and keeps every member's current partitions where balance permits.
import {
  addPartition, emptyAssignments, partitionCount, partitionsOf, removePartition,
  type Assignment, type GroupSpec, type PartitionAssignor,
} from './assignor.js';

export class UniformAssignor implements PartitionAssignor {
  readonly name = 'uniform';

  assign(group: GroupSpec): Map<string, Assignment> {
    const memberIds = [...group.members.keys()].sort();
    const result = emptyAssignments(memberIds);
    const subscribersOf = new Map<string, string[]>();
    for (const id of memberIds) {
      for (const topicId of group.members.get(id)!.subscribedTopicIds) {
        if (!group.topics.has(topicId)) continue;
        let list = subscribersOf.get(topicId);
        if (!list) subscribersOf.set(topicId, (list = []));
        list.push(id);
      }
    }
    const owned = new Set<string>();
    const count = (id: string) => partitionCount(result.get(id)!);

    // Stickiness: a member keeps what it still subscribes to and what still exists.
    for (const id of memberIds) {
      const member = group.members.get(id)!;
      for (const [topicId, p] of partitionsOf(member.assignment)) {
        const topic = group.topics.get(topicId);
        const key = `${topicId}:${p}`;
        if (!topic || p >= topic.numPartitions || !member.subscribedTopicIds.has(topicId) || owned.has(key)) continue;
        owned.add(key);
        addPartition(result.get(id)!, topicId, p);
      }
    }

    // Topics with the fewest subscribers first: their partitions have the fewest places to go.
    const topicIds = [...subscribersOf.keys()].sort(
      (a, b) => subscribersOf.get(a)!.length - subscribersOf.get(b)!.length || (a < b ? -1 : 1),
    );
    const leastLoaded = (candidates: string[], exclude?: string) => {
      let best: string | undefined;
      for (const id of candidates) {
        if (id !== exclude && (best === undefined || count(id) < count(best))) best = id;
      }
      return best;
    };
    for (const topicId of topicIds) {
      const subscribers = subscribersOf.get(topicId)!;
      for (let p = 0; p < group.topics.get(topicId)!.numPartitions; p++) {
        if (owned.has(`${topicId}:${p}`)) continue;
        addPartition(result.get(leastLoaded(subscribers)!)!, topicId, p);
      }
    }

    // Balance: move partitions from a member to a subscriber holding at least two fewer, until none can move.
    for (let moved = true; moved;) {
      moved = false;
      const byLoad = [...memberIds].sort((a, b) => count(b) - count(a) || (a < b ? -1 : 1));
      search: for (const from of byLoad) {
        for (const [topicId, p] of [...partitionsOf(result.get(from)!)].reverse()) {
          const to = leastLoaded(subscribersOf.get(topicId)!, from);
          if (to !== undefined && count(to) + 1 < count(from)) {
            removePartition(result.get(from)!, topicId, p);
            addPartition(result.get(to)!, topicId, p);
            moved = true;
            break search;
          }
        }
      }
    }
    return result;
  }
}
