import type { ConsumerGroupDescribeRequest } from '../../protocol/generated/ConsumerGroupDescribeRequest.js';
import type { ConsumerGroupDescribeResponse } from '../../protocol/generated/ConsumerGroupDescribeResponse.js';
import type { Handler } from './handler.js';
import { AclOperation, AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, authorizeGroup, ResourceType } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';
import { GroupFeature, groupsEnabled, unsupportedVersion } from './group-features.js';


export const handler: Handler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse> = {
  apiKey: 69,
  name: 'ConsumerGroupDescribe',
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    if (!groupsEnabled(ctx, GroupFeature.CONSUMER)) return unsupportedVersion(ctx, request);
    // DESCRIBE on each group (KafkaApis.handleConsumerGroupDescribe); KIP-430 operations when asked for.
    const allowed = request.groupIds.filter((g) => authorizeGroup(ctx, AclOperation.DESCRIBE, g));
    const described = new Map(ctx.broker.groupCoordinator.consumerGroupDescribe(allowed, ctx.broker.topics).map((g) => [g.groupId, g]));
    const groups = request.groupIds.map((groupId) => {
      const g = described.get(groupId);
      if (!g) {
        return {
          errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.', groupId, groupState: '',
          groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        };
      }
      const authorizedOps = request.includeAuthorizedOperations ? authorizedOperations(ctx, ResourceType.GROUP, groupId) : AUTHORIZED_OPERATIONS_OMITTED;
      // MemberType (v1, KIP-1099): 1, a consumer member; kafkite's consumer groups hold no classic members.
      return { ...g, members: g.members.map((m) => ({ ...m, memberType: 1 })), authorizedOperations: authorizedOps };
    });
    return { throttleTimeMs: 0, groups };
  },
};
