// A KIP-848 consumer group (Kafka's ConsumerGroup): members, the group epoch (bumped whenever
// subscriptions or the subscribed topics change), the target assignment with its epoch, and which
// member epoch holds each partition.
import type { Assignment, TopicMetadata } from './assignors/assignor.js';
import { MemberState, type ConsumerGroupMember } from './consumer-group-member.js';

export enum ConsumerGroupState {
  Empty = 'Empty',
  /** The group epoch moved past the target assignment: it is being computed. */
  Assigning = 'Assigning',
  /** Members are moving to the target assignment. */
  Reconciling = 'Reconciling',
  Stable = 'Stable',
  Dead = 'Dead',
}

export const CONSUMER_GROUP_TYPE = 'consumer';

class PartitionOwnershipError extends Error {
  override name = 'PartitionOwnershipError';
}

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  /** When the target assignment was last computed (ms since the epoch; 0: never, or the group emptied since). */
  assignmentTimestamp = 0;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instance id → member id of static members. */
  readonly staticMembers = new Map<string, string>();
  /** member id → target assignment. */
  readonly targetAssignment = new Map<string, Assignment>();
  /** The subscribed topics' metadata at the last heartbeat, by topic name (not stored: empty until one after a load). */
  subscriptionMetadata = new Map<string, TopicMetadata>();
  /** The hash of the subscribed topics' metadata that the group epoch was last bumped for (KIP-1101), stored with it. */
  metadataHash = 0n;
  /** A ConsumerGroupPartitionMetadata record (written before KIP-1101) was loaded: its tombstone is due. */
  hasSubscriptionMetadataRecord = false;
  /** topic id → partition → epoch of the member that holds it (assigned or pending revocation). */
  private readonly partitionEpochs = new Map<string, Map<number, number>>();

  constructor(readonly groupId: string) {}

  get state(): ConsumerGroupState {
    if (this.members.size === 0) return ConsumerGroupState.Empty;
    if (this.groupEpoch > this.assignmentEpoch) return ConsumerGroupState.Assigning;
    for (const m of this.members.values()) {
      if (m.state !== MemberState.Stable || m.memberEpoch !== this.assignmentEpoch) return ConsumerGroupState.Reconciling;
    }
    return ConsumerGroupState.Stable;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  staticMember(instanceId: string | null): ConsumerGroupMember | undefined {
    if (instanceId === null) return undefined;
    const memberId = this.staticMembers.get(instanceId);
    return memberId === undefined ? undefined : this.members.get(memberId);
  }

  /** Regex → the topics it matched when last resolved (Kafka's resolvedRegularExpressions). */
  resolvedRegexes = new Map<string, ReadonlySet<string>>();

  /** Every topic name some member subscribes to, by name or through its regex. */
  subscribedTopicNames(): Set<string> {
    const names = new Set<string>();
    for (const m of this.members.values()) for (const t of this.memberTopicNames(m)) names.add(t);
    return names;
  }

  /** The member's subscribed names plus the topics its regex resolved to. */
  memberTopicNames(member: ConsumerGroupMember): string[] {
    const regex = member.subscribedTopicRegex;
    const resolved = regex ? this.resolvedRegexes.get(regex) : undefined;
    if (!resolved || resolved.size === 0) return member.subscribedTopicNames;
    return [...new Set([...member.subscribedTopicNames, ...resolved])];
  }

  /** The non-empty regexes members subscribe to. */
  subscribedRegexes(): Set<string> {
    const regexes = new Set<string>();
    for (const m of this.members.values()) if (m.subscribedTopicRegex) regexes.add(m.subscribedTopicRegex);
    return regexes;
  }

  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(topicId)?.get(partition) ?? -1;
  }

  addMember(member: ConsumerGroupMember): void {
    this.members.set(member.memberId, member);
    if (member.instanceId !== null) this.staticMembers.set(member.instanceId, member.memberId);
    this.addPartitionEpochs(member);
  }

  removeMember(memberId: string): ConsumerGroupMember | undefined {
    const member = this.members.get(memberId);
    if (!member) return undefined;
    this.members.delete(memberId);
    if (member.instanceId !== null && this.staticMembers.get(member.instanceId) === memberId) {
      this.staticMembers.delete(member.instanceId);
    }
    this.removePartitionEpochs(member);
    this.targetAssignment.delete(memberId);
    return member;
  }

  /** Applies `change` to the member's assignment state, keeping the partition owners in step. */
  updateAssignmentOf(member: ConsumerGroupMember, change: () => void): void {
    this.removePartitionEpochs(member);
    change();
    this.addPartitionEpochs(member);
  }

  private addPartitionEpochs(member: ConsumerGroupMember): void {
    for (const assignment of [member.assignedPartitions, member.partitionsPendingRevocation]) {
      for (const [topicId, partitions] of assignment) {
        let epochs = this.partitionEpochs.get(topicId);
        if (!epochs) this.partitionEpochs.set(topicId, (epochs = new Map()));
        for (const p of partitions) {
          if (epochs.has(p)) throw new PartitionOwnershipError(`${this.groupId}: ${topicId}-${p} is already held`);
          epochs.set(p, member.memberEpoch);
        }
      }
    }
  }

  private removePartitionEpochs(member: ConsumerGroupMember): void {
    for (const assignment of [member.assignedPartitions, member.partitionsPendingRevocation]) {
      for (const [topicId, partitions] of assignment) {
        const epochs = this.partitionEpochs.get(topicId);
        if (!epochs) continue;
        for (const p of partitions) epochs.delete(p);
        if (epochs.size === 0) this.partitionEpochs.delete(topicId);
      }
    }
  }

  /**
   * The assignor this group uses: the one most members ask for (ties go to the first in the
   * configured order), or the broker's default when no member asks.
   */
  preferredAssignor(configured: readonly string[]): string {
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      if (m.serverAssignor !== null) votes.set(m.serverAssignor, (votes.get(m.serverAssignor) ?? 0) + 1);
    }
    let best = configured[0]!;
    let bestVotes = 0;
    for (const name of configured) {
      const n = votes.get(name) ?? 0;
      if (n > bestVotes) [best, bestVotes] = [name, n];
    }
    return best;
  }
}
