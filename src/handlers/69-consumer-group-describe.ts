import type { ConsumerGroupDescribeRequest } from '../../protocol/generated/ConsumerGroupDescribeRequest.js';
import type { ConsumerGroupDescribeResponse } from '../../protocol/generated/ConsumerGroupDescribeResponse.js';
import type { Handler } from './handler.js';

/** Without an authorizer every group operation is allowed: READ(3), DELETE(6), DESCRIBE(8). */
const ALL_GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export const handler: Handler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse> = {
  apiKey: 69,
  name: 'ConsumerGroupDescribe',
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const authorizedOperations = request.includeAuthorizedOperations ? ALL_GROUP_OPERATIONS : AUTHORIZED_OPERATIONS_OMITTED;
    const groups = ctx.broker.groupCoordinator
      .consumerGroupDescribe(request.groupIds, ctx.broker.topics)
      .map((g) => ({ ...g, authorizedOperations }));
    return { throttleTimeMs: 0, groups };
  },
};
