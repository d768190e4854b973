// AlterShareGroupOffsets: a share partition starts over at the given offset. As Kafka 4.4 does it, the state is
// initialized afresh at the next state epoch (so a share partition's leader still on the old one is fenced and
// reads it again); only for a share group without members, or an unused id.
import type { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsRequestTopic } from '../../protocol/generated/AlterShareGroupOffsetsRequest.js';
import type { AlterShareGroupOffsetsResponse, AlterShareGroupOffsetsResponseTopic } from '../../protocol/generated/AlterShareGroupOffsetsResponse.js';
import type { Handler, RequestContext } from './handler.js';
import { ErrorCode } from '../errors.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';
import { PersisterError } from '../share/persister.js';
import { shareGroupOffsetsRequestError } from './share-group-offsets.js';

const UNKNOWN_PARTITION = 'This server does not host this topic-partition.';

async function alterTopic(ctx: RequestContext, groupId: string, groupEpoch: number, t: AlterShareGroupOffsetsRequestTopic): Promise<AlterShareGroupOffsetsResponseTopic> {
  const info = ctx.broker.topics.get(t.topicName);
  const topicId = info?.topicId ?? ZERO_UUID;
  const allowed = authorizeTopic(ctx, AclOperation.READ, t.topicName);
  const partitions = await Promise.all(t.partitions.map(async ({ partitionIndex, startOffset }) => {
    if (!allowed) return { partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Topic authorization failed.' };
    if (!info || partitionIndex < 0 || partitionIndex >= info.partitions) {
      return { partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_PARTITION };
    }
    const key = { groupId, topicId, partition: partitionIndex };
    // A new state epoch, and at least the group's epoch, as Kafka 4.4's alter initializes at.
    const stateEpoch = Math.max((ctx.broker.shareCoordinator.summaryOf(key)?.stateEpoch ?? -1) + 1, groupEpoch);
    try {
      await ctx.broker.shareCoordinator.initializeState(key, stateEpoch, startOffset);
      await ctx.broker.groupCoordinator.shareGroups.onStateInitialized(groupId, topicId, t.topicName, [partitionIndex]);
      return { partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null };
    } catch (err) {
      if (!(err instanceof PersisterError)) throw err;
      return { partitionIndex, errorCode: err.errorCode, errorMessage: err.message };
    }
  }));
  return { topicName: t.topicName, topicId, partitions };
}

export const handler: Handler<AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse> = {
  apiKey: 91,
  name: 'AlterShareGroupOffsets',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    const { groupId } = request;
    const refusal = shareGroupOffsetsRequestError(ctx, groupId, AclOperation.READ);
    if (refusal) return { throttleTimeMs: 0, ...refusal, responses: [] };
    // Kafka answers the topics it does not know first.
    const unknown = request.topics.filter((t) => !ctx.broker.topics.get(t.topicName));
    const known = request.topics.filter((t) => ctx.broker.topics.get(t.topicName));
    const groupEpoch = ctx.broker.groupCoordinator.shareGroupDescribe([groupId], ctx.broker.topics)[0]?.groupEpoch ?? 0;
    const responses = await Promise.all([...unknown, ...known].map((t) => alterTopic(ctx, groupId, groupEpoch, t)));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
};
