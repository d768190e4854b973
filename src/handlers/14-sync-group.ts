import type { SyncGroupRequest } from '../../protocol/generated/SyncGroupRequest.js';
import type { SyncGroupResponse } from '../../protocol/generated/SyncGroupResponse.js';
import type { Handler } from './handler.js';

export const handler: Handler<SyncGroupRequest, SyncGroupResponse> = {
  apiKey: 14,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 5,
  async handle(request, ctx) {
    const result = await ctx.broker.groupCoordinator.syncGroup({
      groupId: request.groupId,
      generationId: request.generationId,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      protocolType: request.protocolType,
      protocolName: request.protocolName,
      assignments: request.assignments.map((a) => ({ memberId: a.memberId, assignment: Buffer.from(a.assignment) })),
    });
    return { throttleTimeMs: 0, ...result };
  },
};
