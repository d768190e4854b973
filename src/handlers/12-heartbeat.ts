import type { HeartbeatRequest } from '../../protocol/generated/HeartbeatRequest.js';
import type { HeartbeatResponse } from '../../protocol/generated/HeartbeatResponse.js';
import type { Handler } from './handler.js';

export const handler: Handler<HeartbeatRequest, HeartbeatResponse> = {
  apiKey: 12,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    return { throttleTimeMs: 0, errorCode: ctx.broker.groupCoordinator.heartbeat(request) };
  },
};
