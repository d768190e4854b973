import type { SyncGroupRequest } from '../../protocol/generated/SyncGroupRequest.js';
import type { SyncGroupResponse } from '../../protocol/generated/SyncGroupResponse.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeGroup } from '../security/authorization.js';
import { ErrorCode } from '../errors.js';

export const handler: Handler<SyncGroupRequest, SyncGroupResponse> = {
  apiKey: 14,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 5,
  async handle(request, ctx) {
    // Kafka's KafkaApis.handleSyncGroupRequest checks v5's mandatory protocol type and name before authorizing.
    if (ctx.apiVersion >= 5 && (request.protocolType === null || request.protocolName === null)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
    }
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
    }
    const result = await ctx.broker.groupCoordinator.syncGroup({
      groupId: request.groupId,
      generationId: request.generationId,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      protocolType: request.protocolType,
      protocolName: request.protocolName,
      assignments: request.assignments.map((a) => ({ memberId: a.memberId, assignment: Buffer.from(a.assignment) })),
    });
    return { throttleTimeMs: 0, ...result };
  },
};
