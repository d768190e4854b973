import { DEFAULT_GROUP_COORDINATOR_CONFIG, type GroupCoordinatorConfig } from '../../src/coordinator/coordinator-config.js';
import { GroupCoordinator } from '../../src/coordinator/group-coordinator.js';
import type { CoordinatorRecord, OffsetsTopic } from '../../src/coordinator/offsets-topic.js';
import type { StreamsGroupSettings, StreamsHeartbeatRequest, StreamsHeartbeatResult } from '../../src/coordinator/streams/streams-group-coordinator.js';
import type { JoinGroupRequest } from '../../src/coordinator/types.js';
import type { TopicImageEntry, TopicsImage } from '../../src/coordinator/consumer/consumer-group-coordinator.js';

/** __consumer_offsets kept in memory: the coordinator's logic is under test here, not the log. */
export class MemoryOffsetsTopic implements OffsetsTopic {
  readonly partitions = new Map<number, CoordinatorRecord[]>();
  failAppends = false;
  /** Appends resolve once it settles, as a real one once flushed: a test holds it back to act while a commit waits for its flush. */
  flushGate: Promise<void> = Promise.resolve();
  constructor(readonly numPartitions = 4) {}

  async append(partition: number, records: ReadonlyArray<CoordinatorRecord>): Promise<void> {
    if (this.failAppends) throw new Error('append failed');
    let list = this.partitions.get(partition);
    if (!list) this.partitions.set(partition, (list = []));
    list.push(...records);
    await this.flushGate;
  }

  async readAll(partition: number): Promise<CoordinatorRecord[]> {
    return this.partitions.get(partition) ?? [];
  }
}

export const TEST_CONFIG: GroupCoordinatorConfig = {
  ...DEFAULT_GROUP_COORDINATOR_CONFIG,
  groupMinSessionTimeoutMs: 10,
  groupInitialRebalanceDelayMs: 0,
};

export async function startCoordinator(
  overrides: Partial<GroupCoordinatorConfig> = {},
  topic = new MemoryOffsetsTopic(),
): Promise<{ coordinator: GroupCoordinator; topic: MemoryOffsetsTopic }> {
  const coordinator = new GroupCoordinator({ ...TEST_CONFIG, ...overrides }, topic);
  await coordinator.startup();
  return { coordinator, topic };
}

/** A "consumer" subscription (ConsumerProtocolSubscription v0) to the given topics. */
export function subscription(...topics: string[]): Buffer {
  const parts = [Buffer.from([0, 0]), int32(topics.length)];
  for (const t of topics) parts.push(Buffer.from([t.length >> 8, t.length & 0xff]), Buffer.from(t));
  parts.push(int32(-1));
  return Buffer.concat(parts);
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

export function joinRequest(overrides: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    groupId: 'g',
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription('t') }],
    sessionTimeoutMs: 1000,
    rebalanceTimeoutMs: 1000,
    reason: null,
    requireKnownMemberId: false,
    supportSkippingAssignment: true,
    clientId: 'client',
    clientHost: '/127.0.0.1',
    ...overrides,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The broker's topics for the KIP-848 and share group coordinators; a topic's id is its name, padded, in hex. */
export class Topics implements TopicsImage {
  private readonly byName = new Map<string, TopicImageEntry>();
  add(name: string, partitions: number): string {
    const topicId = Buffer.from(name.padEnd(16, '.')).toString('hex').slice(0, 32);
    this.byName.set(name, { name, topicId, partitions });
    return topicId;
  }
  remove(name: string): void { this.byName.delete(name); }
  get(name: string) { return this.byName.get(name); }
  getById(topicId: string) { return [...this.byName.values()].find((t) => t.topicId === topicId); }
  all() { return this.byName.values(); }
}

/** Kafka 4.4's group.streams.* defaults, without the initial rebalance delay. */
export const STREAMS_SETTINGS: StreamsGroupSettings = {
  sessionTimeoutMs: 45_000, heartbeatIntervalMs: 5000, numStandbyReplicas: 0, initialRebalanceDelayMs: 0, assignmentIntervalMs: 0,
  acceptableRecoveryLag: 10_000, taskOffsetIntervalMs: 60_000, maxSize: 100,
};

/**
 * A StreamsGroupHeartbeat to group g as Kafka Streams sends it, for a topology of one sub-topology reading topic t: the
 * full one on a join (epoch 0), then the tasks only when given (null: unchanged since it last sent them).
 */
export function streamsHeartbeat(
  coordinator: GroupCoordinator, topics: TopicsImage, memberId: string, memberEpoch: number, activeTasks: StreamsHeartbeatRequest['activeTasks'],
  rebalanceTimeoutMs = 60_000, instanceId: string | null = null,
): Promise<StreamsHeartbeatResult> {
  const joining = memberEpoch === 0;
  const others = activeTasks === null ? null : [];
  return coordinator.streamsGroupHeartbeat({
    groupId: 'g', memberId, memberEpoch, endpointInformationEpoch: -1, instanceId, rackId: null,
    rebalanceTimeoutMs: joining ? rebalanceTimeoutMs : -1,
    topology: joining ? {
      epoch: 0,
      subtopologies: [{
        subtopologyId: '0', sourceTopics: ['t'], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [],
        repartitionSourceTopics: [], copartitionGroups: [],
      }],
    } : null,
    activeTasks, standbyTasks: others, warmupTasks: others, processId: joining ? `process-${instanceId ?? memberId}` : null, userEndpoint: null,
    clientTags: joining ? [] : null, taskOffsets: null, taskEndOffsets: null, shutdownApplication: false, clientId: memberId,
    clientHost: '/127.0.0.1', apiVersion: 1,
  }, topics);
}
