import type { DescribeGroupsRequest } from '../../protocol/generated/DescribeGroupsRequest.js';
import type { DescribeGroupsResponse } from '../../protocol/generated/DescribeGroupsResponse.js';
import type { Handler } from './handler.js';

/** Without an authorizer every group operation is allowed: READ(3), DELETE(6), DESCRIBE(8). */
const ALL_GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export const handler: Handler<DescribeGroupsRequest, DescribeGroupsResponse> = {
  apiKey: 15,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    const authorizedOperations = request.includeAuthorizedOperations ? ALL_GROUP_OPERATIONS : AUTHORIZED_OPERATIONS_OMITTED;
    const groups = ctx.broker.groupCoordinator.describeGroups(request.groups).map((g) => ({ ...g, authorizedOperations }));
    return { throttleTimeMs: 0, groups };
  },
};
