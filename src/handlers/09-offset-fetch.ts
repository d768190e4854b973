import type { OffsetFetchRequest } from '../../protocol/generated/OffsetFetchRequest.js';
import type { OffsetFetchResponse, OffsetFetchResponseTopic } from '../../protocol/generated/OffsetFetchResponse.js';
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import type { Handler } from './handler.js';
import { ErrorCode } from '../errors.js';

type RequestedTopics = ReadonlyArray<{ name: string; partitionIndexes: ReadonlyArray<number> }> | null;

/**
 * One group's offsets. On a group-level error the listed partitions carry it too: v0-1 clients only
 * read partition errors. require_stable needs no wait: kafkite has no pending transactional offsets.
 */
function fetchGroup(
  coordinator: GroupCoordinator, groupId: string, topics: RequestedTopics, member?: { memberId: string | null; memberEpoch: number },
): { errorCode: number; topics: OffsetFetchResponseTopic[] } {
  const result = coordinator.fetchOffsets(groupId, topics, member);
  if (result.errorCode === ErrorCode.NONE || topics === null) return result;
  return {
    errorCode: result.errorCode,
    topics: topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({
        partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: result.errorCode,
      })),
    })),
  };
}

export const handler: Handler<OffsetFetchRequest, OffsetFetchResponse> = {
  apiKey: 9,
  name: 'OffsetFetch',
  minVersion: 0,
  maxVersion: 9,
  handle(request, ctx) {
    const coordinator = ctx.broker.groupCoordinator;
    if (ctx.apiVersion >= 8) {
      // v9+ names the consumer group member (KIP-848), whose epoch is checked.
      const groups = request.groups.map((g) => ({ groupId: g.groupId, ...fetchGroup(coordinator, g.groupId, g.topics, g) }));
      return { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE, groups };
    }
    const { errorCode, topics } = fetchGroup(coordinator, request.groupId, request.topics);
    return { throttleTimeMs: 0, topics, errorCode, groups: [] };
  },
};
