import type { OffsetForLeaderEpochRequest } from '../../protocol/generated/OffsetForLeaderEpochRequest.js';
import type { EpochEndOffset, OffsetForLeaderEpochResponse } from '../../protocol/generated/OffsetForLeaderEpochResponse.js';
import { LEADER_EPOCH } from '../../storage/unified-log.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
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
          // One broker, one leader epoch (0): the current epoch ends at the log end offset.
          if (p.currentLeaderEpoch > LEADER_EPOCH) {
            return { errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH, partition: p.partition, leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
          }
          if (p.leaderEpoch > LEADER_EPOCH || p.leaderEpoch < 0) {
            return { errorCode: ErrorCode.NONE, partition: p.partition, leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
          }
          return { errorCode: ErrorCode.NONE, partition: p.partition, leaderEpoch: LEADER_EPOCH, endOffset: log.logEndOffset };
        }),
      })),
    };
  },
};
