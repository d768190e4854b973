// What ShareFetch and ShareAcknowledge check alike before their share session (KafkaApis): share groups enabled,
// READ on the group, a group id and a member id, and READ on each topic named.
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeGroup, authorizeTopic } from '../security/authorization.js';
import { GroupFeature, groupsEnabled } from './group-features.js';
import type { RequestContext } from './handler.js';

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
