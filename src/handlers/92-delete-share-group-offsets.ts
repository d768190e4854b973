// DeleteShareGroupOffsets: the share-partition state of whole topics goes (a tombstone per share partition), as
// Kafka 4.4 deletes it; only for a share group without members. A topic the group has no state for is
// UNKNOWN_TOPIC_OR_PARTITION with Kafka's "There is no offset information to delete."
import type { DeleteShareGroupOffsetsRequest } from '../../protocol/generated/DeleteShareGroupOffsetsRequest.js';
import type { DeleteShareGroupOffsetsResponse, DeleteShareGroupOffsetsResponseTopic } from '../../protocol/generated/DeleteShareGroupOffsetsResponse.js';
import type { Handler, RequestContext } from './handler.js';
import { ErrorCode } from '../errors.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';
import { PersisterError } from '../share/persister.js';
import { shareGroupOffsetsRequestError } from './share-group-offsets.js';

async function deleteTopic(ctx: RequestContext, groupId: string, topicName: string): Promise<DeleteShareGroupOffsetsResponseTopic> {
  const info = ctx.broker.topics.get(topicName);
  const answer = (errorCode: number, errorMessage: string | null, topicId = info?.topicId ?? ZERO_UUID) => ({ topicName, topicId, errorCode, errorMessage });
  if (!authorizeTopic(ctx, AclOperation.READ, topicName)) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.');
  if (!info) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.');
  const keys = ctx.broker.shareCoordinator.sharePartitionsOf(groupId).filter((k) => k.topicId === info.topicId);
  // Kafka names no topic id with this one.
  if (keys.length === 0) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'There is no offset information to delete.', ZERO_UUID);
  try {
    await Promise.all(keys.map((key) => ctx.broker.shareCoordinator.deleteState(key)));
    await ctx.broker.groupCoordinator.shareGroups.onStateDeleted(groupId, info.topicId);
  } catch (err) {
    if (!(err instanceof PersisterError)) throw err;
    return answer(err.errorCode, err.message);
  }
  return answer(ErrorCode.NONE, null);
}

export const handler: Handler<DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse> = {
  apiKey: 92,
  name: 'DeleteShareGroupOffsets',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    const { groupId } = request;
    const refusal = shareGroupOffsetsRequestError(ctx, groupId, AclOperation.DELETE);
    if (refusal) return { throttleTimeMs: 0, ...refusal, responses: [] };
    const responses = await Promise.all(request.topics.map((t) => deleteTopic(ctx, groupId, t.topicName)));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
};
