import type { StreamsGroupDescribeRequest } from '../../protocol/generated/StreamsGroupDescribeRequest.js';
import type { StreamsGroupDescribeResponse } from '../../protocol/generated/StreamsGroupDescribeResponse.js';
import type { Handler } from './handler.js';
import { ErrorCode } from '../errors.js';
import { describeGroupsOfType } from './group-describe.js';
import { GroupFeature, groupsEnabled, unsupportedVersion } from './group-features.js';

/** v1 (Kafka 4.4): the topology description (not stored: status NOT_REQUESTED or NOT_STORED) and the assignor's name. */
export const handler: Handler<StreamsGroupDescribeRequest, StreamsGroupDescribeResponse> = {
  apiKey: 89,
  name: 'StreamsGroupDescribe',
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    if (!groupsEnabled(ctx, GroupFeature.STREAMS)) return unsupportedVersion(ctx, request);
    const groups = describeGroupsOfType(
      ctx, request, (allowed) => ctx.broker.groupCoordinator.streamsGroupDescribe(allowed),
      (refused) => ({ ...refused, topology: null, topologyDescription: null, topologyDescriptionStatus: 0, assignorName: null }),
      // StreamsGroupDescribeResult: NOT_STORED (1) when asked for a description kafkite does not keep.
      (g, authorizedOperations) => ({
        ...g, topologyDescriptionStatus: g.errorCode === ErrorCode.NONE && request.includeTopologyDescription ? 1 : 0, authorizedOperations,
      }),
    );
    return { throttleTimeMs: 0, groups };
  },
};
