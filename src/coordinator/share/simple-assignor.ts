// The share groups' server-side assignor, "simple" (Kafka 4.4's group.share.assignors default, SimpleAssignor
// with its homogeneous and heterogeneous builders): every assignable partition goes to at least one subscribed
// member, and a partition may go to several members, since share consumers divide a partition's records by
// acquiring them. With at least as many partitions as members each partition has one member and the members hold
// about as many partitions each; with more members than partitions each member holds one partition and the
// partitions have about as many members each. A member keeps what it held where that stays balanced.
import { addPartition, type Assignment } from '../consumer/assignors/assignor.js';

export const SIMPLE_ASSIGNOR_NAME = 'simple';

export interface ShareAssignmentSpec {
  /** member id → the topic ids it subscribes to and its current target. */
  readonly members: ReadonlyMap<string, { readonly subscribedTopicIds: ReadonlySet<string>; readonly assignment: Assignment }>;
  /** topic id → the partitions that may be assigned (those whose share-partition state is initialized). */
  readonly partitions: ReadonlyMap<string, readonly number[]>;
}

interface Slot {
  readonly topicId: string;
  readonly partition: number;
  readonly holders: string[];
}

export function assignShareGroup(spec: ShareAssignmentSpec): Map<string, Assignment> {
  const memberIds = [...spec.members.keys()].sort();
  const result = new Map<string, Assignment>(memberIds.map((id) => [id, new Map()]));
  const slots: Slot[] = [...spec.partitions.keys()].sort().flatMap((topicId) =>
    [...spec.partitions.get(topicId)!].sort((a, b) => a - b).map((partition) => ({ topicId, partition, holders: [] as string[] })));
  if (memberIds.length === 0 || slots.length === 0) return result;
  const eligible = (memberId: string, slot: Slot) => spec.members.get(memberId)!.subscribedTopicIds.has(slot.topicId);
  const held = (memberId: string, slot: Slot) => spec.members.get(memberId)!.assignment.get(slot.topicId)?.has(slot.partition) === true;
  const load = new Map(memberIds.map((id) => [id, 0]));
  const give = (memberId: string, slot: Slot) => {
    slot.holders.push(memberId);
    load.set(memberId, load.get(memberId)! + 1);
    addPartition(result.get(memberId)!, slot.topicId, slot.partition);
  };

  if (slots.length >= memberIds.length) {
    // One member per partition, at most ceil(partitions / members) partitions per member.
    const quota = Math.ceil(slots.length / memberIds.length);
    for (const slot of slots) {
      const keeper = memberIds.find((id) => held(id, slot) && eligible(id, slot) && load.get(id)! < quota);
      if (keeper !== undefined) give(keeper, slot);
    }
    for (const slot of slots) {
      if (slot.holders.length > 0) continue;
      const candidates = memberIds.filter((id) => eligible(id, slot));
      if (candidates.length > 0) give(leastLoaded(candidates, (id) => load.get(id)!), slot);
    }
    return result;
  }
  // One partition per member, at most ceil(members / partitions) members per partition.
  const quota = Math.ceil(memberIds.length / slots.length);
  const placed = new Set<string>();
  for (const memberId of memberIds) {
    const kept = slots.find((s) => held(memberId, s) && eligible(memberId, s) && s.holders.length < quota);
    if (kept) {
      give(memberId, kept);
      placed.add(memberId);
    }
  }
  for (const memberId of memberIds) {
    if (placed.has(memberId)) continue;
    const candidates = slots.filter((s) => eligible(memberId, s));
    if (candidates.length > 0) give(memberId, leastLoaded(candidates, (s) => s.holders.length));
  }
  // A partition no member took (its subscribers all went elsewhere) still gets one.
  for (const slot of slots) {
    if (slot.holders.length > 0) continue;
    const candidates = memberIds.filter((id) => eligible(id, slot));
    if (candidates.length > 0) give(leastLoaded(candidates, (id) => load.get(id)!), slot);
  }
  return result;
}

/** The first of the candidates with the lowest load (candidates keep their sorted order on ties). */
function leastLoaded<T extends object | string>(candidates: readonly T[], loadOf: (c: T) => number): T {
  let best = candidates[0]!;
  for (const c of candidates) if (loadOf(c) < loadOf(best)) best = c;
  return best;
}
