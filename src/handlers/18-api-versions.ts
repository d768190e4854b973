import type { ApiVersionsRequest } from '../../protocol/generated/ApiVersionsRequest.js';
import type { ApiVersionsResponse } from '../../protocol/generated/ApiVersionsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { HANDLERS } from './index.js';

/** Exactly what the handlers implement: clients pick features by it (librdkafka refuses otherwise). */
function supportedApis(): ApiVersionsResponse['apiKeys'] {
  return [...HANDLERS.values()]
    .sort((a, b) => a.apiKey - b.apiKey)
    .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }));
}

function response(errorCode: number): ApiVersionsResponse {
  return {
    errorCode,
    apiKeys: supportedApis(),
    throttleTimeMs: 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1,
    finalizedFeatures: [],
    zkMigrationReady: false,
  };
}

/** The v0 answer to an ApiVersions request newer than we know, so the client can retry with one we do. */
export function unsupportedApiVersionsResponse(): ApiVersionsResponse {
  return response(ErrorCode.UNSUPPORTED_VERSION);
}

export const handler: Handler<ApiVersionsRequest, ApiVersionsResponse> = {
  apiKey: 18,
  name: 'ApiVersions',
  minVersion: 0,
  maxVersion: 4,
  handle: () => response(ErrorCode.NONE),
};
