import type { ApiVersionsRequest } from '../../protocol/generated/ApiVersionsRequest.js';
import type { ApiVersionsResponse } from '../../protocol/generated/ApiVersionsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { FEATURES } from '../metadata/features.js';

/** The first version whose SupportedFeatures may carry a MinVersion of 0 (KAFKA-17011). */
const ZERO_MIN_SUPPORTED_VERSION = 4;

/**
 * Exactly what the handlers implement: clients pick features by it (librdkafka refuses otherwise). Features
 * as Kafka's ApiVersionsResponse lists them: finalized only above level 0; below v4, supported features whose
 * minimum is 0 are left out, since older clients refuse a 0 there. Java clients take KIP-890's transaction
 * version 2 path only when transaction.version 2 is finalized (v3+ carry features).
 */
export function apiVersionsResponse(handlers: Iterable<Handler>, errorCode: number, version: number): ApiVersionsResponse {
  return {
    errorCode,
    apiKeys: [...handlers]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion })),
    throttleTimeMs: 0,
    supportedFeatures: FEATURES
      .filter((f) => f.minSupported > 0 || version >= ZERO_MIN_SUPPORTED_VERSION)
      .map((f) => ({ name: f.name, minVersion: f.minSupported, maxVersion: f.maxSupported })),
    finalizedFeaturesEpoch: 0,
    finalizedFeatures: FEATURES
      .filter((f) => f.finalized > 0)
      .map((f) => ({ name: f.name, maxVersionLevel: f.finalized, minVersionLevel: f.finalized })),
    zkMigrationReady: false,
  };
}

/** The registry lists this handler too, so it hands the handler its table rather than being imported by it. */
export function apiVersionsHandler(handlers: () => Iterable<Handler>): Handler<ApiVersionsRequest, ApiVersionsResponse> {
  return {
    apiKey: 18,
    name: 'ApiVersions',
    minVersion: 0,
    maxVersion: 4,
    handle: (_request, ctx) => apiVersionsResponse(handlers(), ErrorCode.NONE, ctx.apiVersion),
  };
}
