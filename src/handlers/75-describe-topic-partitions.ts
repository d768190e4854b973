// DescribeTopicPartitions (KIP-966): what kafka-topics --describe asks first in Kafka 4.x (it falls back to
// Metadata without it, printing "Elr: N/A"). Follows Kafka's DescribeTopicPartitionsRequestHandler and
// KRaftMetadataCache.describeTopicResponse: topics by name order, at most responsePartitionLimit partitions
// (capped by max.request.partition.size.limit) from the cursor on, and a cursor to the next partition.
import type { DescribeTopicPartitionsRequest } from '../../protocol/generated/DescribeTopicPartitionsRequest.js';
import type {
  Cursor,
  DescribeTopicPartitionsResponse,
  DescribeTopicPartitionsResponseTopic,
} from '../../protocol/generated/DescribeTopicPartitionsResponse.js';
import { ErrorCode } from '../errors.js';
import { INTERNAL_TOPICS } from '../metadata/internal-topics.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';
import { AclOperation, AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, authorizeTopic, ResourceType } from '../security/authorization.js';
import type { Handler } from './handler.js';
import { partitionsOf } from './partitions.js';

function failed(name: string, errorCode: number): DescribeTopicPartitionsResponseTopic {
  return { errorCode, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}

export const handler: Handler<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse> = {
  apiKey: 75,
  name: 'DescribeTopicPartitions',
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const { broker } = ctx;
    const requested = [...new Set(request.topics.map((t) => t.name))];
    const all = requested.length === 0;
    const cursor = request.cursor;
    // Kafka throws InvalidRequestException here; its error response gives each requested topic INVALID_REQUEST.
    if (cursor && !all && !requested.includes(cursor.topicName)) {
      return { throttleTimeMs: 0, topics: requested.map((name) => failed(name, ErrorCode.INVALID_REQUEST)), nextCursor: null };
    }
    const candidates = (all ? [...broker.topics.all()].map((t) => t.name) : requested)
      .filter((name) => !cursor || name >= cursor.topicName)
      .sort();
    // Topics the principal may not describe: reported only when named (as Metadata does), and after the others.
    const unauthorized = candidates.filter((name) => !authorizeTopic(ctx, AclOperation.DESCRIBE, name, !all));
    const authorized = candidates.filter((name) => !unauthorized.includes(name));

    let remaining = Math.min(request.responsePartitionLimit, Number(broker.config.get('max.request.partition.size.limit')));
    let nextCursor: Cursor | null = null;
    const topics: DescribeTopicPartitionsResponseTopic[] = [];
    for (const name of authorized) {
      const topic = broker.topics.get(name);
      if (!topic) {
        // A topic listed a moment ago and deleted since is left out of an all-topics answer, as in Kafka.
        if (!all) topics.push(failed(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      if (remaining <= 0) {
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      const start = cursor && name === cursor.topicName ? cursor.partitionIndex : 0;
      const partitions = partitionsOf(topic, broker).slice(start, start + remaining);
      remaining -= partitions.length;
      topics.push({
        errorCode: ErrorCode.NONE,
        name,
        topicId: topic.topicId,
        isInternal: INTERNAL_TOPICS.has(name),
        // Eligible leader replicas (KIP-966) are empty on one node: no replica is ever out of the ISR.
        partitions: partitions.map((p) => ({ ...p, eligibleLeaderReplicas: [], lastKnownElr: [] })),
        topicAuthorizedOperations: authorizedOperations(ctx, ResourceType.TOPIC, name),
      });
      const next = start + partitions.length;
      if (next < topic.partitions) {
        nextCursor = { topicName: name, partitionIndex: next };
        break;
      }
    }
    if (!all) topics.push(...unauthorized.map((name) => failed(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED)));
    return { throttleTimeMs: 0, topics, nextCursor };
  },
};
