import { describe, expect, it } from 'vitest';
import type { Assignment } from '../../src/coordinator/consumer/assignors/assignor.js';
import { MemberState, type MemberAssignmentState } from '../../src/coordinator/consumer/consumer-group-member.js';
import { FencedMemberEpochError, reconcile, type ReconcileInput } from '../../src/coordinator/consumer/current-assignment-builder.js';

const T = 'a'.repeat(32);
const parts = (...p: number[]): Assignment => (p.length === 0 ? new Map() : new Map([[T, new Set(p)]]));
const owned = (...p: number[]) => [{ topicId: T, partitions: p }];

function member(overrides: Partial<MemberAssignmentState> = {}): MemberAssignmentState {
  return {
    state: MemberState.Stable, memberEpoch: 10, previousMemberEpoch: 9,
    assignedPartitions: parts(0, 1), partitionsPendingRevocation: new Map(), ...overrides,
  };
}

function input(overrides: Partial<ReconcileInput> = {}): ReconcileInput {
  return {
    subscribedTopicIds: new Set([T]), targetEpoch: 11, target: parts(0, 1),
    currentPartitionEpoch: () => -1, ownedTopicPartitions: owned(0, 1), ...overrides,
  };
}

describe('reconcile (CurrentAssignmentBuilder)', () => {
  it('leaves a member reconciled to the target epoch alone', () => {
    const m = member({ memberEpoch: 11 });
    expect(reconcile(m, input())).toBe(m);
  });

  it('moves a Stable member to the new epoch when nothing has to be revoked', () => {
    const next = reconcile(member(), input({ target: parts(0, 1, 2) }));
    expect(next).toEqual({
      state: MemberState.Stable, memberEpoch: 11, previousMemberEpoch: 10, assignedPartitions: parts(0, 1, 2), partitionsPendingRevocation: new Map(),
    });
  });

  it('asks for revocation first, at the current epoch (UNREVOKED_PARTITIONS)', () => {
    const next = reconcile(member(), input({ target: parts(0, 2) }));
    expect(next.state).toBe(MemberState.UnrevokedPartitions);
    expect(next.memberEpoch).toBe(10);
    expect(next.assignedPartitions).toEqual(parts(0));
    expect(next.partitionsPendingRevocation).toEqual(parts(1));
    // Still owning partition 1: no progress.
    expect(reconcile(next, input({ target: parts(0, 2), ownedTopicPartitions: owned(0, 1) }))).toBe(next);
    // Not reporting owned partitions counts as still owning them.
    expect(reconcile(next, input({ target: parts(0, 2), ownedTopicPartitions: null }))).toBe(next);
    // Revoked: the member moves to the target epoch and gets the free partition 2.
    const done = reconcile(next, input({ target: parts(0, 2), ownedTopicPartitions: owned(0) }));
    expect(done).toMatchObject({ state: MemberState.Stable, memberEpoch: 11, assignedPartitions: parts(0, 2), partitionsPendingRevocation: new Map() });
  });

  it('skips the revocation step when the member already dropped the partitions', () => {
    const next = reconcile(member(), input({ target: parts(0), ownedTopicPartitions: owned(0) }));
    expect(next).toMatchObject({ state: MemberState.Stable, memberEpoch: 11, assignedPartitions: parts(0) });
  });

  it('waits for partitions another member still holds (UNRELEASED_PARTITIONS), then takes them', () => {
    let holder = 10;
    const currentPartitionEpoch = (_t: string, p: number) => (p === 2 ? holder : -1);
    const next = reconcile(member(), input({ target: parts(0, 1, 2), currentPartitionEpoch }));
    expect(next).toMatchObject({ state: MemberState.UnreleasedPartitions, memberEpoch: 11, assignedPartitions: parts(0, 1) });
    expect(reconcile(next, input({ target: parts(0, 1, 2), currentPartitionEpoch }))).toEqual(next);
    holder = -1;
    expect(reconcile(next, input({ target: parts(0, 1, 2), currentPartitionEpoch }))).toMatchObject({
      state: MemberState.Stable, memberEpoch: 11, assignedPartitions: parts(0, 1, 2),
    });
  });

  it('revokes partitions of topics the member no longer subscribes to', () => {
    const next = reconcile(member(), input({ subscribedTopicIds: new Set() }));
    expect(next).toMatchObject({ state: MemberState.UnrevokedPartitions, assignedPartitions: new Map(), partitionsPendingRevocation: parts(0, 1) });
  });

  it('fences a member in an unknown state unless it holds nothing', () => {
    const m = member({ state: MemberState.Unknown });
    expect(() => reconcile(m, input())).toThrow(FencedMemberEpochError);
    expect(reconcile(m, input({ ownedTopicPartitions: [] }))).toMatchObject({ state: MemberState.Stable, memberEpoch: 11 });
  });
});
