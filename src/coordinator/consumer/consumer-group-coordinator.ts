// The KIP-848 consumer group protocol of a single broker (Kafka's GroupMetadataManager for consumer
// groups): ConsumerGroupHeartbeat with server-side assignors, ConsumerGroupDescribe, and the checks
// the shared offset and group administration APIs make on consumer groups. Each change is written
// to __consumer_offsets as Kafka's consumer group records before it is acknowledged.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  assignmentsEqual, type Assignment, type AssignmentMemberSpec, type PartitionAssignor, type TopicMetadata,
} from './assignors/assignor.js';
import { RangeAssignor } from './assignors/range.js';
import { UniformAssignor } from './assignors/uniform.js';
import type { GroupCoordinatorConfig } from '../coordinator-config.js';
import { ConsumerGroup, CONSUMER_GROUP_TYPE } from './consumer-group.js';
import {
  ConsumerGroupMember, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, MemberState, type MemberAssignmentState,
} from './consumer-group-member.js';
import {
  ConsumerGroupRecordType as T, currentAssignmentRecord, groupEpochRecord, memberMetadataRecord,
  targetAssignmentEpochRecord, targetAssignmentRecord, tombstone, type MemberMetadata,
} from './consumer-group-records.js';
import { replayConsumerGroups } from './consumer-group-replay.js';
import { metadataHash } from '../metadata-hash.js';
import { compileTopicRegex, InvalidRegularExpressionError, resolveTopicRegex } from './topic-regex.js';
import { FencedMemberEpochError, reconcile, type OwnedTopicPartitions } from './current-assignment-builder.js';
import { ErrorCode as E } from '../../errors.js';
import { GroupState, type ClassicGroup } from '../classic/classic-group.js';
import type { OffsetMetadataManager } from '../offset-metadata-manager.js';
import { describedGroup, ModernGroupCoordinator, type RevokingMember } from '../modern-groups.js';
import type { CoordinatorRecord, OffsetsTopic } from '../offsets-topic.js';
import { groupMetadataKey } from '../records.js';

/** The broker's topics as the coordinator needs them (the TopicRegistry fits). */
export interface TopicsImage {
  get(name: string): TopicImageEntry | undefined;
  getById(topicId: string): TopicImageEntry | undefined;
  /** Every topic, for resolving regex subscriptions. */
  all(): Iterable<TopicImageEntry>;
}

export interface TopicImageEntry {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: number;
}

export interface ConsumerGroupHeartbeatRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  topicPartitions: OwnedTopicPartitions[] | null;
  clientId: string;
  clientHost: string;
  /** The request's version: from v1 the member generates its own id (KIP-1082). */
  apiVersion: number;
}

interface TopicPartitions {
  topicId: string;
  partitions: number[];
}

export interface ConsumerGroupHeartbeatResult {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: TopicPartitions[] } | null;
}

interface DescribedTopicPartitions {
  topicId: string;
  topicName: string;
  partitions: number[];
}

export interface DescribedConsumerGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: Array<{
    memberId: string;
    instanceId: string | null;
    rackId: string | null;
    memberEpoch: number;
    clientId: string;
    clientHost: string;
    subscribedTopicNames: string[];
    subscribedTopicRegex: string | null;
    assignment: { topicPartitions: DescribedTopicPartitions[] };
    targetAssignment: { topicPartitions: DescribedTopicPartitions[] };
  }>;
}

/** A request refused with a Kafka error code and message. */
class ConsumerGroupError extends Error {
  override name = 'ConsumerGroupError';
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

const ASSIGNORS: ReadonlyMap<string, PartitionAssignor> = new Map(
  [new UniformAssignor(), new RangeAssignor()].map((a) => [a.name, a]),
);

class UnknownAssignorError extends Error {
  override name = 'UnknownAssignorError';
}

function errorResult(errorCode: number, errorMessage: string | null = null): ConsumerGroupHeartbeatResult {
  return { errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

export function toTopicPartitions(assignment: Assignment): TopicPartitions[] {
  return [...assignment].map(([topicId, partitions]) => ({ topicId, partitions: [...partitions].sort((a, b) => a - b) }));
}

export function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((n) => set.has(n));
}

/** Kafka's Uuid.randomUuid().toString(): 16 random bytes, URL-safe base64 without padding. */
function newMemberId(): string {
  return randomBytes(16).toString('base64url');
}

/** Metadata of every subscribed topic that exists, by name in name order (consumer and share groups). */
export function subscribedTopicsMetadata(names: Iterable<string>, topics: TopicsImage): Map<string, TopicMetadata> {
  const metadata = new Map<string, TopicMetadata>();
  for (const name of [...names].sort()) {
    const topic = topics.get(name);
    if (topic) metadata.set(name, { topicId: topic.topicId, name, numPartitions: topic.partitions });
  }
  return metadata;
}

/** A group's session timeout, heartbeat interval and assignment interval (its group configs, else the broker's; no assignment interval: none). */
export type ConsumerGroupTimeoutsOf = (groupId: string) => { sessionTimeoutMs: number; heartbeatIntervalMs: number; assignmentIntervalMs?: number };

export class ConsumerGroupCoordinator extends ModernGroupCoordinator<ConsumerGroup, ConsumerGroupMember> {
  private readonly assignors: ReadonlyMap<string, PartitionAssignor>;
  /** Read at each heartbeat, so an altered group config applies at the member's next heartbeat (as in Kafka). */
  timeoutsOf: ConsumerGroupTimeoutsOf = () => ({
    sessionTimeoutMs: this.config.consumerGroupSessionTimeoutMs, heartbeatIntervalMs: this.config.consumerGroupHeartbeatIntervalMs,
  });

  constructor(
    private readonly config: GroupCoordinatorConfig,
    offsetsTopic: OffsetsTopic,
    private readonly offsetManager: OffsetMetadataManager,
    /** The classic groups: a group id belongs to one protocol at a time. */
    private readonly classicGroups: Map<string, ClassicGroup>,
    log?: Logger,
  ) {
    super(CONSUMER_GROUP_TYPE, replayConsumerGroups, offsetsTopic, log);
    this.assignors = new Map(config.consumerGroupAssignors.map((name) => {
      const assignor = ASSIGNORS.get(name);
      if (!assignor) throw new UnknownAssignorError(`group.consumer.assignors: unknown assignor ${name}`);
      return [name, assignor];
    }));
  }

  protected override sessionTimeoutMs(groupId: string): number {
    return this.timeoutsOf(groupId).sessionTimeoutMs;
  }

  protected override assignmentIntervalMs(groupId: string): number {
    return this.timeoutsOf(groupId).assignmentIntervalMs ?? 0;
  }

  /** A member that does not revoke its partitions within its rebalance timeout is fenced. */
  protected override revoking(member: ConsumerGroupMember): member is ConsumerGroupMember & RevokingMember {
    return member.state === MemberState.UnrevokedPartitions;
  }

  // ---- ConsumerGroupHeartbeat ----

  heartbeat(req: ConsumerGroupHeartbeatRequest, topics: TopicsImage): Promise<ConsumerGroupHeartbeatResult> {
    return this.heartbeatFrame(req.groupId, (records) => {
      this.validateHeartbeat(req);
      return req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH
        ? this.leave(req, records)
        : this.memberHeartbeat(req, topics, records);
    }, (err) => {
      if (err instanceof ConsumerGroupError) return errorResult(err.errorCode, err.message);
      if (err instanceof FencedMemberEpochError) return errorResult(E.FENCED_MEMBER_EPOCH, err.message);
      if (err instanceof InvalidRegularExpressionError) return errorResult(E.INVALID_REGULAR_EXPRESSION, err.message);
      return undefined;
    }, errorResult(E.COORDINATOR_NOT_AVAILABLE));
  }

  private validateHeartbeat(req: ConsumerGroupHeartbeatRequest): void {
    const invalid = (message: string) => new ConsumerGroupError(E.INVALID_REQUEST, message);
    // Kafka's GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid. From v1 the member
    // generates its own id (KIP-1082); in v0 a joining member may leave it to the coordinator.
    if ((req.apiVersion >= 1 || req.memberEpoch > 0 || req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) && req.memberId === '') {
      throw invalid("MemberId can't be empty.");
    }
    if (req.groupId === '') throw invalid("GroupId can't be empty.");
    if (req.instanceId === '') throw invalid("InstanceId can't be empty.");
    if (req.rackId === '') throw invalid("RackId can't be empty.");
    if (req.memberEpoch === 0) {
      if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
      if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalid('TopicPartitions must be empty when (re-)joining.');
      // An empty list or an empty regex is a member subscribed to nothing, still in the group.
      if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null) {
        throw invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
      }
    } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      if (req.instanceId === null) throw invalid("InstanceId can't be null.");
    } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      throw invalid('MemberEpoch is invalid.');
    }
    if (req.serverAssignor !== null && !this.assignors.has(req.serverAssignor)) {
      throw new ConsumerGroupError(
        E.UNSUPPORTED_ASSIGNOR,
        `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${[...this.assignors.keys()].join(', ')}.`,
      );
    }
    // Kafka compiles a regex when a member brings it; compiling every non-empty one refuses the same requests
    // before anything changes (compiled patterns are cached).
    if (req.subscribedTopicRegex) compileTopicRegex(req.subscribedTopicRegex);
  }

  private memberHeartbeat(req: ConsumerGroupHeartbeatRequest, topics: TopicsImage, records: CoordinatorRecord[]): ConsumerGroupHeartbeatResult {
    const joining = req.memberEpoch === 0;
    const group = this.getOrMaybeCreateGroup(req.groupId, joining, records);
    const memberId = req.memberId === '' ? newMemberId() : req.memberId;
    if (!group.members.has(memberId) && group.members.size >= this.config.consumerGroupMaxSize) {
      throw new ConsumerGroupError(E.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${this.config.consumerGroupMaxSize} members.`);
    }
    const isNew = !group.members.has(memberId) && group.staticMember(req.instanceId) === undefined;
    const member = req.instanceId === null
      ? this.dynamicMember(group, memberId, req)
      : this.staticMember(group, memberId, req.instanceId, req, records);
    const previous: MemberAssignmentState = { ...member };

    // 1. The member's subscription; a change in it, or in the subscribed topics, bumps the group epoch.
    let bumpGroupEpoch = this.updateMember(group, member, req, isNew, records);
    if (this.refreshRegexes(group, topics)) bumpGroupEpoch = true;
    group.subscriptionMetadata = this.subscriptionMetadata(group, topics);
    const hash = metadataHash(group.subscriptionMetadata.values());
    if (hash !== group.metadataHash) {
      group.metadataHash = hash;
      bumpGroupEpoch = true;
    }
    if (group.hasSubscriptionMetadataRecord) {
      // A record from before KIP-1101 goes, as Kafka 4.1+ removes it at the group's next heartbeat.
      records.push(tombstone(T.PartitionMetadata, group.groupId));
      group.hasSubscriptionMetadataRecord = false;
    }
    if (bumpGroupEpoch) this.bumpGroupEpoch(group, records);

    // 2. A new group epoch gets a new target assignment, at most one per assignment interval (KIP-1263).
    if (group.groupEpoch > group.assignmentEpoch && this.canComputeNextTargetAssignment(group)) this.updateTargetAssignment(group, records);

    // 3. The member moves towards its target as far as revocations allow.
    this.reconcileMember(group, member, req.topicPartitions, records);
    this.scheduleSessionTimeout(group, member);

    // As Kafka's consumerGroupHeartbeat, the assignment goes back on a join, on a full request (a client resyncing) or
    // when the member's partitions changed; a new epoch alone goes back without it (a member waiting for partitions
    // another still holds moves to the target's epoch with none).
    const isFullRequest = joining ||
      (req.rebalanceTimeoutMs !== -1 && (req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null) && req.topicPartitions !== null);
    const changed = !assignmentsEqual(previous.assignedPartitions, member.assignedPartitions);
    return {
      errorCode: E.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.timeoutsOf(group.groupId).heartbeatIntervalMs,
      assignment: isFullRequest || changed ? { topicPartitions: toTopicPartitions(member.assignedPartitions) } : null,
    };
  }

  /** The group, created (or converted from an empty classic group) for a joining member. */
  private getOrMaybeCreateGroup(groupId: string, createIfNotExists: boolean, records: CoordinatorRecord[]): ConsumerGroup {
    const group = this.groups.get(groupId);
    if (group) return group;
    const classic = this.classicGroups.get(groupId);
    if (classic && !(createIfNotExists && classic.is(GroupState.Empty))) {
      throw new ConsumerGroupError(E.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    }
    if (!createIfNotExists) throw new ConsumerGroupError(E.GROUP_ID_NOT_FOUND, `Consumer group ${groupId} not found.`);
    if (classic) {
      // The empty classic group (committed offsets only) becomes a consumer group; its offsets stay.
      this.classicGroups.delete(groupId);
      records.push({ key: groupMetadataKey(groupId), value: null });
      this.log?.info({ group: groupId }, 'converted the empty classic group to a consumer group');
    }
    const created = new ConsumerGroup(groupId);
    this.groups.set(groupId, created);
    return created;
  }

  private dynamicMember(group: ConsumerGroup, memberId: string, req: ConsumerGroupHeartbeatRequest): ConsumerGroupMember {
    const member = group.members.get(memberId);
    if (req.memberEpoch === 0) return member ?? this.addNewMember(group, memberId, null);
    if (!member) throw new ConsumerGroupError(E.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
    throwIfMemberEpochIsInvalid(member, req.memberEpoch, req.topicPartitions);
    return member;
  }

  private staticMember(
    group: ConsumerGroup, memberId: string, instanceId: string, req: ConsumerGroupHeartbeatRequest, records: CoordinatorRecord[],
  ): ConsumerGroupMember {
    const existing = group.staticMember(instanceId);
    if (req.memberEpoch === 0) {
      if (!existing) return this.addNewMember(group, memberId, instanceId);
      if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        throw new ConsumerGroupError(
          E.UNRELEASED_INSTANCE_ID,
          `Static member ${existing.memberId} with instance id ${instanceId} is not released yet: it must leave with epoch -2 first.`,
        );
      }
      return this.replaceStaticMember(group, existing, memberId, records);
    }
    const member = group.members.get(memberId);
    if (!member) throw new ConsumerGroupError(E.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
    if (existing !== member) {
      throw new ConsumerGroupError(E.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${instanceId} was fenced by another member.`);
    }
    throwIfMemberEpochIsInvalid(member, req.memberEpoch, req.topicPartitions);
    return member;
  }

  private addNewMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember {
    const member = new ConsumerGroupMember(memberId);
    member.instanceId = instanceId;
    group.addMember(member);
    return member;
  }

  /** A static member's new incarnation takes over the old one's assignment, epoch and target, without a rebalance. */
  private replaceStaticMember(group: ConsumerGroup, old: ConsumerGroupMember, memberId: string, records: CoordinatorRecord[]): ConsumerGroupMember {
    const target = group.targetAssignment.get(old.memberId);
    records.push(...this.memberTombstones(group.groupId, old.memberId));
    group.removeMember(old.memberId);
    old.clearTimers();
    const member = new ConsumerGroupMember(memberId);
    Object.assign(member, memberMetadataOf(old));
    // As in Kafka, the new incarnation starts at epoch 0 with the old one's partitions and reconciles from there.
    member.setAssignmentState({ ...old, memberEpoch: 0, previousMemberEpoch: 0 });
    group.addMember(member);
    if (target) {
      group.targetAssignment.set(memberId, target);
      records.push(targetAssignmentRecord(group.groupId, memberId, target));
    }
    records.push(memberMetadataRecord(group.groupId, memberId, memberMetadataOf(member)));
    records.push(currentAssignmentRecord(group.groupId, memberId, member));
    this.log?.info({ group: group.groupId, member: memberId, replaced: old.memberId }, 'static member rejoined');
    return member;
  }

  /** Applies the request's subscription to the member; returns whether the subscription changed. */
  private updateMember(
    group: ConsumerGroup, member: ConsumerGroupMember, req: ConsumerGroupHeartbeatRequest, isNew: boolean, records: CoordinatorRecord[],
  ): boolean {
    const before = memberMetadataOf(member);
    if (req.instanceId !== null) member.instanceId = req.instanceId;
    if (req.rackId !== null) member.rackId = req.rackId;
    if (req.rebalanceTimeoutMs !== -1) member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    if (req.serverAssignor !== null) member.serverAssignor = req.serverAssignor;
    if (req.subscribedTopicNames !== null) member.subscribedTopicNames = [...req.subscribedTopicNames];
    if (req.subscribedTopicRegex !== null) member.subscribedTopicRegex = req.subscribedTopicRegex;
    member.clientId = req.clientId;
    member.clientHost = req.clientHost;
    const after = memberMetadataOf(member);
    if (isNew || !sameMemberMetadata(before, after)) records.push(memberMetadataRecord(group.groupId, member.memberId, after));
    return isNew || !sameNames(before.subscribedTopicNames, after.subscribedTopicNames) || before.subscribedTopicRegex !== after.subscribedTopicRegex;
  }

  /**
   * Resolves the group's regexes against the current topics; returns whether a resolution changed.
   * Kafka resolves them asynchronously, at most every 10 s and when the metadata image has new topics;
   * here they are resolved at each heartbeat (a topic listing on one node is cheap), so a topic created
   * or deleted is picked up by the next heartbeat of any member.
   */
  private refreshRegexes(group: ConsumerGroup, topics: TopicsImage): boolean {
    const regexes = group.subscribedRegexes();
    if (regexes.size === 0 && group.resolvedRegexes.size === 0) return false;
    const names = [...topics.all()].map((t) => t.name);
    const resolved = new Map<string, ReadonlySet<string>>();
    let changed = regexes.size !== group.resolvedRegexes.size;
    for (const regex of regexes) {
      const matched = resolveTopicRegex(regex, names);
      const previous = group.resolvedRegexes.get(regex);
      if (!previous || !sameNames([...previous], [...matched])) changed = true;
      resolved.set(regex, matched);
    }
    group.resolvedRegexes = resolved;
    if (changed) this.log?.info({ group: group.groupId, regexes: [...regexes] }, 'resolved regular expression subscriptions');
    return changed;
  }

  private subscriptionMetadata(group: ConsumerGroup, topics: TopicsImage): Map<string, TopicMetadata> {
    return subscribedTopicsMetadata(group.subscribedTopicNames(), topics);
  }

  protected override bumpGroupEpoch(group: ConsumerGroup, records: CoordinatorRecord[]): void {
    group.groupEpoch++;
    records.push(groupEpochRecord(group.groupId, group.groupEpoch, group.metadataHash));
    this.log?.info({ group: group.groupId, groupEpoch: group.groupEpoch }, 'bumped consumer group epoch');
  }

  /** Kafka's TargetAssignmentBuilder: runs the group's assignor, records the members whose target changed. */
  private updateTargetAssignment(group: ConsumerGroup, records: CoordinatorRecord[]): void {
    const assignor = this.assignors.get(group.preferredAssignor([...this.assignors.keys()]))!;
    const topicIdOf = new Map([...group.subscriptionMetadata.values()].map((t) => [t.name, t.topicId]));
    const members = new Map<string, AssignmentMemberSpec>();
    for (const m of group.members.values()) {
      members.set(m.memberId, {
        subscribedTopicIds: new Set(group.memberTopicNames(m).flatMap((n) => topicIdOf.get(n) ?? [])),
        instanceId: m.instanceId,
        rackId: m.rackId,
        assignment: group.targetAssignment.get(m.memberId) ?? new Map(),
      });
    }
    const topicsById = new Map([...group.subscriptionMetadata.values()].map((t) => [t.topicId, t]));
    const target = assignor.assign({ members, topics: topicsById });
    this.recordTargetAssignment(group, target, assignmentsEqual, targetAssignmentRecord, records);
    this.log?.info({ group: group.groupId, assignmentEpoch: group.assignmentEpoch, assignor: assignor.name }, 'computed new target assignment');
  }

  private reconcileMember(
    group: ConsumerGroup, member: ConsumerGroupMember, owned: ReadonlyArray<OwnedTopicPartitions> | null, records: CoordinatorRecord[],
  ): void {
    const subscribedTopicIds = new Set(group.memberTopicNames(member).flatMap((n) => group.subscriptionMetadata.get(n)?.topicId ?? []));
    const next = reconcile(member, {
      subscribedTopicIds,
      targetEpoch: group.assignmentEpoch,
      target: group.targetAssignment.get(member.memberId) ?? new Map(),
      currentPartitionEpoch: (topicId, p) => group.currentPartitionEpoch(topicId, p),
      ownedTopicPartitions: owned,
    });
    if (next === member) return;
    const previousEpoch = member.memberEpoch;
    const previousState = member.state;
    group.updateAssignmentOf(member, () => member.setAssignmentState(next));
    records.push(currentAssignmentRecord(group.groupId, member.memberId, member));
    if (member.state === MemberState.UnrevokedPartitions) {
      if (previousState !== MemberState.UnrevokedPartitions || previousEpoch !== member.memberEpoch) this.scheduleRebalanceTimeout(group, member);
    } else {
      clearTimeout(member.rebalanceTimer);
      member.rebalanceTimer = undefined;
    }
  }

  // ---- leaving and expiry ----

  private leave(req: ConsumerGroupHeartbeatRequest, records: CoordinatorRecord[]): ConsumerGroupHeartbeatResult {
    const group = this.groups.get(req.groupId);
    if (!group) {
      const message = this.classicGroups.has(req.groupId) ? `Group ${req.groupId} is not a consumer group.` : `Consumer group ${req.groupId} not found.`;
      throw new ConsumerGroupError(E.GROUP_ID_NOT_FOUND, message);
    }
    let member: ConsumerGroupMember | undefined;
    if (req.instanceId === null) {
      member = group.members.get(req.memberId);
    } else {
      member = group.staticMember(req.instanceId);
      if (member && member.memberId !== req.memberId) {
        throw new ConsumerGroupError(E.FENCED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by another member.`);
      }
    }
    if (!member) throw new ConsumerGroupError(E.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${group.groupId}.`);

    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // A static member away for a restart keeps its partitions until its session times out.
      this.log?.info({ group: group.groupId, member: member.memberId, instance: req.instanceId }, 'static member left temporarily');
      group.updateAssignmentOf(member, () => {
        member.previousMemberEpoch = member.memberEpoch;
        member.memberEpoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH;
      });
      records.push(currentAssignmentRecord(group.groupId, member.memberId, member));
      this.scheduleSessionTimeout(group, member);
    } else {
      this.log?.info({ group: group.groupId, member: member.memberId }, 'member left the consumer group');
      this.removeMemberAndBumpEpoch(group, member, records);
    }
    return {
      errorCode: E.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: req.memberEpoch, heartbeatIntervalMs: 0, assignment: null,
    };
  }

  /** The member goes with its partitions, the regexes only it subscribed to, and the topics only it used. */
  protected override removeMember(group: ConsumerGroup, member: ConsumerGroupMember): void {
    group.removeMember(member.memberId);
    const stillSubscribed = group.subscribedRegexes();
    group.resolvedRegexes = new Map([...group.resolvedRegexes].filter(([regex]) => stillSubscribed.has(regex)));
    const remaining = group.subscribedTopicNames();
    const metadata = new Map([...group.subscriptionMetadata].filter(([name]) => remaining.has(name)));
    if (metadata.size !== group.subscriptionMetadata.size) {
      group.subscriptionMetadata = metadata;
      group.metadataHash = metadataHash(metadata.values());
    }
  }

  protected override memberTombstones(groupId: string, memberId: string): CoordinatorRecord[] {
    return [T.CurrentMemberAssignment, T.TargetAssignmentMember, T.MemberMetadata].map((type) => tombstone(type, groupId, memberId));
  }

  protected override assignmentEpochRecord(group: ConsumerGroup): CoordinatorRecord {
    return targetAssignmentEpochRecord(group.groupId, group.assignmentEpoch, group.assignmentTimestamp);
  }

  // ---- ConsumerGroupDescribe ----

  describe(groupId: string, topics: TopicsImage): DescribedConsumerGroup {
    const group = this.groups.get(groupId);
    if (!group) {
      const message = this.classicGroups.has(groupId) ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`;
      return {
        errorCode: E.GROUP_ID_NOT_FOUND, errorMessage: message, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0,
        assignorName: '', members: [],
      };
    }
    const describe = (assignment: Assignment): { topicPartitions: DescribedTopicPartitions[] } => ({
      topicPartitions: toTopicPartitions(assignment).map((tp) => ({ ...tp, topicName: topics.getById(tp.topicId)?.name ?? '' })),
    });
    return {
      ...describedGroup(group),
      assignorName: group.preferredAssignor([...this.assignors.keys()]),
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        subscribedTopicRegex: m.subscribedTopicRegex,
        assignment: describe(m.assignedPartitions),
        targetAssignment: describe(group.targetAssignment.get(m.memberId) ?? new Map()),
      })),
    };
  }

  // ---- the shared group APIs on consumer groups ----

  /** OffsetCommit by a consumer group member: the member must exist and send its current epoch (v9+). */
  validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number, apiVersion: number): number {
    const group = this.groups.get(groupId)!;
    // The admin client or a standalone consumer (epoch -1) may commit while the group has no members.
    if (memberEpoch < 0 && group.isEmpty()) return E.NONE;
    const member = group.members.get(memberId);
    if (!member) return E.UNKNOWN_MEMBER_ID;
    if (apiVersion < 9) return E.UNSUPPORTED_VERSION;
    return memberEpoch === member.memberEpoch ? E.NONE : E.STALE_MEMBER_EPOCH;
  }

  /** Topics members subscribe to: their committed offsets cannot be deleted. */
  subscribedTopics(groupId: string): Set<string> {
    return this.groups.get(groupId)?.subscribedTopicNames() ?? new Set();
  }

  /** DeleteGroups: an empty consumer group goes with its offsets. */
  deleteGroup(groupId: string): Promise<number> {
    return this.deleteEmptyGroup(groupId, (group) => [
      ...[...group.targetAssignment.keys()].map((memberId) => tombstone(T.TargetAssignmentMember, groupId, memberId)),
      tombstone(T.TargetAssignmentMetadata, groupId),
      tombstone(T.PartitionMetadata, groupId),
      tombstone(T.Metadata, groupId),
    ], this.offsetManager);
  }
}

/** Kafka's throwIfMemberEpochIsInvalid: a lower epoch is accepted only as a retry of the previous one. */
function throwIfMemberEpochIsInvalid(member: ConsumerGroupMember, receivedEpoch: number, owned: ReadonlyArray<OwnedTopicPartitions> | null): void {
  const fenced = () => new ConsumerGroupError(
    E.FENCED_MEMBER_EPOCH,
    `The consumer group member has a smaller member epoch (${receivedEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
  );
  if (receivedEpoch > member.memberEpoch) {
    throw new ConsumerGroupError(
      E.FENCED_MEMBER_EPOCH,
      `The consumer group member has a greater member epoch (${receivedEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
  if (receivedEpoch < member.memberEpoch) {
    // The response that bumped the epoch may have been lost: the retry is fine if it holds nothing new.
    if (receivedEpoch !== member.previousMemberEpoch || owned === null) throw fenced();
    const ownsOnlyAssigned = owned.every((tp) => tp.partitions.every((p) => member.assignedPartitions.get(tp.topicId)?.has(p) === true));
    if (!ownsOnlyAssigned) throw fenced();
  }
}

function memberMetadataOf(m: ConsumerGroupMember): MemberMetadata {
  return {
    instanceId: m.instanceId,
    rackId: m.rackId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    subscribedTopicNames: m.subscribedTopicNames,
    subscribedTopicRegex: m.subscribedTopicRegex,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    serverAssignor: m.serverAssignor,
  };
}

function sameMemberMetadata(a: MemberMetadata, b: MemberMetadata): boolean {
  return a.instanceId === b.instanceId && a.rackId === b.rackId && a.clientId === b.clientId && a.clientHost === b.clientHost &&
    a.subscribedTopicRegex === b.subscribedTopicRegex && a.rebalanceTimeoutMs === b.rebalanceTimeoutMs &&
    a.serverAssignor === b.serverAssignor && sameNames(a.subscribedTopicNames, b.subscribedTopicNames) &&
    a.subscribedTopicNames.length === b.subscribedTopicNames.length;
}
