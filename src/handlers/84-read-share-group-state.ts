import type { ReadShareGroupStateRequest } from '../../protocol/generated/ReadShareGroupStateRequest.js';
import type { ReadShareGroupStateResponse } from '../../protocol/generated/ReadShareGroupStateResponse.js';
import type { Handler } from './handler.js';
import { ErrorCode } from '../errors.js';
import { perSharePartition } from './share-state.js';

export const handler: Handler<ReadShareGroupStateRequest, ReadShareGroupStateResponse> = {
  apiKey: 84,
  name: 'ReadShareGroupState',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    const results = await perSharePartition(
      ctx, request.groupId, request.topics,
      (shard, key, p) => shard.readState(key, p.leaderEpoch),
      (p, { errorCode, errorMessage, value }) => ({
        partition: p.partition, errorCode, errorMessage: errorCode === ErrorCode.NONE ? null : errorMessage,
        // Kafka's ReadShareGroupStateResponse.toErrorResponseData: state epoch 0, start offset 0.
        stateEpoch: value?.stateEpoch ?? 0, startOffset: value?.startOffset ?? 0, stateBatches: value?.stateBatches ?? [],
      }),
    );
    return { results };
  },
};
