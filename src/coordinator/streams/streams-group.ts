// A streams group (Kafka's StreamsGroup): members, the topology and its configuration against the topics,
// the group epoch (bumped when members, the topology or its topics change), the target assignment with its
// epoch, and which member holds each task.
import type { ConfiguredTopology, StreamsTopology } from './streams-topology.js';
import { StreamsMemberState, type StreamsGroupMember } from './streams-group-member.js';
import type { TasksTuple } from './tasks-tuple.js';

export enum StreamsGroupState {
  Empty = 'Empty',
  /** The topology is missing or cannot be configured against the topics (missing or mis-partitioned). */
  NotReady = 'NotReady',
  Assigning = 'Assigning',
  Reconciling = 'Reconciling',
  Stable = 'Stable',
  Dead = 'Dead',
}

export const STREAMS_GROUP_TYPE = 'streams';

export class StreamsGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  /** When the target assignment was last computed (ms since the epoch; 0: never, or the group emptied since). */
  assignmentTimestamp = 0;
  /** Kafka's metadata hash over the topics the topology uses, stored in StreamsGroupMetadataValue. */
  metadataHash = 0n;
  /** The topology epoch last configured; -1 before any. */
  validatedTopologyEpoch = -1;
  topology: StreamsTopology | null = null;
  configuredTopology: ConfiguredTopology | null = null;
  readonly members = new Map<string, StreamsGroupMember>();
  readonly targetAssignment = new Map<string, TasksTuple>();
  /** Bumped whenever members' endpoints or assignments change (Interactive Queries' endpoint information). */
  endpointInformationEpoch = 0;
  /** Date.now() before which a new group's first assignment waits (group.streams.initial.rebalance.delay.ms). */
  initialDelayUntil = 0;
  shutdownRequested = false;

  constructor(readonly groupId: string) {}

  get state(): StreamsGroupState {
    if (this.members.size === 0) return StreamsGroupState.Empty;
    if (!this.configuredTopology?.ready) return StreamsGroupState.NotReady;
    if (this.groupEpoch > this.assignmentEpoch) return StreamsGroupState.Assigning;
    for (const m of this.members.values()) {
      if (m.state !== StreamsMemberState.Stable || m.memberEpoch !== this.assignmentEpoch) return StreamsGroupState.Reconciling;
    }
    return StreamsGroupState.Stable;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  /** The static member with this instance id (`group.instance.id`), if any. */
  staticMember(instanceId: string | null): StreamsGroupMember | undefined {
    if (instanceId === null) return undefined;
    for (const m of this.members.values()) if (m.instanceId === instanceId) return m;
    return undefined;
  }

  /** The member, other than `except`, that holds the active task (assigned or pending revocation). */
  activeOwner(subtopologyId: string, partition: number, except: string): StreamsGroupMember | undefined {
    for (const m of this.members.values()) {
      if (m.memberId === except) continue;
      if (m.assigned.active.get(subtopologyId)?.has(partition) || m.pendingRevocation.active.get(subtopologyId)?.has(partition)) return m;
    }
    return undefined;
  }

  /** Whether another member of the same process holds the task in any role (its state directory is shared). */
  heldInProcess(subtopologyId: string, partition: number, member: StreamsGroupMember): boolean {
    for (const m of this.members.values()) {
      if (m.memberId === member.memberId || m.processId !== member.processId) continue;
      for (const tuple of [m.assigned, m.pendingRevocation]) {
        for (const tasks of [tuple.active, tuple.standby, tuple.warmup]) if (tasks.get(subtopologyId)?.has(partition)) return true;
      }
    }
    return false;
  }

  /** Topics whose offsets the group's members use: they cannot be deleted while it has members. */
  subscribedTopics(): Set<string> {
    const topics = new Set<string>();
    for (const s of this.topology?.subtopologies ?? []) {
      for (const t of s.sourceTopics) topics.add(t);
      for (const t of s.repartitionSourceTopics) topics.add(t.name);
    }
    return topics;
  }

  /** Every (sub-topology, partition) task of the configured topology. */
  *allTasks(): Generator<[string, number]> {
    for (const s of this.configuredTopology?.subtopologies.values() ?? []) for (let p = 0; p < s.numberOfTasks; p++) yield [s.subtopologyId, p];
  }
}
