// KIP-1071 streams groups of a single broker (Kafka's GroupMetadataManager for streams groups):
// StreamsGroupHeartbeat with the topology's configuration against the topics, the internal topics to create,
// the sticky task assignor and task reconciliation; StreamsGroupDescribe; and the checks the shared offset
// and group administration APIs make on streams groups. Each change is written to __consumer_offsets as
// Kafka's StreamsGroup* records before it is acknowledged.
import type { Logger } from 'pino';
import type { StreamsGroupHeartbeatRequest } from '../../../protocol/generated/StreamsGroupHeartbeatRequest.js';
import type { StreamsGroupHeartbeatResponse } from '../../../protocol/generated/StreamsGroupHeartbeatResponse.js';
import type { DescribedGroup as DescribedStreamsGroup } from '../../../protocol/generated/StreamsGroupDescribeResponse.js';
import { ErrorCode as E } from '../../errors.js';
import { GroupState, type ClassicGroup } from '../classic/classic-group.js';
import type { TopicsImage } from '../consumer/consumer-group-coordinator.js';
import { metadataHash } from '../metadata-hash.js';
import type { OffsetMetadataManager } from '../offset-metadata-manager.js';
import { describedGroup, ModernGroupCoordinator, type RevokingMember } from '../modern-groups.js';
import type { CoordinatorRecord, OffsetsTopic } from '../offsets-topic.js';
import { groupMetadataKey } from '../records.js';
import { reconcile } from './current-assignment-builder.js';
import { StreamsGroup, STREAMS_GROUP_TYPE } from './streams-group.js';
import {
  LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, sameMetadata, StreamsGroupMember, StreamsMemberState,
  type StreamsMemberMetadata,
} from './streams-group-member.js';
import {
  currentAssignmentRecord, groupMetadataRecord, memberMetadataRecord, StreamsGroupRecordType as T, streamsTombstone,
  targetAssignmentEpochRecord, targetAssignmentRecord, topologyRecord,
} from './streams-group-records.js';
import { replayStreamsGroups } from './streams-group-replay.js';
import { configureTopology, StreamsStatus, type InternalTopicToCreate, type StreamsStatusEntry } from './streams-topology.js';
import { assignTasks, STICKY_ASSIGNOR } from './sticky-task-assignor.js';
import { eachTask, emptyTasks, listOf, taskOffsetsOf, tasksOf, tuplesEqual, type TasksTuple } from './tasks-tuple.js';

/** A group's settings: its group configs (streams.*), else the broker's group.streams.* (Kafka's GroupConfig). */
export interface StreamsGroupSettings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  numStandbyReplicas: number;
  initialRebalanceDelayMs: number;
  acceptableRecoveryLag: number;
  taskOffsetIntervalMs: number;
  maxSize: number;
}

export type StreamsGroupSettingsOf = (groupId: string) => StreamsGroupSettings;

/** A group-level error, or a check of each committed partition. */
export interface OffsetCommitCheck {
  errorCode: number;
  partition?: (topic: string, partition: number) => number;
}

/** Kafka 4.4's group.streams.* defaults. */
const DEFAULT_STREAMS_GROUP_SETTINGS: Readonly<StreamsGroupSettings> = Object.freeze({
  sessionTimeoutMs: 45000, heartbeatIntervalMs: 5000, numStandbyReplicas: 0, initialRebalanceDelayMs: 3000,
  acceptableRecoveryLag: 10000, taskOffsetIntervalMs: 60000, maxSize: 2147483647,
});

export type StreamsHeartbeatRequest = StreamsGroupHeartbeatRequest & { clientId: string; clientHost: string; apiVersion: number };
export type StreamsHeartbeatResult = Omit<StreamsGroupHeartbeatResponse, 'throttleTimeMs'> & { internalTopicsToCreate: InternalTopicToCreate[] };
export type DescribedStreamsGroupResult = Omit<DescribedStreamsGroup, 'authorizedOperations'>;

class StreamsGroupError extends Error {
  override name = 'StreamsGroupError';
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

/** A refused heartbeat: Kafka's response with the error and every other field at its default. */
export function streamsErrorResult(errorCode: number, errorMessage: string | null): StreamsHeartbeatResult {
  return {
    errorCode, errorMessage, memberId: '', memberEpoch: 0, heartbeatIntervalMs: 0, acceptableRecoveryLagLegacy: 0, taskOffsetIntervalMs: 0,
    acceptableRecoveryLag: -1, status: [], activeTasks: null, standbyTasks: null, warmupTasks: null, topologyDescriptionRequired: false,
    endpointInformationEpoch: 0, partitionsByUserEndpoint: null, internalTopicsToCreate: [],
  };
}

function notStreamsGroup(groupId: string): StreamsGroupError {
  return new StreamsGroupError(E.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a streams group.`);
}

export class StreamsGroupCoordinator extends ModernGroupCoordinator<StreamsGroup, StreamsGroupMember> {
  settingsOf: StreamsGroupSettingsOf = () => DEFAULT_STREAMS_GROUP_SETTINGS;

  constructor(
    offsetsTopic: OffsetsTopic,
    private readonly offsetManager: OffsetMetadataManager,
    /** The other protocols' groups: a group id belongs to one type at a time. */
    private readonly classicGroups: Map<string, ClassicGroup>,
    private readonly isConsumerGroup: (groupId: string) => boolean,
    log?: Logger,
  ) {
    super(STREAMS_GROUP_TYPE, replayStreamsGroups, offsetsTopic, log);
  }

  protected override sessionTimeoutMs(groupId: string): number {
    return this.settingsOf(groupId).sessionTimeoutMs;
  }

  /** A member that does not revoke its tasks within its rebalance timeout is fenced. */
  protected override revoking(member: StreamsGroupMember): member is StreamsGroupMember & RevokingMember {
    return member.state === StreamsMemberState.UnrevokedTasks;
  }

  override load(records: ReadonlyArray<CoordinatorRecord>): void {
    super.load(records);
    if (!this.log?.isLevelEnabled('debug')) return;
    for (const group of this.groups.values()) {
      for (const member of group.members.values()) {
        this.log.debug({
          group: group.groupId, member: member.memberId, ...memberSummary(member), rebalanceTimeoutMs: member.rebalanceTimeoutMs,
          groupEpoch: group.groupEpoch, assignmentEpoch: group.assignmentEpoch,
        }, 'streams group member loaded');
      }
    }
  }

  // ---- StreamsGroupHeartbeat ----

  heartbeat(req: StreamsHeartbeatRequest, topics: TopicsImage): Promise<StreamsHeartbeatResult> {
    return this.heartbeatFrame(req.groupId, (records) => {
      validateHeartbeat(req);
      return req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH
        ? this.leave(req, records)
        : this.memberHeartbeat(req, topics, records);
    }, (err) => {
      if (!(err instanceof StreamsGroupError)) return undefined;
      this.log?.debug({ group: req.groupId, member: req.memberId, requestEpoch: req.memberEpoch, errorCode: err.errorCode }, 'streams group heartbeat refused');
      return streamsErrorResult(err.errorCode, err.message);
    },
    streamsErrorResult(E.COORDINATOR_NOT_AVAILABLE, null));
  }

  private memberHeartbeat(req: StreamsHeartbeatRequest, topics: TopicsImage, records: CoordinatorRecord[]): StreamsHeartbeatResult {
    const settings = this.settingsOf(req.groupId);
    const joining = req.memberEpoch === 0;
    const group = this.getOrMaybeCreateGroup(req.groupId, joining, records, settings);
    const member = req.instanceId === null ? dynamicMember(group, req) : this.staticMember(group, req, req.instanceId, records);
    const isNew = !group.members.has(member.memberId);
    if (isNew && group.members.size >= settings.maxSize) {
      throw new StreamsGroupError(E.GROUP_MAX_SIZE_REACHED, `The streams group has reached its maximum capacity of ${settings.maxSize} members.`);
    }
    let bumpGroupEpoch = isNew;

    // 1. The topology: set by the first member, replaced by a newer one when the group is otherwise empty.
    const statuses: StreamsStatusEntry[] = [];
    if (req.topology !== null && (group.topology === null || (req.topology.epoch > group.topology.epoch && [...group.members.keys()].every((id) => id === member.memberId)))) {
      group.topology = req.topology;
      group.configuredTopology = null;
      records.push(topologyRecord(group.groupId, req.topology));
      bumpGroupEpoch = true;
    }

    // 2. The member's metadata.
    const metadata: StreamsMemberMetadata = {
      instanceId: req.instanceId ?? member.instanceId,
      rackId: req.rackId ?? member.rackId,
      clientId: req.clientId,
      clientHost: req.clientHost,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs === -1 ? member.rebalanceTimeoutMs : req.rebalanceTimeoutMs,
      topologyEpoch: req.topology?.epoch ?? member.topologyEpoch,
      processId: req.processId ?? member.processId,
      userEndpoint: req.userEndpoint ?? member.userEndpoint,
      clientTags: req.clientTags ?? member.clientTags,
    };
    if (isNew || !sameMetadata(metadata, member.metadata())) {
      if (JSON.stringify(metadata.userEndpoint) !== JSON.stringify(member.userEndpoint)) group.endpointInformationEpoch++;
      // Kafka's hasEpochRelevantMemberConfigChanged: only these move the group epoch (a static member rejoining with
      // a new client host or rebalance timeout gets its tasks back without a rebalance).
      if (isNew || epochRelevantChange(member, metadata)) bumpGroupEpoch = true;
      Object.assign(member, metadata);
      records.push(memberMetadataRecord(group.groupId, member.memberId, metadata));
    }
    if (isNew) group.members.set(member.memberId, member);
    if (req.taskOffsets !== null) member.taskOffsets = taskOffsetsOf(req.taskOffsets);
    if (group.topology !== null && member.topologyEpoch !== group.topology.epoch) {
      statuses.push({
        statusCode: StreamsStatus.STALE_TOPOLOGY,
        statusDetail: `The member's topology epoch ${member.topologyEpoch} is behind the group's topology epoch ${group.topology.epoch}.`,
      });
    }
    if (req.shutdownApplication) group.shutdownRequested = true;

    // 3. The topology against the topics: a change of either bumps the group epoch.
    let toCreate: InternalTopicToCreate[] = [];
    if (group.topology !== null) {
      const configured = configureTopology(group.topology, topics);
      const hash = metadataHash(configured.topics);
      if (hash !== group.metadataHash || group.validatedTopologyEpoch !== group.topology.epoch) bumpGroupEpoch = true;
      group.metadataHash = hash;
      group.validatedTopologyEpoch = group.topology.epoch;
      group.configuredTopology = configured;
      if (configured.status) statuses.push(configured.status);
      toCreate = configured.internalTopicsToCreate;
    }
    if (bumpGroupEpoch) this.bumpGroupEpoch(group, records);

    // 4. A new target assignment. A new group's first one holds no tasks and the group epoch moves on at once; the
    // assignment with tasks waits for the end of the initial delay (group.streams.initial.rebalance.delay.ms), as
    // Kafka 4.4 answers it (a NotReady group described at group epoch 2, assignment epoch 1).
    const delayed = Date.now() < group.initialDelayUntil;
    if (delayed) statuses.unshift({ statusCode: StreamsStatus.ASSIGNMENT_DELAYED, statusDetail: 'Assignment delayed due to the configured initial rebalance delay.' });
    if (group.groupEpoch > group.assignmentEpoch && !(delayed && group.assignmentEpoch > 0)) {
      this.updateTargetAssignment(group, settings.numStandbyReplicas, delayed, records);
      if (delayed) this.bumpGroupEpoch(group, records);
    }

    // 5. The member moves towards its target.
    const owned = req.activeTasks === null && req.standbyTasks === null && req.warmupTasks === null ? null : {
      active: req.activeTasks === null ? member.assigned.active : tasksOf(req.activeTasks),
      standby: req.standbyTasks === null ? member.assigned.standby : tasksOf(req.standbyTasks),
      warmup: req.warmupTasks === null ? member.assigned.warmup : tasksOf(req.warmupTasks),
    };
    const before = { epoch: member.memberEpoch, assigned: member.assigned };
    const next = reconcile(group, member, group.assignmentEpoch, group.targetAssignment.get(member.memberId) ?? emptyTasks(), owned);
    if (next) {
      Object.assign(member, next);
      records.push(currentAssignmentRecord(group.groupId, member.memberId, next));
      if (member.userEndpoint !== null) group.endpointInformationEpoch++;
      if (member.state === StreamsMemberState.UnrevokedTasks) this.scheduleRebalanceTimeout(group, member);
      if (this.log?.isLevelEnabled('debug')) {
        this.log.debug({
          group: group.groupId, member: member.memberId, requestEpoch: req.memberEpoch, ...memberSummary(member),
          groupEpoch: group.groupEpoch, assignmentEpoch: group.assignmentEpoch,
        }, 'streams group member reconciled');
      }
    }
    this.scheduleSessionTimeout(group, member);
    if (group.shutdownRequested) statuses.push({ statusCode: StreamsStatus.SHUTDOWN_APPLICATION, statusDetail: 'A KafkaStreams instance encountered a fatal error and requested a shutdown for the entire application.' });

    // A member reporting other tasks than it was given (outside a revocation, where it still reports those it gives
    // up) missed the answer that gave them, e.g. the broker died between writing the assignment and answering: it gets
    // them again. Kafka 4.4's streamsGroupHeartbeat sends tasks only on a join or a change, which leaves such a member
    // idle while the group counts its tasks as held; its consumerGroupHeartbeat answers a full request with the
    // assignment for this reason (isFullRequest).
    const missedAssignment = owned !== null && member.state !== StreamsMemberState.UnrevokedTasks && !tuplesEqual(owned, member.assigned);
    const changed = joining || missedAssignment || before.epoch !== member.memberEpoch || !tuplesEqual(before.assigned, member.assigned);
    const endpointsChanged = req.endpointInformationEpoch !== group.endpointInformationEpoch;
    return {
      errorCode: E.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
      acceptableRecoveryLagLegacy: settings.acceptableRecoveryLag,
      taskOffsetIntervalMs: settings.taskOffsetIntervalMs,
      acceptableRecoveryLag: settings.acceptableRecoveryLag,
      status: statuses,
      activeTasks: changed ? listOf(member.assigned.active) : null,
      standbyTasks: changed ? listOf(member.assigned.standby) : null,
      warmupTasks: changed ? listOf(member.assigned.warmup) : null,
      topologyDescriptionRequired: false,
      endpointInformationEpoch: group.endpointInformationEpoch,
      partitionsByUserEndpoint: endpointsChanged ? this.partitionsByUserEndpoint(group) : null,
      internalTopicsToCreate: toCreate,
    };
  }

  /**
   * Kafka's getOrMaybeCreateStaticStreamsGroupMember: a static member joins once its instance id is free or released
   * (left with epoch -2), replacing the released member; otherwise its member id must be the instance id's.
   */
  private staticMember(group: StreamsGroup, req: StreamsHeartbeatRequest, instanceId: string, records: CoordinatorRecord[]): StreamsGroupMember {
    const existing = group.staticMember(instanceId);
    if (req.memberEpoch === 0) {
      if (!existing) return new StreamsGroupMember(req.memberId);
      if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        throw new StreamsGroupError(
          E.UNRELEASED_INSTANCE_ID,
          `Static member ${req.memberId} with instance id ${instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`,
        );
      }
      return this.replaceStaticMember(group, existing, req.memberId, records);
    }
    throwIfStaticMemberIsUnknownOrFenced(existing, req, instanceId);
    throwIfMemberEpochIsInvalid(existing, req);
    return existing;
  }

  /**
   * Kafka's replaceStreamsMember: the new incarnation takes over the released member's tasks and target at epoch 0,
   * then reconciles to the assignment epoch without a new assignment (the group epoch stays).
   */
  private replaceStaticMember(group: StreamsGroup, old: StreamsGroupMember, memberId: string, records: CoordinatorRecord[]): StreamsGroupMember {
    old.clearTimers();
    records.push(...this.memberTombstones(group.groupId, old.memberId));
    const target = group.targetAssignment.get(old.memberId) ?? emptyTasks();
    group.members.delete(old.memberId);
    group.targetAssignment.delete(old.memberId);
    const member = new StreamsGroupMember(memberId);
    Object.assign(member, old.metadata(), {
      memberEpoch: 0, previousMemberEpoch: 0, state: old.state, assigned: old.assigned, pendingRevocation: old.pendingRevocation,
      activeTaskEpochs: old.activeTaskEpochs,
    });
    group.members.set(memberId, member);
    group.targetAssignment.set(memberId, target);
    records.push(
      memberMetadataRecord(group.groupId, memberId, member.metadata()), targetAssignmentRecord(group.groupId, memberId, target),
      currentAssignmentRecord(group.groupId, memberId, member),
    );
    this.log?.info({ group: group.groupId, member: memberId, replaced: old.memberId, instance: old.instanceId }, 'static member rejoined the streams group');
    return member;
  }

  /** Kafka's EndpointToPartitionsManager: each member with an endpoint, with the input partitions of its tasks. */
  private partitionsByUserEndpoint(group: StreamsGroup): StreamsHeartbeatResult['partitionsByUserEndpoint'] {
    const configured = group.configuredTopology;
    const partitionsOf = (tasks: TasksTuple['active']) => {
      const byTopic = new Map<string, number[]>();
      for (const [s, p] of eachTask(tasks)) {
        const sub = configured?.subtopologies.get(s);
        if (!sub) continue;
        for (const topic of [...sub.sourceTopics, ...sub.repartitionSourceTopics.keys()]) byTopic.set(topic, [...(byTopic.get(topic) ?? []), p]);
      }
      return [...byTopic].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) }));
    };
    return [...group.members.values()].filter((m) => m.userEndpoint !== null).map((m) => ({
      userEndpoint: m.userEndpoint!,
      activePartitions: partitionsOf(m.assigned.active),
      standbyPartitions: partitionsOf(new Map([...m.assigned.standby, ...m.assigned.warmup])),
    }));
  }

  private getOrMaybeCreateGroup(groupId: string, create: boolean, records: CoordinatorRecord[], settings: StreamsGroupSettings): StreamsGroup {
    const group = this.groups.get(groupId);
    if (group) return group;
    if (this.isConsumerGroup(groupId)) throw notStreamsGroup(groupId);
    const classic = this.classicGroups.get(groupId);
    if (classic && !(create && classic.is(GroupState.Empty))) throw notStreamsGroup(groupId);
    if (!create) throw new StreamsGroupError(E.GROUP_ID_NOT_FOUND, `Streams group ${groupId} not found.`);
    if (classic) {
      // An empty classic group (committed offsets only) becomes a streams group; its offsets stay.
      this.classicGroups.delete(groupId);
      records.push({ key: groupMetadataKey(groupId), value: null });
    }
    const created = new StreamsGroup(groupId);
    this.groups.set(groupId, created);
    created.initialDelayUntil = Date.now() + settings.initialRebalanceDelayMs;
    return created;
  }

  protected override bumpGroupEpoch(group: StreamsGroup, records: CoordinatorRecord[]): void {
    group.groupEpoch++;
    records.push(groupMetadataRecord(group.groupId, {
      epoch: group.groupEpoch, metadataHash: group.metadataHash, validatedTopologyEpoch: group.validatedTopologyEpoch,
    }));
  }

  /** Kafka's streams TargetAssignmentBuilder with the sticky assignor; no tasks while the topology is not ready. */
  private updateTargetAssignment(group: StreamsGroup, numStandbyReplicas: number, delayed: boolean, records: CoordinatorRecord[]): void {
    const subtopologies = new Map<string, number>();
    const statefulSubtopologies = new Set<string>();
    if (group.configuredTopology?.ready && !delayed) {
      for (const s of group.configuredTopology.subtopologies.values()) {
        subtopologies.set(s.subtopologyId, s.numberOfTasks);
        if (s.stateChangelogTopics.size > 0) statefulSubtopologies.add(s.subtopologyId);
      }
    }
    const target = assignTasks({
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId, processId: m.processId,
        active: new Map([...m.assigned.active, ...m.pendingRevocation.active]),
        standby: new Map([...m.assigned.standby, ...m.assigned.warmup]),
        taskOffsets: m.taskOffsets,
      })),
      subtopologies,
      statefulSubtopologies,
      numStandbyReplicas,
    });
    this.recordTargetAssignment(group, target, tuplesEqual, targetAssignmentRecord, records);
    this.log?.info({ group: group.groupId, assignmentEpoch: group.assignmentEpoch, assignor: STICKY_ASSIGNOR }, 'computed new streams target assignment');
    if (this.log?.isLevelEnabled('debug')) {
      const active = Object.fromEntries([...group.targetAssignment].map(([id, t]) => [id, listOf(t.active)]));
      this.log.debug({ group: group.groupId, assignmentEpoch: group.assignmentEpoch, active }, 'streams target assignment');
    }
  }

  protected override assignmentEpochRecord(group: StreamsGroup): CoordinatorRecord {
    return targetAssignmentEpochRecord(group.groupId, group.assignmentEpoch);
  }

  // ---- leaving and expiry ----

  private leave(req: StreamsHeartbeatRequest, records: CoordinatorRecord[]): StreamsHeartbeatResult {
    const group = this.groups.get(req.groupId);
    if (!group) throw this.isConsumerGroup(req.groupId) || this.classicGroups.has(req.groupId) ? notStreamsGroup(req.groupId) : new StreamsGroupError(E.GROUP_ID_NOT_FOUND, `Streams group ${req.groupId} not found.`);
    const member = req.instanceId === null ? group.members.get(req.memberId) : group.staticMember(req.instanceId);
    if (req.instanceId === null) {
      if (!member) throw unknownMember(group, req.memberId);
    } else {
      throwIfStaticMemberIsUnknownOrFenced(member, req, req.instanceId);
    }
    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      this.staticMemberLeave(group, member, records);
    } else {
      this.log?.info({ group: group.groupId, member: member.memberId, instance: req.instanceId }, 'member left the streams group');
      this.removeMemberAndBumpEpoch(group, member, records);
    }
    return { ...streamsErrorResult(E.NONE, null), memberId: req.memberId, memberEpoch: req.memberEpoch };
  }

  /**
   * Kafka's streamsGroupStaticMemberGroupLeave: a static member away for a restart keeps its tasks (nothing pending
   * revocation, the active tasks' epochs reset to 0) at epoch -2 until it rejoins or its session times out.
   */
  private staticMemberLeave(group: StreamsGroup, member: StreamsGroupMember, records: CoordinatorRecord[]): void {
    this.log?.info({ group: group.groupId, member: member.memberId, instance: member.instanceId }, 'static member temporarily left the streams group');
    clearTimeout(member.rebalanceTimer);
    member.memberEpoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH;
    member.pendingRevocation = emptyTasks();
    member.activeTaskEpochs = new Map([...member.assigned.active].map(([s, partitions]) => [s, new Map([...partitions].map((p) => [p, 0]))]));
    records.push(currentAssignmentRecord(group.groupId, member.memberId, member));
  }

  protected override memberTombstones(groupId: string, memberId: string): CoordinatorRecord[] {
    return [T.CurrentMemberAssignment, T.TargetAssignmentMember, T.MemberMetadata].map((type) => streamsTombstone(type, groupId, memberId));
  }

  /** The member goes; its endpoint with it, and a shutdown request with the last member. */
  protected override removeMember(group: StreamsGroup, member: StreamsGroupMember): void {
    group.members.delete(member.memberId);
    group.targetAssignment.delete(member.memberId);
    if (member.userEndpoint !== null) group.endpointInformationEpoch++;
    if (group.isEmpty()) group.shutdownRequested = false;
  }

  // ---- StreamsGroupDescribe ----

  describe(groupId: string): DescribedStreamsGroupResult {
    const group = this.groups.get(groupId);
    if (!group) {
      const other = this.isConsumerGroup(groupId) || this.classicGroups.has(groupId);
      return {
        errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: other ? `Group ${groupId} is not a streams group.` : `Group ${groupId} not found.`,
        groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, topology: null, members: [], topologyDescription: null,
        topologyDescriptionStatus: 0, assignorName: null,
      };
    }
    const configured = group.configuredTopology;
    const describeTasks = (t: TasksTuple) => ({ activeTasks: listOf(t.active), standbyTasks: listOf(t.standby), warmupTasks: listOf(t.warmup) });
    return {
      ...describedGroup(group),
      topology: group.topology === null ? null : {
        epoch: group.topology.epoch,
        // As the member sent it until the topology is configured, then with the partition counts (as Kafka 4.4 describes it).
        subtopologies: group.topology.subtopologies.map((s) => {
          const c = configured?.ready ? configured.subtopologies.get(s.subtopologyId) : undefined;
          return {
            subtopologyId: s.subtopologyId,
            sourceTopics: s.sourceTopics,
            repartitionSinkTopics: s.repartitionSinkTopics,
            stateChangelogTopics: s.stateChangelogTopics.map((t) => ({ ...t, partitions: c?.numberOfTasks ?? t.partitions })),
            repartitionSourceTopics: s.repartitionSourceTopics.map((t) => ({ ...t, partitions: c?.repartitionSourceTopics.get(t.name) ?? t.partitions })),
          };
        }),
      },
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        memberEpoch: m.memberEpoch,
        instanceId: m.instanceId,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        topologyEpoch: m.topologyEpoch,
        processId: m.processId,
        userEndpoint: m.userEndpoint,
        clientTags: m.clientTags,
        taskOffsets: [],
        taskEndOffsets: [],
        assignment: describeTasks(m.assigned),
        targetAssignment: describeTasks(group.targetAssignment.get(m.memberId) ?? emptyTasks()),
        isClassic: false,
      })),
      topologyDescription: null,
      topologyDescriptionStatus: 0,
      assignorName: STICKY_ASSIGNOR,
    };
  }

  // ---- the shared group APIs on streams groups ----

  /**
   * OffsetCommit and TxnOffsetCommit by a member (StreamsGroup.validateOffsetCommit): it must exist; at its current
   * epoch it commits anything; at an older one only the partitions of active tasks it has held since that epoch or
   * before (KAFKA-19779's per-task assignment epochs), the others getting STALE_MEMBER_EPOCH.
   */
  validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number): OffsetCommitCheck {
    const group = this.groups.get(groupId)!;
    if (memberEpoch < 0 && memberId === '' && group.isEmpty()) return { errorCode: E.NONE };
    const member = group.members.get(memberId);
    if (!member) return { errorCode: E.UNKNOWN_MEMBER_ID };
    if (memberEpoch === member.memberEpoch) return { errorCode: E.NONE };
    if (memberEpoch > member.memberEpoch) return { errorCode: E.STALE_MEMBER_EPOCH };
    const subtopologiesOf = (topic: string) => (group.topology?.subtopologies ?? [])
      .filter((s) => s.sourceTopics.includes(topic) || s.repartitionSourceTopics.some((t) => t.name === topic)).map((s) => s.subtopologyId);
    return {
      errorCode: E.NONE,
      partition: (topic, partition) => {
        const held = subtopologiesOf(topic).some((s) => {
          const since = member.activeTaskEpochs.get(s)?.get(partition);
          return since !== undefined && since <= memberEpoch;
        });
        return held ? E.NONE : E.STALE_MEMBER_EPOCH;
      },
    };
  }

  subscribedTopics(groupId: string): Set<string> {
    const group = this.groups.get(groupId);
    return group && !group.isEmpty() ? group.subscribedTopics() : new Set();
  }

  /** DeleteGroups: an empty streams group goes with its offsets and records. */
  deleteGroup(groupId: string): Promise<number> {
    return this.deleteEmptyGroup(groupId, (group) => [
      ...[...group.targetAssignment.keys()].map((memberId) => streamsTombstone(T.TargetAssignmentMember, groupId, memberId)),
      streamsTombstone(T.TargetAssignmentMetadata, groupId),
      streamsTombstone(T.Topology, groupId),
      streamsTombstone(T.Metadata, groupId),
    ], this.offsetManager);
  }
}

/** Kafka's GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures and throwIfStreamsGroupHeartbeatRequestIsInvalid. */
function validateHeartbeat(req: StreamsHeartbeatRequest): void {
  const invalid = (message: string) => new StreamsGroupError(E.INVALID_REQUEST, message);
  // Kafka 4.4 refuses regex source topics before any other check (GroupCoordinatorService.
  // throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures); its Kafka Streams never sends them (StreamThread:
  // "Pattern subscription is not yet supported with the Streams rebalance protocol").
  if (req.topology?.subtopologies.some((s) => s.sourceTopicRegex.length > 0)) throw invalid('Regular expressions for source topics are not supported yet.');
  if (req.memberId === '') throw invalid('MemberId can\'t be empty.');
  if (req.groupId === '') throw invalid('GroupId can\'t be empty.');
  if (req.instanceId === '') throw invalid('InstanceId can\'t be empty.');
  if (req.rackId === '') throw invalid('RackId can\'t be empty.');
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
    if (req.topology === null) throw invalid('Topology must be non-null when (re-)joining.');
    if (req.activeTasks === null || req.activeTasks.length > 0 || req.standbyTasks === null || req.standbyTasks.length > 0 ||
        req.warmupTasks === null || req.warmupTasks.length > 0) {
      throw invalid('ActiveTasks, StandbyTasks and WarmupTasks must be empty when (re-)joining.');
    }
    if (req.processId === null || req.processId === '') throw invalid('ProcessId can\'t be null or empty.');
  } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw invalid('MemberEpoch is invalid.');
  }
  if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH && req.instanceId === null) throw invalid('InstanceId can\'t be null.');
}

/** Where a member is in its reconciliation, for the logs. */
function memberSummary(member: StreamsGroupMember): Record<string, unknown> {
  return {
    memberEpoch: member.memberEpoch, previousMemberEpoch: member.previousMemberEpoch, state: StreamsMemberState[member.state],
    active: listOf(member.assigned.active), pendingRevocation: listOf(member.pendingRevocation.active),
  };
}

function unknownMember(group: StreamsGroup, memberId: string): StreamsGroupError {
  return new StreamsGroupError(E.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
}

/** Kafka's getOrMaybeCreateDynamicStreamsGroupMember: a member without an instance id. */
function dynamicMember(group: StreamsGroup, req: StreamsHeartbeatRequest): StreamsGroupMember {
  const member = group.members.get(req.memberId);
  if (req.memberEpoch === 0) return member ?? new StreamsGroupMember(req.memberId);
  if (!member) throw unknownMember(group, req.memberId);
  throwIfMemberEpochIsInvalid(member, req);
  return member;
}

/** Kafka's throwIfStaticMemberIsUnknown and throwIfInstanceIdIsFenced. */
function throwIfStaticMemberIsUnknownOrFenced(
  existing: StreamsGroupMember | undefined, req: StreamsHeartbeatRequest, instanceId: string,
): asserts existing is StreamsGroupMember {
  if (!existing) throw new StreamsGroupError(E.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
  if (existing.memberId !== req.memberId) {
    throw new StreamsGroupError(
      E.FENCED_INSTANCE_ID,
      `Static member ${req.memberId} with instance id ${instanceId} was fenced by member ${existing.memberId}.`,
    );
  }
}

/** Kafka's hasEpochRelevantMemberConfigChanged. */
function epochRelevantChange(member: StreamsGroupMember, next: StreamsMemberMetadata): boolean {
  return member.topologyEpoch !== next.topologyEpoch || member.rackId !== next.rackId || member.processId !== next.processId ||
    JSON.stringify(member.clientTags) !== JSON.stringify(next.clientTags);
}

/** Kafka's throwIfMemberEpochIsInvalid: a lower epoch is accepted only as a retry of the previous one holding nothing new. */
function throwIfMemberEpochIsInvalid(member: StreamsGroupMember, req: StreamsHeartbeatRequest): void {
  const fenced = (relation: string) => new StreamsGroupError(
    E.FENCED_MEMBER_EPOCH,
    `The streams group member has a ${relation} member epoch (${req.memberEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its tasks and rejoin.`,
  );
  if (req.memberEpoch > member.memberEpoch) throw fenced('greater');
  if (req.memberEpoch < member.memberEpoch) {
    if (req.memberEpoch !== member.previousMemberEpoch || req.activeTasks === null) throw fenced('smaller');
    const ownsOnlyAssigned = req.activeTasks.every((t) => t.partitions.every((p) => member.assigned.active.get(t.subtopologyId)?.has(p) === true));
    if (!ownsOnlyAssigned) throw fenced('smaller');
  }
}
