// DescribeShareGroupOffsets: each share partition's start offset, leader epoch and lag, read from the share
// coordinator's summary as Kafka 4.4's GroupCoordinatorService.describeShareGroupOffsets reads it. Named
// topics are answered whatever the group (an unknown topic or a partition without state: start offset -1,
// lag -1); without names, every topic the group has state for.
import type { DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsRequestGroup } from '../../protocol/generated/DescribeShareGroupOffsetsRequest.js';
import type {
  DescribeShareGroupOffsetsResponse, DescribeShareGroupOffsetsResponseGroup, DescribeShareGroupOffsetsResponsePartition,
} from '../../protocol/generated/DescribeShareGroupOffsetsResponse.js';
import type { Handler, RequestContext } from './handler.js';
import { ErrorCode } from '../errors.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';
import { AclOperation, authorizeGroup, authorizeTopic } from '../security/authorization.js';
import { GroupFeature, groupsEnabled } from './group-features.js';
import { shareGroupStatus } from '../coordinator/share-coordinator/share-group-lookup.js';

function partitionAnswer(ctx: RequestContext, groupId: string, topic: string, partitionIndex: number): DescribeShareGroupOffsetsResponsePartition {
  const info = ctx.broker.topics.get(topic);
  const none = { partitionIndex, startOffset: -1, leaderEpoch: 0, lag: -1, errorCode: ErrorCode.NONE, errorMessage: null };
  if (!info || partitionIndex < 0 || partitionIndex >= info.partitions) return none;
  const summary = ctx.broker.shareCoordinator.summaryOf({ groupId, topicId: info.topicId, partition: partitionIndex });
  if (!summary) return none;
  const { startOffset, leaderEpoch, deliveryCompleteCount } = summary;
  // 4.4's lag: what is below the end and not delivered yet (unknown while the count or the start is).
  const end = ctx.broker.getLog(topic, partitionIndex)?.highWatermark ?? 0;
  const lag = startOffset < 0 || deliveryCompleteCount < 0 ? -1 : end - startOffset - deliveryCompleteCount;
  return { partitionIndex, startOffset, leaderEpoch, lag, errorCode: ErrorCode.NONE, errorMessage: null };
}

function describeGroup(ctx: RequestContext, group: DescribeShareGroupOffsetsRequestGroup): DescribeShareGroupOffsetsResponseGroup {
  const { groupId } = group;
  if (!groupsEnabled(ctx, GroupFeature.SHARE)) return { groupId, topics: [], errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: null };
  if (!authorizeGroup(ctx, AclOperation.DESCRIBE, groupId)) {
    return { groupId, topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.' };
  }
  let requested = group.topics;
  if (requested === null) {
    if (shareGroupStatus(ctx.broker.groupCoordinator, groupId)?.type === 'other') {
      return { groupId, topics: [], errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} is not a share group.` };
    }
    const byTopic = new Map<string, number[]>();
    for (const key of ctx.broker.shareCoordinator.sharePartitionsOf(groupId)) {
      const name = ctx.broker.topics.getById(key.topicId)?.name;
      if (name !== undefined) byTopic.set(name, [...(byTopic.get(name) ?? []), key.partition].sort((a, b) => a - b));
    }
    requested = [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions }));
  }
  const topics = requested.map((t) => {
    const topicId = ctx.broker.topics.get(t.topicName)?.topicId ?? ZERO_UUID;
    if (!authorizeTopic(ctx, AclOperation.DESCRIBE, t.topicName)) {
      const denied = (partitionIndex: number) => ({
        partitionIndex, startOffset: -1, leaderEpoch: 0, lag: -1, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Topic authorization failed.',
      });
      return { topicName: t.topicName, topicId, partitions: t.partitions.map(denied) };
    }
    return { topicName: t.topicName, topicId, partitions: t.partitions.map((p) => partitionAnswer(ctx, groupId, t.topicName, p)) };
  });
  return { groupId, topics, errorCode: ErrorCode.NONE, errorMessage: null };
}

export const handler: Handler<DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse> = {
  apiKey: 90,
  name: 'DescribeShareGroupOffsets',
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    return { throttleTimeMs: 0, groups: request.groups.map((g) => describeGroup(ctx, g)) };
  },
};
