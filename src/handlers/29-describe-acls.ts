import type { DescribeAclsRequest } from '../../protocol/generated/DescribeAclsRequest.js';
import type { DescribeAclsResource, DescribeAclsResponse } from '../../protocol/generated/DescribeAclsResponse.js';
import { ErrorCode } from '../errors.js';
import { InvalidAclError } from '../security/acls.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { Handler } from './handler.js';

// Kafka's AclApis.handleDescribeAcls: DESCRIBE on the cluster; SECURITY_DISABLED without an authorizer.
export const handler: Handler<DescribeAclsRequest, DescribeAclsResponse> = {
  apiKey: 29,
  name: 'DescribeAcls',
  minVersion: 0,
  maxVersion: 3,
  handle(request, ctx) {
    const failed = (errorCode: number, errorMessage: string): DescribeAclsResponse => ({ throttleTimeMs: 0, errorCode, errorMessage, resources: [] });
    const authorizer = ctx.broker.authorizer;
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) return failed(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
    if (authorizer === null) return failed(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    let acls;
    try {
      acls = authorizer.describeAcls({
        resourceType: request.resourceTypeFilter, resourceName: request.resourceNameFilter, patternType: request.patternTypeFilter,
        principal: request.principalFilter, host: request.hostFilter, operation: request.operation, permissionType: request.permissionType,
      });
    } catch (err) {
      if (err instanceof InvalidAclError) return failed(ErrorCode.INVALID_REQUEST, err.message);
      throw err;
    }
    // Grouped by resource pattern, as DescribeAclsResponse.aclsResources does.
    const byResource = new Map<string, DescribeAclsResource>();
    for (const acl of acls) {
      const key = `${acl.resourceType}\u0000${acl.patternType}\u0000${acl.resourceName}`;
      let resource = byResource.get(key);
      if (!resource) {
        resource = { resourceType: acl.resourceType, resourceName: acl.resourceName, patternType: acl.patternType, acls: [] };
        byResource.set(key, resource);
      }
      resource.acls.push({ principal: acl.principal, host: acl.host, operation: acl.operation, permissionType: acl.permissionType });
    }
    // Kafka's AclApis leaves the message unset, which its generated data classes send as ''.
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', resources: [...byResource.values()] };
  },
};
