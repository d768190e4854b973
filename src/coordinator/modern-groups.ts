// What the group types of the new protocols (KIP-848 consumer groups, KIP-932 share groups, KIP-1071 streams
// groups) share, as Kafka's GroupMetadataManager runs them alike over ModernGroup and ModernGroupMember: loading
// them with a session timer per member, the session and rebalance timeouts that fence a member, listing with their
// type, deletion of an empty group with its offsets, and their records' append to the group's __consumer_offsets
// partition. Each group type keeps its heartbeat, assignment and records.
import type { Logger } from 'pino';
import { ErrorCode as E } from '../errors.js';
import type { OffsetMetadataManager } from './offset-metadata-manager.js';
import { partitionFor, type CoordinatorRecord, type OffsetsTopic } from './offsets-topic.js';
import type { ListedGroup } from './types.js';

interface ModernGroupMember {
  readonly memberId: string;
  readonly memberEpoch: number;
  sessionTimer: NodeJS.Timeout | undefined;
  clearTimers(): void;
}

/** A member that may have to give up what it holds before it takes its target (consumer and streams members). */
export interface RevokingMember extends ModernGroupMember {
  readonly rebalanceTimeoutMs: number;
  rebalanceTimer: NodeJS.Timeout | undefined;
}

interface ModernGroup<M extends ModernGroupMember> {
  readonly groupId: string;
  groupEpoch: number;
  assignmentEpoch: number;
  /** When the target assignment was last computed (ms since the epoch; 0: never, or the group emptied since). */
  assignmentTimestamp: number;
  readonly state: string;
  readonly members: ReadonlyMap<string, M>;
  isEmpty(): boolean;
}

export abstract class ModernGroupCoordinator<G extends ModernGroup<M>, M extends ModernGroupMember> {
  protected readonly groups = new Map<string, G>();

  constructor(
    /** consumer, share or streams: the type ListGroups gives, and the logs' name for the group. */
    private readonly groupType: string,
    /** The group type's records in __consumer_offsets, replayed into its groups. */
    private readonly replay: (records: ReadonlyArray<CoordinatorRecord>) => Map<string, G>,
    protected readonly offsetsTopic: OffsetsTopic,
    protected readonly log: Logger | undefined,
  ) {}

  /** The group's session timeout, read at each heartbeat so that an altered group config applies at the next one. */
  protected abstract sessionTimeoutMs(groupId: string): number;

  /** The group's assignment interval (KIP-1263: consumer, share or streams.assignment.interval.ms), read at each heartbeat. */
  protected abstract assignmentIntervalMs(groupId: string): number;

  /** The tombstones of the member's records: its metadata, target assignment and current assignment. */
  protected abstract memberTombstones(groupId: string, memberId: string): CoordinatorRecord[];

  /** Takes the member out of the group, and what only it needed (before the group epoch is bumped). */
  protected abstract removeMember(group: G, member: M): void;

  /** Bumps the group epoch, recording it. */
  protected abstract bumpGroupEpoch(group: G, records: CoordinatorRecord[]): void;

  protected abstract assignmentEpochRecord(group: G): CoordinatorRecord;

  /** Whether the member still has to revoke what it holds. Share members never do: they take their target at once. */
  protected revoking(member: M): member is M & RevokingMember {
    return false;
  }

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  groupIds(): IterableIterator<string> {
    return this.groups.keys();
  }

  /**
   * Rebuilds the groups from __consumer_offsets: each member gets a fresh session to come back in, and one still
   * revoking a fresh rebalance timeout (GroupMetadataManager.onLoaded).
   */
  load(records: ReadonlyArray<CoordinatorRecord>): void {
    for (const [groupId, group] of this.replay(records)) {
      this.groups.set(groupId, group);
      for (const member of group.members.values()) {
        this.scheduleSessionTimeout(group, member);
        if (this.revoking(member)) this.scheduleRebalanceTimeout(group, member);
      }
    }
  }

  shutdown(): void {
    for (const group of this.groups.values()) for (const member of group.members.values()) member.clearTimers();
    this.groups.clear();
  }

  /** ListGroups: the groups in any of `states` (lower case; empty = all). */
  listGroups(states: ReadonlySet<string>): ListedGroup[] {
    const listed: ListedGroup[] = [];
    for (const group of this.groups.values()) {
      const state = group.state;
      if (states.size > 0 && !states.has(state.toLowerCase())) continue;
      listed.push({ groupId: group.groupId, protocolType: this.groupType, groupState: state, groupType: this.groupType });
    }
    return listed;
  }

  /** OffsetFetch v9+ may name a member: it must exist and be at its current epoch. */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): number {
    const group = this.groups.get(groupId);
    if (!group || (memberId === null && memberEpoch < 0)) return E.NONE;
    const member = memberId === null ? undefined : group.members.get(memberId);
    if (!member) return E.UNKNOWN_MEMBER_ID;
    return memberEpoch === member.memberEpoch ? E.NONE : E.STALE_MEMBER_EPOCH;
  }

  /**
   * A heartbeat: `decide` answers it (a refusal it throws becomes `refusal`'s answer, unless that gives undefined), and
   * the records it made are written before the answer goes (COORDINATOR_NOT_AVAILABLE, `unavailable`, if they cannot be).
   */
  protected async heartbeatFrame<R>(
    groupId: string, decide: (records: CoordinatorRecord[]) => R | Promise<R>, refusal: (err: unknown) => R | undefined, unavailable: R,
  ): Promise<R> {
    const records: CoordinatorRecord[] = [];
    let result: R;
    try {
      // Awaited only when it is a promise (share groups wait for the Persister), so that the records of a heartbeat
      // decided at once are appended in the order it changed the group.
      const decided = decide(records);
      result = decided instanceof Promise ? await decided : decided;
    } catch (err) {
      const refused = refusal(err);
      if (refused === undefined) throw err;
      return refused;
    }
    try {
      await this.append(groupId, records);
    } catch (err) {
      this.log?.warn({ err, group: groupId }, `failed to persist ${this.groupType} group heartbeat`);
      return unavailable;
    }
    return result;
  }

  /** The member is fenced unless it heartbeats again within its session timeout. */
  protected scheduleSessionTimeout(group: G, member: M): void {
    clearTimeout(member.sessionTimer);
    member.sessionTimer = setTimeout(
      () => this.expire(group, member, `${this.groupType} group member session expired`), this.sessionTimeoutMs(group.groupId),
    );
    member.sessionTimer.unref();
  }

  /** A member still revoking at the same epoch after its rebalance timeout is fenced. */
  protected scheduleRebalanceTimeout(group: G, member: M & RevokingMember): void {
    clearTimeout(member.rebalanceTimer);
    const epoch = member.memberEpoch;
    member.rebalanceTimer = setTimeout(() => {
      if (this.revoking(member) && member.memberEpoch === epoch) this.expire(group, member, 'member did not revoke within the rebalance timeout');
    }, Math.max(member.rebalanceTimeoutMs, 0));
    member.rebalanceTimer.unref();
  }

  /** A timer fences the member (share groups queue it behind the group's requests). */
  protected expire(group: G, member: M, reason: string): void {
    void this.fenceMember(group, member, reason);
  }

  /** The member, if still the group's, is removed and its removal written (Kafka's consumer/share/streamsGroupFenceMember). */
  protected async fenceMember(group: G, member: M, reason: string): Promise<void> {
    if (this.groups.get(group.groupId) !== group || group.members.get(member.memberId) !== member) return;
    this.log?.info({ group: group.groupId, member: member.memberId }, reason);
    const records: CoordinatorRecord[] = [];
    this.removeMemberAndBumpEpoch(group, member, records);
    await this.append(group.groupId, records).catch((err) => this.log?.warn({ err, group: group.groupId }, 'failed to persist member removal'));
  }

  /**
   * Removes the member with its records and bumps the group epoch (Kafka's consumer/share/streamsGroupFenceMember); the
   * next heartbeat of the group, if any, computes the target assignment without it.
   */
  protected removeMemberAndBumpEpoch(group: G, member: M, records: CoordinatorRecord[]): void {
    member.clearTimers();
    records.push(...this.memberTombstones(group.groupId, member.memberId));
    this.removeMember(group, member);
    this.bumpGroupEpoch(group, records);
    // The last member gone: no assignment to compute, so the assignment epoch catches up with the group's (an
    // empty group's epochs match, KAFKA-20442 in Kafka 4.4; kafka-consumer-groups --describe --state shows both).
    // Its assignment timestamp goes back to 0, so that the next member is assigned at once (Kafka 4.4's
    // consumer/share/streamsGroupFenceMember write the last member's TargetAssignmentMetadata with timestamp 0).
    if (group.isEmpty()) {
      group.assignmentEpoch = group.groupEpoch;
      group.assignmentTimestamp = 0;
      records.push(this.assignmentEpochRecord(group));
    }
  }

  /**
   * Kafka 4.4's GroupMetadataManager.canComputeNextTargetAssignment (KIP-1263 batching), which its consumer, share and
   * streams heartbeats all ask: a new target only once the group's assignment interval has passed since the last one
   * (none yet, or an interval of 0: at once). Until then members reconcile towards the last target, so members joining
   * together are assigned in one run, and no member's partitions or tasks are moved for each joiner; the first
   * heartbeat after the interval computes it.
   */
  protected canComputeNextTargetAssignment(group: G): boolean {
    const intervalMs = this.assignmentIntervalMs(group.groupId);
    return group.assignmentTimestamp === 0 || intervalMs === 0 || Date.now() >= group.assignmentTimestamp + intervalMs;
  }

  /**
   * What Kafka's TargetAssignmentBuilder records of the assignor's `target`: each member whose target changed, then the
   * assignment epoch, now the group's, with the time it was computed.
   */
  protected recordTargetAssignment<A>(
    group: G & { readonly targetAssignment: Map<string, A> }, target: Iterable<[string, A]>, same: (a: A, b: A) => boolean,
    record: (groupId: string, memberId: string, assignment: A) => CoordinatorRecord, records: CoordinatorRecord[],
  ): void {
    for (const [memberId, assignment] of target) {
      const current = group.targetAssignment.get(memberId);
      if (current && same(current, assignment)) continue;
      group.targetAssignment.set(memberId, assignment);
      records.push(record(group.groupId, memberId, assignment));
    }
    group.assignmentEpoch = group.groupEpoch;
    group.assignmentTimestamp = Date.now();
    records.push(this.assignmentEpochRecord(group));
  }

  /** DeleteGroups: an empty group goes with its offsets; `groupTombstones` are its own records' tombstones. */
  protected async deleteEmptyGroup(
    groupId: string, groupTombstones: (group: G) => CoordinatorRecord[], offsetManager: OffsetMetadataManager,
  ): Promise<number> {
    const group = this.groups.get(groupId)!;
    if (!group.isEmpty()) return E.NON_EMPTY_GROUP;
    const records = [...offsetManager.tombstonesOf(groupId), ...groupTombstones(group)];
    try {
      await this.append(groupId, records);
    } catch (err) {
      this.log?.warn({ err, group: groupId }, 'failed to persist group deletion');
      return E.COORDINATOR_NOT_AVAILABLE;
    }
    if (this.groups.get(groupId) === group && group.isEmpty()) {
      this.groups.delete(groupId);
      offsetManager.forgetGroup(groupId);
    }
    return E.NONE;
  }

  protected async append(groupId: string, records: ReadonlyArray<CoordinatorRecord>): Promise<void> {
    if (records.length === 0) return;
    await this.offsetsTopic.append(partitionFor(groupId, this.offsetsTopic.numPartitions), records);
  }
}

/** The fields every type's description of a group it found starts with (Consumer/Share/StreamsGroupDescribe). */
export function describedGroup(group: ModernGroup<ModernGroupMember>): {
  errorCode: number; errorMessage: null; groupId: string; groupState: string; groupEpoch: number; assignmentEpoch: number;
} {
  return {
    errorCode: E.NONE, errorMessage: null, groupId: group.groupId, groupState: group.state, groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
  };
}
