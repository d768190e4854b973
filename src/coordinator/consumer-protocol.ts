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
