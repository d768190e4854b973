// The "consumer" protocol type's subscription metadata (ConsumerProtocolSubscription, all versions
// start with version:int16 then topics:[]string, never flexible). Needed to tell which topics a group uses.
import { Reader } from '../../protocol/primitives.js';

/** The subscribed topics, or undefined when the metadata is not a readable subscription. */
export function subscribedTopicsOf(metadata: Buffer): string[] | undefined {
  try {
    const r = new Reader(metadata);
    r.int16();
    const n = r.arrayLength(false, false);
    const topics: string[] = [];
    for (let i = 0; i < n; i++) topics.push(r.string(false));
    return topics;
  } catch {
    return undefined;
  }
}

/** The partitions of a "consumer" protocol assignment (ConsumerProtocolAssignment: version, [topic, [partition]], userData), or undefined. */
export function assignedPartitionsOf(assignment: Buffer): Array<{ topic: string; partitions: number[] }> | undefined {
  if (assignment.length === 0) return [];
  try {
    const r = new Reader(assignment);
    r.int16();
    const n = r.arrayLength(false, false);
    const out: Array<{ topic: string; partitions: number[] }> = [];
    for (let i = 0; i < n; i++) {
      const topic = r.string(false);
      const count = r.arrayLength(false, false);
      const partitions: number[] = [];
      for (let j = 0; j < count; j++) partitions.push(r.int32());
      out.push({ topic, partitions });
    }
    return out;
  } catch {
    return undefined;
  }
}
