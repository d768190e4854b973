import type { OffsetDeleteRequest } from '../../protocol/generated/OffsetDeleteRequest.js';
import type { OffsetDeleteResponse } from '../../protocol/generated/OffsetDeleteResponse.js';
import type { Handler } from './handler.js';

export const handler: Handler<OffsetDeleteRequest, OffsetDeleteResponse> = {
  apiKey: 47,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    const result = await ctx.broker.groupCoordinator.deleteOffsets(
      request.groupId,
      request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
    );
    return { throttleTimeMs: 0, ...result };
  },
};
