// Builds the broker's GroupCoordinator on __consumer_offsets and loads it. The topic is created on
// the first write, with Kafka's offsets.topic.* settings, as Kafka creates it on first use.
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/broker-config.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import type { TopicRegistry } from '../metadata/topic-registry.js';
import { groupCoordinatorConfigOf, offsetsTopicConfigs } from './coordinator-config.js';
import { GroupCoordinator } from './group-coordinator.js';
import { internalTopicLogs } from './internal-topic-logs.js';
import { LogOffsetsTopic } from './log-offsets-topic.js';
import { OFFSETS_TOPIC_NAME } from './offsets-topic.js';

/** What the coordinator needs of the broker (which passes itself): config, logger and the offsets topic's logs. */
export interface CoordinatorHost {
  readonly config: BrokerConfig;
  readonly log: Logger;
  readonly topics: Pick<TopicRegistry, 'get'>;
  getLog(topic: string, partition: number): UnifiedLog | undefined;
  createTopicSync(name: string, opts: { partitions: number; replicationFactor: number; configs: Record<string, string>; validateOnly: boolean }): unknown;
}

export async function openGroupCoordinator(broker: CoordinatorHost): Promise<GroupCoordinator> {
  const coordinator = new GroupCoordinator(
    groupCoordinatorConfigOf(broker.config),
    new LogOffsetsTopic(internalTopicLogs(broker, OFFSETS_TOPIC_NAME, () => broker.config.offsetsTopicNumPartitions, () => offsetsTopicConfigs(broker.config))),
    broker.log.child({ component: 'group-coordinator' }),
  );
  await coordinator.startup();
  return coordinator;
}
