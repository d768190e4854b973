import type { DescribeGroupsRequest } from '../../protocol/generated/DescribeGroupsRequest.js';
import type { DescribeGroupsResponse } from '../../protocol/generated/DescribeGroupsResponse.js';
import type { Handler } from './handler.js';
import { AclOperation, AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, authorizeGroup, ResourceType } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';
import { GroupState } from '../coordinator/classic/classic-group.js';

const FIRST_NOT_FOUND_VERSION = 6;

export const handler: Handler<DescribeGroupsRequest, DescribeGroupsResponse> = {
  apiKey: 15,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 6,
  handle(request, ctx) {
    // DESCRIBE on each group (KafkaApis.handleDescribeGroupsRequest); KIP-430 operations when asked for.
    const allowed = request.groups.filter((g) => authorizeGroup(ctx, AclOperation.DESCRIBE, g));
    const described = new Map(ctx.broker.groupCoordinator.describeGroups(allowed).map((g) => [g.groupId, g]));
    const groups = request.groups.map((groupId) => {
      const g = described.get(groupId);
      if (!g) {
        return {
          errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null, groupId, groupState: '', protocolType: '', protocolData: '', members: [],
          authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        };
      }
      const authorizedOps = request.includeAuthorizedOperations ? authorizedOperations(ctx, ResourceType.GROUP, groupId) : AUTHORIZED_OPERATIONS_OMITTED;
      // v6 (KIP-1043) answers a group that does not exist GROUP_ID_NOT_FOUND, still Dead, as Kafka 4.4 does (a share
      // group's id with "is not a classic group").
      if (ctx.apiVersion >= FIRST_NOT_FOUND_VERSION && g.errorCode === ErrorCode.NONE && g.groupState === GroupState.Dead) {
        const errorMessage = ctx.broker.groupCoordinator.shareGroups.has(groupId) ? `Group ${groupId} is not a classic group.` : `Group ${groupId} not found.`;
        return { ...g, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage, authorizedOperations: authorizedOps };
      }
      return { ...g, errorMessage: null, authorizedOperations: authorizedOps };
    });
    return { throttleTimeMs: 0, groups };
  },
};
