// What ConsumerGroupDescribe (69), ShareGroupDescribe (77) and StreamsGroupDescribe (89) do alike, as Kafka's
// KafkaApis.handle{Consumer,Share,Streams}GroupDescribe: DESCRIBE on each group, the coordinator's description of
// the groups allowed, GROUP_AUTHORIZATION_FAILED for the others, and KIP-430's authorized operations when asked for.
import { ErrorCode } from '../errors.js';
import { AclOperation, AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, authorizeGroup, ResourceType } from '../security/authorization.js';
import type { RequestContext } from './handler.js';

/** The fields every type's answer for a refused group has. */
interface RefusedGroup {
  errorCode: number;
  errorMessage: string;
  groupId: string;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  members: never[];
  authorizedOperations: number;
}

/** Each requested group in request order: `refused` completes a refused group's answer, `answer` a described one's. */
export function describeGroupsOfType<D extends { groupId: string }, R>(
  ctx: RequestContext,
  request: { groupIds: string[]; includeAuthorizedOperations: boolean },
  describe: (allowed: string[]) => D[],
  refused: (group: RefusedGroup) => R,
  answer: (group: D, authorizedOperations: number) => R,
): R[] {
  const allowed = request.groupIds.filter((g) => authorizeGroup(ctx, AclOperation.DESCRIBE, g));
  const described = new Map(describe(allowed).map((g) => [g.groupId, g]));
  return request.groupIds.map((groupId) => {
    const g = described.get(groupId);
    if (!g) {
      return refused({
        errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.', groupId, groupState: '',
        groupEpoch: -1, assignmentEpoch: -1, members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      });
    }
    return answer(g, request.includeAuthorizedOperations ? authorizedOperations(ctx, ResourceType.GROUP, groupId) : AUTHORIZED_OPERATIONS_OMITTED);
  });
}
