import type { DeleteRecordsRequest } from '../../protocol/generated/DeleteRecordsRequest.js';
import type { DeleteRecordsResponse } from '../../protocol/generated/DeleteRecordsResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';

/** Offset -1 in the request means "up to the high watermark". */
const HIGH_WATERMARK = -1;

export const handler: Handler<DeleteRecordsRequest, DeleteRecordsResponse> = {
  apiKey: 21,
  name: 'DeleteRecords',
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (!authorizeTopic(ctx, AclOperation.DELETE, t.name)) return { partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
          const log = ctx.broker.getLog(t.name, p.partitionIndex);
          if (!log) return { partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
          const offset = p.offset === HIGH_WATERMARK ? log.highWatermark : p.offset;
          if (offset < 0 || offset > log.highWatermark) {
            return { partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE };
          }
          const lowWatermark = log.deleteRecordsBefore(offset);
          ctx.log.info({ topic: t.name, partition: p.partitionIndex, logStartOffset: lowWatermark }, 'records deleted');
          return { partitionIndex: p.partitionIndex, lowWatermark, errorCode: ErrorCode.NONE };
        }),
      })),
    };
  },
};
