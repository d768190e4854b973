// The cluster's topics (name, id, partition count, config overrides), replayed from the metadata log's
// TopicRecord, PartitionRecord, ConfigRecord (resource type TOPIC) and RemoveTopicRecord, and changed by appending
// them, as a KRaft controller's ReplicationControlManager writes them for a topic on one broker.
import { randomBytes } from 'node:crypto';
import type { PartitionChangeRecord } from '../../protocol/generated/records/PartitionChangeRecord.js';
import type { PartitionRecord } from '../../protocol/generated/records/PartitionRecord.js';
import { KafkaError, ErrorCode } from '../errors.js';
import type { ClusterMetadataLog } from './cluster-metadata-log.js';
import { ResourceType } from './config-resources.js';
import type { MetadataRecord } from './metadata-frame.js';
import { partitionRecordVersion } from './metadata-version.js';
import { metadataRecord, readMetadataRecord, recordTypeOf } from './metadata-records.js';
import { LeaderlessPartitions } from './partition-leadership.js';

export interface TopicInfo {
  readonly name: string;
  /** 32 lowercase hex characters. */
  readonly topicId: string;
  partitions: number;
  configs: Record<string, string>;
}

const LEGAL_TOPIC_CHARS = /^[a-zA-Z0-9._-]+$/;
const MAX_TOPIC_NAME_LENGTH = 249;
export const ZERO_UUID = '0'.repeat(32);

/** Kafka's Topic.validate: the INVALID_TOPIC_EXCEPTION message it would send, or null when legal. */
export function invalidTopicNameReason(name: string): string | null {
  if (name.length === 0) return 'Topic name is illegal, it can\'t be empty';
  if (name === '.' || name === '..') return 'Topic name cannot be "." or ".."';
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    return `Topic name is illegal, it can't be longer than ${MAX_TOPIC_NAME_LENGTH} characters, topic name: ${name}`;
  }
  if (!LEGAL_TOPIC_CHARS.test(name)) {
    return `Topic name ${name} is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return null;
}

export function newTopicId(): string {
  // Kafka never hands out the zero UUID or one whose base64 form starts with '-'.
  for (;;) {
    const id = randomBytes(16);
    if (id.some((b) => b !== 0) && (id[0]! & 0xfc) !== 0xf8) return id.toString('hex');
  }
}

/** Where a partition's replica lives: this node, in the log dir of the given directory id (32 hex). */
export interface Placement {
  readonly nodeId: number;
  directoryOf(topic: string, partition: number): string;
}

/** `version`: partitionRecordVersion of the finalized eligible.leader.replicas.version (1 while it is off). */
function partitionRecord(topic: TopicInfo, partition: number, placement: Placement, version: number): MetadataRecord {
  const replicas = [placement.nodeId];
  const record: PartitionRecord = {
    partitionId: partition, topicId: topic.topicId, replicas, isr: replicas, removingReplicas: [], addingReplicas: [],
    leader: placement.nodeId, leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0,
    directories: [placement.directoryOf(topic.name, partition)], eligibleLeaderReplicas: null, lastKnownElr: null,
  };
  return metadataRecord('PartitionRecord', version, record);
}

function topicConfigRecord(topic: string, name: string, value: string | null): MetadataRecord {
  return metadataRecord('ConfigRecord', 0, { resourceType: ResourceType.TOPIC, resourceName: topic, name, value });
}

/** The records of a topic's creation, in the order Kafka's controller writes them. */
export function topicCreationRecords(topic: TopicInfo, placement: Placement, elrLevel = 0): MetadataRecord[] {
  return [
    metadataRecord('TopicRecord', 0, { name: topic.name, topicId: topic.topicId }),
    ...Object.entries(topic.configs).map(([k, v]) => topicConfigRecord(topic.name, k, v)),
    ...Array.from({ length: topic.partitions }, (_, p) => partitionRecord(topic, p, placement, partitionRecordVersion(elrLevel))),
  ];
}

const TOPIC = recordTypeOf('TopicRecord');
const PARTITION = recordTypeOf('PartitionRecord');
const PARTITION_CHANGE = recordTypeOf('PartitionChangeRecord');
/** PartitionChangeRecord's leader when the leader did not change. */
const NO_LEADER_CHANGE = -2;
const NO_EPOCHS: readonly number[] = [];
const CONFIG = recordTypeOf('ConfigRecord');
const REMOVE_TOPIC = recordTypeOf('RemoveTopicRecord');

export class TopicRegistry {
  private readonly byName = new Map<string, TopicInfo>();
  private readonly byId = new Map<string, TopicInfo>();
  /**
   * Topic id -> each partition's leader epoch, where the log raised it above 0 (a Kafka node's restarts, kafkite's
   * election after a takeover): Kafka's PartitionRegistration, whose epoch each change naming a leader bumps.
   */
  private readonly epochsByTopicId = new Map<string, number[]>();
  /** The partitions the log left without a leader (a Kafka node's controlled shutdown), elected at registration. */
  readonly leaderless = new LeaderlessPartitions();

  /** Its topics come from replay: as the metadata log's records leave them. */
  constructor(
    private readonly metadataLog: ClusterMetadataLog,
    private readonly placement: Placement,
    /** A finalized feature's level (FinalizedFeatures.level): records are written at the versions it calls for. */
    private readonly featureLevel: (name: string) => number = () => 0,
  ) {}

  private get elrLevel(): number {
    return this.featureLevel('eligible.leader.replicas.version');
  }

  replay(r: MetadataRecord): void {
    this.leaderless.replay(r);
    if (r.type === TOPIC) {
      const t = readMetadataRecord<{ name: string; topicId: string }>('TopicRecord', r);
      this.index({ name: t.name, topicId: t.topicId, partitions: 0, configs: {} });
    } else if (r.type === PARTITION) {
      const p = readMetadataRecord<PartitionRecord>('PartitionRecord', r);
      const topic = this.byId.get(p.topicId);
      if (topic) topic.partitions = Math.max(topic.partitions, p.partitionId + 1);
      this.setLeaderEpoch(p.topicId, p.partitionId, p.leaderEpoch);
    } else if (r.type === PARTITION_CHANGE) {
      const c = readMetadataRecord<PartitionChangeRecord>('PartitionChangeRecord', r);
      if (c.leader !== NO_LEADER_CHANGE) this.setLeaderEpoch(c.topicId, c.partitionId, this.leaderEpochOf(c.topicId, c.partitionId) + 1);
    } else if (r.type === CONFIG) {
      const c = readMetadataRecord<{ resourceType: number; resourceName: string; name: string; value: string | null }>('ConfigRecord', r);
      const topic = c.resourceType === ResourceType.TOPIC ? this.byName.get(c.resourceName) : undefined;
      if (!topic) return;
      if (c.value === null) delete topic.configs[c.name];
      else topic.configs[c.name] = c.value;
    } else if (r.type === REMOVE_TOPIC) {
      // A removed topic's configs go with it (Kafka's ConfigurationControlManager.deleteTopicConfigs writes no record).
      const topicId = readMetadataRecord<{ topicId: string }>('RemoveTopicRecord', r).topicId;
      const topic = this.byId.get(topicId);
      if (topic) this.unindex(topic);
      this.epochsByTopicId.delete(topicId);
    }
  }

  private index(topic: TopicInfo): void {
    this.byName.set(topic.name, topic);
    this.byId.set(topic.topicId, topic);
  }

  private unindex(topic: TopicInfo): void {
    this.byName.delete(topic.name);
    this.byId.delete(topic.topicId);
  }

  private setLeaderEpoch(topicId: string, partition: number, epoch: number): void {
    let epochs = this.epochsByTopicId.get(topicId);
    if (epoch === 0 && !epochs) return;
    if (!epochs) this.epochsByTopicId.set(topicId, (epochs = []));
    epochs[partition] = epoch;
  }

  private leaderEpochOf(topicId: string, partition: number): number {
    return this.epochsByTopicId.get(topicId)?.[partition] ?? 0;
  }

  /**
   * Each partition's leader epoch in the metadata log by index, one lookup for a topic's many partitions; a partition
   * missing from it, like any of an unknown topic's, is at 0.
   */
  leaderEpochs(name: string): readonly number[] {
    const topic = this.byName.get(name);
    return (topic && this.epochsByTopicId.get(topic.topicId)) ?? NO_EPOCHS;
  }

  get(name: string): TopicInfo | undefined {
    return this.byName.get(name);
  }

  getById(topicId: string): TopicInfo | undefined {
    return this.byId.get(topicId);
  }

  all(): IterableIterator<TopicInfo> {
    return this.byName.values();
  }

  /** Kafka refuses names that collide once '.' and '_' are treated alike (metric names clash). */
  collidingTopic(name: string): TopicInfo | undefined {
    const normalised = name.replace(/\./g, '_');
    for (const t of this.byName.values()) {
      if (t.name !== name && t.name.replace(/\./g, '_') === normalised) return t;
    }
    return undefined;
  }

  /**
   * Commits a topic whose partitions exist: it is listed at once, and the promise resolves once its records are
   * durable. A topic missing from the log would have its partition directories taken for leftovers at start-up.
   */
  add(topic: TopicInfo): Promise<void> {
    if (this.byName.has(topic.name)) throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${topic.name}' already exists.`);
    const persisted = this.metadataLog.append(topicCreationRecords(topic, this.placement, this.elrLevel));
    this.index(topic);
    return persisted;
  }

  async remove(name: string): Promise<TopicInfo | undefined> {
    const topic = this.byName.get(name);
    if (!topic) return undefined;
    const persisted = this.metadataLog.append([metadataRecord('RemoveTopicRecord', 0, { topicId: topic.topicId })]);
    this.unindex(topic);
    await persisted;
    return topic;
  }

  /** Replaces a topic's config overrides: a ConfigRecord per changed key (a null value for a removed one). */
  setConfigs(topic: TopicInfo, next: Record<string, string>): Promise<void> {
    const records: MetadataRecord[] = [];
    for (const [k, v] of Object.entries(next)) if (topic.configs[k] !== v) records.push(topicConfigRecord(topic.name, k, v));
    for (const k of Object.keys(topic.configs)) if (!(k in next)) records.push(topicConfigRecord(topic.name, k, null));
    const persisted = this.metadataLog.append(records);
    topic.configs = { ...next };
    return persisted;
  }

  /** Grows a topic whose new partitions exist to `count` partitions. */
  addPartitions(topic: TopicInfo, count: number): Promise<void> {
    const records = Array.from({ length: count - topic.partitions }, (_, i) => partitionRecord(topic, topic.partitions + i, this.placement, partitionRecordVersion(this.elrLevel)));
    const persisted = this.metadataLog.append(records);
    topic.partitions = count;
    return persisted;
  }
}
