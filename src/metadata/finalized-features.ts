// The cluster's finalized feature levels (KIP-584) as Kafka's FeatureControlManager keeps them: replayed from the
// metadata log's FeatureLevelRecords (a level of 0 takes a feature out of the finalized set), and changed by
// UpdateFeatures (`kafka-features upgrade|downgrade`), which appends them as one atomic batch. A directory Kafka
// formatted at 4.1-IV0 finalizes no share.version or streams.version, and kafkite then serves neither kind of group.
import { ErrorCode } from '../errors.js';
import type { ClusterMetadataLog } from './cluster-metadata-log.js';
import { FEATURES } from './features.js';
import type { MetadataRecord } from './metadata-frame.js';
import { metadataRecord, readMetadataRecord, recordTypeOf } from './metadata-records.js';
import { metadataChangedBetween } from './metadata-version.js';

const FEATURE_LEVEL = recordTypeOf('FeatureLevelRecord');
const KRAFT_VERSION = 'kraft.version';
const METADATA_VERSION = 'metadata.version';

/** Kafka's FeatureUpdate.UpgradeType codes. */
export const UpgradeType = { UPGRADE: 1, SAFE_DOWNGRADE: 2, UNSAFE_DOWNGRADE: 3 } as const;

export interface FeatureUpdate {
  readonly feature: string;
  readonly level: number;
  readonly upgradeType: number;
}

/** The outcome of an update: NONE, or the first failing feature's error as Kafka's controller words it. */
export interface FeatureUpdateResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** Kafka's VersionRange.toString. */
const range = (min: number, max: number) => (min === max ? `${min}` : `${min}-${max}`);

/** Kafka's "Invalid update version" error of a feature, from its reason. */
const prefixed = (u: FeatureUpdate, reason: string | null) => (reason === null ? null : `Invalid update version ${u.level} for feature ${u.feature}. ${reason}`);

/** Told of each level an update changes, once it is applied (as Kafka's metadata publishers are). */
export type FeatureLevelListener = (feature: string, level: number) => void;

export class FinalizedFeatures {
  private readonly levels = new Map<string, number>();
  private readonly listeners: FeatureLevelListener[] = [];

  /** Its levels come from replay: as the metadata log's FeatureLevelRecords leave them. */
  constructor(
    private readonly metadataLog: ClusterMetadataLog,
    private readonly nodeId: number,
  ) {}

  replay(r: MetadataRecord): void {
    if (r.type !== FEATURE_LEVEL) return;
    const { name, featureLevel } = readMetadataRecord<{ name: string; featureLevel: number }>('FeatureLevelRecord', r);
    if (featureLevel > 0) this.levels.set(name, featureLevel);
    else this.levels.delete(name);
  }

  onLevelChanged(listener: FeatureLevelListener): void {
    this.listeners.push(listener);
  }

  /** The finalized level of `name`, 0 when not finalized; kraft.version is raft's (its KRaftVersionRecord). */
  level(name: string): number {
    if (name === KRAFT_VERSION) return this.metadataLog.kraftVersion;
    return this.levels.get(name) ?? 0;
  }

  /** The features finalized above level 0, in FEATURES' order. */
  finalized(): Array<{ name: string; level: number }> {
    return FEATURES.filter((f) => this.level(f.name) > 0).map((f) => ({ name: f.name, level: this.level(f.name) }));
  }

  /** The epoch of the finalized features: the metadata log's last offset, as a KRaft broker's image offset. */
  get epoch(): number {
    return this.metadataLog.logEndOffset - 1;
  }

  /**
   * Applies the updates all or none (FeatureControlManager.updateFeatures): each is checked against the levels this
   * node supports and its upgrade type; the records are appended once every one passed, unless only validating.
   */
  async update(updates: readonly FeatureUpdate[], validateOnly: boolean): Promise<FeatureUpdateResult> {
    const records: MetadataRecord[] = [];
    for (const u of updates) {
      const reason = this.metadataVersionDowngradeRefused(u) ?? prefixed(u, this.reasonInvalid(u));
      if (reason !== null) {
        return { errorCode: ErrorCode.INVALID_UPDATE_VERSION, errorMessage: `The update failed for all features since the following feature had an error: ${reason}` };
      }
      // Written even when unchanged, as Kafka's controller does; kraft.version is raft's own (KRaftVersionRecord).
      if (u.feature !== KRAFT_VERSION) records.push(metadataRecord('FeatureLevelRecord', 0, { name: u.feature, featureLevel: u.level }));
    }
    if (validateOnly || records.length === 0) return { errorCode: ErrorCode.NONE, errorMessage: null };
    const persisted = this.metadataLog.append(records);
    const before = new Map(this.levels);
    for (const r of records) this.replay(r);
    await persisted;
    for (const u of updates) {
      const level = this.level(u.feature);
      if (level !== (before.get(u.feature) ?? 0)) for (const listener of this.listeners) listener(u.feature, level);
    }
    return { errorCode: ErrorCode.NONE, errorMessage: null };
  }

  /**
   * FeatureControlManager.updateMetadataVersion's refusals of a metadata.version downgrade: an unsafe one, or a safe one
   * across a level that changed metadata (its wording, as Kafka 4.4 answers `kafka-features downgrade --metadata`).
   */
  private metadataVersionDowngradeRefused(u: FeatureUpdate): string | null {
    const current = this.level(METADATA_VERSION);
    if (u.feature !== METADATA_VERSION || u.level >= current || u.level < 1 || u.upgradeType === UpgradeType.UPGRADE) return null;
    const refused = `Unsupported metadata.version downgrade from ${current} to ${u.level}.`;
    if (u.upgradeType === UpgradeType.UNSAFE_DOWNGRADE) return `${refused} Unsafe metadata downgrade is not supported in this version.`;
    if (metadataChangedBetween(u.level, current)) return `${refused} Refusing to perform the requested downgrade because it might delete metadata information.`;
    return null;
  }

  /** Why Kafka's controller would refuse the update (FeatureControlManager.updateFeature), null when it is valid. */
  private reasonInvalid(u: FeatureUpdate): string | null {
    if (u.upgradeType < UpgradeType.UPGRADE || u.upgradeType > UpgradeType.UNSAFE_DOWNGRADE) return 'The controller does not support the given upgrade type.';
    if (u.level < 0) return 'A feature version cannot be less than 0.';
    // QuorumFeatures.reasonNotLocallySupported: kafkite is the quorum's only controller and the cluster's only broker.
    const supported = FEATURES.find((f) => f.name === u.feature);
    const [min, max] = supported ? [supported.minSupported, supported.maxSupported] : [0, 0];
    if (u.level < min || u.level > max) {
      return max === 0 ? `Local controller ${this.nodeId} does not support this feature.` : `Local controller ${this.nodeId} only supports versions ${range(min, max)}`;
    }
    const current = this.level(u.feature);
    // Kafka changes kraft.version by raft control records and a voter set change (KIP-853), and never downgrades it;
    // kafkite has no raft quorum to change.
    if (u.feature === KRAFT_VERSION && u.level < current) return "Can't downgrade the version of this feature.";
    if (u.feature === KRAFT_VERSION && u.level > current) return `kafkite keeps kraft.version at its level (${current}).`;
    if (u.level < current && u.upgradeType === UpgradeType.UPGRADE) {
      return "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.";
    }
    if (u.level > current && u.upgradeType !== UpgradeType.UPGRADE) return "Can't downgrade to a newer version.";
    // Feature.validateVersion: the levels kafkite supports depend on nothing above metadata.version 4.1-IV0, its lowest.
    return null;
  }
}
