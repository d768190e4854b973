import type { ListGroupsRequest } from '../../protocol/generated/ListGroupsRequest.js';
import type { ListGroupsResponse } from '../../protocol/generated/ListGroupsResponse.js';
import type { Handler } from './handler.js';

export const handler: Handler<ListGroupsRequest, ListGroupsResponse> = {
  apiKey: 16,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    const { errorCode, groups } = ctx.broker.groupCoordinator.listGroups(request.statesFilter, request.typesFilter);
    return { throttleTimeMs: 0, errorCode, groups };
  },
};
