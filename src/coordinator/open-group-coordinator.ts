// Builds the broker's GroupCoordinator on __consumer_offsets and loads it. The topic is created on
// the first write, with Kafka's offsets.topic.* settings, as Kafka creates it on first use.
import type { Broker } from '../broker.js';
import { groupCoordinatorConfigOf, offsetsTopicConfigs } from './coordinator-config.js';
import { GroupCoordinator } from './group-coordinator.js';
import { LogOffsetsTopic, type OffsetsTopicLogs } from './log-offsets-topic.js';
import { OFFSETS_TOPIC_NAME } from './offsets-topic.js';

function offsetsTopicLogsOf(broker: Broker): OffsetsTopicLogs {
  // An existing topic keeps its partition count: groups must stay on the partitions that hold them.
  const numPartitions = broker.topics.get(OFFSETS_TOPIC_NAME)?.partitions ?? broker.config.offsetsTopicNumPartitions;
  return {
    numPartitions,
    get: (partition) => broker.getLog(OFFSETS_TOPIC_NAME, partition),
    getOrCreate: (partition) => {
      if (!broker.topics.get(OFFSETS_TOPIC_NAME)) {
        broker.createTopic(OFFSETS_TOPIC_NAME, {
          partitions: numPartitions, replicationFactor: 1, configs: offsetsTopicConfigs(broker.config), validateOnly: false,
        });
      }
      return broker.getLog(OFFSETS_TOPIC_NAME, partition)!;
    },
  };
}

export async function openGroupCoordinator(broker: Broker): Promise<GroupCoordinator> {
  const coordinator = new GroupCoordinator(
    groupCoordinatorConfigOf(broker.config),
    new LogOffsetsTopic(offsetsTopicLogsOf(broker)),
    broker.log.child({ component: 'group-coordinator' }),
  );
  await coordinator.startup();
  return coordinator;
}
