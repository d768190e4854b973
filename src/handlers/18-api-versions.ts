import type { ApiVersionsRequest } from '../../protocol/generated/ApiVersionsRequest.js';
import type { ApiVersionsResponse } from '../../protocol/generated/ApiVersionsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { FEATURES } from '../metadata/features.js';
import type { FinalizedFeatures } from '../metadata/finalized-features.js';

/** The first version whose SupportedFeatures may carry a MinVersion of 0 (KAFKA-17011). */
const ZERO_MIN_SUPPORTED_VERSION = 4;

/**
 * Exactly what the handlers implement: clients pick features by it (librdkafka refuses otherwise). Features
 * as Kafka's ApiVersionsResponse lists them: finalized only above level 0; below v4, supported features whose
 * minimum is 0 are left out, since older clients refuse a 0 there. Java clients take KIP-890's transaction
 * version 2 path only when transaction.version 2 is finalized (v3+ carry features). The finalized levels are the
 * metadata log's, their epoch its last offset (a KRaft broker's image offset), so that a client sees a raised level.
 */
function apiVersionsResponse(handlers: Iterable<Handler>, features: FinalizedFeatures, version: number): ApiVersionsResponse {
  return {
    errorCode: ErrorCode.NONE,
    apiKeys: [...handlers]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion })),
    throttleTimeMs: 0,
    supportedFeatures: FEATURES
      .filter((f) => f.minSupported > 0 || version >= ZERO_MIN_SUPPORTED_VERSION)
      .map((f) => ({ name: f.name, minVersion: f.minSupported, maxVersion: f.maxSupported })),
    finalizedFeaturesEpoch: features.epoch,
    finalizedFeatures: features.finalized().map((f) => ({ name: f.name, maxVersionLevel: f.level, minVersionLevel: f.level })),
    zkMigrationReady: false,
  };
}

/** An answer carrying only its error, as Kafka 4.4 sends it: no APIs, no features, features epoch -1. */
function refused(errorCode: number): ApiVersionsResponse {
  return { errorCode, apiKeys: [], throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1, finalizedFeatures: [], zkMigrationReady: false };
}

// Kafka's ApiVersionsRequest.isValid (KIP-511): the client's software name and version, v3+.
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;
const validName = (text: string) => SOFTWARE_NAME_VERSION.test(text);

/**
 * The answer to an ApiVersions request newer than `handler`'s: UNSUPPORTED_VERSION with ApiVersions' own range
 * alone, as Kafka's ApiVersionsRequest.getErrorResponse (KIP-511), so that the client asks again at our newest
 * version and gets the whole table with the finalized features. Given the whole table here, in v0 and so
 * without features, franz-go kept it: it sent ApiVersions v5 (Kafka 4.4's), never learnt transaction.version
 * 2 on that connection, and began its first transaction without KIP-890 part 2.
 */
export function tooNewApiVersionsResponse(handler: Handler): ApiVersionsResponse {
  return { ...refused(ErrorCode.UNSUPPORTED_VERSION), apiKeys: [{ apiKey: handler.apiKey, minVersion: handler.minVersion, maxVersion: handler.maxVersion }] };
}

/**
 * v5 (KIP-1242): a client names the cluster and node it means to reach, both or neither (INVALID_REQUEST
 * otherwise); when either is not this broker's, REBOOTSTRAP_REQUIRED tells it to look its cluster up again.
 * Checked against a Kafka 4.4 node.
 */
function identityError(request: ApiVersionsRequest, clusterId: string, nodeId: number): number {
  const named = [request.clusterId !== null, request.nodeId !== -1];
  if (!named[0] && !named[1]) return ErrorCode.NONE;
  if (!named[0] || !named[1]) return ErrorCode.INVALID_REQUEST;
  return request.clusterId === clusterId && request.nodeId === nodeId ? ErrorCode.NONE : ErrorCode.REBOOTSTRAP_REQUIRED;
}

/** The registry lists this handler too, so it hands the handler its table rather than being imported by it. */
export function apiVersionsHandler(handlers: () => Iterable<Handler>): Handler<ApiVersionsRequest, ApiVersionsResponse> {
  return {
    apiKey: 18,
    name: 'ApiVersions',
    minVersion: 0,
    maxVersion: 5,
    handle: (request, ctx) => {
      // Kafka answers an invalid name or version with INVALID_REQUEST and nothing else.
      if (ctx.apiVersion >= 3 && !(validName(request.clientSoftwareName) && validName(request.clientSoftwareVersion))) return refused(ErrorCode.INVALID_REQUEST);
      const errorCode = identityError(request, ctx.broker.clusterId, ctx.broker.nodeId);
      return errorCode === ErrorCode.NONE ? apiVersionsResponse(handlers(), ctx.broker.features, ctx.apiVersion) : refused(errorCode);
    },
  };
}
