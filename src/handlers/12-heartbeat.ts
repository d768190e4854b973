import type { HeartbeatRequest } from '../../protocol/generated/HeartbeatRequest.js';
import type { HeartbeatResponse } from '../../protocol/generated/HeartbeatResponse.js';
import type { Handler } from './handler.js';
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeGroup } from '../security/authorization.js';

export const handler: Handler<HeartbeatRequest, HeartbeatResponse> = {
  apiKey: 12,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    return { throttleTimeMs: 0, errorCode: ctx.broker.groupCoordinator.heartbeat(request) };
  },
};
