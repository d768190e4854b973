// A Persister kept in memory, for the share group coordinator's and the share partitions' unit tests. It stores as
// the share coordinator does, in short (an initialized state as ShareCoordinatorShard makes it; a write's batches laid
// over the stored ones, those below the start offset dropped), so a test reads what a restart would; and it records
// the calls, so a test asserts what was initialized, deleted or written, and in which order.
import type {
  Persister, PersisterStateBatch, SharePartitionKey, SharePartitionState, SharePartitionSummary,
} from '../../src/share/persister.js';

const keyOf = (k: SharePartitionKey) => `${k.groupId}:${k.topicId}:${k.partition}`;

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

export class MemoryPersister implements Persister {
  readonly states = new Map<string, SharePartitionState>();
  /** Each initialization and deletion, in order. */
  readonly calls: string[] = [];
  /** Every write, in order. */
  readonly writes: Array<{ key: SharePartitionKey; state: SharePartitionState }> = [];
  /** Keys (group:topicId:partition) whose initializeState fails (a share coordinator that is not available). */
  readonly failing = new Set<string>();
  /** Milliseconds each write takes, to show an answer waits for it. */
  writeDelayMs = 0;
  /** Whether a never-initialized partition reads as initialized at start offset -1, as if its group coordinator had done it. */
  initializeOnRead = false;

  async initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<void> {
    this.calls.push(`initialize ${keyOf(key)} epoch=${stateEpoch} start=${startOffset}`);
    if (this.failing.has(keyOf(key))) throw new Error('share coordinator not available');
    const deliveryCompleteCount = startOffset === -1 ? -1 : 0;
    this.states.set(keyOf(key), { stateEpoch, leaderEpoch: 0, startOffset, deliveryCompleteCount, stateBatches: [] });
  }

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
    this.calls.push(`delete ${keyOf(key)}`);
    this.states.delete(keyOf(key));
  }

  has(groupId: string, topicId: string, partition: number): boolean {
    return this.states.has(keyOf({ groupId, topicId, partition }));
  }
}
