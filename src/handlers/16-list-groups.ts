import type { ListGroupsRequest } from '../../protocol/generated/ListGroupsRequest.js';
import type { ListGroupsResponse } from '../../protocol/generated/ListGroupsResponse.js';
import type { Handler } from './handler.js';
import { AclOperation, authorize, authorizeGroup, CLUSTER_NAME, ResourceType } from '../security/authorization.js';

export const handler: Handler<ListGroupsRequest, ListGroupsResponse> = {
  apiKey: 16,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    const { errorCode, groups } = ctx.broker.groupCoordinator.listGroups(request.statesFilter, request.typesFilter);
    // DESCRIBE on the cluster lists every group; without it, the groups the principal may DESCRIBE (never an error).
    const all = authorize(ctx, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME, false);
    return { throttleTimeMs: 0, errorCode, groups: all ? groups : groups.filter((g) => authorizeGroup(ctx, AclOperation.DESCRIBE, g.groupId, false)) };
  },
};
