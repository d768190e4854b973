// The metadata image a snapshot holds (Kafka's MetadataImage, written by its ImageWriter): the state the log's committed
// records leave, not their history. A removed topic, ACL or SCRAM user is gone, a config key holds its last value, a
// partition's changes are merged into one PartitionRecord (PartitionRegistration.merge), a broker's fencing into its
// RegisterBrokerRecord (BrokerRegistration), and only the last ProducerIdsRecord is kept. Records of a metadata
// transaction (KIP-868) count once it ends, and not at all if it is aborted. A record the image cannot read (a type
// Kafka does not define, a body that does not decode, a change to a partition or broker the image does not hold) is kept as it is,
// after the others in log order, so that a snapshot never loses what the log had; a removal of what it does not hold changes nothing.
import type { BrokerRegistrationChangeRecord } from '../../protocol/generated/records/BrokerRegistrationChangeRecord.js';
import type { ClientQuotaRecord } from '../../protocol/generated/records/ClientQuotaRecord.js';
import type { PartitionChangeRecord } from '../../protocol/generated/records/PartitionChangeRecord.js';
import type { PartitionRecord } from '../../protocol/generated/records/PartitionRecord.js';
import type { RegisterBrokerRecord } from '../../protocol/generated/records/RegisterBrokerRecord.js';
import { ResourceType } from './config-resources.js';
import type { MetadataRecord } from './metadata-frame.js';
import { metadataRecord, readMetadataRecord, recordNameOf } from './metadata-records.js';

/** PartitionChangeRecord's "unchanged" values. */
const NO_LEADER_CHANGE = -2;
const NO_RECOVERY_STATE_CHANGE = -1;
/** A PartitionChangeRecord that changes nothing, but for the fields set over it. */
const NO_CHANGE: Omit<PartitionChangeRecord, 'topicId' | 'partitionId'> = {
  isr: null, leader: NO_LEADER_CHANGE, replicas: null, removingReplicas: null, addingReplicas: null, leaderRecoveryState: NO_RECOVERY_STATE_CHANGE,
  directories: null, eligibleLeaderReplicas: null, lastKnownElr: null,
};
/** BrokerRegistrationFencingChange and BrokerRegistrationInControlledShutdownChange. */
const FENCE = 1;
const UNFENCE = -1;
const IN_CONTROLLED_SHUTDOWN = 1;

interface Versioned<T> {
  version: number;
  value: T;
}

interface TopicImage {
  record: MetadataRecord;
  name: string;
  /** The record as replayed, until a change is merged into `value` (then re-encoded). */
  partitions: Map<number, Versioned<PartitionRecord> & { record: MetadataRecord | null }>;
}

/** Applies a record to the image; false when the image cannot (the record is then kept as it is). */
type Apply = (r: MetadataRecord, name: string) => boolean;

const read = <T>(name: string, r: MetadataRecord): T => readMetadataRecord<T>(name, r);
const copy = (r: MetadataRecord): MetadataRecord => ({ type: r.type, version: r.version, body: Buffer.from(r.body) });

/** The key a record is kept under in the image. */
type KeyOf = (r: MetadataRecord, name: string) => string | number;
const controllerIdOf: KeyOf = (r, name) => read<{ controllerId: number }>(name, r).controllerId;
const aclIdOf: KeyOf = (r, name) => read<{ id: string }>(name, r).id;
const tokenIdOf: KeyOf = (r, name) => read<{ tokenId: string }>(name, r).tokenId;
const scramUserOf: KeyOf = (r, name) => {
  const u = read<{ name: string; mechanism: number }>(name, r);
  return JSON.stringify([u.name, u.mechanism]);
};

/** Keeps the record under its key, the latest one winning. */
function keep(map: Map<string | number, MetadataRecord>, key: KeyOf): Apply {
  return (r, name) => {
    map.set(key(r, name), copy(r));
    return true;
  };
}

/** Drops what the record's key held; a removal of what the image does not hold changes nothing. */
function remove(map: Map<string | number, MetadataRecord>, key: KeyOf): Apply {
  return (r, name) => {
    map.delete(key(r, name));
    return true;
  };
}

export class MetadataImage {
  private readonly features = new Map<string, MetadataRecord>();
  private readonly brokers = new Map<number, Versioned<RegisterBrokerRecord>>();
  private readonly controllers = new Map<string | number, MetadataRecord>();
  private readonly topics = new Map<string, TopicImage>();
  /** By resource ([type, name]), then by key. */
  private readonly configs = new Map<string, Map<string, MetadataRecord>>();
  private readonly quotas = new Map<string, MetadataRecord>();
  private producerIds: MetadataRecord | null = null;
  private readonly acls = new Map<string | number, MetadataRecord>();
  private readonly scram = new Map<string | number, MetadataRecord>();
  private readonly delegationTokens = new Map<string | number, MetadataRecord>();
  private readonly unreadable: MetadataRecord[] = [];
  /** The records of a metadata transaction not yet ended. */
  private pending: MetadataRecord[] | null = null;
  /** Records replayed but not yet applied: the image is built when a snapshot needs it, not at start-up. */
  private backlog: MetadataRecord[] = [];

  /** A metadata transaction is open: the image is not at a point a snapshot may be taken (Kafka snapshots committed state). */
  get inTransaction(): boolean {
    this.catchUp();
    return this.pending !== null;
  }

  replay(r: MetadataRecord): void {
    this.backlog.push(r);
  }

  private catchUp(): void {
    const backlog = this.backlog;
    this.backlog = [];
    for (const r of backlog) this.replayNow(r);
  }

  private replayNow(r: MetadataRecord): void {
    const name = recordNameOf(r.type);
    if (name === 'BeginTransactionRecord') {
      this.pending = [];
    } else if (name === 'EndTransactionRecord') {
      const records = this.pending ?? [];
      this.pending = null;
      for (const record of records) this.apply(record);
    } else if (name === 'AbortTransactionRecord') {
      this.pending = null;
    } else if (this.pending) {
      this.pending.push(copy(r));
    } else {
      this.apply(r);
    }
  }

  private apply(r: MetadataRecord): void {
    const name = recordNameOf(r.type);
    const apply = name === undefined ? undefined : this.appliers[name];
    let applied = false;
    try {
      applied = apply === undefined ? false : apply(r, name!);
    } catch {
      applied = false;
    }
    if (!applied) this.unreadable.push(copy(r));
  }

  /** By record name: applies the record, false when the image cannot. Types missing here are kept as they are. */
  private readonly appliers: Readonly<Record<string, Apply>> = {
    // Not part of the image: heartbeats of the log, and ZooKeeper migration states (gone in Kafka 4).
    NoOpRecord: () => true,
    ZkMigrationStateRecord: () => true,
    // Written when ELR is turned off: the named topic's partitions (all, for an empty name) with ELR fields lose them, a
    // change each (TopicsDelta.replay(ClearElrRecord) merges a PartitionChangeRecord clearing both, bumping the partition epoch).
    ClearElrRecord: (r, name) => {
      const topicName = read<{ topicName: string }>(name, r).topicName;
      for (const topic of this.topics.values()) {
        if (topicName !== '' && topic.name !== topicName) continue;
        for (const p of topic.partitions.values()) {
          if ((p.value.eligibleLeaderReplicas ?? []).length === 0 && (p.value.lastKnownElr ?? []).length === 0) continue;
          mergePartitionChange(p.value, { ...NO_CHANGE, topicId: p.value.topicId, partitionId: p.value.partitionId, eligibleLeaderReplicas: [], lastKnownElr: [] });
          p.record = null;
        }
      }
      return true;
    },
    FeatureLevelRecord: (r, name) => {
      const f = read<{ name: string; featureLevel: number }>(name, r);
      // Level 0 removes a feature (FeaturesDelta).
      if (f.featureLevel === 0) this.features.delete(f.name);
      else this.features.set(f.name, copy(r));
      return true;
    },
    RegisterBrokerRecord: (r, name) => {
      const b = read<RegisterBrokerRecord>(name, r);
      this.brokers.set(b.brokerId, { version: r.version, value: b });
      return true;
    },
    BrokerRegistrationChangeRecord: (r, name) => {
      const c = read<BrokerRegistrationChangeRecord>(name, r);
      const b = this.broker(c.brokerId, c.brokerEpoch);
      if (!b) return false;
      if (c.fenced === FENCE) b.fenced = true;
      else if (c.fenced === UNFENCE) b.fenced = false;
      if (c.inControlledShutdown === IN_CONTROLLED_SHUTDOWN) b.inControlledShutdown = true;
      if (c.logDirs.length > 0) b.logDirs = c.logDirs;
      return true;
    },
    FenceBrokerRecord: (r, name) => this.fence(read<{ id: number; epoch: number }>(name, r), true),
    UnfenceBrokerRecord: (r, name) => this.fence(read<{ id: number; epoch: number }>(name, r), false),
    UnregisterBrokerRecord: (r, name) => {
      const u = read<{ brokerId: number; brokerEpoch: number }>(name, r);
      if (this.broker(u.brokerId, u.brokerEpoch)) this.brokers.delete(u.brokerId);
      return true;
    },
    RegisterControllerRecord: keep(this.controllers, controllerIdOf),
    UnregisterControllerRecord: remove(this.controllers, controllerIdOf),
    TopicRecord: (r, name) => {
      const t = read<{ name: string; topicId: string }>(name, r);
      this.topics.set(t.topicId, { record: copy(r), name: t.name, partitions: new Map() });
      return true;
    },
    PartitionRecord: (r, name) => {
      const p = read<PartitionRecord>(name, r);
      const topic = this.topics.get(p.topicId);
      topic?.partitions.set(p.partitionId, { version: r.version, value: p, record: copy(r) });
      return topic !== undefined;
    },
    PartitionChangeRecord: (r, name) => {
      const c = read<PartitionChangeRecord>(name, r);
      const p = this.topics.get(c.topicId)?.partitions.get(c.partitionId);
      if (!p) return false;
      mergePartitionChange(p.value, c);
      p.record = null;
      return true;
    },
    RemoveTopicRecord: (r, name) => {
      const topicId = read<{ topicId: string }>(name, r).topicId;
      const topic = this.topics.get(topicId);
      if (!topic) return true;
      this.topics.delete(topicId);
      // A removed topic's configs go with it (ConfigurationControlManager.deleteTopicConfigs).
      this.configs.delete(resourceKey(ResourceType.TOPIC, topic.name));
      return true;
    },
    ConfigRecord: (r, name) => {
      const c = read<{ resourceType: number; resourceName: string; name: string; value: string | null }>(name, r);
      const key = resourceKey(c.resourceType, c.resourceName);
      let resource = this.configs.get(key);
      if (!resource) this.configs.set(key, (resource = new Map()));
      if (c.value === null) resource.delete(c.name);
      else resource.set(c.name, copy(r));
      if (resource.size === 0) this.configs.delete(key);
      return true;
    },
    ClientQuotaRecord: (r, name) => {
      const q = read<ClientQuotaRecord>(name, r);
      const entity = q.entity.map((e) => [e.entityType, e.entityName]).sort(([a], [b]) => String(a).localeCompare(String(b)));
      const key = JSON.stringify([entity, q.key]);
      if (q.remove) this.quotas.delete(key);
      else this.quotas.set(key, copy(r));
      return true;
    },
    ProducerIdsRecord: (r) => {
      this.producerIds = copy(r);
      return true;
    },
    AccessControlEntryRecord: keep(this.acls, aclIdOf),
    RemoveAccessControlEntryRecord: remove(this.acls, aclIdOf),
    UserScramCredentialRecord: keep(this.scram, scramUserOf),
    RemoveUserScramCredentialRecord: remove(this.scram, scramUserOf),
    DelegationTokenRecord: keep(this.delegationTokens, tokenIdOf),
    RemoveDelegationTokenRecord: remove(this.delegationTokens, tokenIdOf),
  };

  private broker(id: number, epoch: number): RegisterBrokerRecord | undefined {
    const b = this.brokers.get(id)?.value;
    return b && b.brokerEpoch === epoch ? b : undefined;
  }

  private fence(f: { id: number; epoch: number }, fenced: boolean): boolean {
    const b = this.broker(f.id, f.epoch);
    if (b) b.fenced = fenced;
    return b !== undefined;
  }

  /**
   * The image as records, in the order Kafka's MetadataImage.write puts them: features (metadata.version first),
   * the cluster (brokers, controllers), topics with their partitions, configs, client quotas, producer ids, ACLs,
   * SCRAM credentials, delegation tokens; then what the image kept as it was.
   */
  records(): MetadataRecord[] {
    this.catchUp();
    const out: MetadataRecord[] = [];
    const metadataVersion = [...this.features].filter(([name]) => name === 'metadata.version');
    for (const [, r] of [...metadataVersion, ...[...this.features].filter(([name]) => name !== 'metadata.version')]) out.push(r);
    for (const b of this.brokers.values()) out.push(metadataRecord('RegisterBrokerRecord', b.version, b.value));
    out.push(...this.controllers.values());
    for (const topic of this.topics.values()) {
      out.push(topic.record);
      const partitions = [...topic.partitions].sort(([a], [b]) => a - b);
      for (const [, p] of partitions) out.push(p.record ?? metadataRecord('PartitionRecord', p.version, p.value));
    }
    for (const resource of this.configs.values()) out.push(...resource.values());
    out.push(...this.quotas.values());
    if (this.producerIds) out.push(this.producerIds);
    out.push(...this.acls.values(), ...this.scram.values(), ...this.delegationTokens.values(), ...this.unreadable);
    return out;
  }
}

function resourceKey(resourceType: number, resourceName: string): string {
  return JSON.stringify([resourceType, resourceName]);
}

/** Kafka's PartitionRegistration.merge: each field the change sets replaces the partition's; a leader change bumps its epoch. */
function mergePartitionChange(p: PartitionRecord, c: PartitionChangeRecord): void {
  if (c.isr !== null) p.isr = c.isr;
  if (c.replicas !== null) p.replicas = c.replicas;
  if (c.removingReplicas !== null) p.removingReplicas = c.removingReplicas;
  if (c.addingReplicas !== null) p.addingReplicas = c.addingReplicas;
  if (c.directories !== null) p.directories = c.directories;
  if (c.eligibleLeaderReplicas !== null) p.eligibleLeaderReplicas = c.eligibleLeaderReplicas;
  if (c.lastKnownElr !== null) p.lastKnownElr = c.lastKnownElr;
  if (c.leaderRecoveryState !== NO_RECOVERY_STATE_CHANGE) p.leaderRecoveryState = c.leaderRecoveryState;
  if (c.leader !== NO_LEADER_CHANGE) {
    p.leader = c.leader;
    p.leaderEpoch++;
  }
  p.partitionEpoch++;
}
