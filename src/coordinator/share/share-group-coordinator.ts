// The share groups of a single broker (KIP-932; the share-group part of Kafka's GroupMetadataManager):
// ShareGroupHeartbeat with the server-side simple assignor, ShareGroupDescribe, listing and deletion. Before a
// partition is assigned its share-partition state is initialized through the Persister and recorded in
// ShareGroupStatePartitionMetadata; each change is written to __consumer_offsets before it is answered.
import type { Logger } from 'pino';
import { assignmentsEqual } from '../consumer/assignors/assignor.js';
import type { DescribedGroup } from '../../../protocol/generated/ShareGroupDescribeResponse.js';
import type { ShareGroupHeartbeatRequest as WireShareGroupHeartbeatRequest } from '../../../protocol/generated/ShareGroupHeartbeatRequest.js';
import type { ShareGroupHeartbeatResponse } from '../../../protocol/generated/ShareGroupHeartbeatResponse.js';
import {
  sameNames, subscribedTopicsMetadata, toTopicPartitions, type ConsumerGroupTimeoutsOf, type TopicsImage,
} from '../consumer/consumer-group-coordinator.js';
import { metadataHash } from '../metadata-hash.js';
import { describedGroup, ModernGroupCoordinator } from '../modern-groups.js';
import type { CoordinatorRecord, OffsetsTopic } from '../offsets-topic.js';
import { ErrorCode as E } from '../../errors.js';
import { PersisterError, type Persister } from '../../share/persister.js';
import { ShareGroup, SHARE_GROUP_TYPE, type InitializedTopic } from './share-group.js';
import type { ShareGroupListener } from './share-group-listener.js';
import { ShareGroupMember } from './share-group-member.js';
import {
  shareCurrentAssignmentRecord, shareGroupEpochRecord, shareMemberMetadataRecord, shareStatePartitionMetadataRecord,
  shareTargetAssignmentEpochRecord, shareTargetAssignmentRecord, shareTombstone, ShareGroupRecordType as T,
} from './share-group-records.js';
import { replayShareGroups } from './share-group-replay.js';
import { assignShareGroup, SIMPLE_ASSIGNOR_NAME } from './simple-assignor.js';

const LEAVE_GROUP_MEMBER_EPOCH = -1;

export type ShareGroupHeartbeatRequest = WireShareGroupHeartbeatRequest & { clientId: string; clientHost: string };

export type ShareGroupHeartbeatResult = Omit<ShareGroupHeartbeatResponse, 'throttleTimeMs'>;
export type DescribedShareGroup = Omit<DescribedGroup, 'authorizedOperations'>;

export interface ShareGroupCoordinatorConfig {
  readonly maxSize: number;
  /** group.share.initialize.retry.interval.ms: an unanswered share-partition initialization is sent again after it. */
  readonly initializeRetryIntervalMs: number;
  /** A group's session timeout, heartbeat and assignment intervals: its group configs, else the broker's group.share.* ones. */
  readonly timeoutsOf: ConsumerGroupTimeoutsOf;
}

/** A request refused with a Kafka error code and message. */
class ShareGroupError extends Error {
  override name = 'ShareGroupError';
  constructor(readonly errorCode: number, readonly errorMessage: string | null) {
    super(errorMessage ?? `error ${errorCode}`);
  }
}

function errorResult(errorCode: number, errorMessage: string | null = null): ShareGroupHeartbeatResult {
  return { errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}


export class ShareGroupCoordinator extends ModernGroupCoordinator<ShareGroup, ShareGroupMember> {
  /** Each group's requests run one after another: a heartbeat may wait for the Persister in the middle. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly listeners: ShareGroupListener[] = [];
  /** Set by the share coordinator when it starts (Kafka's GroupCoordinatorService takes it at construction). */
  persister: Persister | undefined;
  /** Heartbeats that bumped their group's epoch (Kafka's ShareGroupRebalances sensor: share-group-rebalance-count). */
  rebalances = 0;

  constructor(
    private readonly config: ShareGroupCoordinatorConfig,
    offsetsTopic: OffsetsTopic,
    /** Whether the id belongs to a classic or consumer group: a group id has one type at a time. */
    private readonly isOtherGroup: (groupId: string) => boolean,
    log?: Logger,
  ) {
    super(SHARE_GROUP_TYPE, replayShareGroups, offsetsTopic, log);
  }

  addListener(listener: ShareGroupListener): void {
    this.listeners.push(listener);
  }

  /** The partitions whose share-partition state the group initialized (for the share-group offsets admin APIs). */
  initializedPartitions(groupId: string): Map<string, Set<number>> {
    const group = this.groups.get(groupId);
    return new Map([...group?.initializedTopics ?? []].map(([topicId, t]) => [topicId, new Set(t.partitions)]));
  }

  protected override sessionTimeoutMs(groupId: string): number {
    return this.config.timeoutsOf(groupId).sessionTimeoutMs;
  }

  protected override assignmentIntervalMs(groupId: string): number {
    return this.config.timeoutsOf(groupId).assignmentIntervalMs ?? 0;
  }

  /** An expired member is fenced in turn with the group's requests. */
  protected override expire(group: ShareGroup, member: ShareGroupMember, reason: string): void {
    void this.serialized(group.groupId, () => this.fenceMember(group, member, reason));
  }

  private serialized<R>(groupId: string, run: () => Promise<R>): Promise<R> {
    const previous = this.queues.get(groupId) ?? Promise.resolve();
    const next = previous.then(run, run);
    const settled = next.catch(() => undefined);
    this.queues.set(groupId, settled);
    void settled.then(() => {
      if (this.queues.get(groupId) === settled) this.queues.delete(groupId);
    });
    return next;
  }

  // ---- ShareGroupHeartbeat ----

  heartbeat(req: ShareGroupHeartbeatRequest, topics: TopicsImage): Promise<ShareGroupHeartbeatResult> {
    return this.serialized(req.groupId, () => this.heartbeatFrame(req.groupId, (records) => {
      validateHeartbeat(req);
      return req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH ? this.leave(req, records) : this.memberHeartbeat(req, topics, records);
    }, (err) => (err instanceof ShareGroupError ? errorResult(err.errorCode, err.errorMessage) : undefined),
    errorResult(E.COORDINATOR_NOT_AVAILABLE)));
  }

  private async memberHeartbeat(req: ShareGroupHeartbeatRequest, topics: TopicsImage, records: CoordinatorRecord[]): Promise<ShareGroupHeartbeatResult> {
    const joining = req.memberEpoch === 0;
    const group = this.getOrMaybeCreateGroup(req.groupId, joining);
    let member = group.members.get(req.memberId);
    const isNew = member === undefined;
    if (!member) {
      if (!joining) throw new ShareGroupError(E.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${group.groupId}.`);
      if (group.members.size >= this.config.maxSize) {
        throw new ShareGroupError(E.GROUP_MAX_SIZE_REACHED, `The share group has reached its maximum capacity of ${this.config.maxSize} members.`);
      }
      member = new ShareGroupMember(req.memberId);
      group.members.set(member.memberId, member);
    } else if (!joining) {
      throwIfMemberEpochIsInvalid(member, req.memberEpoch);
    }
    const previousAssignment = member.assignedPartitions;
    const previousGroupEpoch = group.groupEpoch;

    // 1. The subscription; a change in it, or in the subscribed topics' metadata, bumps the group epoch.
    let bumpGroupEpoch = this.updateMember(group, member, req, isNew, records);
    group.subscriptionMetadata = subscribedTopicsMetadata(group.subscribedTopicNames(), topics);
    const hash = metadataHash(group.subscriptionMetadata.values());
    if (hash !== group.metadataHash) {
      group.metadataHash = hash;
      bumpGroupEpoch = true;
    }
    if (bumpGroupEpoch) this.bumpGroupEpoch(group, records);
    // 2. Newly subscribed partitions get their share-partition state before anyone is assigned them.
    await this.initializeStates(group, records);

    // Once per heartbeat, however many bumps: Kafka's shareGroupHeartbeat bumps (and records a rebalance) once.
    if (group.groupEpoch > previousGroupEpoch) this.rebalances++;
    // 3. A new group epoch gets a new target assignment, at most one per assignment interval (KIP-1263, as Kafka 4.4's
    // share maybeUpdateTargetAssignment); the member takes its target at once (nothing to revoke), the last one meanwhile.
    if (group.groupEpoch > group.assignmentEpoch && this.canComputeNextTargetAssignment(group)) this.updateTargetAssignment(group, records);
    const target = group.targetAssignment.get(member.memberId) ?? new Map();
    if (member.memberEpoch !== group.assignmentEpoch || !assignmentsEqual(member.assignedPartitions, target)) {
      member.previousMemberEpoch = member.memberEpoch;
      member.memberEpoch = group.assignmentEpoch;
      member.assignedPartitions = target;
      records.push(shareCurrentAssignmentRecord(group.groupId, member.memberId, member));
    }
    this.scheduleSessionTimeout(group, member);

    // As Kafka's shareGroupHeartbeat (hasAssignedPartitionsChanged): a new member epoch alone goes without the assignment.
    const changed = joining || req.subscribedTopicNames !== null || !assignmentsEqual(previousAssignment, member.assignedPartitions);
    return {
      errorCode: E.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.config.timeoutsOf(group.groupId).heartbeatIntervalMs,
      assignment: changed ? { topicPartitions: toTopicPartitions(member.assignedPartitions) } : null,
    };
  }

  /** Kafka's getOrMaybeCreateShareGroup: an id of another group type is not found. */
  private getOrMaybeCreateGroup(groupId: string, createIfNotExists: boolean): ShareGroup {
    const group = this.groups.get(groupId);
    if (group) return group;
    if (this.isOtherGroup(groupId)) throw new ShareGroupError(E.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
    if (!createIfNotExists) throw new ShareGroupError(E.GROUP_ID_NOT_FOUND, `Share group ${groupId} not found.`);
    const created = new ShareGroup(groupId);
    this.groups.set(groupId, created);
    return created;
  }

  /** Applies the request's subscription to the member; returns whether the subscribed topics changed. */
  private updateMember(group: ShareGroup, member: ShareGroupMember, req: ShareGroupHeartbeatRequest, isNew: boolean, records: CoordinatorRecord[]): boolean {
    const before = { rackId: member.rackId, clientId: member.clientId, clientHost: member.clientHost, topics: member.subscribedTopicNames };
    if (req.rackId !== null) member.rackId = req.rackId;
    if (req.subscribedTopicNames !== null) member.subscribedTopicNames = [...req.subscribedTopicNames];
    member.clientId = req.clientId;
    member.clientHost = req.clientHost;
    const topicsChanged = !sameNames(before.topics, member.subscribedTopicNames);
    if (isNew || topicsChanged || before.rackId !== member.rackId || before.clientId !== member.clientId || before.clientHost !== member.clientHost) {
      records.push(shareMemberMetadataRecord(group.groupId, member.memberId, {
        rackId: member.rackId, clientId: member.clientId, clientHost: member.clientHost, subscribedTopicNames: member.subscribedTopicNames,
      }));
    }
    return isNew || topicsChanged;
  }

  /**
   * Initializes the share-partition state of subscribed partitions that have none, as Kafka's GroupMetadataManager
   * does: the partitions are recorded as initializing with a group epoch bump, InitializeShareGroupState is sent at
   * that epoch (start offset -1: share.auto.offset.reset decides), and those it initialized are recorded as such with
   * another bump, which brings them into the assignment (a Kafka 4.4 member joining a topic is at epoch 3 once its
   * partitions are assigned; kafkite gets there in the join's answer, Kafka a few heartbeats later). A partition
   * recorded as initializing less than group.share.initialize.retry.interval.ms ago is not sent again
   * (subscribedTopicsChangeMap): one left initializing by a restart between the two records waits that long. A
   * partition the Persister refuses leaves the initializing set (uninitializeShareGroupState), so the next heartbeat
   * tries it again. A topic no member subscribes to any more keeps its state until the group is deleted.
   */
  private async initializeStates(group: ShareGroup, records: CoordinatorRecord[]): Promise<void> {
    const now = Date.now();
    const pending = new Map<string, InitializedTopic>();
    for (const topic of group.subscriptionMetadata.values()) {
      for (let p = 0; p < topic.numPartitions; p++) {
        if (group.isInitialized(topic.topicId, p) || group.isInitializing(topic.topicId, p, now, this.config.initializeRetryIntervalMs)) continue;
        let entry = pending.get(topic.topicId);
        if (!entry) pending.set(topic.topicId, (entry = { topicName: topic.name, partitions: new Set() }));
        entry.partitions.add(p);
      }
    }
    if (pending.size === 0) return;
    group.markInitializing(pending, now);
    records.push(shareStatePartitionMetadataRecord(group.groupId, group.initializedTopics, group.initializingTopics));
    this.bumpGroupEpoch(group, records);
    let changed = false;
    for (const [topicId, { topicName, partitions }] of pending) {
      for (const partition of partitions) {
        try {
          await this.persister?.initializeState({ groupId: group.groupId, topicId, partition }, group.groupEpoch, -1);
        } catch (err) {
          const errorCode = err instanceof PersisterError ? err.errorCode : undefined;
          this.log?.warn({ err, errorCode, group: group.groupId, topic: topicName, partition }, 'failed to initialize share-partition state');
          group.doneInitializing(topicId, partition);
          continue;
        }
        group.doneInitializing(topicId, partition);
        let entry = group.initializedTopics.get(topicId);
        if (!entry) group.initializedTopics.set(topicId, (entry = { topicName, partitions: new Set() }));
        entry.partitions.add(partition);
        changed = true;
      }
    }
    records.push(shareStatePartitionMetadataRecord(group.groupId, group.initializedTopics, group.initializingTopics));
    if (changed) this.bumpGroupEpoch(group, records);
  }

  protected override bumpGroupEpoch(group: ShareGroup, records: CoordinatorRecord[]): void {
    group.groupEpoch++;
    records.push(shareGroupEpochRecord(group.groupId, group.groupEpoch, group.metadataHash));
    this.log?.info({ group: group.groupId, groupEpoch: group.groupEpoch }, 'bumped share group epoch');
  }

  /** Runs the simple assignor over the initialized partitions of the subscribed topics that exist. */
  private updateTargetAssignment(group: ShareGroup, records: CoordinatorRecord[]): void {
    const topicIdOf = new Map([...group.subscriptionMetadata.values()].map((t) => [t.name, t.topicId]));
    const partitions = new Map<string, number[]>();
    for (const topic of group.subscriptionMetadata.values()) {
      const initialized = [...group.initializedTopics.get(topic.topicId)?.partitions ?? []].filter((p) => p < topic.numPartitions);
      if (initialized.length > 0) partitions.set(topic.topicId, initialized);
    }
    const members = new Map([...group.members.values()].map((m) => [m.memberId, {
      subscribedTopicIds: new Set(m.subscribedTopicNames.flatMap((n) => topicIdOf.get(n) ?? [])),
      assignment: group.targetAssignment.get(m.memberId) ?? new Map(),
    }]));
    this.recordTargetAssignment(group, assignShareGroup({ members, partitions }), assignmentsEqual, shareTargetAssignmentRecord, records);
    this.log?.info({ group: group.groupId, assignmentEpoch: group.assignmentEpoch }, 'computed new share group target assignment');
  }

  protected override assignmentEpochRecord(group: ShareGroup): CoordinatorRecord {
    return shareTargetAssignmentEpochRecord(group.groupId, group.assignmentEpoch, group.assignmentTimestamp);
  }

  // ---- leaving and expiry ----

  private leave(req: ShareGroupHeartbeatRequest, records: CoordinatorRecord[]): ShareGroupHeartbeatResult {
    const group = this.getOrMaybeCreateGroup(req.groupId, false);
    const member = group.members.get(req.memberId);
    if (!member) throw new ShareGroupError(E.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${group.groupId}.`);
    this.log?.info({ group: group.groupId, member: member.memberId }, 'member left the share group');
    this.removeMemberAndBumpEpoch(group, member, records);
    return { errorCode: E.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: LEAVE_GROUP_MEMBER_EPOCH, heartbeatIntervalMs: 0, assignment: null };
  }

  protected override memberTombstones(groupId: string, memberId: string): CoordinatorRecord[] {
    return [T.CurrentMemberAssignment, T.TargetAssignmentMember, T.MemberMetadata].map((type) => shareTombstone(type, groupId, memberId));
  }

  /** The member goes, and the listeners hear of it (Kafka's shareGroupFenceMember). */
  protected override removeMember(group: ShareGroup, member: ShareGroupMember): void {
    group.members.delete(member.memberId);
    group.targetAssignment.delete(member.memberId);
    for (const l of this.listeners) {
      l.onMemberLeave(group.groupId, member.memberId);
      if (group.isEmpty()) l.onGroupEmpty(group.groupId);
    }
  }

  // ---- ShareGroupDescribe, DeleteGroups ----

  describe(groupId: string, topics: TopicsImage): DescribedShareGroup {
    const group = this.groups.get(groupId);
    if (!group) {
      const message = this.isOtherGroup(groupId) ? `Group ${groupId} is not a share group.` : `Group ${groupId} not found.`;
      return { errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: message, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] };
    }
    return {
      ...describedGroup(group),
      assignorName: SIMPLE_ASSIGNOR_NAME,
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        assignment: {
          topicPartitions: toTopicPartitions(m.assignedPartitions).map((tp) => ({ ...tp, topicName: topics.getById(tp.topicId)?.name ?? '' })),
        },
      })),
    };
  }

  /** DeleteGroups: an empty share group goes with its share-partition state (Persister.deleteState). */
  deleteGroup(groupId: string): Promise<number> {
    return this.serialized(groupId, async () => {
      const group = this.groups.get(groupId);
      if (!group) return E.GROUP_ID_NOT_FOUND;
      if (!group.isEmpty()) return E.NON_EMPTY_GROUP;
      try {
        for (const [topicId, t] of group.initializedTopics) {
          for (const partition of t.partitions) await this.persister?.deleteState({ groupId, topicId, partition });
        }
        const records: CoordinatorRecord[] = [...group.targetAssignment.keys()].map((m) => shareTombstone(T.TargetAssignmentMember, groupId, m));
        records.push(
          shareTombstone(T.StatePartitionMetadata, groupId),
          shareTombstone(T.TargetAssignmentMetadata, groupId),
          shareTombstone(T.Metadata, groupId),
        );
        await this.append(groupId, records);
      } catch (err) {
        this.log?.warn({ err, group: groupId }, 'failed to delete share group');
        return E.COORDINATOR_NOT_AVAILABLE;
      }
      this.groups.delete(groupId);
      return E.NONE;
    });
  }

  /**
   * AlterShareGroupOffsets initialized these partitions' state: they count as initialized, so that members joining
   * later are assigned them without initializing them again over the new start offset. An unused id becomes an
   * empty share group, as Kafka 4.4's alterShareGroupOffsets creates it (getOrMaybeCreatePersistedShareGroup).
   */
  onStateInitialized(groupId: string, topicId: string, topicName: string, partitions: readonly number[]): Promise<void> {
    return this.serialized(groupId, async () => {
      if (partitions.length === 0) return;
      const group = this.groups.get(groupId) ?? this.getOrMaybeCreateGroup(groupId, true);
      let entry = group.initializedTopics.get(topicId);
      if (!entry) group.initializedTopics.set(topicId, (entry = { topicName, partitions: new Set() }));
      for (const p of partitions) entry.partitions.add(p);
      await this.append(groupId, [shareStatePartitionMetadataRecord(groupId, group.initializedTopics, group.initializingTopics)]);
    });
  }

  /** DeleteShareGroupOffsets deleted a topic's state: its partitions are initialized again when next assigned. */
  onStateDeleted(groupId: string, topicId: string): Promise<void> {
    return this.serialized(groupId, async () => {
      const group = this.groups.get(groupId);
      if (!group?.initializedTopics.delete(topicId)) return;
      await this.append(groupId, [shareStatePartitionMetadataRecord(groupId, group.initializedTopics, group.initializingTopics)]);
    });
  }

  /**
   * A deleted topic's share-partition state goes from every share group that initialized it (Kafka's
   * maybeCleanupShareGroupState); members drop its partitions at their next heartbeat, when the hash changes.
   */
  async onTopicDeleted(topicName: string): Promise<void> {
    for (const group of [...this.groups.values()]) {
      await this.serialized(group.groupId, async () => {
        const gone = [...group.initializedTopics].filter(([, t]) => t.topicName === topicName);
        if (gone.length === 0) return;
        const warn = (err: unknown) => this.log?.warn({ err, group: group.groupId, topic: topicName }, 'failed to clean up the share state of a deleted topic');
        for (const [topicId, t] of gone) {
          // The share coordinator also drops a deleted topic's state (by its id): a failure here leaves nothing behind.
          for (const partition of t.partitions) await this.persister?.deleteState({ groupId: group.groupId, topicId, partition }).catch(warn);
          group.initializedTopics.delete(topicId);
        }
        await this.append(group.groupId, [shareStatePartitionMetadataRecord(group.groupId, group.initializedTopics, group.initializingTopics)]).catch(warn);
      });
    }
  }
}

/** GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid. */
function validateHeartbeat(req: ShareGroupHeartbeatRequest): void {
  const invalid = (message: string | null) => new ShareGroupError(E.INVALID_REQUEST, message);
  // Kafka 4.4 answers an empty member id without a message (seen on the reference broker).
  if (req.memberId === '') throw invalid(null);
  if (req.groupId === '') throw invalid("GroupId can't be empty.");
  if (req.rackId === '') throw invalid("RackId can't be empty.");
  if (req.memberEpoch === 0) {
    if (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0) throw invalid('SubscribedTopicNames must be set in first request.');
  } else if (req.memberEpoch < LEAVE_GROUP_MEMBER_EPOCH) {
    throw invalid('MemberEpoch is invalid.');
  }
}

/** Kafka's throwIfShareGroupMemberEpochIsInvalid: the current epoch, or the previous one (a lost response). */
function throwIfMemberEpochIsInvalid(member: ShareGroupMember, receivedEpoch: number): void {
  if (receivedEpoch > member.memberEpoch) {
    throw new ShareGroupError(E.FENCED_MEMBER_EPOCH,
      `The share group member has a greater member epoch (${receivedEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`);
  }
  if (receivedEpoch < member.memberEpoch && receivedEpoch !== member.previousMemberEpoch) {
    throw new ShareGroupError(E.FENCED_MEMBER_EPOCH,
      `The share group member has a smaller member epoch (${receivedEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`);
  }
}
