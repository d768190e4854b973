// Topics of a data dir whose metadata log does not hold them yet: kafkite-topics.json, where kafkite kept its topics
// before, or, without it, the partition directories (a deleted metadata log). Read once, when the metadata log is
// started, their records go into it; the JSON file is then renamed to kafkite-topics.json.migrated (kept, unused).
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DELETE_DIR_SUFFIX, parseLogDirName } from '../../storage/log-file-names.js';
import { readPartitionMetadata } from '../../storage/meta-properties.js';
import type { MetadataRecord } from './metadata-frame.js';
import { invalidTopicNameReason, newTopicId, topicCreationRecords, type Placement, type TopicInfo } from './topic-registry.js';

export const LEGACY_TOPICS_FILE = 'kafkite-topics.json';

export interface LegacyTopicsSource {
  /** kafkite-topics.json (in the first log dir). */
  file: string;
  logDirs: readonly string[];
  log: Logger;
  /** Config overrides a topic found only as directories gets (those the broker itself sets, e.g. for __consumer_offsets). */
  configsFor(topic: string): Record<string, string>;
}

/** The cluster id kafkite-topics.json names, if it can be read. */
export function legacyClusterId(file: string): string | undefined {
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    return typeof stored.clusterId === 'string' ? stored.clusterId : undefined;
  } catch {
    return undefined;
  }
}

function readJson(file: string): TopicInfo[] {
  const stored = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(stored.topics)) throw new Error('no topics');
  return stored.topics.map((t: TopicInfo) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions, configs: { ...t.configs } }));
}

/** Every `<topic>-<partition>` directory becomes a topic with partitions up to the highest one found. */
function topicsInDirs(source: LegacyTopicsSource): TopicInfo[] {
  const found = new Map<string, { topicId: string | null; partitions: number }>();
  for (const logDir of source.logDirs) {
    let entries;
    try {
      entries = readdirSync(logDir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const parsed = entry.isDirectory() && !entry.name.endsWith(DELETE_DIR_SUFFIX) ? parseLogDirName(entry.name) : null;
      if (parsed === null || invalidTopicNameReason(parsed.topic) !== null || parsed.topic.startsWith('__cluster_metadata')) continue;
      const topic = found.get(parsed.topic) ?? { topicId: null, partitions: 0 };
      topic.topicId ??= readPartitionMetadata(join(logDir, entry.name));
      topic.partitions = Math.max(topic.partitions, parsed.partition + 1);
      found.set(parsed.topic, topic);
    }
  }
  return [...found].map(([name, t]) => ({ name, topicId: t.topicId ?? newTopicId(), partitions: t.partitions, configs: source.configsFor(name) }));
}

/**
 * The records of the topics kept outside the metadata log. A kafkite-topics.json that cannot be parsed (damaged
 * outside kafkite: its writes were atomic) is moved aside to `<file>.corrupt` and the topics come from the
 * directories, so the data stays reachable; only their config overrides are lost, and the log says which.
 */
export function legacyTopicRecords(source: LegacyTopicsSource, placement: Placement): MetadataRecord[] {
  let topics: TopicInfo[];
  if (existsSync(source.file)) {
    try {
      topics = readJson(source.file);
      source.log.info({ topics: topics.length }, `${source.file}: its topics go into the metadata log`);
    } catch (err) {
      const aside = `${source.file}.corrupt`;
      renameSync(source.file, aside);
      topics = topicsInDirs(source);
      source.log.warn({ topics: topics.map((t) => t.name) },
        `cannot read ${source.file} (${(err as Error).message}); kept it as ${aside}: rebuilt ${topics.length} topic(s) from the log dirs; their config overrides are reset to the defaults`);
    }
  } else {
    topics = topicsInDirs(source);
    if (topics.length > 0) source.log.warn({ topics: topics.map((t) => t.name) }, `the metadata log has no topics: rebuilt ${topics.length} topic(s) from the log dirs`);
  }
  return topics.flatMap((t) => topicCreationRecords(t, placement));
}

/** Once its topics are durable in the metadata log, kafkite-topics.json is no longer read. */
export function retireLegacyTopicsFile(file: string): void {
  if (existsSync(file)) renameSync(file, `${file}.migrated`);
}
