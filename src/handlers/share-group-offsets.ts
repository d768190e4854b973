// What AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92) check before any topic, in Kafka 4.4's
// KafkaApis order: share groups on, the group ACL, then a share group without members (or, for alter, an
// unused id).
import { ErrorCode } from '../errors.js';
import { authorizeGroup } from '../security/authorization.js';
import { GroupFeature, groupsEnabled, UNSUPPORTED_VERSION_MESSAGE } from './group-features.js';
import { shareGroupOffsetsRefusal, shareGroupStatus } from '../coordinator/share-coordinator/share-group-lookup.js';
import type { RequestContext } from './handler.js';

/** The request-level error to answer with, or undefined when the topics are to be looked at. */
export function shareGroupOffsetsRequestError(
  ctx: RequestContext, groupId: string, operation: number,
): { errorCode: number; errorMessage: string } | undefined {
  if (!groupsEnabled(ctx, GroupFeature.SHARE)) return { errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: UNSUPPORTED_VERSION_MESSAGE };
  if (!authorizeGroup(ctx, operation, groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.' };
  return shareGroupOffsetsRefusal(shareGroupStatus(ctx.broker.groupCoordinator, groupId), groupId);
}
