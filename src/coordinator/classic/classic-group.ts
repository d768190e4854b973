// A classic consumer group's membership and rebalance state (Kafka's ClassicGroup / GroupMetadata).
import type { ClassicGroupMember } from './classic-group-member.js';
import type { Protocol } from '../types.js';

export enum GroupState {
  Empty = 'Empty',
  PreparingRebalance = 'PreparingRebalance',
  CompletingRebalance = 'CompletingRebalance',
  Stable = 'Stable',
  Dead = 'Dead',
}

const VALID_PREVIOUS_STATES: Record<GroupState, ReadonlyArray<GroupState>> = {
  [GroupState.Empty]: [GroupState.PreparingRebalance],
  [GroupState.PreparingRebalance]: [GroupState.Stable, GroupState.CompletingRebalance, GroupState.Empty],
  [GroupState.CompletingRebalance]: [GroupState.PreparingRebalance],
  [GroupState.Stable]: [GroupState.CompletingRebalance],
  [GroupState.Dead]: [
    GroupState.Stable, GroupState.PreparingRebalance, GroupState.CompletingRebalance, GroupState.Empty, GroupState.Dead,
  ],
};

class IllegalGroupStateError extends Error {
  override name = 'IllegalGroupStateError';
}

export class ClassicGroup {
  state: GroupState = GroupState.Empty;
  currentStateTimestamp: number;
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly members = new Map<string, ClassicGroupMember>();
  /** group.instance.id → current member id. */
  readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED, not yet joined (KIP-394). */
  readonly pendingMembers = new Map<string, NodeJS.Timeout>();
  /** Members that must send SyncGroup before the rebalance timeout once the join phase completed. */
  readonly pendingSyncMembers = new Set<string>();
  /** A member joined during the initial rebalance delay, which extends the delay once more. */
  newMemberAdded = false;
  /** The join phase waits out group.initial.rebalance.delay.ms even when everyone has joined. */
  initialDelayActive = false;
  /** The join phase's timer (rebalance timeout or initial delay). */
  joinTimer: NodeJS.Timeout | undefined;
  syncTimer: NodeJS.Timeout | undefined;

  constructor(readonly groupId: string, now: number) {
    this.currentStateTimestamp = now;
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  transitionTo(state: GroupState, now: number): void {
    if (!VALID_PREVIOUS_STATES[state].includes(this.state)) {
      throw new IllegalGroupStateError(`group ${this.groupId}: ${this.state} → ${state}`);
    }
    this.state = state;
    this.currentStateTimestamp = now;
  }

  get size(): number {
    return this.members.size;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  has(memberId: string): boolean {
    return this.members.has(memberId);
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  add(member: ClassicGroupMember): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.pendingSyncMembers.delete(member.memberId);
  }

  remove(memberId: string): ClassicGroupMember | undefined {
    const member = this.members.get(memberId);
    if (!member) return undefined;
    this.members.delete(memberId);
    if (member.groupInstanceId !== null) this.staticMembers.delete(member.groupInstanceId);
    this.pendingSyncMembers.delete(memberId);
    if (this.leaderId === memberId) {
      // Prefer a member already waiting in the rebalance, as Kafka does.
      const next = [...this.members.values()].find((m) => m.isAwaitingJoin) ?? this.members.values().next().value;
      this.leaderId = next?.memberId ?? null;
    }
    return member;
  }

  /** Moves a static member to the member id of its new incarnation; returns the old member id. */
  replaceStaticMember(groupInstanceId: string, newMemberId: string): ClassicGroupMember {
    const oldMemberId = this.staticMembers.get(groupInstanceId);
    const member = oldMemberId === undefined ? undefined : this.members.get(oldMemberId);
    if (!member || oldMemberId === undefined) throw new IllegalGroupStateError(`no static member ${groupInstanceId}`);
    this.members.delete(oldMemberId);
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    this.staticMembers.set(groupInstanceId, newMemberId);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    if (this.pendingSyncMembers.delete(oldMemberId)) this.pendingSyncMembers.add(newMemberId);
    return member;
  }

  currentStaticMemberId(groupInstanceId: string | null): string | undefined {
    return groupInstanceId === null ? undefined : this.staticMembers.get(groupInstanceId);
  }

  canRebalance(): boolean {
    return VALID_PREVIOUS_STATES[GroupState.PreparingRebalance].includes(this.state);
  }

  get awaitingJoinCount(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.isAwaitingJoin) n++;
    return n;
  }

  hasAllMembersJoined(): boolean {
    return this.awaitingJoinCount === this.members.size && this.pendingMembers.size === 0;
  }

  /** The longest rebalance timeout of the members: how long the join phase may wait. */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /** Whether a member with these protocols may join: same protocol type, and a protocol all members share. */
  supportsProtocols(protocolType: string, protocols: ReadonlyArray<Protocol>): boolean {
    if (this.isEmpty()) return protocolType.length > 0 && protocols.length > 0;
    if (this.protocolType !== protocolType) return false;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  private candidateProtocols(): Set<string> {
    const counts = new Map<string, number>();
    for (const m of this.members.values()) {
      for (const p of m.protocols) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
    }
    return new Set([...counts].filter(([, n]) => n === this.members.size).map(([name]) => name));
  }

  /** The protocol every member supports with the most votes, each member voting for its first choice. */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    let best: string | undefined;
    for (const m of this.members.values()) {
      const choice = m.protocols.find((p) => candidates.has(p.name))!.name;
      const n = (votes.get(choice) ?? 0) + 1;
      votes.set(choice, n);
      if (best === undefined || n > votes.get(best)!) best = choice;
    }
    if (best === undefined) throw new IllegalGroupStateError(`group ${this.groupId} has no common protocol`);
    return best;
  }

  /** Topics the consumer members subscribe to, or undefined when they cannot be known (not "consumer", mid-rebalance). */
  subscribedTopics(parse: (metadata: Buffer) => string[] | undefined): Set<string> | undefined {
    if (this.protocolType !== 'consumer' || this.protocolName === null) return undefined;
    const topics = new Set<string>();
    for (const m of this.members.values()) {
      const metadata = m.protocols.find((p) => p.name === this.protocolName)?.metadata;
      const parsed = metadata && parse(metadata);
      if (!parsed) return undefined;
      for (const t of parsed) topics.add(t);
    }
    return topics;
  }
}
