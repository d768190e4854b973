// What the group types of the new protocols (KIP-848 consumer groups, KIP-1071 streams groups) share, as Kafka's
// ModernGroup does: listing with their type, deletion of an empty group with its offsets, and their records'
// append to the group's __consumer_offsets partition.
import type { Logger } from 'pino';
import { ErrorCode as E } from '../errors.js';
import type { OffsetMetadataManager } from './offset-metadata-manager.js';
import { partitionFor, type CoordinatorRecord, type OffsetsTopic } from './offsets-topic.js';
import type { ListedGroup } from './types.js';

interface ModernGroup {
  readonly groupId: string;
  readonly state: string;
  isEmpty(): boolean;
}

/** ListGroups: the groups in any of `states` (lower case; empty = all), as groups of `type`. */
export function listModernGroups(groups: Iterable<ModernGroup>, states: ReadonlySet<string>, type: string): ListedGroup[] {
  const listed: ListedGroup[] = [];
  for (const group of groups) {
    const state = group.state;
    if (states.size > 0 && !states.has(state.toLowerCase())) continue;
    listed.push({ groupId: group.groupId, protocolType: type, groupState: state, groupType: type });
  }
  return listed;
}

export function appendGroupRecords(offsetsTopic: OffsetsTopic, groupId: string, records: ReadonlyArray<CoordinatorRecord>): Promise<void> {
  if (records.length === 0) return Promise.resolve();
  return offsetsTopic.append(partitionFor(groupId, offsetsTopic.numPartitions), records);
}

/** DeleteGroups: an empty group goes with its offsets; `groupTombstones` are its own records' tombstones. */
export async function deleteEmptyGroup<G extends ModernGroup>(
  groups: Map<string, G>, groupId: string, groupTombstones: (group: G) => CoordinatorRecord[],
  offsetManager: OffsetMetadataManager, offsetsTopic: OffsetsTopic, log: Logger | undefined,
): Promise<number> {
  const group = groups.get(groupId)!;
  if (!group.isEmpty()) return E.NON_EMPTY_GROUP;
  const records = [...offsetManager.tombstonesOf(groupId), ...groupTombstones(group)];
  try {
    await appendGroupRecords(offsetsTopic, groupId, records);
  } catch (err) {
    log?.warn({ err, group: groupId }, 'failed to persist group deletion');
    return E.COORDINATOR_NOT_AVAILABLE;
  }
  if (groups.get(groupId) === group && group.isEmpty()) {
    groups.delete(groupId);
    offsetManager.forgetGroup(groupId);
  }
  return E.NONE;
}

interface TimedMember {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly rebalanceTimeoutMs: number;
  sessionTimer: NodeJS.Timeout | undefined;
  rebalanceTimer: NodeJS.Timeout | undefined;
}

/** The member is fenced (`expire`) unless it heartbeats again within its session timeout. */
export function scheduleSessionTimeout(member: TimedMember, sessionTimeoutMs: number, expire: () => void): void {
  clearTimeout(member.sessionTimer);
  member.sessionTimer = setTimeout(expire, sessionTimeoutMs);
  member.sessionTimer.unref();
}

/** A member still revoking (`revoking`) at the same epoch after its rebalance timeout is fenced (`expire`). */
export function scheduleRebalanceTimeout(member: TimedMember, revoking: () => boolean, expire: () => void): void {
  clearTimeout(member.rebalanceTimer);
  const epoch = member.memberEpoch;
  member.rebalanceTimer = setTimeout(() => {
    if (revoking() && member.memberEpoch === epoch) expire();
  }, Math.max(member.rebalanceTimeoutMs, 0));
  member.rebalanceTimer.unref();
}
