// Kafka's KafkaApis turns each kind of modern group off while its feature is not finalized: consumer groups below
// group.version 1 (isConsumerGroupProtocolEnabled), share groups below share.version 1 (isShareGroupProtocolEnabled),
// streams groups below streams.version 1 (isStreamsGroupProtocolEnabled). Their APIs then answer
// UNSUPPORTED_VERSION before any authorization, as the request's getErrorResponse builds it.
import { errorResponse } from '../../protocol/error-response.js';
import { ErrorCode } from '../errors.js';
import type { RequestContext } from './handler.js';

export const GroupFeature = { CONSUMER: 'group.version', SHARE: 'share.version', STREAMS: 'streams.version' } as const;

export function groupsEnabled(ctx: RequestContext, feature: (typeof GroupFeature)[keyof typeof GroupFeature]): boolean {
  return ctx.broker.features.level(feature) >= 1;
}

/** The error code alone, each requested group's for a describe (the heartbeats' and describes' getErrorResponse). */
export function unsupportedVersion<T>(ctx: RequestContext, request: unknown): T {
  return errorResponse(ctx.apiKey, ctx.apiVersion, request, { code: ErrorCode.UNSUPPORTED_VERSION, message: null }) as T;
}

/** Errors.UNSUPPORTED_VERSION's message, which the share offsets requests' getErrorResponse carries. */
export const UNSUPPORTED_VERSION_MESSAGE = 'The version of API is not supported.';
