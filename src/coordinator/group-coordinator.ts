// The classic group protocol coordinator of a single broker (Kafka's GroupCoordinator): membership,
// rebalances, committed offsets, and their persistence in __consumer_offsets.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { subscribedTopicsOf } from './consumer-protocol.js';
import type { GroupCoordinatorConfig } from './coordinator-config.js';
import { readOffsetsTopic, replayOffsetsTopic } from './coordinator-log.js';
import {
  ConsumerGroupCoordinator, type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResult, type DescribedConsumerGroup,
  type ConsumerGroupTimeoutsOf,
  type TopicsImage,
} from './consumer/consumer-group-coordinator.js';
import { CONSUMER_GROUP_TYPE } from './consumer/consumer-group.js';
import {
  ShareGroupCoordinator, type DescribedShareGroup, type ShareGroupHeartbeatRequest, type ShareGroupHeartbeatResult,
} from './share/share-group-coordinator.js';
import { SHARE_GROUP_TYPE } from './share/share-group.js';
import {
  StreamsGroupCoordinator, streamsErrorResult, type DescribedStreamsGroupResult, type StreamsGroupSettingsOf, type StreamsHeartbeatRequest,
  type StreamsHeartbeatResult,
} from './streams/streams-group-coordinator.js';
import { STREAMS_GROUP_TYPE } from './streams/streams-group.js';
import { ErrorCode as E } from '../errors.js';
import { ClassicGroup, GroupState } from './classic/classic-group.js';
import { ClassicGroupMember } from './classic/classic-group-member.js';
import { OffsetMetadataManager } from './offset-metadata-manager.js';
import type { TopicPartition } from './offset-store.js';
import { partitionFor, type OffsetsTopic } from './offsets-topic.js';
import { groupMetadataKey, groupMetadataValue, type GroupMetadata } from './records.js';
import type {
  DescribedGroup, HeartbeatRequest, JoinGroupRequest, JoinGroupResult, JoinGroupResultMember, LeaveGroupResult,
  LeavingMember, ListedGroup, OffsetCommitRequest, OffsetDeleteResult, OffsetFetchResult, SyncGroupRequest,
  SyncGroupResult, TopicPartitionErrors, TxnOffsetCommitRequest,
} from './types.js';

const CLASSIC_GROUP_TYPE = 'classic';
const EMPTY = Buffer.alloc(0);

function joinError(memberId: string, errorCode: number): JoinGroupResult {
  return {
    errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false,
    memberId, members: [],
  };
}

/** JoinGroup's answer to a member of the group's current generation; the leader gets the members' metadata. */
function generationJoined(group: ClassicGroup, memberId: string, members: JoinGroupResultMember[]): JoinGroupResult {
  return {
    errorCode: E.NONE, generationId: group.generationId, protocolType: group.protocolType, protocolName: group.protocolName,
    leader: group.leaderId ?? '', skipAssignment: false, memberId, members,
  };
}

function syncError(errorCode: number): SyncGroupResult {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY };
}

export class GroupCoordinator {
  private readonly groups = new Map<string, ClassicGroup>();
  private readonly offsetManager: OffsetMetadataManager;
  /** KIP-848 consumer groups; a group id is either one of them or a classic group. */
  private readonly consumerGroups: ConsumerGroupCoordinator;
  /** KIP-1071 streams groups. */
  private readonly streamsGroups: StreamsGroupCoordinator;
  /** KIP-932 share groups; their ids are neither classic nor consumer groups. */
  readonly shareGroups: ShareGroupCoordinator;
  /** Where share groups read each group's session timeout, heartbeat and assignment intervals (group configs). */
  shareGroupTimeoutsOf: ConsumerGroupTimeoutsOf = () => ({
    sessionTimeoutMs: this.config.shareGroupSessionTimeoutMs, heartbeatIntervalMs: this.config.shareGroupHeartbeatIntervalMs,
  });
  private loading = true;
  private active = true;
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: GroupCoordinatorConfig,
    private readonly offsetsTopic: OffsetsTopic,
    private readonly log?: Logger,
  ) {
    this.offsetManager = new OffsetMetadataManager(config, offsetsTopic, log);
    this.consumerGroups = new ConsumerGroupCoordinator(config, offsetsTopic, this.offsetManager, this.groups, log);
    this.shareGroups = new ShareGroupCoordinator(
      { maxSize: config.shareGroupMaxSize, initializeRetryIntervalMs: config.shareGroupInitializeRetryIntervalMs, timeoutsOf: (groupId) => this.shareGroupTimeoutsOf(groupId) },
      offsetsTopic,
      (groupId) => this.groups.has(groupId) || this.consumerGroups.has(groupId) || this.streamsGroups.has(groupId),
      log,
    );
    this.streamsGroups = new StreamsGroupCoordinator(offsetsTopic, this.offsetManager, this.groups, (id) => this.consumerGroups.has(id) || this.shareGroups.has(id), log);
  }

  /** The __consumer_offsets partition that holds a group's records. */
  partitionFor(groupId: string): number {
    return partitionFor(groupId, this.offsetsTopic.numPartitions);
  }

  // ---- lifecycle ----

  /** Loads groups and offsets from __consumer_offsets; until then requests get COORDINATOR_LOAD_IN_PROGRESS. */
  async startup(): Promise<void> {
    const records = await readOffsetsTopic(this.offsetsTopic);
    const { offsets, groups, pendingTransactionalOffsets } = replayOffsetsTopic(records);
    for (const o of offsets) this.offsetManager.load(o.group, o.topic, o.partition, o.value);
    for (const o of pendingTransactionalOffsets) this.offsetManager.loadPending(o.producerId, o.group, o.topic, o.partition, o.value);
    for (const [groupId, metadata] of groups) this.loadGroup(groupId, metadata);
    this.consumerGroups.load(records);
    this.streamsGroups.load(records);
    this.shareGroups.load(records);
    // Offsets without group metadata belong to standalone consumers.
    for (const o of offsets) {
      if (!this.groups.has(o.group) && !this.consumerGroups.has(o.group) && !this.streamsGroups.has(o.group)) this.groups.set(o.group, new ClassicGroup(o.group, Date.now()));
    }
    this.loading = false;
    this.expiryTimer = setInterval(() => void this.cleanupExpiredOffsets(Date.now()), this.config.offsetsRetentionCheckIntervalMs);
    this.expiryTimer.unref();
  }

  private loadGroup(groupId: string, metadata: GroupMetadata): void {
    const now = Date.now();
    const group = new ClassicGroup(groupId, metadata.currentStateTimestamp >= 0 ? metadata.currentStateTimestamp : now);
    group.generationId = metadata.generationId;
    group.protocolType = metadata.protocolType === '' ? null : metadata.protocolType;
    group.protocolName = metadata.protocolName;
    for (const m of metadata.members) {
      const protocols = metadata.protocolName === null ? [] : [{ name: metadata.protocolName, metadata: m.subscription }];
      const member = new ClassicGroupMember(
        m.memberId, m.groupInstanceId, m.clientId, m.clientHost, m.rebalanceTimeoutMs, m.sessionTimeoutMs,
        metadata.protocolType, protocols,
      );
      member.assignment = m.assignment;
      group.add(member);
      this.scheduleHeartbeat(group, member);
    }
    group.leaderId = metadata.leaderId;
    // A loaded group with members resumes Stable; the members' session timeouts decide if they are still there.
    group.state = group.isEmpty() ? GroupState.Empty : GroupState.Stable;
    this.groups.set(groupId, group);
  }

  /** Stops all timers and answers every waiting JoinGroup/SyncGroup with NOT_COORDINATOR. */
  shutdown(): void {
    this.active = false;
    clearInterval(this.expiryTimer);
    for (const group of this.groups.values()) {
      clearTimeout(group.joinTimer);
      clearTimeout(group.syncTimer);
      for (const timer of group.pendingMembers.values()) clearTimeout(timer);
      for (const member of group.members.values()) {
        clearTimeout(member.heartbeatTimer);
        this.completeJoin(member, joinError(member.memberId, E.NOT_COORDINATOR));
        this.completeSync(member, syncError(E.NOT_COORDINATOR));
      }
    }
    this.groups.clear();
    this.consumerGroups.shutdown();
    this.streamsGroups.shutdown();
    this.shareGroups.shutdown();
  }

  /** OffsetCommit, OffsetFetch, DescribeGroups and DeleteGroups accept the empty group id (`requireNonEmptyId` false). */
  private validateGroupStatus(groupId: string, requireNonEmptyId = true): number {
    if (requireNonEmptyId && groupId === '') return E.INVALID_GROUP_ID;
    if (!this.active) return E.COORDINATOR_NOT_AVAILABLE;
    if (this.loading) return E.COORDINATOR_LOAD_IN_PROGRESS;
    return E.NONE;
  }

  // ---- JoinGroup ----

  async joinGroup(req: JoinGroupRequest): Promise<JoinGroupResult> {
    const status = this.validateGroupStatus(req.groupId);
    if (status !== E.NONE) return joinError(req.memberId, status);
    if (req.sessionTimeoutMs < this.config.groupMinSessionTimeoutMs || req.sessionTimeoutMs > this.config.groupMaxSessionTimeoutMs) {
      return joinError(req.memberId, E.INVALID_SESSION_TIMEOUT);
    }
    // Classic members cannot join a consumer group (Kafka's online migration is not implemented).
    if (this.consumerGroups.has(req.groupId)) return joinError(req.memberId, E.INCONSISTENT_GROUP_PROTOCOL);
    // A share or streams group's id too, as Kafka 4.4 answers it (seen on the reference broker).
    if (this.shareGroups.has(req.groupId) || this.streamsGroups.has(req.groupId)) return joinError(req.memberId, E.INCONSISTENT_GROUP_PROTOCOL);
    const isUnknownMember = req.memberId === '';
    let group = this.groups.get(req.groupId);
    if (!group) {
      if (!isUnknownMember) return joinError(req.memberId, E.UNKNOWN_MEMBER_ID);
      group = new ClassicGroup(req.groupId, Date.now());
      this.groups.set(req.groupId, group);
    }
    if (!this.acceptJoiningMember(group, req.memberId)) {
      // A member over the limit is removed, which lets the rest of the group complete its rebalance.
      const member = group.members.get(req.memberId);
      if (member) this.removeMember(group, member, E.GROUP_MAX_SIZE_REACHED);
      if (group.is(GroupState.PreparingRebalance)) this.maybeCompleteJoinPhase(group);
      return joinError('', E.GROUP_MAX_SIZE_REACHED);
    }

    const result = isUnknownMember ? this.joinUnknownMember(group, req) : this.joinKnownMember(group, req);
    if (group.is(GroupState.PreparingRebalance)) this.maybeCompleteJoinPhase(group);
    return result;
  }

  /** Kafka's acceptJoiningMember: new members are accepted up to group.max.size. */
  private acceptJoiningMember(group: ClassicGroup, memberId: string): boolean {
    switch (group.state) {
      case GroupState.Empty:
      case GroupState.Dead:
        return true;
      case GroupState.PreparingRebalance:
        return group.members.get(memberId)?.isAwaitingJoin === true || group.awaitingJoinCount < this.config.groupMaxSize;
      default:
        return group.has(memberId) || group.size < this.config.groupMaxSize;
    }
  }

  private joinUnknownMember(group: ClassicGroup, req: JoinGroupRequest): Promise<JoinGroupResult> | JoinGroupResult {
    if (group.is(GroupState.Dead)) return joinError('', E.COORDINATOR_NOT_AVAILABLE);
    if (!group.supportsProtocols(req.protocolType, req.protocols)) return joinError('', E.INCONSISTENT_GROUP_PROTOCOL);
    const newMemberId = `${req.groupInstanceId ?? req.clientId}-${randomUUID()}`;
    if (req.groupInstanceId !== null) {
      const oldMemberId = group.currentStaticMemberId(req.groupInstanceId);
      if (oldMemberId !== undefined) return this.updateStaticMemberAndRebalance(group, req.groupInstanceId, newMemberId, req);
      return this.addMemberAndRebalance(group, newMemberId, req);
    }
    if (req.requireKnownMemberId) {
      // KIP-394: the member learns its id first, so a client that never rejoins leaves no member behind.
      this.addPendingMember(group, newMemberId, req.sessionTimeoutMs);
      return joinError(newMemberId, E.MEMBER_ID_REQUIRED);
    }
    return this.addMemberAndRebalance(group, newMemberId, req);
  }

  private joinKnownMember(group: ClassicGroup, req: JoinGroupRequest): Promise<JoinGroupResult> | JoinGroupResult {
    if (group.is(GroupState.Dead)) return joinError(req.memberId, E.COORDINATOR_NOT_AVAILABLE);
    if (!group.supportsProtocols(req.protocolType, req.protocols)) return joinError(req.memberId, E.INCONSISTENT_GROUP_PROTOCOL);
    if (group.pendingMembers.has(req.memberId)) return this.addMemberAndRebalance(group, req.memberId, req);
    const memberError = this.validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (memberError !== E.NONE) return joinError(req.memberId, memberError);
    const member = group.members.get(req.memberId)!;
    switch (group.state) {
      case GroupState.PreparingRebalance:
        return this.updateMemberAndRebalance(group, member, req);
      case GroupState.CompletingRebalance:
        return member.matches(req.protocols) ? this.currentGeneration(group, member) : this.updateMemberAndRebalance(group, member, req);
      case GroupState.Stable:
        // The leader's rejoin, or changed metadata, starts a rebalance; a follower's unchanged rejoin gets the current generation.
        return group.isLeader(member.memberId) || !member.matches(req.protocols)
          ? this.updateMemberAndRebalance(group, member, req)
          : this.currentGeneration(group, member);
      default:
        return joinError(req.memberId, E.UNKNOWN_MEMBER_ID);
    }
  }

  /** A static member's instance id must map to its member id (an older incarnation is fenced); the member must exist. */
  private validateCurrentMember(group: ClassicGroup, memberId: string, groupInstanceId: string | null): number {
    if (groupInstanceId !== null) {
      const current = group.currentStaticMemberId(groupInstanceId);
      if (current === undefined) return E.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return E.FENCED_INSTANCE_ID;
    }
    return group.has(memberId) ? E.NONE : E.UNKNOWN_MEMBER_ID;
  }

  private currentGeneration(group: ClassicGroup, member: ClassicGroupMember): JoinGroupResult {
    this.scheduleHeartbeat(group, member);
    return generationJoined(group, member.memberId, group.isLeader(member.memberId) ? this.memberMetadata(group) : []);
  }

  private memberMetadata(group: ClassicGroup): JoinGroupResultMember[] {
    const protocol = group.protocolName!;
    return [...group.members.values()].map((m) => ({
      memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadataFor(protocol),
    }));
  }

  private addPendingMember(group: ClassicGroup, memberId: string, sessionTimeoutMs: number): void {
    const timer = setTimeout(() => {
      group.pendingMembers.delete(memberId);
      if (group.is(GroupState.PreparingRebalance)) this.maybeCompleteJoinPhase(group);
    }, sessionTimeoutMs);
    timer.unref();
    group.pendingMembers.set(memberId, timer);
  }

  private addMemberAndRebalance(group: ClassicGroup, memberId: string, req: JoinGroupRequest): Promise<JoinGroupResult> {
    clearTimeout(group.pendingMembers.get(memberId));
    group.pendingMembers.delete(memberId);
    const member = new ClassicGroupMember(
      memberId, req.groupInstanceId, req.clientId, req.clientHost,
      req.rebalanceTimeoutMs < 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs, req.sessionTimeoutMs,
      req.protocolType, req.protocols,
    );
    const result = new Promise<JoinGroupResult>((resolve) => { member.awaitingJoin = resolve; });
    if (group.is(GroupState.PreparingRebalance) && group.generationId === 0) group.newMemberAdded = true;
    group.add(member);
    this.maybePrepareRebalance(group, `adding new member ${memberId}`);
    return result;
  }

  private updateMember(member: ClassicGroupMember, req: JoinGroupRequest): Promise<JoinGroupResult> {
    // A second JoinGroup while the first still waits replaces it, as the client gave up on the first.
    this.completeJoin(member, joinError(member.memberId, E.REBALANCE_IN_PROGRESS));
    member.protocols = req.protocols;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs < 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs;
    return new Promise<JoinGroupResult>((resolve) => { member.awaitingJoin = resolve; });
  }

  private updateMemberAndRebalance(group: ClassicGroup, member: ClassicGroupMember, req: JoinGroupRequest): Promise<JoinGroupResult> {
    const result = this.updateMember(member, req);
    this.maybePrepareRebalance(group, `updating metadata of member ${member.memberId}`);
    return result;
  }

  /** A static member's new incarnation takes over its instance id; rebalances only if the protocol changes. */
  private async updateStaticMemberAndRebalance(
    group: ClassicGroup, groupInstanceId: string, newMemberId: string, req: JoinGroupRequest,
  ): Promise<JoinGroupResult> {
    const previousLeader = group.leaderId ?? '';
    const oldMemberId = group.currentStaticMemberId(groupInstanceId)!;
    const member = group.replaceStaticMember(groupInstanceId, newMemberId);
    this.completeJoin(member, joinError(oldMemberId, E.FENCED_INSTANCE_ID));
    this.completeSync(member, syncError(E.FENCED_INSTANCE_ID));
    const oldProtocols = member.protocols;
    const result = this.updateMember(member, req);
    this.scheduleHeartbeat(group, member);

    switch (group.state) {
      case GroupState.Stable: {
        if (group.selectProtocol() !== group.protocolName) {
          this.prepareRebalance(group, `static member ${groupInstanceId} joined with a different protocol`);
          return result;
        }
        const resolveJoin = member.awaitingJoin!;
        member.awaitingJoin = undefined;
        try {
          await this.storeGroup(group);
        } catch (err) {
          this.log?.warn({ err, group: group.groupId }, 'failed to persist static member replacement');
          group.replaceStaticMember(groupInstanceId, oldMemberId);
          member.protocols = oldProtocols;
          resolveJoin(joinError(newMemberId, E.COORDINATOR_NOT_AVAILABLE));
          return result;
        }
        const isLeader = group.isLeader(newMemberId);
        const skipAssignment = req.supportSkippingAssignment && isLeader;
        resolveJoin({
          errorCode: E.NONE,
          generationId: group.generationId,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          // Before v9 the old leader id is returned, so a rejoining leader does not assign a Stable group.
          leader: skipAssignment ? newMemberId : previousLeader,
          skipAssignment,
          memberId: newMemberId,
          members: skipAssignment ? this.memberMetadata(group) : [],
        });
        return result;
      }
      case GroupState.CompletingRebalance:
        // The leader may already assign to the old member id: start over.
        this.prepareRebalance(group, `static member ${groupInstanceId} rejoined during the sync phase`);
        return result;
      default:
        return result;
    }
  }

  private maybePrepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.canRebalance()) this.prepareRebalance(group, reason);
  }

  private prepareRebalance(group: ClassicGroup, reason: string): void {
    this.log?.info({ group: group.groupId, reason }, 'preparing to rebalance group');
    if (group.is(GroupState.CompletingRebalance)) this.resetAndPropagateAssignmentError(group, E.REBALANCE_IN_PROGRESS);
    clearTimeout(group.syncTimer);
    group.pendingSyncMembers.clear();
    const wasEmpty = group.is(GroupState.Empty);
    group.transitionTo(GroupState.PreparingRebalance, Date.now());
    clearTimeout(group.joinTimer);
    if (wasEmpty) {
      // group.initial.rebalance.delay.ms: let more members of a starting group join the first generation.
      group.initialDelayActive = true;
      group.newMemberAdded = false;
      const rebalanceTimeout = group.rebalanceTimeoutMs();
      const delay = Math.min(this.config.groupInitialRebalanceDelayMs, rebalanceTimeout);
      this.scheduleInitialDelay(group, delay, Math.max(rebalanceTimeout - this.config.groupInitialRebalanceDelayMs, 0));
    } else {
      group.joinTimer = setTimeout(() => this.onCompleteJoin(group), group.rebalanceTimeoutMs());
      group.joinTimer.unref();
      this.maybeCompleteJoinPhase(group);
    }
  }

  private scheduleInitialDelay(group: ClassicGroup, delayMs: number, remainingMs: number): void {
    group.joinTimer = setTimeout(() => {
      if (group.newMemberAdded && remainingMs > 0) {
        group.newMemberAdded = false;
        const delay = Math.min(this.config.groupInitialRebalanceDelayMs, remainingMs);
        this.scheduleInitialDelay(group, delay, Math.max(remainingMs - delay, 0));
      } else {
        group.initialDelayActive = false;
        this.onCompleteJoin(group);
      }
    }, delayMs);
    group.joinTimer.unref();
  }

  /** Completes the join phase early when every known member has rejoined (never during the initial delay). */
  private maybeCompleteJoinPhase(group: ClassicGroup): void {
    if (group.is(GroupState.PreparingRebalance) && !group.initialDelayActive && group.hasAllMembersJoined()) {
      this.onCompleteJoin(group);
    }
  }

  private onCompleteJoin(group: ClassicGroup): void {
    clearTimeout(group.joinTimer);
    group.initialDelayActive = false;
    if (!group.is(GroupState.PreparingRebalance)) return;
    for (const member of [...group.members.values()]) {
      if (!member.isAwaitingJoin) this.removeMember(group, member, E.UNKNOWN_MEMBER_ID);
    }
    const now = Date.now();
    group.generationId++;
    if (group.isEmpty()) {
      group.protocolName = null;
      group.transitionTo(GroupState.Empty, now);
      this.storeGroup(group).catch((err) => this.log?.warn({ err, group: group.groupId }, 'failed to persist empty group'));
      return;
    }
    group.protocolName = group.selectProtocol();
    group.transitionTo(GroupState.CompletingRebalance, now);
    this.log?.info(
      { group: group.groupId, generation: group.generationId, protocol: group.protocolName, members: group.members.size },
      'group rebalanced',
    );
    const members = this.memberMetadata(group);
    for (const member of group.members.values()) {
      this.completeJoin(member, generationJoined(group, member.memberId, group.isLeader(member.memberId) ? members : []));
      this.scheduleHeartbeat(group, member);
      group.pendingSyncMembers.add(member.memberId);
    }
    this.schedulePendingSync(group);
  }

  /** Members that do not send SyncGroup within the rebalance timeout are removed (Kafka's pending sync). */
  private schedulePendingSync(group: ClassicGroup): void {
    const generationId = group.generationId;
    clearTimeout(group.syncTimer);
    group.syncTimer = setTimeout(() => {
      if (group.generationId !== generationId || group.pendingSyncMembers.size === 0) return;
      if (!group.is(GroupState.CompletingRebalance) && !group.is(GroupState.Stable)) return;
      for (const memberId of [...group.pendingSyncMembers]) {
        const member = group.members.get(memberId);
        if (member) this.removeMember(group, member, E.UNKNOWN_MEMBER_ID);
      }
      group.pendingSyncMembers.clear();
      this.maybePrepareRebalance(group, 'members did not sync in time');
    }, group.rebalanceTimeoutMs());
    group.syncTimer.unref();
  }

  private completeJoin(member: ClassicGroupMember, result: JoinGroupResult): void {
    const resolve = member.awaitingJoin;
    member.awaitingJoin = undefined;
    resolve?.(result);
  }

  private completeSync(member: ClassicGroupMember, result: SyncGroupResult): void {
    const resolve = member.awaitingSync;
    member.awaitingSync = undefined;
    resolve?.(result);
  }

  // ---- heartbeats and member expiry ----

  private scheduleHeartbeat(group: ClassicGroup, member: ClassicGroupMember): void {
    member.heartbeatDeadline = Date.now() + member.sessionTimeoutMs;
    if (member.heartbeatTimer === undefined) this.armHeartbeatTimer(group, member, member.sessionTimeoutMs);
  }

  private armHeartbeatTimer(group: ClassicGroup, member: ClassicGroupMember, delayMs: number): void {
    member.heartbeatTimer = setTimeout(() => {
      member.heartbeatTimer = undefined;
      if (group.members.get(member.memberId) !== member) return;
      const now = Date.now();
      if (member.shouldKeepAlive(now)) {
        // Kafka's heartbeat purgatory: the member expires one session timeout after its last heartbeat, so the
        // timer waits out what is left of that; a member kept alive while awaiting join/sync is checked again
        // one session timeout on (completing the join or sync schedules a fresh deadline).
        const remaining = member.heartbeatDeadline - now;
        this.armHeartbeatTimer(group, member, remaining > 0 ? remaining : member.sessionTimeoutMs);
      } else {
        this.log?.info({ group: group.groupId, member: member.memberId }, 'member session expired');
        this.removeMemberAndUpdateGroup(group, member);
      }
    }, delayMs);
    member.heartbeatTimer.unref();
  }

  private removeMember(group: ClassicGroup, member: ClassicGroupMember, errorCode: number): void {
    clearTimeout(member.heartbeatTimer);
    member.heartbeatTimer = undefined;
    group.remove(member.memberId);
    this.completeJoin(member, joinError(member.memberId, errorCode));
    this.completeSync(member, syncError(errorCode));
  }

  private removeMemberAndUpdateGroup(group: ClassicGroup, member: ClassicGroupMember): void {
    this.removeMember(group, member, E.UNKNOWN_MEMBER_ID);
    switch (group.state) {
      case GroupState.Stable:
      case GroupState.CompletingRebalance:
        this.prepareRebalance(group, `removing member ${member.memberId}`);
        break;
      case GroupState.PreparingRebalance:
        this.maybeCompleteJoinPhase(group);
        break;
      default:
        break;
    }
  }

  heartbeat(req: HeartbeatRequest): number {
    const status = this.validateGroupStatus(req.groupId);
    // While loading, the member cannot be checked; Kafka answers blindly.
    if (status === E.COORDINATOR_LOAD_IN_PROGRESS) return E.NONE;
    if (status !== E.NONE) return status;
    const group = this.groups.get(req.groupId);
    if (!group) return E.UNKNOWN_MEMBER_ID;
    if (group.is(GroupState.Dead)) return E.COORDINATOR_NOT_AVAILABLE;
    const memberError = this.validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (memberError !== E.NONE) return memberError;
    if (req.generationId !== group.generationId) return E.ILLEGAL_GENERATION;
    const member = group.members.get(req.memberId)!;
    switch (group.state) {
      case GroupState.PreparingRebalance:
        this.scheduleHeartbeat(group, member);
        return E.REBALANCE_IN_PROGRESS;
      case GroupState.CompletingRebalance:
      case GroupState.Stable:
        this.scheduleHeartbeat(group, member);
        return E.NONE;
      default:
        return E.UNKNOWN_MEMBER_ID;
    }
  }

  // ---- SyncGroup ----

  async syncGroup(req: SyncGroupRequest): Promise<SyncGroupResult> {
    const status = this.validateGroupStatus(req.groupId);
    // A rebalance in flight was lost with the load; older clients only know to rejoin on REBALANCE_IN_PROGRESS.
    if (status === E.COORDINATOR_LOAD_IN_PROGRESS) return syncError(E.REBALANCE_IN_PROGRESS);
    if (status !== E.NONE) return syncError(status);
    const group = this.groups.get(req.groupId);
    if (!group) return syncError(E.UNKNOWN_MEMBER_ID);
    if (group.is(GroupState.Dead)) return syncError(E.COORDINATOR_NOT_AVAILABLE);
    const memberError = this.validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (memberError !== E.NONE) return syncError(memberError);
    if (req.generationId !== group.generationId) return syncError(E.ILLEGAL_GENERATION);
    if ((req.protocolType !== null && req.protocolType !== group.protocolType) ||
        (req.protocolName !== null && req.protocolName !== group.protocolName)) {
      return syncError(E.INCONSISTENT_GROUP_PROTOCOL);
    }
    const member = group.members.get(req.memberId)!;
    group.pendingSyncMembers.delete(member.memberId);
    switch (group.state) {
      case GroupState.PreparingRebalance:
        return syncError(E.REBALANCE_IN_PROGRESS);
      case GroupState.CompletingRebalance: {
        this.completeSync(member, syncError(E.REBALANCE_IN_PROGRESS));
        const result = new Promise<SyncGroupResult>((resolve) => { member.awaitingSync = resolve; });
        if (group.isLeader(member.memberId)) await this.completeLeaderSync(group, req);
        return result;
      }
      case GroupState.Stable:
        this.scheduleHeartbeat(group, member);
        return { errorCode: E.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment };
      default:
        return syncError(E.UNKNOWN_MEMBER_ID);
    }
  }

  private async completeLeaderSync(group: ClassicGroup, req: SyncGroupRequest): Promise<void> {
    const generationId = group.generationId;
    const given = new Map(req.assignments.map((a) => [a.memberId, a.assignment]));
    // Members the leader left out get an empty assignment.
    const assignments = new Map([...group.members.keys()].map((id) => [id, given.get(id) ?? EMPTY]));
    let stored = true;
    try {
      await this.storeGroup(group, assignments);
    } catch (err) {
      this.log?.warn({ err, group: group.groupId }, 'failed to persist group assignment');
      stored = false;
    }
    // The group may have moved on while the write was in flight.
    if (!group.is(GroupState.CompletingRebalance) || group.generationId !== generationId) return;
    if (!stored) {
      this.resetAndPropagateAssignmentError(group, E.COORDINATOR_NOT_AVAILABLE);
      this.prepareRebalance(group, 'failed to persist the assignment');
      return;
    }
    for (const member of group.members.values()) {
      member.assignment = assignments.get(member.memberId)!;
      if (member.isAwaitingSync) {
        this.completeSync(member, {
          errorCode: E.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment,
        });
        this.scheduleHeartbeat(group, member);
      }
    }
    group.transitionTo(GroupState.Stable, Date.now());
  }

  private resetAndPropagateAssignmentError(group: ClassicGroup, errorCode: number): void {
    for (const member of group.members.values()) {
      member.assignment = EMPTY;
      this.completeSync(member, syncError(errorCode));
    }
  }

  // ---- LeaveGroup ----

  leaveGroup(groupId: string, members: ReadonlyArray<LeavingMember>): LeaveGroupResult {
    const status = this.validateGroupStatus(groupId);
    if (status !== E.NONE) return { errorCode: status, members: [] };
    const group = this.groups.get(groupId);
    if (!group) return { errorCode: E.NONE, members: members.map((m) => ({ ...m, errorCode: E.UNKNOWN_MEMBER_ID })) };
    if (group.is(GroupState.Dead)) return { errorCode: E.COORDINATOR_NOT_AVAILABLE, members: [] };
    return { errorCode: E.NONE, members: members.map((m) => ({ ...m, errorCode: this.removeLeavingMember(group, m) })) };
  }

  private removeLeavingMember(group: ClassicGroup, leaving: LeavingMember): number {
    if (leaving.memberId === '') {
      // Administrative removal of a static member by its instance id alone.
      const memberId = group.currentStaticMemberId(leaving.groupInstanceId);
      if (memberId === undefined) return E.UNKNOWN_MEMBER_ID;
      this.removeMemberAndUpdateGroup(group, group.members.get(memberId)!);
      return E.NONE;
    }
    const pending = group.pendingMembers.get(leaving.memberId);
    if (pending !== undefined) {
      clearTimeout(pending);
      group.pendingMembers.delete(leaving.memberId);
      this.maybeCompleteJoinPhase(group);
      return E.NONE;
    }
    const memberError = this.validateCurrentMember(group, leaving.memberId, leaving.groupInstanceId);
    if (memberError !== E.NONE) return memberError;
    this.removeMemberAndUpdateGroup(group, group.members.get(leaving.memberId)!);
    return E.NONE;
  }

  // ---- offsets ----

  /** `apiVersion`: members of consumer groups must commit with OffsetCommit v9+ (their member epoch). */
  async commitOffsets(req: OffsetCommitRequest, apiVersion = 9): Promise<TopicPartitionErrors[]> {
    const allWith = (errorCode: number): TopicPartitionErrors[] =>
      req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
    const status = this.validateGroupStatus(req.groupId, false);
    if (status !== E.NONE) return allWith(status);
    // A share group keeps no committed offsets in __consumer_offsets (its state is on __share_group_state).
    if (this.shareGroups.has(req.groupId)) return allWith(E.GROUP_ID_NOT_FOUND);
    if (this.consumerGroups.has(req.groupId)) {
      const memberError = this.consumerGroups.validateOffsetCommit(req.groupId, req.memberId, req.generationId, apiVersion);
      if (memberError !== E.NONE) return allWith(memberError);
      return this.offsetManager.commit(req.groupId, req.topics, req.retentionTimeMs);
    }
    if (this.streamsGroups.has(req.groupId)) {
      const check = this.streamsGroups.validateOffsetCommit(req.groupId, req.memberId, req.generationId);
      if (check.errorCode !== E.NONE) return allWith(check.errorCode);
      return this.offsetManager.commit(req.groupId, req.topics, req.retentionTimeMs, undefined, check.partition);
    }
    let group = this.groups.get(req.groupId);
    if (!group) {
      if (req.generationId >= 0) return allWith(E.ILLEGAL_GENERATION);
      // A standalone consumer: the group exists only to hold its offsets.
      group = new ClassicGroup(req.groupId, Date.now());
      this.groups.set(req.groupId, group);
    }
    const groupError = this.validateOffsetCommit(group, req);
    if (groupError !== E.NONE) return allWith(groupError);

    return this.offsetManager.commit(req.groupId, req.topics, req.retentionTimeMs);
  }

  private validateOffsetCommit(group: ClassicGroup, req: OffsetCommitRequest): number {
    if (group.is(GroupState.Dead)) return E.COORDINATOR_NOT_AVAILABLE;
    // Generation -1: the admin client or a standalone consumer, allowed while the group has no members.
    if (req.generationId < 0 && group.is(GroupState.Empty)) return E.NONE;
    const memberError = this.validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (memberError !== E.NONE) return memberError;
    if (req.generationId !== group.generationId) return E.ILLEGAL_GENERATION;
    switch (group.state) {
      case GroupState.Stable:
      case GroupState.PreparingRebalance:
        this.scheduleHeartbeat(group, group.members.get(req.memberId)!);
        return E.NONE;
      case GroupState.CompletingRebalance:
        return E.REBALANCE_IN_PROGRESS;
      default:
        return E.UNKNOWN_MEMBER_ID;
    }
  }

  /**
   * TxnOffsetCommit: the offsets are written in the producer's transactional batch and stay pending until
   * its marker (onTransactionCompleted). Without member and generation (v0-2, or a standalone consumer)
   * the group is not checked, as Kafka accepts them; otherwise as for OffsetCommit.
   */
  async commitTransactionalOffsets(req: TxnOffsetCommitRequest): Promise<TopicPartitionErrors[]> {
    const allWith = (errorCode: number): TopicPartitionErrors[] =>
      req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
    const status = this.validateGroupStatus(req.groupId);
    if (status !== E.NONE) return allWith(status);
    const producer = { producerId: req.producerId, producerEpoch: req.producerEpoch };
    const unchecked = req.generationId < 0 && req.memberId === '';
    if (this.consumerGroups.has(req.groupId)) {
      if (!unchecked) {
        const memberError = this.consumerGroups.validateOffsetCommit(req.groupId, req.memberId, req.generationId, 9);
        if (memberError !== E.NONE) return allWith(memberError);
      }
      return this.offsetManager.commit(req.groupId, req.topics, -1, producer);
    }
    if (this.streamsGroups.has(req.groupId)) {
      const check = unchecked ? { errorCode: E.NONE } : this.streamsGroups.validateOffsetCommit(req.groupId, req.memberId, req.generationId);
      if (check.errorCode !== E.NONE) return allWith(check.errorCode);
      return this.offsetManager.commit(req.groupId, req.topics, -1, producer, check.partition);
    }
    let group = this.groups.get(req.groupId);
    if (!group) {
      if (req.generationId >= 0) return allWith(E.ILLEGAL_GENERATION);
      group = new ClassicGroup(req.groupId, Date.now());
      this.groups.set(req.groupId, group);
    }
    if (!unchecked) {
      const groupError = this.validateOffsetCommit(group, { ...req, retentionTimeMs: -1 });
      if (groupError !== E.NONE) return allWith(groupError);
    }
    return this.offsetManager.commit(req.groupId, req.topics, -1, producer);
  }

  /** A transaction marker was written to __consumer_offsets partition `partition`. */
  onTransactionCompleted(producerId: number, partition: number, commit: boolean): void {
    this.offsetManager.completeTransaction(producerId, partition, commit);
  }

  /** Committed offsets of the listed partitions (-1 when none), or of every partition when `topics` is null. */
  fetchOffsets(
    groupId: string,
    topics: ReadonlyArray<{ name: string; partitionIndexes: ReadonlyArray<number> }> | null,
    member: { memberId: string | null; memberEpoch: number } = { memberId: null, memberEpoch: -1 },
    requireStable = false,
  ): OffsetFetchResult {
    const status = this.validateGroupStatus(groupId, false);
    if (status !== E.NONE) return { errorCode: status, topics: [] };
    // OffsetFetch v9+: a consumer group member names itself and its epoch.
    const memberError = this.streamsGroups.has(groupId)
      ? this.streamsGroups.validateOffsetFetch(groupId, member.memberId, member.memberEpoch)
      : this.consumerGroups.validateOffsetFetch(groupId, member.memberId, member.memberEpoch);
    if (memberError !== E.NONE) return { errorCode: memberError, topics: [] };
    return { errorCode: E.NONE, topics: this.offsetManager.fetch(groupId, topics, requireStable) };
  }

  async deleteOffsets(groupId: string, topics: ReadonlyArray<{ name: string; partitions: ReadonlyArray<number> }>): Promise<OffsetDeleteResult> {
    const status = this.validateGroupStatus(groupId);
    if (status !== E.NONE) return { errorCode: status, topics: [] };
    if (this.consumerGroups.has(groupId)) return this.offsetManager.delete(groupId, topics, this.consumerGroups.subscribedTopics(groupId));
    if (this.streamsGroups.has(groupId)) return this.offsetManager.delete(groupId, topics, this.streamsGroups.subscribedTopics(groupId));
    const group = this.groups.get(groupId);
    if (!group || group.is(GroupState.Dead)) return { errorCode: E.GROUP_ID_NOT_FOUND, topics: [] };
    let subscribed = new Set<string>();
    if (!group.is(GroupState.Empty)) {
      const topicsInUse = group.subscribedTopics(subscribedTopicsOf);
      if (topicsInUse === undefined) return { errorCode: E.NON_EMPTY_GROUP, topics: [] };
      subscribed = topicsInUse;
    }
    return this.offsetManager.delete(groupId, topics, subscribed);
  }

  // ---- KIP-848 consumer groups ----

  /** Where the consumer protocol reads each group's session timeout and heartbeat interval (group configs). */
  useConsumerGroupTimeouts(timeoutsOf: ConsumerGroupTimeoutsOf): void {
    this.consumerGroups.timeoutsOf = timeoutsOf;
  }

  async consumerGroupHeartbeat(req: ConsumerGroupHeartbeatRequest, topics: TopicsImage): Promise<ConsumerGroupHeartbeatResult> {
    const status = this.validateGroupStatus(req.groupId, false);
    if (status !== E.NONE) {
      return { errorCode: status, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
    }
    // Kafka's getOrMaybeCreateConsumerGroup: a share or streams group's id is not a consumer group's.
    if (this.shareGroups.has(req.groupId) || this.streamsGroups.has(req.groupId)) {
      return {
        errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: `Group ${req.groupId} is not a consumer group.`, memberId: null, memberEpoch: 0,
        heartbeatIntervalMs: 0, assignment: null,
      };
    }
    return this.consumerGroups.heartbeat(req, topics);
  }

  // ---- KIP-1071 streams groups ----

  /** Where streams groups read their settings (group configs over the broker's group.streams.*). */
  useStreamsGroupSettings(settingsOf: StreamsGroupSettingsOf): void {
    this.streamsGroups.settingsOf = settingsOf;
  }

  async streamsGroupHeartbeat(req: StreamsHeartbeatRequest, topics: TopicsImage): Promise<StreamsHeartbeatResult> {
    const status = this.validateGroupStatus(req.groupId, false);
    if (status !== E.NONE) return streamsErrorResult(status, null);
    return this.streamsGroups.heartbeat(req, topics);
  }

  streamsGroupDescribe(groupIds: ReadonlyArray<string>): DescribedStreamsGroupResult[] {
    return groupIds.map((groupId) => {
      const status = this.validateGroupStatus(groupId, false);
      if (status === E.NONE) return this.streamsGroups.describe(groupId);
      return {
        errorCode: status, errorMessage: null, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, topology: null, members: [],
        topologyDescription: null, topologyDescriptionStatus: 0, assignorName: null,
      };
    });
  }

  consumerGroupDescribe(groupIds: ReadonlyArray<string>, topics: TopicsImage): DescribedConsumerGroup[] {
    return groupIds.map((groupId) => {
      const status = this.validateGroupStatus(groupId, false);
      const failed = { errorCode: status, errorMessage: null as string | null, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] };
      if (status !== E.NONE) return failed;
      if (this.shareGroups.has(groupId)) return { ...failed, errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} is not a consumer group.` };
      return this.consumerGroups.describe(groupId, topics);
    });
  }

  // ---- KIP-932 share groups ----

  async shareGroupHeartbeat(req: ShareGroupHeartbeatRequest, topics: TopicsImage): Promise<ShareGroupHeartbeatResult> {
    const status = this.validateGroupStatus(req.groupId, false);
    if (status !== E.NONE) {
      return { errorCode: status, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
    }
    return this.shareGroups.heartbeat(req, topics);
  }

  shareGroupDescribe(groupIds: ReadonlyArray<string>, topics: TopicsImage): DescribedShareGroup[] {
    return groupIds.map((groupId) => {
      const status = this.validateGroupStatus(groupId, false);
      if (status === E.NONE) return this.shareGroups.describe(groupId, topics);
      return { errorCode: status, errorMessage: null, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] };
    });
  }

  // ---- group administration ----

  describeGroups(groupIds: ReadonlyArray<string>): DescribedGroup[] {
    return groupIds.map((groupId) => {
      const described: DescribedGroup = {
        errorCode: E.NONE, groupId, groupState: GroupState.Dead, protocolType: '', protocolData: '', members: [],
      };
      const status = this.validateGroupStatus(groupId, false);
      if (status !== E.NONE) return { ...described, errorCode: status, groupState: '' };
      const group = this.groups.get(groupId);
      // Kafka (DescribeGroups < v6) describes a group of another protocol as Dead.
      if (!group) return described;
      const stable = group.is(GroupState.Stable);
      return {
        ...described,
        groupState: group.state,
        protocolType: group.protocolType ?? '',
        protocolData: stable ? group.protocolName ?? '' : '',
        // Member metadata and assignments are only meaningful once the group is Stable.
        members: [...group.members.values()].map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: stable ? m.metadataFor(group.protocolName!) : EMPTY,
          memberAssignment: stable ? m.assignment : EMPTY,
        })),
      };
    });
  }

  /** Groups in any of `statesFilter` (case-insensitive; empty = all) whose type is in `typesFilter` (empty = all). */
  listGroups(statesFilter: ReadonlyArray<string>, typesFilter: ReadonlyArray<string>): { errorCode: number; groups: ListedGroup[] } {
    const status = this.validateGroupStatus('', false);
    if (status !== E.NONE) return { errorCode: status, groups: [] };
    const states = new Set(statesFilter.map((s) => s.toLowerCase()));
    const types = new Set(typesFilter.map((s) => s.toLowerCase()));
    const groups: ListedGroup[] = types.size === 0 || types.has(CONSUMER_GROUP_TYPE) ? this.consumerGroups.listGroups(states) : [];
    if (types.size === 0 || types.has(SHARE_GROUP_TYPE)) groups.push(...this.shareGroups.listGroups(states));
    if (types.size === 0 || types.has(STREAMS_GROUP_TYPE)) groups.push(...this.streamsGroups.listGroups(states));
    if (types.size > 0 && !types.has(CLASSIC_GROUP_TYPE)) return { errorCode: E.NONE, groups };
    for (const group of this.groups.values()) {
      if (group.is(GroupState.Dead) || (states.size > 0 && !states.has(group.state.toLowerCase()))) continue;
      groups.push({ groupId: group.groupId, protocolType: group.protocolType ?? '', groupState: group.state, groupType: CLASSIC_GROUP_TYPE });
    }
    return { errorCode: E.NONE, groups };
  }

  async deleteGroups(groupIds: ReadonlyArray<string>): Promise<Array<{ groupId: string; errorCode: number }>> {
    const results: Array<{ groupId: string; errorCode: number }> = [];
    for (const groupId of groupIds) results.push({ groupId, errorCode: await this.deleteGroup(groupId) });
    return results;
  }

  private async deleteGroup(groupId: string): Promise<number> {
    const status = this.validateGroupStatus(groupId, false);
    if (status !== E.NONE) return status;
    if (this.consumerGroups.has(groupId)) return this.consumerGroups.deleteGroup(groupId);
    if (this.shareGroups.has(groupId)) return this.shareGroups.deleteGroup(groupId);
    if (this.streamsGroups.has(groupId)) return this.streamsGroups.deleteGroup(groupId);
    const group = this.groups.get(groupId);
    if (!group || group.is(GroupState.Dead)) return E.GROUP_ID_NOT_FOUND;
    if (!group.is(GroupState.Empty)) return E.NON_EMPTY_GROUP;
    try {
      await this.removeGroup(group);
    } catch (err) {
      this.log?.warn({ err, group: groupId }, 'failed to persist group deletion');
      return E.COORDINATOR_NOT_AVAILABLE;
    }
    return E.NONE;
  }

  /**
   * Writes tombstones for the group and all its offsets, then forgets it. `unused`: only if it has no
   * offsets still, so that offsets committed while the tombstones were written (a marker's) keep the group.
   */
  private async removeGroup(group: ClassicGroup, unused = false): Promise<void> {
    const tombstones = this.offsetManager.tombstonesOf(group.groupId);
    tombstones.push({ key: groupMetadataKey(group.groupId), value: null });
    await this.offsetsTopic.append(this.partitionFor(group.groupId), tombstones);
    if (this.groups.get(group.groupId) !== group || !group.is(GroupState.Empty) || (unused && !this.removable(group.groupId))) return;
    group.transitionTo(GroupState.Dead, Date.now());
    this.groups.delete(group.groupId);
    this.offsetManager.forgetGroup(group.groupId);
  }

  /** offsets.retention.minutes: removes expired offsets, then Empty groups left without offsets. */
  async cleanupExpiredOffsets(now: number): Promise<void> {
    await this.cleanupGroupMetadata((group) => this.offsetManager.expired(group, group.subscribedTopics(subscribedTopicsOf), now));
    await this.removeConsumerGroupOffsets((groupId) =>
      this.offsetManager.expiredInConsumerGroup(groupId, this.consumerGroups.has(groupId) ? this.consumerGroups.subscribedTopics(groupId) : this.streamsGroups.subscribedTopics(groupId), now),
    );
  }

  /** A deleted topic's committed offsets go with it, in groups of either protocol (Kafka's handleDeletedPartitions). */
  async onTopicDeleted(topic: string): Promise<void> {
    await this.cleanupGroupMetadata((group) => this.offsetManager.partitionsOfTopic(group.groupId, topic));
    await this.removeConsumerGroupOffsets((groupId) => this.offsetManager.partitionsOfTopic(groupId, topic));
    if (this.active && !this.loading) await this.shareGroups.onTopicDeleted(topic);
  }

  private async removeConsumerGroupOffsets(select: (groupId: string) => TopicPartition[]): Promise<void> {
    if (!this.active || this.loading) return;
    for (const groupId of [...this.consumerGroups.groupIds(), ...this.streamsGroups.groupIds()]) {
      await this.offsetManager.remove(groupId, select(groupId)).catch((err) => this.log?.warn({ err, group: groupId }, 'failed to remove offsets'));
    }
  }

  /**
   * An Empty group goes once it has no offsets: none committed, none waiting for their flush, none pending in a
   * transaction (Kafka's OffsetMetadataManager.cleanupExpiredOffsets keeps a group with open transactions). A
   * topic deleted or an offset expired meanwhile would otherwise drop a group its first commit is creating.
   */
  private removable(groupId: string): boolean {
    return !this.offsetManager.hasOffsets(groupId) && !this.offsetManager.hasPendingOffsets(groupId);
  }

  /** Writes tombstones for each group's selected offsets, then removes Empty groups that have none left. */
  private async cleanupGroupMetadata(select: (group: ClassicGroup) => TopicPartition[]): Promise<void> {
    if (!this.active || this.loading) return;
    for (const group of [...this.groups.values()]) {
      try {
        await this.offsetManager.remove(group.groupId, select(group));
        if (group.is(GroupState.Empty) && this.removable(group.groupId)) await this.removeGroup(group, true);
      } catch (err) {
        this.log?.warn({ err, group: group.groupId }, 'failed to remove group metadata');
      }
    }
  }

  // ---- persistence ----

  private storeGroup(group: ClassicGroup, assignments?: ReadonlyMap<string, Buffer>): Promise<void> {
    const value = groupMetadataValue({
      protocolType: group.protocolType ?? '',
      generationId: group.generationId,
      protocolName: group.protocolName,
      leaderId: group.leaderId,
      currentStateTimestamp: group.currentStateTimestamp,
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        subscription: group.protocolName === null ? EMPTY : m.metadataFor(group.protocolName),
        assignment: assignments?.get(m.memberId) ?? m.assignment,
      })),
    });
    return this.offsetsTopic.append(this.partitionFor(group.groupId), [{ key: groupMetadataKey(group.groupId), value }]);
  }
}

