import type { ApiVersionsRequest } from '../../protocol/generated/ApiVersionsRequest.js';
import type { ApiVersionsResponse } from '../../protocol/generated/ApiVersionsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { FINALIZED_TRANSACTION_VERSION } from '../coordinator/transaction/transaction-version.js';

/** Exactly what the handlers implement: clients pick features by it (librdkafka refuses otherwise). */
function apiVersionsResponse(handlers: Iterable<Handler>): ApiVersionsResponse {
  return {
    errorCode: ErrorCode.NONE,
    apiKeys: [...handlers]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion })),
    throttleTimeMs: 0,
    // transaction.version: the level whose protocol kafkite implements in full; Java clients pick KIP-890's
    // transaction version 2 path only when it is finalized (v3+ carry features).
    supportedFeatures: [{ name: 'transaction.version', minVersion: 0, maxVersion: FINALIZED_TRANSACTION_VERSION }],
    finalizedFeaturesEpoch: 0,
    finalizedFeatures: [{ name: 'transaction.version', maxVersionLevel: FINALIZED_TRANSACTION_VERSION, minVersionLevel: FINALIZED_TRANSACTION_VERSION }],
    zkMigrationReady: false,
  };
}

// Kafka's ApiVersionsRequest.isValid (KIP-511): the client's software name and version, v3+.
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;
const validName = (text: string) => SOFTWARE_NAME_VERSION.test(text);
/** Kafka answers an invalid name or version with INVALID_REQUEST and nothing else. */
const INVALID_CLIENT_SOFTWARE: ApiVersionsResponse = {
  errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1, finalizedFeatures: [], zkMigrationReady: false,
};

/**
 * The answer to an ApiVersions request newer than `handler`'s: UNSUPPORTED_VERSION with ApiVersions' own range
 * alone, as Kafka's ApiVersionsRequest.getErrorResponse (KIP-511), so that the client asks again at our newest
 * version and gets the whole table with the finalized features. Given the whole table here, in v0 and so
 * without features, franz-go kept it: it sent ApiVersions v5 (Kafka 4.4's), never learnt transaction.version
 * 2 on that connection, and began its first transaction without KIP-890 part 2.
 */
export function tooNewApiVersionsResponse(handler: Handler): ApiVersionsResponse {
  return {
    errorCode: ErrorCode.UNSUPPORTED_VERSION,
    apiKeys: [{ apiKey: handler.apiKey, minVersion: handler.minVersion, maxVersion: handler.maxVersion }],
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
    handle: (request, ctx) => (ctx.apiVersion >= 3 && !(validName(request.clientSoftwareName) && validName(request.clientSoftwareVersion))
      ? INVALID_CLIENT_SOFTWARE
      : apiVersionsResponse(handlers())),
  };
}
