import type { OffsetFetchRequest } from '../../protocol/generated/OffsetFetchRequest.js';
import type { OffsetFetchResponse, OffsetFetchResponseTopic } from '../../protocol/generated/OffsetFetchResponse.js';
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import type { Handler, RequestContext } from './handler.js';
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeGroup, authorizeTopic } from '../security/authorization.js';
import { resolveTopicIds } from './topic-ids.js';

/** v10 names topics by id (KIP-848). */
const FIRST_TOPIC_ID_VERSION = 10;

type RequestedTopics = ReadonlyArray<{ name: string; partitionIndexes: ReadonlyArray<number> }> | null;

/**
 * One group's offsets. On a group-level error the listed partitions carry it too: v0-1 clients only
 * read partition errors. With require_stable (v7+) a partition with transactional offsets pending
 * answers UNSTABLE_OFFSET_COMMIT, which the consumer retries.
 */
function fetchGroup(
  coordinator: GroupCoordinator, groupId: string, topics: RequestedTopics, requireStable: boolean,
  member?: { memberId: string | null; memberEpoch: number },
): { errorCode: number; topics: OffsetFetchResponseTopic[] } {
  const result = coordinator.fetchOffsets(groupId, topics, member, requireStable);
  return withGroupError(result, topics);
}

function withGroupError(result: { errorCode: number; topics: OffsetFetchResponseTopic[] }, topics: RequestedTopics): { errorCode: number; topics: OffsetFetchResponseTopic[] } {
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

/**
 * KafkaApis.handleOffsetFetchRequest: DESCRIBE on the group, then on each topic. Requested topics the principal
 * may not describe answer TOPIC_AUTHORIZATION_FAILED; with "all topics" they are left out.
 */
function authorizedFetchGroup(
  ctx: RequestContext, groupId: string, topics: RequestedTopics, requireStable: boolean, member?: { memberId: string | null; memberEpoch: number },
): { errorCode: number; topics: OffsetFetchResponseTopic[] } {
  if (!authorizeGroup(ctx, AclOperation.DESCRIBE, groupId)) return withGroupError({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] }, topics);
  const visible = (name: string) => authorizeTopic(ctx, AclOperation.DESCRIBE, name, topics !== null);
  if (topics === null) {
    const result = fetchGroup(ctx.broker.groupCoordinator, groupId, null, requireStable, member);
    return { ...result, topics: result.topics.filter((t) => visible(t.name)) };
  }
  const denied = topics.filter((t) => !visible(t.name));
  const result = fetchGroup(ctx.broker.groupCoordinator, groupId, topics.filter((t) => !denied.includes(t)), requireStable, member);
  return {
    ...result,
    topics: [...result.topics, ...denied.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({
        partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      })),
    }))],
  };
}

export const handler: Handler<OffsetFetchRequest, OffsetFetchResponse> = {
  apiKey: 9,
  name: 'OffsetFetch',
  minVersion: 0,
  maxVersion: 10,
  handle(request, ctx) {
    if (ctx.apiVersion >= 8) {
      // v9+ names the consumer group member (KIP-848), whose epoch is checked.
      // Topics as the request named them (by id from v10, all of them by their ids when none are named); an id of
      // no topic is UNKNOWN_TOPIC_ID, as on Kafka 4.4.
      const byId = ctx.apiVersion >= FIRST_TOPIC_ID_VERSION;
      const groups = request.groups.map((g) => {
        const ids = resolveTopicIds(g.topics ?? [], ctx.broker.topics, byId);
        const { errorCode, topics } = authorizedFetchGroup(ctx, g.groupId, g.topics === null ? null : ids.known, request.requireStable, g);
        const unknown = ids.unknown.map((t) => ({
          name: t.name, topicId: t.topicId,
          partitions: t.partitionIndexes.map((partitionIndex) => ({
            partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
          })),
        }));
        return { groupId: g.groupId, errorCode, topics: [...topics.map((t) => ({ ...t, ...ids.echo(t.name) })), ...unknown] };
      });
      return { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE, groups };
    }
    const { errorCode, topics } = authorizedFetchGroup(ctx, request.groupId, request.topics, ctx.apiVersion >= 7 && request.requireStable);
    return { throttleTimeMs: 0, topics, errorCode, groups: [] };
  },
};
