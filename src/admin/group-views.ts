// Groups as the admin HTTP shows them, with lag: the partition's high watermark minus the group's
// committed offset, as kafka-consumer-groups.sh --describe computes it.
import type { Broker } from '../broker.js';

export interface PartitionLag {
  topic: string;
  partition: number;
  committedOffset: number;
  /** null when the partition no longer exists. */
  logEndOffset: number | null;
  lag: number | null;
}

export interface GroupView {
  groupId: string;
  state: string;
  protocolType: string;
  members: Array<{ memberId: string; groupInstanceId: string | null; clientId: string; clientHost: string }>;
  offsets: PartitionLag[];
}

/** The ids of every live group, or null while the coordinator is still loading __consumer_offsets. */
export function groupIds(broker: Broker): string[] | null {
  const listed = broker.groupCoordinator.listGroups([], []);
  if (listed.errorCode !== 0) return null;
  return listed.groups.map((g) => g.groupId).sort();
}

/** Every live group, or null while the coordinator is still loading __consumer_offsets. */
export function groupViews(broker: Broker): GroupView[] | null {
  const ids = groupIds(broker);
  if (ids === null) return null;
  return broker.groupCoordinator.describeGroups(ids).map((group) => ({
    groupId: group.groupId,
    state: group.groupState,
    protocolType: group.protocolType,
    members: group.members.map(({ memberId, groupInstanceId, clientId, clientHost }) => ({ memberId, groupInstanceId, clientId, clientHost })),
    offsets: groupLags(broker, group.groupId),
  }));
}

export function groupLags(broker: Broker, groupId: string): PartitionLag[] {
  const fetched = broker.groupCoordinator.fetchOffsets(groupId, null);
  return fetched.topics
    .flatMap((topic) =>
      topic.partitions
      .filter((p) => p.committedOffset >= 0)
      .map((p) => {
        const log = broker.getLog(topic.name, p.partitionIndex);
        const logEndOffset = log ? log.highWatermark : null;
        return {
          topic: topic.name,
          partition: p.partitionIndex,
          committedOffset: p.committedOffset,
          logEndOffset,
          lag: logEndOffset === null ? null : Math.max(0, logEndOffset - p.committedOffset),
        };
      }),
    )
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

interface TaskIdList {
  subtopologyId: string;
  partitions: number[];
}

interface StreamsMemberView {
  memberId: string;
  clientId: string;
  clientHost: string;
  processId: string;
  assignment: never[];
  tasks: { active: TaskIdList[]; standby: TaskIdList[]; warmup: TaskIdList[] };
}

/** A streams group's members with their process and tasks (KIP-1071), as kafka-streams-groups --describe --members shows them. */
export function streamsGroupMembers(broker: Broker, groupId: string): { assignor: string; members: StreamsMemberView[] } {
  const [group] = broker.groupCoordinator.streamsGroupDescribe([groupId]);
  return {
    assignor: group?.assignorName ?? '',
    members: (group?.members ?? []).map((m) => ({
      memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, processId: m.processId, assignment: [],
      tasks: { active: m.assignment.activeTasks, standby: m.assignment.standbyTasks, warmup: m.assignment.warmupTasks },
    })),
  };
}
