import type { InitializeShareGroupStateRequest } from '../../protocol/generated/InitializeShareGroupStateRequest.js';
import type { InitializeShareGroupStateResponse } from '../../protocol/generated/InitializeShareGroupStateResponse.js';
import type { Handler } from './handler.js';
import { partitionError, perSharePartition } from './share-state.js';

export const handler: Handler<InitializeShareGroupStateRequest, InitializeShareGroupStateResponse> = {
  apiKey: 83,
  name: 'InitializeShareGroupState',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    const results = await perSharePartition(
      ctx, request.groupId, request.topics,
      (shard, key, p) => shard.initializeState(key, p.stateEpoch, p.startOffset),
      (p, result) => partitionError(p.partition, result),
    );
    return { results };
  },
};
