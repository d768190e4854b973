import type { DeleteGroupsRequest } from '../../protocol/generated/DeleteGroupsRequest.js';
import type { DeleteGroupsResponse } from '../../protocol/generated/DeleteGroupsResponse.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeGroup } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';

export const handler: Handler<DeleteGroupsRequest, DeleteGroupsResponse> = {
  apiKey: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 3,
  async handle(request, ctx) {
    // DELETE on each group (KafkaApis.handleDeleteGroupsRequest).
    const allowed = request.groupsNames.filter((g) => authorizeGroup(ctx, AclOperation.DELETE, g));
    const deleted = new Map((await ctx.broker.groupCoordinator.deleteGroups(allowed)).map((r) => [r.groupId, r]));
    return {
      throttleTimeMs: 0,
      // errorMessage (v3) null: Kafka 4.4 leaves it so for a missing group too (GROUP_ID_NOT_FOUND).
      results: request.groupsNames.map((groupId) => ({ ...(deleted.get(groupId) ?? { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }), errorMessage: null })),
    };
  },
};
