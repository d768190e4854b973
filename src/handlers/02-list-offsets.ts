import type { ListOffsetsRequest } from '../../protocol/generated/ListOffsetsRequest.js';
import type { ListOffsetsPartitionResponse, ListOffsetsResponse } from '../../protocol/generated/ListOffsetsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';

/** No tiered storage here: the earliest local offset is the earliest, the latest tiered one does not exist. */
const EARLIEST_LOCAL_TIMESTAMP = -4;
const LATEST_TIERED_TIMESTAMP = -5;
const EARLIEST_TIMESTAMP = -2;
const LATEST_TIMESTAMP = -1;
/** Kafka's IsolationLevel.READ_COMMITTED: offsets stop at the last stable offset. */
const READ_COMMITTED = 1;

function answer(partitionIndex: number, errorCode: number, offset = -1, timestamp = -1): ListOffsetsPartitionResponse {
  return { partitionIndex, errorCode, oldStyleOffsets: offset >= 0 ? [offset] : [], timestamp, offset, leaderEpoch: offset >= 0 ? 0 : -1 };
}

export const handler: Handler<ListOffsetsRequest, ListOffsetsResponse> = {
  apiKey: 2,
  name: 'ListOffsets',
  minVersion: 0,
  maxVersion: 10,
  handle(request, ctx) {
    const { broker } = ctx;
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (!authorizeTopic(ctx, AclOperation.DESCRIBE, t.name)) return answer(p.partitionIndex, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const log = broker.getLog(t.name, p.partitionIndex);
          if (!log) return answer(p.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          if (p.timestamp === LATEST_TIERED_TIMESTAMP) return answer(p.partitionIndex, ErrorCode.NONE);
          const timestamp = p.timestamp === EARLIEST_LOCAL_TIMESTAMP ? EARLIEST_TIMESTAMP : p.timestamp;
          if (request.isolationLevel === READ_COMMITTED && timestamp === LATEST_TIMESTAMP) return answer(p.partitionIndex, ErrorCode.NONE, log.lastStableOffset);
          let found = log.fetchOffsetByTimestamp(timestamp);
          // Kafka's UnifiedLog.fetchOffsetByTimestamp: a read_committed lookup finds nothing past the LSO.
          if (found && request.isolationLevel === READ_COMMITTED && timestamp >= 0 && found.offset >= log.lastStableOffset) found = null;
          return found ? answer(p.partitionIndex, ErrorCode.NONE, found.offset, found.timestamp) : answer(p.partitionIndex, ErrorCode.NONE);
        }),
      })),
    };
  },
};
