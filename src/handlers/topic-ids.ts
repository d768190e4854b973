import type { TopicRegistry } from '../metadata/topic-registry.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';

interface RequestTopic {
  readonly name: string;
  readonly topicId: string;
}

/**
 * Request topics as the handlers see them, by name. From the version that names topics by id (OffsetCommit and
 * OffsetFetch v10, KIP-848), Kafka's KafkaApis resolves the ids first; an id of no topic is left in `unknown`,
 * to be answered UNKNOWN_TOPIC_ID. `echo` gives a topic's response fields back as the request had them (its
 * name below that version, its id from it), keyed by the name it resolved to.
 */
export function resolveTopicIds<T extends RequestTopic>(topics: readonly T[], registry: TopicRegistry, byId: boolean): {
  known: T[];
  unknown: T[];
  echo(name: string): RequestTopic;
} {
  const echoes = new Map<string, RequestTopic>();
  const known: T[] = [];
  const unknown: T[] = [];
  for (const t of topics) {
    const name = byId ? registry.getById(t.topicId)?.name : t.name;
    if (name === undefined) {
      unknown.push(t);
      continue;
    }
    known.push({ ...t, name });
    echoes.set(name, { name: t.name, topicId: t.topicId });
  }
  const idOf = (name: string) => (byId ? { name: '', topicId: registry.get(name)?.topicId ?? ZERO_UUID } : { name, topicId: ZERO_UUID });
  return { known, unknown, echo: (name) => echoes.get(name) ?? idOf(name) };
}
