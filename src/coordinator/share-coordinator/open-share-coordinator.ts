// Builds the broker's share coordinator on __share_group_state and loads it. The topic is created on the
// first write with Kafka's share.coordinator.state.topic.* settings, as Kafka creates it on first use.
import type { CoordinatorHost } from '../open-group-coordinator.js';
import { internalTopicLogs } from '../internal-topic-logs.js';
import { LogOffsetsTopic } from '../log-offsets-topic.js';
import { SHARE_GROUP_STATE_TOPIC_NAME, shareCoordinatorConfigOf, shareGroupStateTopicConfigs } from './share-coordinator-config.js';
import { ShareCoordinatorService, type ShareStateTopic } from './share-coordinator-service.js';

export interface ShareCoordinatorHost extends CoordinatorHost {
  readonly topics: CoordinatorHost['topics'] & { getById(topicId: string): { partitions: number } | undefined };
}

export async function openShareCoordinator(broker: ShareCoordinatorHost): Promise<ShareCoordinatorService> {
  const logs = internalTopicLogs(
    broker, SHARE_GROUP_STATE_TOPIC_NAME, () => broker.config.get('share.coordinator.state.topic.num.partitions') as number,
    () => shareGroupStateTopicConfigs(broker.config),
  );
  const records = new LogOffsetsTopic(logs);
  const topic: ShareStateTopic = {
    get numPartitions() {
      return logs.numPartitions;
    },
    write: (partition, batch, producer) => records.write(partition, batch, producer),
    readAll: (partition, from) => records.readAll(partition, from),
    deleteRecordsBefore: (partition, offset) => logs.get(partition)?.deleteRecordsBefore(offset),
  };
  const service = new ShareCoordinatorService(
    shareCoordinatorConfigOf(broker.config),
    topic,
    (topicId, partition) => partition < (broker.topics.getById(topicId)?.partitions ?? 0),
    broker.log.child({ component: 'share-coordinator' }),
  );
  await service.startup();
  return service;
}
