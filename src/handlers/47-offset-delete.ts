import type { OffsetDeleteRequest } from '../../protocol/generated/OffsetDeleteRequest.js';
import type { OffsetDeleteResponse } from '../../protocol/generated/OffsetDeleteResponse.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeGroup, authorizeTopic } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';

export const handler: Handler<OffsetDeleteRequest, OffsetDeleteResponse> = {
  apiKey: 47,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    // DELETE on the group, READ on each topic (KafkaApis.handleOffsetDeleteRequest).
    if (!authorizeGroup(ctx, AclOperation.DELETE, request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
    const denied = request.topics.filter((t) => !authorizeTopic(ctx, AclOperation.READ, t.name));
    const result = await ctx.broker.groupCoordinator.deleteOffsets(
      request.groupId,
      request.topics.filter((t) => !denied.includes(t)).map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
    );
    const deniedTopics = denied.map((t) => ({
      name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })),
    }));
    return { throttleTimeMs: 0, ...result, topics: [...result.topics, ...deniedTopics] };
  },
};
