// What ShareFetch and ShareAcknowledge check alike before their share session (KafkaApis): share groups enabled,
// READ on the group, a group id and a member id, and READ on each topic named.
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeGroup, authorizeTopic } from '../security/authorization.js';
import { GroupFeature, groupsEnabled } from './group-features.js';
import type { RequestContext } from './handler.js';
import { leaderEndpoint } from './partitions.js';

/** The top-level error of a share request from this group and member, or NONE. */
export function shareRequestError(ctx: RequestContext, groupId: string, memberId: string): number {
  if (!groupsEnabled(ctx, GroupFeature.SHARE)) return ErrorCode.UNSUPPORTED_VERSION;
  if (!authorizeGroup(ctx, AclOperation.READ, groupId)) return ErrorCode.GROUP_AUTHORIZATION_FAILED;
  if (groupId === '' || memberId === '') return ErrorCode.INVALID_REQUEST;
  return ErrorCode.NONE;
}

/** The topic ids among these whose topics the principal may not READ (unknown ids answer UNKNOWN_TOPIC_ID instead). */
export function deniedTopicIds(ctx: RequestContext, topicIds: Iterable<string>): Set<string> {
  const denied = new Set<string>();
  for (const id of new Set(topicIds)) {
    const name = ctx.broker.topics.getById(id)?.name;
    if (name !== undefined && !authorizeTopic(ctx, AclOperation.READ, name)) denied.add(id);
  }
  return denied;
}

/** The message beside an acknowledgement's error code: Kafka answers a refused acknowledgement with its exception's. */
export function acknowledgeErrorMessage(errorCode: number): string | null {
  if (errorCode === ErrorCode.NONE) return null;
  if (errorCode === ErrorCode.INVALID_RECORD_STATE) return 'The record state is invalid. The acknowledgement of delivery could not be completed.';
  return `The acknowledgement failed with error code ${errorCode}.`;
}

interface LeaderIdAndEpoch {
  leaderId: number;
  leaderEpoch: number;
}

/**
 * KafkaApis.processShareFetchResponse / processShareAcknowledgeResponse: a partition answered NOT_LEADER_OR_FOLLOWER
 * or FENCED_LEADER_EPOCH names its current leader and leader epoch (getCurrentLeader: this node, the partition's
 * epoch from the metadata log), and the response carries that leader's endpoint. Other partitions keep the message's
 * default {0, 0}, as Kafka's do. Returns the node endpoints the response carries.
 */
export function fillCurrentLeaders(
  ctx: RequestContext, partitions: ReadonlyArray<{ topicId: string; data: { partitionIndex: number; errorCode: number; currentLeader: LeaderIdAndEpoch } }>,
): Array<ReturnType<typeof leaderEndpoint>> {
  let named = false;
  for (const { topicId, data } of partitions) {
    if (data.errorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER && data.errorCode !== ErrorCode.FENCED_LEADER_EPOCH) continue;
    const topic = ctx.broker.topics.getById(topicId);
    const offline = !topic || ctx.broker.isPartitionOffline(topic.name, data.partitionIndex);
    data.currentLeader = offline ? { leaderId: -1, leaderEpoch: -1 } : { leaderId: ctx.broker.nodeId, leaderEpoch: ctx.broker.topics.leaderEpochs(topic.name)[data.partitionIndex] ?? 0 };
    named ||= !offline;
  }
  return named ? [leaderEndpoint(ctx.broker, ctx)] : [];
}
