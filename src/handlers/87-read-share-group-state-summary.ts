import type { ReadShareGroupStateSummaryRequest } from '../../protocol/generated/ReadShareGroupStateSummaryRequest.js';
import type { ReadShareGroupStateSummaryResponse } from '../../protocol/generated/ReadShareGroupStateSummaryResponse.js';
import type { Handler } from './handler.js';
import { ErrorCode } from '../errors.js';
import { perSharePartition } from './share-state.js';

export const handler: Handler<ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse> = {
  apiKey: 87,
  name: 'ReadShareGroupStateSummary',
  minVersion: 0,
  maxVersion: 1,
  async handle(request, ctx) {
    const results = await perSharePartition(
      ctx, request.groupId, request.topics,
      (shard, key) => shard.readSummary(key),
      (p, { errorCode, errorMessage, value }) => ({
        partition: p.partition, errorCode, errorMessage: errorCode === ErrorCode.NONE ? null : errorMessage,
        // A share partition never initialized answers start offset -1 (Kafka's readStateSummary).
        stateEpoch: value?.stateEpoch ?? 0, leaderEpoch: value?.leaderEpoch ?? 0, startOffset: value?.startOffset ?? -1,
        deliveryCompleteCount: value?.deliveryCompleteCount ?? -1,
      }),
    );
    return { results };
  },
};
