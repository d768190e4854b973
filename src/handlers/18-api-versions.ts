import type { ApiVersionsRequest } from '../../protocol/generated/ApiVersionsRequest.js';
import type { ApiVersionsResponse } from '../../protocol/generated/ApiVersionsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';

/** Exactly what the handlers implement: clients pick features by it (librdkafka refuses otherwise). */
export function apiVersionsResponse(handlers: Iterable<Handler>, errorCode: number): ApiVersionsResponse {
  return {
    errorCode,
    apiKeys: [...handlers]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion })),
    throttleTimeMs: 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1,
    finalizedFeatures: [],
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
    handle: () => apiVersionsResponse(handlers(), ErrorCode.NONE),
  };
}
