// meta.properties of a log dir and partition.metadata of a partition dir, as KRaft-mode Kafka writes them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomically } from './checkpoint-file.js';
import { KafkaStorageError } from './errors.js';
import { META_PROPERTIES_FILE, PARTITION_METADATA_FILE, parseLogDirName } from './log-file-names.js';

export interface MetaProperties {
  clusterId: string;
  nodeId: number;
  directoryId: string;
}

/** Kafka's Uuid.toString: URL-safe base64 without padding. */
function uuidToBase64(hex: string): string {
  return Buffer.from(hex, 'hex').toString('base64url');
}

/** Kafka's Uuid.fromString: 32 hex of its URL-safe base64 form. */
export function uuidFromBase64(text: string): string {
  return Buffer.from(text, 'base64url').toString('hex');
}

function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const eq = trimmed.indexOf('=');
    if (eq > 0) out.set(trimmed.slice(0, eq).trim(), trimmed.slice(eq + 1).trim());
  }
  return out;
}

/**
 * Reads the log dir's meta.properties, writing a new one (with a fresh directory.id) for a new dir; a dir of another
 * cluster or node is refused. `warn` hears of a new one written in a dir that already holds partitions.
 */
export function ensureMetaProperties(logDir: string, clusterId: string, nodeId: number, warn?: (message: string) => void): MetaProperties {
  const file = path.join(logDir, META_PROPERTIES_FILE);
  if (fs.existsSync(file)) {
    const props = parseProperties(fs.readFileSync(file, 'utf8'));
    const found = props.get('cluster.id');
    const foundNode = props.get('node.id') ?? props.get('broker.id');
    if (found !== clusterId) throw new KafkaStorageError(`${file} has cluster.id ${found}, expected ${clusterId}`);
    if (foundNode !== undefined && Number(foundNode) !== nodeId) throw new KafkaStorageError(`${file} has node.id ${foundNode}, expected ${nodeId}`);
    return { clusterId, nodeId, directoryId: props.get('directory.id') ?? '' };
  }
  if (warn && fs.readdirSync(logDir).some((name) => parseLogDirName(name) !== null)) {
    warn(`${file} is missing in a log dir holding partitions; writing a new one for cluster ${clusterId}`);
  }
  const directoryId = crypto.randomBytes(16).toString('base64url');
  const text = `#\n#${new Date().toString()}\nnode.id=${nodeId}\ndirectory.id=${directoryId}\nversion=1\ncluster.id=${clusterId}\n`;
  writeFileAtomically(file, text);
  return { clusterId, nodeId, directoryId };
}

export function writePartitionMetadata(partitionDir: string, topicId: string): void {
  writeFileAtomically(path.join(partitionDir, PARTITION_METADATA_FILE), `version: 0\ntopic_id: ${uuidToBase64(topicId)}\n`);
}

/** The topic id (32 hex) of a partition dir, or null when it has no partition.metadata. */
export function readPartitionMetadata(partitionDir: string): string | null {
  const file = path.join(partitionDir, PARTITION_METADATA_FILE);
  if (!fs.existsSync(file)) return null;
  const match = /topic_id:\s*(\S+)/.exec(fs.readFileSync(file, 'utf8'));
  return match ? uuidFromBase64(match[1]) : null;
}

/** The cluster id the log dirs were formatted with (meta.properties), if any. */
export function readClusterId(logDirs: readonly string[]): string | undefined {
  for (const dir of logDirs) {
    const file = path.join(dir, META_PROPERTIES_FILE);
    if (fs.existsSync(file)) {
      const clusterId = parseProperties(fs.readFileSync(file, 'utf8')).get('cluster.id');
      if (clusterId) return clusterId;
    }
  }
  return undefined;
}

/** The directory.id (32 hex) of a log dir's meta.properties, if it has one. */
export function readDirectoryId(logDir: string): string | undefined {
  const file = path.join(logDir, META_PROPERTIES_FILE);
  const id = fs.existsSync(file) ? parseProperties(fs.readFileSync(file, 'utf8')).get('directory.id') : undefined;
  return id ? uuidFromBase64(id) : undefined;
}
