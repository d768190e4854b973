import type { ListPartitionReassignmentsRequest } from '../../protocol/generated/ListPartitionReassignmentsRequest.js';
import type { ListPartitionReassignmentsResponse } from '../../protocol/generated/ListPartitionReassignmentsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';

/** Reassignments complete at once on one broker, so none is ever in progress. */
export const handler: Handler<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse> = {
  apiKey: 46,
  name: 'ListPartitionReassignments',
  minVersion: 0,
  maxVersion: 0,
  handle: (_request, ctx) => (authorizeCluster(ctx, AclOperation.DESCRIBE)
    ? { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] }
    : { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', topics: [] }),
};
