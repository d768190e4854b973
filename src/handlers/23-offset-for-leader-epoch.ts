import type { OffsetForLeaderEpochRequest } from '../../protocol/generated/OffsetForLeaderEpochRequest.js';
import type { EpochEndOffset, OffsetForLeaderEpochResponse } from '../../protocol/generated/OffsetForLeaderEpochResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { currentLeaderEpochError } from './partitions.js';
import { AclOperation, authorize, authorizeTopic, CLUSTER_NAME, ResourceType } from '../security/authorization.js';

const UNDEFINED_EPOCH = -1;
const UNDEFINED_EPOCH_OFFSET = -1;

export const handler: Handler<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse> = {
  apiKey: 23,
  name: 'OffsetForLeaderEpoch',
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    // CLUSTER_ACTION (replicas) covers every topic, else DESCRIBE on each (KafkaApis.handleOffsetForLeaderEpochRequest).
    const replica = authorize(ctx, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME, false);
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p): EpochEndOffset => {
          if (!replica && !authorizeTopic(ctx, AclOperation.DESCRIBE, t.topic)) {
            return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, partition: p.partition, leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
          }
          const log = ctx.broker.getLog(t.topic, p.partition);
          if (!log) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, partition: p.partition, leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
          const errorCode = currentLeaderEpochError(p.currentLeaderEpoch, log);
          if (errorCode !== ErrorCode.NONE) return { errorCode, partition: p.partition, leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
          // Partition.lastOffsetForLeaderEpoch: the epoch cache's answer (an unknown epoch is -1, -1 without an error).
          const { epoch, endOffset } = log.endOffsetForEpoch(p.leaderEpoch);
          return { errorCode: ErrorCode.NONE, partition: p.partition, leaderEpoch: epoch, endOffset };
        }),
      })),
    };
  },
};
