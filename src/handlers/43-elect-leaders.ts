import type { ElectLeadersRequest } from '../../protocol/generated/ElectLeadersRequest.js';
import type { ElectLeadersResponse } from '../../protocol/generated/ElectLeadersResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';

/** Kafka's ELECTION_NOT_NEEDED: one replica is always the preferred, elected leader. */
const ELECTION_NOT_NEEDED = 84;

export const handler: Handler<ElectLeadersRequest, ElectLeadersResponse> = {
  apiKey: 43,
  name: 'ElectLeaders',
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    const { broker } = ctx;
    const targets = request.topicPartitions ?? [...broker.topics.all()].map((t) => ({ topic: t.name, partitions: Array.from({ length: t.partitions }, (_, i) => i) }));
    // ALTER on the cluster (KafkaApis.handleElectLeaders): every partition carries the error too.
    if (!authorizeCluster(ctx, AclOperation.ALTER)) {
      const message = 'Cluster authorization failed.';
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        replicaElectionResults: (request.topicPartitions ?? []).map((t) => ({
          topic: t.topic,
          partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: message })),
        })),
      };
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      replicaElectionResults: targets.map((t) => ({
        topic: t.topic,
        partitionResult: t.partitions.map((partitionId) =>
          broker.getLog(t.topic, partitionId)
            ? { partitionId, errorCode: ELECTION_NOT_NEEDED, errorMessage: 'Leader election not needed for topic partition.' }
            : { partitionId, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The partition does not exist.' },
        ),
      })),
    };
  },
};
