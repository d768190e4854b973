// What the share-group offsets admin APIs (90-92) need to know of a group: whether the id is a share group,
// of another type, or unused, and whether it has members. Read from ListGroups' view of the group
// coordinator, so the share groups (src/coordinator/share/) are seen as soon as they are listed there.
import type { GroupCoordinator } from '../group-coordinator.js';

export type ShareGroupStatus = { type: 'share'; empty: boolean } | { type: 'other' } | undefined;

export function shareGroupStatus(groups: Pick<GroupCoordinator, 'listGroups'>, groupId: string): ShareGroupStatus {
  const group = groups.listGroups([], []).groups.find((g) => g.groupId === groupId);
  if (!group) return undefined;
  return group.groupType === 'share' ? { type: 'share', empty: group.groupState === 'Empty' } : { type: 'other' };
}

/**
 * Kafka's refusal of AlterShareGroupOffsets and DeleteShareGroupOffsets for an empty id, a group of another
 * type or one with members; undefined when they may go on. An unused id goes on: Kafka 4.4's alter makes it an
 * empty share group.
 */
export function shareGroupOffsetsRefusal(status: ShareGroupStatus, groupId: string): { errorCode: number; errorMessage: string } | undefined {
  // INVALID_GROUP_ID, GROUP_ID_NOT_FOUND and NON_EMPTY_GROUP, with 4.4's wording for the last two.
  if (groupId === '') return { errorCode: 24, errorMessage: 'The configured groupId is invalid.' };
  if (status?.type === 'other') return { errorCode: 69, errorMessage: `Group ${groupId} is not a share group.` };
  if (status?.type === 'share' && !status.empty) return { errorCode: 68, errorMessage: 'The group is not empty.' };
  return undefined;
}
