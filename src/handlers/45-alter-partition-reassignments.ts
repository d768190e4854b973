import type { AlterPartitionReassignmentsRequest } from '../../protocol/generated/AlterPartitionReassignmentsRequest.js';
import type { AlterPartitionReassignmentsResponse } from '../../protocol/generated/AlterPartitionReassignmentsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';

/** Kafka's NO_REASSIGNMENT_IN_PROGRESS, for a cancellation (null replicas) of nothing. */
const NO_REASSIGNMENT_IN_PROGRESS = 85;

export const handler: Handler<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse> = {
  apiKey: 45,
  name: 'AlterPartitionReassignments',
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const { broker } = ctx;
    if (!authorizeCluster(ctx, AclOperation.ALTER)) {
      return { throttleTimeMs: 0, allowReplicationFactorChange: request.allowReplicationFactorChange, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', responses: [] };
    }
    return {
      throttleTimeMs: 0,
      // v1 (KIP-860) echoes the request's option; the one assignment accepted never changes the replication factor.
      allowReplicationFactorChange: request.allowReplicationFactorChange,
      errorCode: ErrorCode.NONE,
      // Kafka leaves the message unset, which its generated data classes send as '' (no default of null).
      errorMessage: '',
      responses: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          const answer = (errorCode: number, errorMessage: string | null = null) => ({ partitionIndex: p.partitionIndex, errorCode, errorMessage });
          if (!broker.getLog(t.name, p.partitionIndex)) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'The partition does not exist.');
          if (p.replicas === null) return answer(NO_REASSIGNMENT_IN_PROGRESS, 'No reassignment in progress.');
          // The only possible assignment is the one in place: this broker alone; it completes at once.
          if (p.replicas.length !== 1 || p.replicas[0] !== broker.nodeId) {
            return answer(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Replica assignment ${JSON.stringify(p.replicas)} names brokers other than ${broker.nodeId}.`);
          }
          return answer(ErrorCode.NONE);
        }),
      })),
    };
  },
};
