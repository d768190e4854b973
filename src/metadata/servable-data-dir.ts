// Whether kafkite can serve a metadata log another node wrote (a Kafka 4.4 node's directory, issue #31 part 3),
// checked read-only before anything in the directory is touched, so that a refused directory is left as it was.
// kafkite serves one node's data: it refuses what Kafka itself would refuse to run (a finalized feature level it does
// not support, as Kafka's QuorumFeatures.reasonNotSupported stops a node), and what one node cannot serve alone: other
// voters or brokers, partitions with replicas elsewhere, and tiered storage (remote segments it cannot read).
// A default-formatted Kafka 4.4 node (`kafka-storage format --standalone`: 4.4-IV2, kraft.version 1, ELR on) is served:
// its VotersRecord must name this node alone, with the directory id of the metadata log dir's meta.properties.
import type { PartitionChangeRecord } from '../../protocol/generated/records/PartitionChangeRecord.js';
import type { PartitionRecord } from '../../protocol/generated/records/PartitionRecord.js';
import { join } from 'node:path';
import { CLUSTER_METADATA_TOPIC, logDirName } from '../../storage/log-file-names.js';
import { readDirectoryId } from '../../storage/meta-properties.js';
import { readQuorumState } from '../../storage/quorum-state.js';
import { FEATURES } from './features.js';
import type { MetadataRecord } from './metadata-frame.js';
import { readMetadataOnDisk, type MetadataOnDisk } from './metadata-log-files.js';
import { readMetadataRecord, recordTypeOf } from './metadata-records.js';
import { MAX_METADATA_VERSION, metadataVersionName, MIN_METADATA_VERSION } from './metadata-version.js';

export class UnservableDataDirError extends Error {
  override name = 'UnservableDataDirError';
}

const TYPES = Object.fromEntries(['FeatureLevelRecord', 'RegisterBrokerRecord', 'UnregisterBrokerRecord', 'RegisterControllerRecord', 'UnregisterControllerRecord', 'TopicRecord',
  'PartitionRecord', 'PartitionChangeRecord', 'RemoveTopicRecord', 'ConfigRecord'].map((n) => [n, recordTypeOf(n)]));
/** ConfigResource.Type.TOPIC. */
const TOPIC_RESOURCE = 2;
/** PartitionChangeRecord's leader: -1 none, -2 unchanged. */
const NO_LEADER = -1;

class DataDirImage {
  readonly problems: string[] = [];
  readonly features = new Map<string, number>();
  readonly otherNodes = new Set<number>();
  readonly topicNames = new Map<string, string>();
  /** Topic id -> partition -> the nodes it names (replicas, ISR, leader). */
  readonly placements = new Map<string, Map<number, Set<number>>>();
  readonly remoteStorage = new Map<string, boolean>();

  constructor(private readonly nodeId: number) {}

  private nodes(topicId: string, partition: number, ids: ReadonlyArray<number>): void {
    let partitions = this.placements.get(topicId);
    if (!partitions) this.placements.set(topicId, (partitions = new Map()));
    const set = partitions.get(partition) ?? new Set<number>();
    for (const id of ids) if (id >= 0) set.add(id);
    partitions.set(partition, set);
  }

  replay(r: MetadataRecord): void {
    if (r.type === TYPES.FeatureLevelRecord) {
      const f = readMetadataRecord<{ name: string; featureLevel: number }>('FeatureLevelRecord', r);
      this.features.set(f.name, f.featureLevel);
    } else if (r.type === TYPES.RegisterBrokerRecord) {
      const id = readMetadataRecord<{ brokerId: number }>('RegisterBrokerRecord', r).brokerId;
      if (id !== this.nodeId) this.otherNodes.add(id);
    } else if (r.type === TYPES.UnregisterBrokerRecord) {
      this.otherNodes.delete(readMetadataRecord<{ brokerId: number }>('UnregisterBrokerRecord', r).brokerId);
    } else if (r.type === TYPES.RegisterControllerRecord) {
      const id = readMetadataRecord<{ controllerId: number }>('RegisterControllerRecord', r).controllerId;
      if (id !== this.nodeId) this.otherNodes.add(id);
    } else if (r.type === TYPES.UnregisterControllerRecord) {
      // 4.4-IV2 on: a controller removed from the quorum (isControllerUnregistrationSupported).
      this.otherNodes.delete(readMetadataRecord<{ controllerId: number }>('UnregisterControllerRecord', r).controllerId);
    } else if (r.type === TYPES.TopicRecord) {
      const t = readMetadataRecord<{ name: string; topicId: string }>('TopicRecord', r);
      this.topicNames.set(t.topicId, t.name);
    } else if (r.type === TYPES.PartitionRecord) {
      const p = readMetadataRecord<PartitionRecord>('PartitionRecord', r);
      this.nodes(p.topicId, p.partitionId, [...p.replicas, ...p.isr, p.leader]);
    } else if (r.type === TYPES.PartitionChangeRecord) {
      const p = readMetadataRecord<PartitionChangeRecord>('PartitionChangeRecord', r);
      this.nodes(p.topicId, p.partitionId, [...(p.replicas ?? []), ...(p.isr ?? []), p.leader === NO_LEADER ? -1 : p.leader]);
    } else if (r.type === TYPES.RemoveTopicRecord) {
      const id = readMetadataRecord<{ topicId: string }>('RemoveTopicRecord', r).topicId;
      const name = this.topicNames.get(id);
      this.placements.delete(id);
      this.topicNames.delete(id);
      if (name !== undefined) this.remoteStorage.delete(name);
    } else if (r.type === TYPES.ConfigRecord) {
      const c = readMetadataRecord<{ resourceType: number; resourceName: string; name: string; value: string | null }>('ConfigRecord', r);
      if (c.resourceType === TOPIC_RESOURCE && c.name === 'remote.storage.enable') this.remoteStorage.set(c.resourceName, c.value?.trim().toLowerCase() === 'true');
    }
  }
}

/**
 * Throws UnservableDataDirError naming every reason the metadata log in `metadataLogDir` cannot be served by
 * kafkite as node `nodeId`; a directory without a metadata log, or one kafkite wrote before KRaft's form
 * (no metadata.version), passes: kafkite writes or upgrades it. Returns what it read, for the replay at start-up.
 */
export function checkServableDataDir(metadataLogDir: string, nodeId: number): MetadataOnDisk {
  const dir = join(metadataLogDir, logDirName(CLUSTER_METADATA_TOPIC, 0));
  const onDisk = readMetadataOnDisk(dir);
  const image = new DataDirImage(nodeId);
  for (const r of onDisk.records) image.replay(r);
  if (!image.features.has('metadata.version')) return onDisk;
  const problems: string[] = [];
  for (const [name, level] of image.features) {
    const ours = FEATURES.find((f) => f.name === name);
    if (name === 'metadata.version' && (level < MIN_METADATA_VERSION || level > MAX_METADATA_VERSION)) {
      const served = `${MIN_METADATA_VERSION}..${MAX_METADATA_VERSION}, ${metadataVersionName(MIN_METADATA_VERSION)}..${metadataVersionName(MAX_METADATA_VERSION)}`;
      problems.push(level > MAX_METADATA_VERSION
        ? `metadata.version ${level} is newer than kafkite serves (${served}), and metadata.version cannot be downgraded`
        : `metadata.version ${level} is older than kafkite serves (${served}): upgrade it on Kafka first (kafka-features.sh upgrade --metadata ${metadataVersionName(MIN_METADATA_VERSION)})`);
    } else if (level > (ours?.maxSupported ?? 0)) {
      problems.push(`feature ${name} is finalized at level ${level}, which kafkite does not support (at most ${ours?.maxSupported ?? 0})`);
    }
  }
  const kraftVersion = onDisk.kraftVersion ?? 0;
  const kraftSupported = FEATURES.find((f) => f.name === 'kraft.version')!.maxSupported;
  if (kraftVersion > kraftSupported) problems.push(`kraft.version ${kraftVersion} is newer than kafkite serves (at most ${kraftSupported})`);
  const lastVoters = onDisk.voterSets.at(-1) ?? [];
  const voters = new Set([...(readQuorumState(dir)?.voters ?? []), ...lastVoters.map((v) => v.id)]);
  voters.delete(nodeId);
  // KRaft's voter key is (id, directory id): a voter of this id on another directory is another replica (KIP-853).
  const ownDirectory = readDirectoryId(metadataLogDir);
  const self = lastVoters.find((v) => v.id === nodeId);
  if (self && ownDirectory !== undefined && self.directoryId !== ownDirectory) {
    problems.push(`the voter set names node ${nodeId} with directory id ${self.directoryId}, not this metadata log dir's (${ownDirectory})`);
  }
  for (const id of voters) image.otherNodes.add(id);
  if (image.otherNodes.size > 0) problems.push(`it is a multi-node cluster's directory: nodes ${[...image.otherNodes].sort((a, b) => a - b).join(', ')} besides this node (node.id ${nodeId}) are voters or brokers`);
  const elsewhere: string[] = [];
  for (const [topicId, partitions] of image.placements) {
    for (const [partition, nodes] of partitions) if ([...nodes].some((n) => n !== nodeId)) elsewhere.push(`${image.topicNames.get(topicId) ?? topicId}-${partition}`);
  }
  if (elsewhere.length > 0) problems.push(`partitions have replicas on other nodes than node.id ${nodeId}: ${elsewhere.slice(0, 10).join(', ')}${elsewhere.length > 10 ? ', ...' : ''}`);
  const tiered = [...image.remoteStorage].filter(([, on]) => on).map(([name]) => name);
  if (tiered.length > 0) problems.push(`topics use tiered storage (remote.storage.enable=true), whose remote segments kafkite cannot read: ${tiered.join(', ')}`);
  if (problems.length > 0) throw new UnservableDataDirError(`kafkite cannot serve the data dir ${metadataLogDir} (left unchanged): ${problems.join('; ')}`);
  return onDisk;
}
