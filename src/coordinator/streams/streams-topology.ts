// A streams group's topology as its members send it (Kafka's StreamsTopology, stored as StreamsGroupTopologyValue)
// and its configuration against the topics that exist (Kafka's InternalTopicManager.configureTopics with
// RepartitionTopics, CopartitionedTopicsEnforcer and ChangelogTopics): the partition count of every repartition
// and changelog topic, the internal topics still to create, and the number of tasks of each sub-topology. A
// topology that cannot be configured yet leaves the group NOT_READY, with Kafka's status for the heartbeat.
import type {
  StreamsGroupTopologyValue, TopicInfo,
} from '../../../protocol/generated/records/StreamsGroupTopologyValue.js';
import type { TopicMetadata } from '../consumer/assignors/assignor.js';
import type { TopicsImage } from '../consumer/consumer-group-coordinator.js';

export type StreamsTopology = StreamsGroupTopologyValue;

/** StreamsGroupHeartbeatResponse.Status codes (clients' StreamsGroupHeartbeatResponse.Status). */
export enum StreamsStatus {
  STALE_TOPOLOGY = 0,
  MISSING_SOURCE_TOPICS = 1,
  INCORRECTLY_PARTITIONED_TOPICS = 2,
  MISSING_INTERNAL_TOPICS = 3,
  SHUTDOWN_APPLICATION = 4,
  ASSIGNMENT_DELAYED = 5,
}

export interface StreamsStatusEntry {
  statusCode: number;
  statusDetail: string;
}

/** An internal topic the broker creates for the group (Kafka's CreatableTopic from ConfiguredInternalTopic). */
export interface InternalTopicToCreate {
  name: string;
  partitions: number;
  configs: Record<string, string>;
}

interface ConfiguredSubtopology {
  subtopologyId: string;
  numberOfTasks: number;
  /** Source topics, then repartition source topics: the partitions a task reads. */
  sourceTopics: string[];
  repartitionSourceTopics: Map<string, number>;
  stateChangelogTopics: Map<string, number>;
  repartitionSinkTopics: string[];
}

export interface ConfiguredTopology {
  topologyEpoch: number;
  /** Empty when the topology cannot be configured yet (`status` says why). */
  subtopologies: Map<string, ConfiguredSubtopology>;
  ready: boolean;
  status: StreamsStatusEntry | null;
  internalTopicsToCreate: InternalTopicToCreate[];
  /** Every topic the topology uses that exists, for the group's metadata hash. */
  topics: TopicMetadata[];
}

class TopicConfigurationError extends Error {
  override name = 'TopicConfigurationError';
  constructor(readonly status: StreamsStatus, message: string) {
    super(message);
  }
}

function configsOf(info: TopicInfo): Record<string, string> {
  return Object.fromEntries(info.topicConfigs.map((c) => [c.key, c.value]));
}

/** RepartitionTopics.setup: a repartition topic without a fixed count gets the largest source count of the sub-topologies writing to it. */
function repartitionPartitions(topology: StreamsTopology, partitionsOf: (topic: string) => number | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of topology.subtopologies) {
    for (const t of s.repartitionSourceTopics) if (t.partitions > 0) counts.set(t.name, t.partitions);
  }
  const unknown = topology.subtopologies.flatMap((s) => s.repartitionSourceTopics.filter((t) => !counts.has(t.name)).map((t) => t.name));
  let progress = true;
  while (unknown.some((n) => !counts.has(n)) && progress) {
    progress = false;
    for (const name of unknown) {
      if (counts.has(name)) continue;
      let max = 0;
      let complete = true;
      for (const writer of topology.subtopologies.filter((s) => s.repartitionSinkTopics.includes(name))) {
        for (const source of [...writer.sourceTopics, ...writer.repartitionSourceTopics.map((t) => t.name)]) {
          const n = counts.get(source) ?? partitionsOf(source);
          if (n === undefined) complete = false;
          else max = Math.max(max, n);
        }
      }
      if (complete && max > 0) {
        counts.set(name, max);
        progress = true;
      }
    }
  }
  const missing = unknown.filter((n) => !counts.has(n));
  if (missing.length > 0) {
    throw new TopicConfigurationError(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS, `Failed to compute number of partitions for all repartition topics: ${missing.join(', ')}`);
  }
  return counts;
}

/** CopartitionedTopicsEnforcer: topics of a copartition group share one partition count. */
function enforceCopartitioning(topology: StreamsTopology, partitionsOf: (topic: string) => number | undefined, repartition: Map<string, number>): void {
  for (const s of topology.subtopologies) {
    for (const group of s.copartitionGroups) {
      const fixed = [
        ...group.sourceTopics.map((i) => s.sourceTopics[i]!),
        ...group.repartitionSourceTopics.map((i) => s.repartitionSourceTopics[i]!).filter((t) => t.partitions > 0).map((t) => t.name),
      ];
      const counts = new Set(fixed.map((t) => partitionsOf(t) ?? repartition.get(t)));
      if (counts.size > 1) {
        throw new TopicConfigurationError(
          StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
          `Following topics do not have the same number of partitions: [${fixed.map((t) => `${t}:${partitionsOf(t) ?? repartition.get(t)}`).join(', ')}]`,
        );
      }
      const free = group.repartitionSourceTopics.map((i) => s.repartitionSourceTopics[i]!).filter((t) => t.partitions === 0);
      const target = counts.size === 1 ? [...counts][0]! : Math.max(...free.map((t) => repartition.get(t.name) ?? 0));
      for (const t of free) repartition.set(t.name, target);
    }
  }
}

/** Kafka's InternalTopicManager.configureTopics against the broker's topics. */
export function configureTopology(topology: StreamsTopology, topics: TopicsImage): ConfiguredTopology {
  const partitionsOf = (name: string) => topics.get(name)?.partitions;
  const used = new Map<string, TopicMetadata>();
  const note = (name: string) => {
    const t = topics.get(name);
    if (t) used.set(name, { topicId: t.topicId, name, numPartitions: t.partitions });
  };
  const notReady = (status: StreamsStatus, detail: string, toCreate: InternalTopicToCreate[] = []): ConfiguredTopology => ({
    topologyEpoch: topology.epoch, subtopologies: new Map(), ready: false, status: { statusCode: status, statusDetail: detail },
    internalTopicsToCreate: toCreate, topics: [...used.values()],
  });
  for (const s of topology.subtopologies) for (const t of [...s.sourceTopics, ...s.repartitionSourceTopics.map((r) => r.name), ...s.stateChangelogTopics.map((c) => c.name)]) note(t);

  const internal = new Set(topology.subtopologies.flatMap((s) => s.repartitionSourceTopics.map((t) => t.name)));
  const missingSources = [...new Set(topology.subtopologies.flatMap((s) => s.sourceTopics))].filter((t) => !internal.has(t) && partitionsOf(t) === undefined);
  if (missingSources.length > 0) return notReady(StreamsStatus.MISSING_SOURCE_TOPICS, `Source topics ${missingSources.join(', ')} are missing.`);

  let repartition: Map<string, number>;
  try {
    repartition = repartitionPartitions(topology, partitionsOf);
    enforceCopartitioning(topology, partitionsOf, repartition);
  } catch (err) {
    if (err instanceof TopicConfigurationError) return notReady(err.status, err.message);
    throw err;
  }

  const subtopologies = new Map<string, ConfiguredSubtopology>();
  const wanted: InternalTopicToCreate[] = [];
  for (const s of topology.subtopologies) {
    const sourceCounts = [...s.sourceTopics.map((t) => partitionsOf(t) ?? repartition.get(t) ?? 0), ...s.repartitionSourceTopics.map((t) => repartition.get(t.name)!)];
    const numberOfTasks = Math.max(0, ...sourceCounts);
    const repartitionSources = new Map(s.repartitionSourceTopics.map((t) => [t.name, repartition.get(t.name)!]));
    // ChangelogTopics: one partition per task.
    const changelogs = new Map(s.stateChangelogTopics.map((t) => [t.name, numberOfTasks]));
    for (const t of s.repartitionSourceTopics) wanted.push({ name: t.name, partitions: repartition.get(t.name)!, configs: configsOf(t) });
    for (const t of s.stateChangelogTopics) wanted.push({ name: t.name, partitions: numberOfTasks, configs: configsOf(t) });
    subtopologies.set(s.subtopologyId, {
      subtopologyId: s.subtopologyId, numberOfTasks, sourceTopics: s.sourceTopics, repartitionSourceTopics: repartitionSources,
      stateChangelogTopics: changelogs, repartitionSinkTopics: s.repartitionSinkTopics,
    });
  }

  const wrong = wanted.filter((t) => partitionsOf(t.name) !== undefined && partitionsOf(t.name) !== t.partitions);
  if (wrong.length > 0) {
    return notReady(
      StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
      wrong.map((t) => `Existing topic ${t.name} has different number of partitions: expected ${t.partitions}, found ${partitionsOf(t.name)}.`).join(' '),
    );
  }
  const missing = wanted.filter((t) => partitionsOf(t.name) === undefined);
  if (missing.length > 0) {
    return notReady(StreamsStatus.MISSING_INTERNAL_TOPICS, `Internal topics are missing: ${missing.map((t) => t.name).join(', ')}`, missing);
  }
  return { topologyEpoch: topology.epoch, subtopologies, ready: true, status: null, internalTopicsToCreate: [], topics: [...used.values()] };
}

