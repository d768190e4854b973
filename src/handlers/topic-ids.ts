import { ZERO_UUID } from '../metadata/topic-registry.js';

/**
 * Response topics of the versions that name topics (Produce v0-12, OffsetCommit v0-9, OffsetFetch v0-9,
 * TxnOffsetCommit): the topicId field, carried only by the later versions kafkite does not serve, is the zero
 * uuid, as in Kafka's responses to these versions.
 */
export function namedTopics<T extends object>(topics: readonly T[]): Array<T & { topicId: string }> {
  return topics.map((t) => ({ ...t, topicId: ZERO_UUID }));
}
