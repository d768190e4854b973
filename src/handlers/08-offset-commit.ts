import type { OffsetCommitRequest } from '../../protocol/generated/OffsetCommitRequest.js';
import type { OffsetCommitResponse } from '../../protocol/generated/OffsetCommitResponse.js';
import type { Handler } from './handler.js';

export const handler: Handler<OffsetCommitRequest, OffsetCommitResponse> = {
  apiKey: 8,
  name: 'OffsetCommit',
  minVersion: 0,
  maxVersion: 9,
  async handle(request, ctx) {
    const topics = await ctx.broker.groupCoordinator.commitOffsets({
      groupId: request.groupId,
      generationId: request.generationIdOrMemberEpoch,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      retentionTimeMs: request.retentionTimeMs,
      topics: request.topics,
    }, ctx.apiVersion);
    return { throttleTimeMs: 0, topics };
  },
};
