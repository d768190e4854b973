import type { ShareGroupHeartbeatRequest } from '../../protocol/generated/ShareGroupHeartbeatRequest.js';
import type { ShareGroupHeartbeatResponse } from '../../protocol/generated/ShareGroupHeartbeatResponse.js';
import { clientHostOf, type Handler } from './handler.js';
import { AclOperation, authorizeGroup, authorizeTopic } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';
import { GroupFeature, groupsEnabled, unsupportedVersion } from './group-features.js';

/** v1 (Kafka 4.1+, KIP-932 GA); v0 was the early-access version Kafka 4.4 no longer serves. */
export const handler: Handler<ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse> = {
  apiKey: 76,
  name: 'ShareGroupHeartbeat',
  minVersion: 1,
  maxVersion: 1,
  async handle(request, ctx) {
    if (!groupsEnabled(ctx, GroupFeature.SHARE)) return unsupportedVersion(ctx, request);
    const failed = (errorCode: number, errorMessage: string): ShareGroupHeartbeatResponse => ({
      throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null,
    });
    // KafkaApis.handleShareGroupHeartbeat: READ on the group; subscribed topics must be visible (DESCRIBE).
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED, 'Group authorization failed.');
    const hidden = (request.subscribedTopicNames ?? []).filter((t) => !authorizeTopic(ctx, AclOperation.DESCRIBE, t));
    if (hidden.length > 0) return failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED, `Topic authorization failed for ${hidden.join(', ')}.`);
    const result = await ctx.broker.groupCoordinator.shareGroupHeartbeat({
      ...request,
      clientId: ctx.clientId ?? '',
      clientHost: clientHostOf(ctx.remoteAddress),
    }, ctx.broker.topics);
    return { throttleTimeMs: 0, ...result };
  },
};
