// A Persister kept in memory, for the share group coordinator's tests until the share coordinator's one is wired:
// it records each call, so a test asserts what was initialized or deleted and in which order.
import type { Persister, SharePartitionKey, SharePartitionState, SharePartitionSummary } from '../../src/share/persister.js';

const keyOf = (k: SharePartitionKey) => `${k.groupId}:${k.topicId}:${k.partition}`;

export class MemoryPersister implements Persister {
  readonly states = new Map<string, SharePartitionState>();
  readonly calls: string[] = [];
  /** Keys whose initializeState fails (a share coordinator that is not available). */
  readonly failing = new Set<string>();

  async initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<void> {
    this.calls.push(`initialize ${keyOf(key)} epoch=${stateEpoch} start=${startOffset}`);
    if (this.failing.has(keyOf(key))) throw new Error('share coordinator not available');
    this.states.set(keyOf(key), { stateEpoch, leaderEpoch: -1, startOffset, deliveryCompleteCount: -1, stateBatches: [] });
  }

  async readState(key: SharePartitionKey): Promise<SharePartitionState | undefined> {
    return this.states.get(keyOf(key));
  }

  async writeState(key: SharePartitionKey, state: SharePartitionState): Promise<void> {
    this.states.set(keyOf(key), state);
  }

  async readSummary(key: SharePartitionKey): Promise<SharePartitionSummary | undefined> {
    return this.states.get(keyOf(key));
  }

  async deleteState(key: SharePartitionKey): Promise<void> {
    this.calls.push(`delete ${keyOf(key)}`);
    this.states.delete(keyOf(key));
  }

  has(groupId: string, topicId: string, partition: number): boolean {
    return this.states.has(keyOf({ groupId, topicId, partition }));
  }
}
