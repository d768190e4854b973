// JSON views of topics and their partition logs for GET /v1/topics[/:name].
import type { Broker } from '../broker.js';
import type { TopicInfo } from '../metadata/topic-registry.js';
import type { UnifiedLog } from '../../storage/unified-log.js';

interface SegmentView {
  baseOffset: number;
  sizeBytes: number;
  /** null while the segment's indexes are not loaded (Kafka loads them lazily; a view should not force it). */
  offsetIndexEntries: number | null;
  timeIndexEntries: number | null;
}

interface PartitionView {
  partition: number;
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  lastStableOffset: number;
  sizeBytes: number;
  segments: SegmentView[];
}

export interface TopicSummary {
  name: string;
  /** Kafka's display form: the UUID in base64url, as kafka-topics.sh prints it. */
  topicId: string;
  partitions: number;
  sizeBytes: number;
  /** Sum of the partitions' log end offsets: the console derives the message rate from it. */
  endOffsets: number;
  /** The effective retention.ms and cleanup.policy (override or broker default). */
  retentionMs: number;
  cleanupPolicy: string;
  configs: Record<string, string>;
}

export interface TopicView extends Omit<TopicSummary, 'partitions' | 'endOffsets' | 'retentionMs' | 'cleanupPolicy'> {
  partitions: PartitionView[];
}

function displayTopicId(hex: string): string {
  return Buffer.from(hex, 'hex').toString('base64url');
}

function partitionLogs(broker: Broker, topic: TopicInfo): Array<{ partition: number; log: UnifiedLog | undefined }> {
  return Array.from({ length: topic.partitions }, (_, partition) => ({ partition, log: broker.getLog(topic.name, partition) }));
}

export function topicSummaries(broker: Broker): TopicSummary[] {
  return [...broker.topics.all()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((topic) => {
      const logs = partitionLogs(broker, topic);
      const effective = broker.config.logConfig(topic.configs);
      return {
        name: topic.name,
        topicId: displayTopicId(topic.topicId),
        partitions: topic.partitions,
        sizeBytes: logs.reduce((sum, { log }) => sum + (log?.size ?? 0), 0),
        endOffsets: logs.reduce((sum, { log }) => sum + (log?.logEndOffset ?? 0), 0),
        retentionMs: effective.retentionMs,
        cleanupPolicy: effective.cleanupPolicy.join(','),
        configs: { ...topic.configs },
      };
    });
}

export function topicView(broker: Broker, name: string): TopicView | null {
  const topic = broker.topics.get(name);
  if (!topic) return null;
  const partitions = partitionLogs(broker, topic).flatMap(({ partition, log }) => (log ? [partitionView(partition, log)] : []));
  return {
    name: topic.name,
    topicId: displayTopicId(topic.topicId),
    sizeBytes: partitions.reduce((sum, p) => sum + p.sizeBytes, 0),
    configs: { ...topic.configs },
    partitions,
  };
}

function partitionView(partition: number, log: UnifiedLog): PartitionView {
  return {
    partition,
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    highWatermark: log.highWatermark,
    lastStableOffset: log.lastStableOffset,
    sizeBytes: log.size,
    segments: log.segments.values().map((segment) => ({
      baseOffset: segment.baseOffset,
      sizeBytes: segment.size,
      offsetIndexEntries: segment.indexesLoaded ? segment.offsetIndex.entries : null,
      timeIndexEntries: segment.indexesLoaded ? segment.timeIndex.entries : null,
    })),
  };
}
