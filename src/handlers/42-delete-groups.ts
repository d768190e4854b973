import type { DeleteGroupsRequest } from '../../protocol/generated/DeleteGroupsRequest.js';
import type { DeleteGroupsResponse } from '../../protocol/generated/DeleteGroupsResponse.js';
import type { Handler } from './handler.js';

export const handler: Handler<DeleteGroupsRequest, DeleteGroupsResponse> = {
  apiKey: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 2,
  async handle(request, ctx) {
    return { throttleTimeMs: 0, results: await ctx.broker.groupCoordinator.deleteGroups(request.groupsNames) };
  },
};
