import type { DescribeClientQuotasRequest } from '../../protocol/generated/DescribeClientQuotasRequest.js';
import type { DescribeClientQuotasResponse } from '../../protocol/generated/DescribeClientQuotasResponse.js';
import { ErrorCode } from '../errors.js';
import { InvalidQuotaError } from '../quota/client-quotas.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { Handler } from './handler.js';

// Kafka's KafkaApis.handleDescribeClientQuotasRequest: DESCRIBE_CONFIGS on the cluster.
export const handler: Handler<DescribeClientQuotasRequest, DescribeClientQuotasResponse> = {
  apiKey: 48,
  name: 'DescribeClientQuotas',
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const failed = (errorCode: number, errorMessage: string): DescribeClientQuotasResponse => ({ throttleTimeMs: 0, errorCode, errorMessage, entries: null });
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE_CONFIGS)) return failed(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    try {
      const found = ctx.broker.clientQuotas.describe(request.components, request.strict);
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        // Kafka leaves the message unset, which its generated data classes send as '' (no default of null).
        errorMessage: '',
        entries: found.map(({ entity, values }) => ({
          entity: [...entity].map(([entityType, entityName]) => ({ entityType, entityName })),
          values: [...values].map(([key, value]) => ({ key, value })),
        })),
      };
    } catch (err) {
      if (err instanceof InvalidQuotaError) return failed(ErrorCode.INVALID_REQUEST, err.message);
      throw err;
    }
  },
};
