// The metadata.version levels kafkite serves and what each means for the records it writes, as Kafka 4.4's
// org.apache.kafka.server.common.MetadataVersion decides them (a record's version is a function of the finalized
// level, so that what kafkite appends to a Kafka node's log is what Kafka's controller would append at that level).
// 26..33 are 4.1-IV0..4.4-IV2; what the levels above 26 change, and why kafkite can serve each:
// - 4.1-IV1 (27): replica Fetch v18 (fetchRequestVersion); 4.2-IV1 (29): ListOffsets v11 (listOffsetRequestVersion).
//   Both only set what a follower sends its leader; kafkite has no followers and serves both versions to clients.
// - 4.2-IV0 (28), 4.4-IV0 (31): no metadata change (didMetadataChange false).
// - 4.3-IV0 (30): cordoned log dirs (isCordonedLogDirsSupported): RegisterBrokerRecord v4 and
//   BrokerRegistrationChangeRecord v3 carry CordonedLogDirs; kafkite cordons none, and writes the empty list.
// - 4.4-IV1 (32): CIDR ACL hosts (isCidrAclSupported): the authorizer matches them (security/acl-host.ts).
// - 4.4-IV2 (33): controllers unregister (isControllerUnregistrationSupported: UnregisterControllerRecord).

const MetadataVersion = {
  IBP_4_1_IV0: 26,
  IBP_4_3_IV0: 30,
  IBP_4_4_IV1: 32,
  IBP_4_4_IV2: 33,
} as const;

/** The lowest level kafkite serves: transaction.version 2 needs 4.0-IV2, group.version 1 4.0-IV0, its records 4.1-IV0's. */
export const MIN_METADATA_VERSION = MetadataVersion.IBP_4_1_IV0;
/** Kafka 4.4's latest production level, what `kafka-storage format` finalizes by default. */
export const MAX_METADATA_VERSION = MetadataVersion.IBP_4_4_IV2;

const NAMES = ['4.1-IV0', '4.1-IV1', '4.2-IV0', '4.2-IV1', '4.3-IV0', '4.4-IV0', '4.4-IV1', '4.4-IV2'];
/** MetadataVersion.didMetadataChange of the levels served: a record or field a lower level lacks. */
const METADATA_CHANGED = new Set<number>([MetadataVersion.IBP_4_3_IV0, MetadataVersion.IBP_4_4_IV1, MetadataVersion.IBP_4_4_IV2]);

/** MetadataVersion.checkIfMetadataChanged: whether a level between `lower` (excluded) and `higher` changed the metadata. */
export function metadataChangedBetween(lower: number, higher: number): boolean {
  for (let level = lower + 1; level <= higher; level++) if (METADATA_CHANGED.has(level)) return true;
  return false;
}

/** Kafka's MetadataVersion.version() of a level kafkite serves, e.g. 4.4-IV2 for 33. */
export function metadataVersionName(level: number): string {
  return NAMES[level - MIN_METADATA_VERSION] ?? `level ${level}`;
}

/** MetadataVersion.registerBrokerRecordVersion: 4 with cordoned log dirs (4.3-IV0), else 3 (log dirs, 3.7-IV2). */
export function registerBrokerRecordVersion(metadataVersion: number): number {
  return metadataVersion >= MetadataVersion.IBP_4_3_IV0 ? 4 : 3;
}

/**
 * The PartitionRecord version Kafka 4.4's controller writes: 2 (the ELR fields) once eligible.leader.replicas.version
 * is finalized, else 1 (directories), as seen in its logs at 4.1-IV0 (ELR off, version 1) and 4.4-IV2 (ELR on, 2).
 */
export function partitionRecordVersion(elrLevel: number): number {
  return elrLevel > 0 ? 2 : 1;
}

/** MetadataVersion.partitionChangeRecordVersion: 2 from 4.0-IV1 (isElrSupported) on, true of every level served. */
export const PARTITION_CHANGE_RECORD_VERSION = 2;
