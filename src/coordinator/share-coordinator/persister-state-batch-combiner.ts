// Kafka's PersisterStateBatchCombiner: the state batches stored for a share partition and those of a write
// become one sorted, non-overlapping list. Batches below the start offset go (one straddling it is cut);
// where batches overlap, the higher delivery count wins, then the higher delivery state; neighbours with the
// same state and count are joined. A sweep over begin/end events, so a write costs O(n log n) in batches.
import type { PersisterStateBatch } from '../../share/persister.js';

interface Priority {
  deliveryCount: number;
  deliveryState: number;
}

interface Event {
  offset: number;
  isBegin: boolean;
  priority: Priority;
}

function pruned(batches: readonly PersisterStateBatch[], startOffset: number, out: PersisterStateBatch[]): void {
  for (const b of batches) {
    if (startOffset !== -1 && b.lastOffset < startOffset) continue;
    if (startOffset === -1 || b.firstOffset >= startOffset) out.push(b);
    else out.push({ ...b, firstOffset: startOffset });
  }
}

/** Highest priority first, as Kafka's PRIORITY_DESC. */
function comparePriority(a: Priority, b: Priority): number {
  return b.deliveryCount - a.deliveryCount || b.deliveryState - a.deliveryState;
}

function appendCoalesced(out: PersisterStateBatch[], first: number, last: number, p: Priority): void {
  const tail = out[out.length - 1];
  if (tail && tail.lastOffset + 1 === first && tail.deliveryState === p.deliveryState && tail.deliveryCount === p.deliveryCount) {
    out[out.length - 1] = { ...tail, lastOffset: last };
  } else {
    out.push({ firstOffset: first, lastOffset: last, deliveryState: p.deliveryState, deliveryCount: p.deliveryCount });
  }
}

function sweepMerge(batches: readonly PersisterStateBatch[]): PersisterStateBatch[] {
  const events: Event[] = [];
  for (const b of batches) {
    const priority = { deliveryCount: b.deliveryCount, deliveryState: b.deliveryState };
    events.push({ offset: b.firstOffset, isBegin: true, priority }, { offset: b.lastOffset + 1, isBegin: false, priority });
  }
  // Ends before begins at one offset, so touching batches do not overlap.
  events.sort((a, b) => a.offset - b.offset || Number(a.isBegin) - Number(b.isBegin));
  /** The open batches' priorities with their counts, kept sorted highest first (few distinct ones). */
  const active: Array<{ priority: Priority; count: number }> = [];
  const out: PersisterStateBatch[] = [];
  let prev = -1;
  let current: Priority | undefined;
  for (let i = 0; i < events.length; ) {
    const offset = events[i]!.offset;
    if (current && offset > prev) appendCoalesced(out, prev, offset - 1, current);
    for (; i < events.length && events[i]!.offset === offset; i++) {
      const { isBegin, priority } = events[i]!;
      const at = active.findIndex((e) => comparePriority(e.priority, priority) === 0);
      if (isBegin) {
        if (at >= 0) active[at]!.count++;
        else {
          active.push({ priority, count: 1 });
          active.sort((a, b) => comparePriority(a.priority, b.priority));
        }
      } else if (at >= 0 && --active[at]!.count === 0) active.splice(at, 1);
    }
    current = active[0]?.priority;
    prev = offset;
  }
  return out;
}

export function combineStateBatches(
  batchesSoFar: readonly PersisterStateBatch[], newBatches: readonly PersisterStateBatch[], startOffset: number,
): PersisterStateBatch[] {
  const all: PersisterStateBatch[] = [];
  pruned(batchesSoFar, startOffset, all);
  pruned(newBatches, startOffset, all);
  if (all.length <= 1) return all;
  return sweepMerge(all);
}
