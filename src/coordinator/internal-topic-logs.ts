// The logs of a coordinator's internal topic (__consumer_offsets, __transaction_state, __share_group_state),
// created on first use with the configs Kafka gives it, as Kafka's coordinators create theirs.
import type { UnifiedLog } from '../../storage/unified-log.js';
import type { OffsetsTopicLogs } from './log-offsets-topic.js';

/** What of the broker the internal topics need (every coordinator's host has it). */
interface InternalTopicHost {
  readonly topics: { get(name: string): { partitions: number } | undefined };
  getLog(topic: string, partition: number): UnifiedLog | undefined;
  createTopicSync(name: string, opts: { partitions: number; replicationFactor: number; configs: Record<string, string>; validateOnly: boolean }): unknown;
}

class InternalTopicPartitionMissingError extends Error {
  override name = 'InternalTopicPartitionMissingError';
}

export function internalTopicLogs(broker: InternalTopicHost, name: string, defaultPartitions: () => number, configs: () => Record<string, string>): OffsetsTopicLogs {
  return {
    // An existing topic keeps its partition count: keys must stay on the partitions that hold them.
    get numPartitions() {
      return broker.topics.get(name)?.partitions ?? defaultPartitions();
    },
    get: (partition) => broker.getLog(name, partition),
    getOrCreate(partition) {
      if (!broker.topics.get(name)) {
        broker.createTopicSync(name, { partitions: this.numPartitions, replicationFactor: 1, configs: configs(), validateOnly: false });
      }
      const log = broker.getLog(name, partition);
      if (!log) throw new InternalTopicPartitionMissingError(`${name}-${partition} has no log`);
      return log;
    },
  };
}
