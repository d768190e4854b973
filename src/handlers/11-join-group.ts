import type { JoinGroupRequest } from '../../protocol/generated/JoinGroupRequest.js';
import type { JoinGroupResponse } from '../../protocol/generated/JoinGroupResponse.js';
import { clientHostOf, type Handler } from './handler.js';
import { AclOperation, authorizeGroup } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';

/** Kafka reports the client's address as InetAddress.toString: "/" + IP. */
export const handler: Handler<JoinGroupRequest, JoinGroupResponse> = {
  apiKey: 11,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 9,
  async handle(request, ctx) {
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) {
      return {
        throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, generationId: -1, protocolType: null,
        protocolName: ctx.apiVersion < 7 ? '' : null, leader: '', skipAssignment: false, memberId: request.memberId, members: [],
      };
    }
    const result = await ctx.broker.groupCoordinator.joinGroup({
      groupId: request.groupId,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      protocolType: request.protocolType,
      // The request buffer is not ours to keep; the group holds the metadata for its lifetime.
      protocols: request.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
      sessionTimeoutMs: request.sessionTimeoutMs,
      rebalanceTimeoutMs: request.rebalanceTimeoutMs,
      reason: request.reason,
      requireKnownMemberId: ctx.apiVersion >= 4,
      supportSkippingAssignment: ctx.apiVersion >= 9,
      clientId: ctx.clientId ?? '',
      clientHost: clientHostOf(ctx.remoteAddress),
    });
    return {
      throttleTimeMs: 0,
      ...result,
      // The protocol name is non-nullable before v7.
      protocolName: result.protocolName ?? (ctx.apiVersion < 7 ? '' : null),
    };
  },
};
