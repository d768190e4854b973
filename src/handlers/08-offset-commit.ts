import type { OffsetCommitRequest } from '../../protocol/generated/OffsetCommitRequest.js';
import type { OffsetCommitResponse } from '../../protocol/generated/OffsetCommitResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeGroup, authorizeTopic } from '../security/authorization.js';
import { resolveTopicIds } from './topic-ids.js';

type RequestTopic = OffsetCommitRequest['topics'][number];
type ResponseTopic = Omit<OffsetCommitResponse['topics'][number], 'topicId'>;

/** v10 names topics by id (KIP-848). */
const FIRST_TOPIC_ID_VERSION = 10;

export const handler: Handler<OffsetCommitRequest, OffsetCommitResponse> = {
  apiKey: 8,
  name: 'OffsetCommit',
  minVersion: 0,
  maxVersion: 10,
  async handle(received, ctx) {
    const byId = ctx.apiVersion >= FIRST_TOPIC_ID_VERSION;
    const ids = resolveTopicIds(received.topics, ctx.broker.topics, byId);
    const request = { ...received, topics: ids.known };
    // Response topics as the request named them (by id from v10); an id of no topic is UNKNOWN_TOPIC_ID, as on Kafka 4.4.
    const respond = (topics: ResponseTopic[]): OffsetCommitResponse => ({
      throttleTimeMs: 0,
      topics: [
        ...topics.map((t) => ({ ...t, ...ids.echo(t.name) })),
        ...ids.unknown.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_ID })) })),
      ],
    });
    // Kafka's KafkaApis.handleOffsetCommitRequest: a partition the metadata cache does not have is answered
    // UNKNOWN_TOPIC_OR_PARTITION here; only the others reach the group coordinator.
    const unknown: ResponseTopic[] = [];
    const known: RequestTopic[] = [];
    const failAll = (errorCode: number, topics: RequestTopic[]): ResponseTopic[] =>
      topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
    // READ on the group first, then READ on each topic (KafkaApis.handleOffsetCommitRequest).
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) {
      return { throttleTimeMs: 0, topics: received.topics.map((t) => ({ ...failAll(ErrorCode.GROUP_AUTHORIZATION_FAILED, [t])[0]!, topicId: t.topicId })) };
    }
    for (const topic of request.topics) {
      if (!authorizeTopic(ctx, AclOperation.READ, topic.name)) {
        unknown.push(...failAll(ErrorCode.TOPIC_AUTHORIZATION_FAILED, [topic]));
        continue;
      }
      const partitions = ctx.broker.topics.get(topic.name)?.partitions ?? 0;
      const exists = topic.partitions.filter((p) => p.partitionIndex >= 0 && p.partitionIndex < partitions);
      const missing = topic.partitions.filter((p) => !(p.partitionIndex >= 0 && p.partitionIndex < partitions));
      if (exists.length > 0) known.push({ ...topic, partitions: exists });
      if (missing.length > 0) {
        unknown.push({ name: topic.name, partitions: missing.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION })) });
      }
    }
    if (known.length === 0) return respond(unknown);
    const topics = await ctx.broker.groupCoordinator.commitOffsets({
      groupId: request.groupId,
      generationId: request.generationIdOrMemberEpoch,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      retentionTimeMs: request.retentionTimeMs,
      topics: known,
    }, ctx.apiVersion);
    return respond([...topics, ...unknown]);
  },
};
