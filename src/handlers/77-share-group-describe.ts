import type { ShareGroupDescribeRequest } from '../../protocol/generated/ShareGroupDescribeRequest.js';
import type { ShareGroupDescribeResponse } from '../../protocol/generated/ShareGroupDescribeResponse.js';
import type { Handler } from './handler.js';
import { AclOperation, AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, authorizeGroup, ResourceType } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';
import { GroupFeature, groupsEnabled, unsupportedVersion } from './group-features.js';

export const handler: Handler<ShareGroupDescribeRequest, ShareGroupDescribeResponse> = {
  apiKey: 77,
  name: 'ShareGroupDescribe',
  minVersion: 1,
  maxVersion: 1,
  handle(request, ctx) {
    if (!groupsEnabled(ctx, GroupFeature.SHARE)) return unsupportedVersion(ctx, request);
    // DESCRIBE on each group (KafkaApis.handleShareGroupDescribe); KIP-430 operations when asked for.
    const allowed = request.groupIds.filter((g) => authorizeGroup(ctx, AclOperation.DESCRIBE, g));
    const described = new Map(ctx.broker.groupCoordinator.shareGroupDescribe(allowed, ctx.broker.topics).map((g) => [g.groupId, g]));
    const groups = request.groupIds.map((groupId) => {
      const g = described.get(groupId);
      if (!g) {
        return {
          errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.', groupId, groupState: '',
          groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        };
      }
      const authorizedOps = request.includeAuthorizedOperations ? authorizedOperations(ctx, ResourceType.GROUP, groupId) : AUTHORIZED_OPERATIONS_OMITTED;
      return { ...g, authorizedOperations: authorizedOps };
    });
    return { throttleTimeMs: 0, groups };
  },
};
