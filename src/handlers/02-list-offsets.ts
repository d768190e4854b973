import type { ListOffsetsRequest } from '../../protocol/generated/ListOffsetsRequest.js';
import type { ListOffsetsPartitionResponse, ListOffsetsResponse } from '../../protocol/generated/ListOffsetsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';
import { currentLeaderEpochError } from './partitions.js';

/**
 * No tiered storage here: the earliest local offset is the earliest, and neither a latest tiered offset nor an
 * earliest pending upload exists (Kafka answers -1 for them on a topic without remote storage).
 */
const EARLIEST_LOCAL_TIMESTAMP = -4;
const LATEST_TIERED_TIMESTAMP = -5;
const EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6;
const EARLIEST_TIMESTAMP = -2;
const LATEST_TIMESTAMP = -1;

/**
 * The first version carrying each special timestamp (Kafka's ReplicaManager.isListOffsetsTimestampUnsupported):
 * MAX_TIMESTAMP (-3) v7, KIP-405's -4 v8, KIP-1005's -5 v9, KIP-1023's -6 v11. Below it, or for any other
 * negative timestamp, UNSUPPORTED_VERSION, as a Kafka 4.4 node answers.
 */
const FIRST_VERSION_OF_TIMESTAMP: ReadonlyMap<number, number> = new Map([
  [LATEST_TIMESTAMP, 0], [EARLIEST_TIMESTAMP, 0], [-3, 7], [EARLIEST_LOCAL_TIMESTAMP, 8], [LATEST_TIERED_TIMESTAMP, 9], [EARLIEST_PENDING_UPLOAD_TIMESTAMP, 11],
]);
/** The replica id of a consumer's request (ListOffsetsRequest.CONSUMER_REPLICA_ID). */
const CONSUMER_REPLICA_ID = -1;
/** Kafka's IsolationLevel.READ_COMMITTED: offsets stop at the last stable offset. */
const READ_COMMITTED = 1;

/** `leaderEpoch`: the epoch of the offset found (Kafka's TimestampAndOffset), -1 for none. */
function answer(partitionIndex: number, errorCode: number, offset = -1, timestamp = -1, leaderEpoch = -1): ListOffsetsPartitionResponse {
  return { partitionIndex, errorCode, oldStyleOffsets: offset >= 0 ? [offset] : [], timestamp, offset, leaderEpoch };
}

/**
 * v0 answers with an array of offsets (Kafka 3.x KafkaApis.handleListOffsetRequestV0 and
 * Partition.legacyFetchOffsetsForTimestamp): a consumer never sees an offset past the high watermark.
 */
function legacyAnswer(partitionIndex: number, log: UnifiedLog, timestamp: number, maxNumOffsets: number, fromConsumer: boolean): ListOffsetsPartitionResponse {
  let offsets = log.legacyFetchOffsetsBefore(timestamp, maxNumOffsets);
  const hw = log.highWatermark;
  if (fromConsumer && offsets.some((o) => o > hw)) offsets = [hw, ...offsets.filter((o) => o <= hw)];
  return { ...answer(partitionIndex, ErrorCode.NONE), oldStyleOffsets: offsets };
}

export const handler: Handler<ListOffsetsRequest, ListOffsetsResponse> = {
  apiKey: 2,
  name: 'ListOffsets',
  minVersion: 0,
  maxVersion: 11,
  handle(request, ctx) {
    const { broker } = ctx;
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (!authorizeTopic(ctx, AclOperation.DESCRIBE, t.name)) return answer(p.partitionIndex, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          // Before the partition is looked up, as Kafka does (a missing topic gets UNSUPPORTED_VERSION too).
          if (ctx.apiVersion > 0 && p.timestamp < 0 && (FIRST_VERSION_OF_TIMESTAMP.get(p.timestamp) ?? Infinity) > ctx.apiVersion) {
            return answer(p.partitionIndex, ErrorCode.UNSUPPORTED_VERSION);
          }
          const log = broker.getLog(t.name, p.partitionIndex);
          if (!log) return answer(p.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          const epochError = currentLeaderEpochError(p.currentLeaderEpoch, log);
          if (epochError !== ErrorCode.NONE) return answer(p.partitionIndex, epochError);
          if (ctx.apiVersion === 0) return legacyAnswer(p.partitionIndex, log, p.timestamp, p.maxNumOffsets, request.replicaId === CONSUMER_REPLICA_ID);
          if (p.timestamp === LATEST_TIERED_TIMESTAMP || p.timestamp === EARLIEST_PENDING_UPLOAD_TIMESTAMP) return answer(p.partitionIndex, ErrorCode.NONE);
          const timestamp = p.timestamp === EARLIEST_LOCAL_TIMESTAMP ? EARLIEST_TIMESTAMP : p.timestamp;
          if (request.isolationLevel === READ_COMMITTED && timestamp === LATEST_TIMESTAMP) {
            return answer(p.partitionIndex, ErrorCode.NONE, log.lastStableOffset, -1, log.leaderEpoch);
          }
          let found = log.fetchOffsetByTimestamp(timestamp);
          // Kafka's UnifiedLog.fetchOffsetByTimestamp: a read_committed lookup finds nothing past the LSO.
          if (found && request.isolationLevel === READ_COMMITTED && timestamp >= 0 && found.offset >= log.lastStableOffset) found = null;
          return found ? answer(p.partitionIndex, ErrorCode.NONE, found.offset, found.timestamp, found.leaderEpoch) : answer(p.partitionIndex, ErrorCode.NONE);
        }),
      })),
    };
  },
};
