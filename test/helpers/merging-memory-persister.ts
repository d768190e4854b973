// An in-memory Persister for the share partitions' unit tests, with the share coordinator's merge rule in short (an
// update's batches overlay the stored ones; below the start offset dropped), so a test reads what a restart would.
import type {
  Persister, PersisterStateBatch, SharePartitionKey, SharePartitionState, SharePartitionSummary,
} from '../../src/share/persister.js';

function keyOf(k: SharePartitionKey): string {
  return `${k.groupId}\u0000${k.topicId}\u0000${k.partition}`;
}

/** Stored batches with `update` laid over them, split where they overlap. */
function overlay(stored: readonly PersisterStateBatch[], update: readonly PersisterStateBatch[], start: number): PersisterStateBatch[] {
  let out = stored.map((b) => ({ ...b }));
  for (const u of update) {
    out = out.flatMap((b) => {
      if (b.lastOffset < u.firstOffset || b.firstOffset > u.lastOffset) return [b];
      const parts: PersisterStateBatch[] = [];
      if (b.firstOffset < u.firstOffset) parts.push({ ...b, lastOffset: u.firstOffset - 1 });
      if (b.lastOffset > u.lastOffset) parts.push({ ...b, firstOffset: u.lastOffset + 1 });
      return parts;
    });
    out.push({ ...u });
  }
  return out
    .filter((b) => b.lastOffset >= start)
    .map((b) => (b.firstOffset < start ? { ...b, firstOffset: start } : b))
    .sort((a, b) => a.firstOffset - b.firstOffset);
}

export class MergingMemoryPersister implements Persister {
  readonly states = new Map<string, SharePartitionState>();
  /** Every write, in order, for tests to inspect. */
  readonly writes: Array<{ key: SharePartitionKey; state: SharePartitionState }> = [];
  /** Milliseconds each write takes, to show an answer waits for it. */
  writeDelayMs = 0;

  async initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<void> {
    this.states.set(keyOf(key), { stateEpoch, leaderEpoch: 0, startOffset, deliveryCompleteCount: 0, stateBatches: [] });
  }

  /** Whether a never-initialized partition reads as initialized at start offset -1, as if its group coordinator had done it. */
  initializeOnRead = false;

  async readState(key: SharePartitionKey): Promise<SharePartitionState | undefined> {
    if (this.initializeOnRead && !this.states.has(keyOf(key))) await this.initializeState(key, 0, -1);
    const s = this.states.get(keyOf(key));
    return s && { ...s, stateBatches: s.stateBatches.map((b) => ({ ...b })) };
  }

  async writeState(key: SharePartitionKey, state: SharePartitionState): Promise<void> {
    if (this.writeDelayMs > 0) await new Promise((r) => setTimeout(r, this.writeDelayMs));
    const stored = this.states.get(keyOf(key));
    const batches = overlay(stored?.stateBatches ?? [], state.stateBatches, state.startOffset);
    this.states.set(keyOf(key), { ...state, stateBatches: batches });
    this.writes.push({ key, state });
  }

  async readSummary(key: SharePartitionKey): Promise<SharePartitionSummary | undefined> {
    const s = this.states.get(keyOf(key));
    return s && { stateEpoch: s.stateEpoch, leaderEpoch: s.leaderEpoch, startOffset: s.startOffset, deliveryCompleteCount: s.deliveryCompleteCount };
  }

  async deleteState(key: SharePartitionKey): Promise<void> {
    this.states.delete(keyOf(key));
  }
}
