import type { ConsumerGroupDescribeRequest } from '../../protocol/generated/ConsumerGroupDescribeRequest.js';
import type { ConsumerGroupDescribeResponse } from '../../protocol/generated/ConsumerGroupDescribeResponse.js';
import type { Handler } from './handler.js';
import { describeGroupsOfType } from './group-describe.js';
import { GroupFeature, groupsEnabled, unsupportedVersion } from './group-features.js';

export const handler: Handler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse> = {
  apiKey: 69,
  name: 'ConsumerGroupDescribe',
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    if (!groupsEnabled(ctx, GroupFeature.CONSUMER)) return unsupportedVersion(ctx, request);
    const groups = describeGroupsOfType(
      ctx, request, (allowed) => ctx.broker.groupCoordinator.consumerGroupDescribe(allowed, ctx.broker.topics),
      (refused) => ({ ...refused, assignorName: '' }),
      // MemberType (v1, KIP-1099): 1, a consumer member; kafkite's consumer groups hold no classic members.
      (g, authorizedOperations) => ({ ...g, members: g.members.map((m) => ({ ...m, memberType: 1 })), authorizedOperations }),
    );
    return { throttleTimeMs: 0, groups };
  },
};
