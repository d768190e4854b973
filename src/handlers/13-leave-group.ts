import type { LeaveGroupRequest } from '../../protocol/generated/LeaveGroupRequest.js';
import type { LeaveGroupResponse } from '../../protocol/generated/LeaveGroupResponse.js';
import type { Handler } from './handler.js';
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeGroup } from '../security/authorization.js';

export const handler: Handler<LeaveGroupRequest, LeaveGroupResponse> = {
  apiKey: 13,
  name: 'LeaveGroup',
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] };
    // v0-2 name one member; v3+ (KIP-345) a batch, by member id or group instance id.
    const leaving = ctx.apiVersion >= 3
      ? request.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId }))
      : [{ memberId: request.memberId, groupInstanceId: null }];
    const result = ctx.broker.groupCoordinator.leaveGroup(request.groupId, leaving);
    if (ctx.apiVersion >= 3) return { throttleTimeMs: 0, errorCode: result.errorCode, members: result.members };
    const memberError = result.members.find((m) => m.errorCode !== ErrorCode.NONE)?.errorCode ?? ErrorCode.NONE;
    return { throttleTimeMs: 0, errorCode: result.errorCode !== ErrorCode.NONE ? result.errorCode : memberError, members: [] };
  },
};
