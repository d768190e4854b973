// DescribeUserScramCredentials: mechanisms and iteration counts per user, never salts or keys.
import type { DescribeUserScramCredentialsRequest } from '../../protocol/generated/DescribeUserScramCredentialsRequest.js';
import type { DescribeUserScramCredentialsResponse } from '../../protocol/generated/DescribeUserScramCredentialsResponse.js';
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { Handler } from './handler.js';

export const handler: Handler<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse> = {
  apiKey: 50,
  name: 'DescribeUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    // Kafka's KafkaApis: DESCRIBE on the cluster, else a top-level CLUSTER_AUTHORIZATION_FAILED.
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', results: [] };
    }
    const users = request.users === null ? null : request.users.map((u) => u.name);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      // Kafka leaves the message unset, which its generated data classes send as '' (no default of null).
      errorMessage: '',
      results: ctx.broker.scramCredentials.describe(users),
    };
  },
};
