import type { CreateAclsRequest } from '../../protocol/generated/CreateAclsRequest.js';
import type { CreateAclsResponse } from '../../protocol/generated/CreateAclsResponse.js';
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { Handler } from './handler.js';

// Kafka's AclApis.handleCreateAcls: ALTER on the cluster; each creation gets its own result.
export const handler: Handler<CreateAclsRequest, CreateAclsResponse> = {
  apiKey: 30,
  name: 'CreateAcls',
  minVersion: 0,
  maxVersion: 3,
  async handle(request, ctx) {
    const all = (errorCode: number, errorMessage: string): CreateAclsResponse => ({
      throttleTimeMs: 0, results: request.creations.map(() => ({ errorCode, errorMessage })),
    });
    const authorizer = ctx.broker.authorizer;
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    if (authorizer === null) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    const results = await authorizer.createAcls(request.creations.map((c) => ({
      resourceType: c.resourceType, resourceName: c.resourceName, patternType: c.resourcePatternType,
      principal: c.principal, host: c.host, operation: c.operation, permissionType: c.permissionType,
    })));
    return {
      throttleTimeMs: 0,
      results: results.map((err) => (err === null ? { errorCode: ErrorCode.NONE, errorMessage: null } : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: err.message })),
    };
  },
};
