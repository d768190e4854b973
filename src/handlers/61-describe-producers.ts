import type { DescribeProducersRequest } from '../../protocol/generated/DescribeProducersRequest.js';
import type { DescribeProducersResponse, PartitionResponse } from '../../protocol/generated/DescribeProducersResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';

export const handler: Handler<DescribeProducersRequest, DescribeProducersResponse> = {
  apiKey: 61,
  name: 'DescribeProducers',
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex): PartitionResponse => {
          if (!authorizeTopic(ctx, AclOperation.READ, t.name)) return { partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null, activeProducers: [] };
          const log = ctx.broker.getLog(t.name, partitionIndex);
          if (!log) return { partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null, activeProducers: [] };
          const activeProducers = [...log.producerStateManager.activeProducers.values()].map((p) => ({
            producerId: p.producerId,
            producerEpoch: p.producerEpoch,
            lastSequence: p.batches.at(-1)?.lastSeq ?? -1,
            lastTimestamp: p.lastTimestamp,
            coordinatorEpoch: p.coordinatorEpoch,
            currentTxnStartOffset: p.currentTxnFirstOffset,
          }));
          return { partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers };
        }),
      })),
    };
  },
};
