import type { DeleteShareGroupStateRequest } from '../../protocol/generated/DeleteShareGroupStateRequest.js';
import type { DeleteShareGroupStateResponse } from '../../protocol/generated/DeleteShareGroupStateResponse.js';
import type { Handler } from './handler.js';
import { partitionError, perSharePartition } from './share-state.js';

export const handler: Handler<DeleteShareGroupStateRequest, DeleteShareGroupStateResponse> = {
  apiKey: 86,
  name: 'DeleteShareGroupState',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    const results = await perSharePartition(
      ctx, request.groupId, request.topics,
      (shard, key) => shard.deleteState(key),
      (p, result) => partitionError(p.partition, result),
    );
    return { results };
  },
};
