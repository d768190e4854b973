import type { DescribeClusterRequest } from '../../protocol/generated/DescribeClusterRequest.js';
import type { DescribeClusterResponse } from '../../protocol/generated/DescribeClusterResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, CLUSTER_NAME, ResourceType } from '../security/authorization.js';

const BROKERS_ENDPOINT = 1;

export const handler: Handler<DescribeClusterRequest, DescribeClusterResponse> = {
  apiKey: 60,
  name: 'DescribeCluster',
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    const { broker } = ctx;
    const endpoint = broker.endpoints.find((e) => e.listenerName === ctx.listenerName) ?? broker.endpoints[0]!;
    if (request.endpointType !== BROKERS_ENDPOINT) {
      return {
        throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, errorMessage: 'kafkite has no controller endpoints',
        endpointType: request.endpointType, clusterId: broker.clusterId, controllerId: -1, brokers: [], clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      };
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: BROKERS_ENDPOINT,
      clusterId: broker.clusterId,
      controllerId: broker.nodeId,
      brokers: [{ brokerId: broker.nodeId, host: endpoint.host, port: endpoint.port, rack: null, isFenced: false }],
      clusterAuthorizedOperations: request.includeClusterAuthorizedOperations
        ? authorizedOperations(ctx, ResourceType.CLUSTER, CLUSTER_NAME)
        : AUTHORIZED_OPERATIONS_OMITTED,
    };
  },
};
