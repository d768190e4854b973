import type { WriteShareGroupStateRequest } from '../../protocol/generated/WriteShareGroupStateRequest.js';
import type { WriteShareGroupStateResponse } from '../../protocol/generated/WriteShareGroupStateResponse.js';
import type { Handler } from './handler.js';
import type { PersisterStateBatch } from '../share/persister.js';
import { partitionError, perSharePartition } from './share-state.js';

export const handler: Handler<WriteShareGroupStateRequest, WriteShareGroupStateResponse> = {
  apiKey: 85,
  name: 'WriteShareGroupState',
  minVersion: 0,
  maxVersion: 1,
  async handle(request, ctx) {
    const results = await perSharePartition(
      ctx, request.groupId, request.topics,
      (shard, key, p) => shard.writeState(key, {
        stateEpoch: p.stateEpoch, leaderEpoch: p.leaderEpoch, startOffset: p.startOffset,
        // v0 has no DeliveryCompleteCount: -1 (unknown), its default.
        deliveryCompleteCount: p.deliveryCompleteCount, stateBatches: p.stateBatches as PersisterStateBatch[],
      }),
      (p, result) => partitionError(p.partition, result),
    );
    return { results };
  },
};
