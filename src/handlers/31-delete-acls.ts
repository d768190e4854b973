import type { DeleteAclsRequest } from '../../protocol/generated/DeleteAclsRequest.js';
import type { DeleteAclsFilterResult, DeleteAclsResponse } from '../../protocol/generated/DeleteAclsResponse.js';
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { Handler } from './handler.js';

// Kafka's AclApis.handleDeleteAcls: ALTER on the cluster; per filter, the ACLs it removed.
export const handler: Handler<DeleteAclsRequest, DeleteAclsResponse> = {
  apiKey: 31,
  name: 'DeleteAcls',
  minVersion: 0,
  maxVersion: 3,
  async handle(request, ctx) {
    const all = (errorCode: number, errorMessage: string): DeleteAclsResponse => ({
      throttleTimeMs: 0, filterResults: request.filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })),
    });
    const authorizer = ctx.broker.authorizer;
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    if (authorizer === null) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    const results = await authorizer.deleteAcls(request.filters.map((f) => ({
      resourceType: f.resourceTypeFilter, resourceName: f.resourceNameFilter, patternType: f.patternTypeFilter,
      principal: f.principalFilter, host: f.hostFilter, operation: f.operation, permissionType: f.permissionType,
    })));
    return {
      throttleTimeMs: 0,
      filterResults: results.map((r): DeleteAclsFilterResult => (Array.isArray(r)
        ? {
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          matchingAcls: r.map((acl) => ({
            errorCode: ErrorCode.NONE, errorMessage: null, resourceType: acl.resourceType, resourceName: acl.resourceName,
            patternType: acl.patternType, principal: acl.principal, host: acl.host, operation: acl.operation, permissionType: acl.permissionType,
          })),
        }
        : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: r.message, matchingAcls: [] })),
    };
  },
};
