// File and directory names of Kafka's on-disk layout (Kafka's LogFileUtils).
import path from 'node:path';

export const LOG_FILE_SUFFIX = '.log';
export const INDEX_FILE_SUFFIX = '.index';
export const TIME_INDEX_FILE_SUFFIX = '.timeindex';
export const TXN_INDEX_FILE_SUFFIX = '.txnindex';
export const PRODUCER_SNAPSHOT_FILE_SUFFIX = '.snapshot';
export const DELETED_FILE_SUFFIX = '.deleted';
export const CLEANED_FILE_SUFFIX = '.cleaned';
export const SWAP_FILE_SUFFIX = '.swap';
export const DELETE_DIR_SUFFIX = '-delete';
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';
export const META_PROPERTIES_FILE = 'meta.properties';
export const PARTITION_METADATA_FILE = 'partition.metadata';
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';
/** KRaft's metadata log (Kafka's Topic.CLUSTER_METADATA_TOPIC_NAME): a partition directory that is no topic's. */
export const CLUSTER_METADATA_TOPIC = '__cluster_metadata';
/** Its fixed topic id, in its partition.metadata (Kafka's Uuid.METADATA_TOPIC_ID, Uuid(0, 1): AAAAAAAAAAAAAAAAAAAAAQ). */
export const CLUSTER_METADATA_TOPIC_ID = `${'0'.repeat(31)}1`;

/** The 20-digit zero-padded offset that names segment files. */
function filenamePrefixFromOffset(offset: number): string {
  return String(offset).padStart(20, '0');
}

export function offsetFromFileName(fileName: string): number {
  return Number(fileName.slice(0, fileName.indexOf('.')));
}

export function logFile(dir: string, baseOffset: number, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + LOG_FILE_SUFFIX + suffix);
}

export function offsetIndexFile(dir: string, baseOffset: number, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + INDEX_FILE_SUFFIX + suffix);
}

export function timeIndexFile(dir: string, baseOffset: number, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + TIME_INDEX_FILE_SUFFIX + suffix);
}

export function txnIndexFile(dir: string, baseOffset: number, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + TXN_INDEX_FILE_SUFFIX + suffix);
}

export function producerSnapshotFile(dir: string, offset: number): string {
  return path.join(dir, filenamePrefixFromOffset(offset) + PRODUCER_SNAPSHOT_FILE_SUFFIX);
}

/** `<topic>-<partition>` as Kafka names a partition directory. */
export function logDirName(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/**
 * Parses a topic partition's directory name; null for anything else (deleted, future or stray dirs, files,
 * and the cluster metadata log, which is loaded on its own and never served as a topic).
 */
export function parseLogDirName(name: string): { topic: string; partition: number } | null {
  const dash = name.lastIndexOf('-');
  if (dash <= 0) return null;
  const partitionText = name.slice(dash + 1);
  if (!/^\d+$/.test(partitionText)) return null;
  const topic = name.slice(0, dash);
  if (topic === CLUSTER_METADATA_TOPIC) return null;
  return { topic, partition: Number(partitionText) };
}
