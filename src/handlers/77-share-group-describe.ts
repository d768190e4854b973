import type { ShareGroupDescribeRequest } from '../../protocol/generated/ShareGroupDescribeRequest.js';
import type { ShareGroupDescribeResponse } from '../../protocol/generated/ShareGroupDescribeResponse.js';
import type { Handler } from './handler.js';
import { describeGroupsOfType } from './group-describe.js';
import { GroupFeature, groupsEnabled, unsupportedVersion } from './group-features.js';

export const handler: Handler<ShareGroupDescribeRequest, ShareGroupDescribeResponse> = {
  apiKey: 77,
  name: 'ShareGroupDescribe',
  minVersion: 1,
  maxVersion: 1,
  handle(request, ctx) {
    if (!groupsEnabled(ctx, GroupFeature.SHARE)) return unsupportedVersion(ctx, request);
    const groups = describeGroupsOfType(
      ctx, request, (allowed) => ctx.broker.groupCoordinator.shareGroupDescribe(allowed, ctx.broker.topics),
      (refused) => ({ ...refused, assignorName: '' }),
      (g, authorizedOperations) => ({ ...g, authorizedOperations }),
    );
    return { throttleTimeMs: 0, groups };
  },
};
