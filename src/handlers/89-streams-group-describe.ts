import type { StreamsGroupDescribeRequest } from '../../protocol/generated/StreamsGroupDescribeRequest.js';
import type { StreamsGroupDescribeResponse } from '../../protocol/generated/StreamsGroupDescribeResponse.js';
import type { Handler } from './handler.js';
import { AclOperation, AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, authorizeGroup, ResourceType } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';
import { GroupFeature, groupsEnabled, unsupportedVersion } from './group-features.js';

/** v1 (Kafka 4.4): the topology description (not stored: status NOT_REQUESTED or NOT_STORED) and the assignor's name. */
export const handler: Handler<StreamsGroupDescribeRequest, StreamsGroupDescribeResponse> = {
  apiKey: 89,
  name: 'StreamsGroupDescribe',
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    if (!groupsEnabled(ctx, GroupFeature.STREAMS)) return unsupportedVersion(ctx, request);
    // DESCRIBE on each group (KafkaApis.handleStreamsGroupDescribe); KIP-430 operations when asked for.
    const allowed = request.groupIds.filter((g) => authorizeGroup(ctx, AclOperation.DESCRIBE, g));
    const described = new Map(ctx.broker.groupCoordinator.streamsGroupDescribe(allowed).map((g) => [g.groupId, g]));
    const groups = request.groupIds.map((groupId) => {
      const g = described.get(groupId);
      if (!g) {
        return {
          errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.', groupId, groupState: '',
          groupEpoch: -1, assignmentEpoch: -1, topology: null, members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
          topologyDescription: null, topologyDescriptionStatus: 0, assignorName: null,
        };
      }
      const authorizedOps = request.includeAuthorizedOperations ? authorizedOperations(ctx, ResourceType.GROUP, groupId) : AUTHORIZED_OPERATIONS_OMITTED;
      // StreamsGroupDescribeResult: NOT_STORED (1) when asked for a description kafkite does not keep.
      const topologyDescriptionStatus = g.errorCode === ErrorCode.NONE && request.includeTopologyDescription ? 1 : 0;
      return { ...g, topologyDescriptionStatus, authorizedOperations: authorizedOps };
    });
    return { throttleTimeMs: 0, groups };
  },
};
