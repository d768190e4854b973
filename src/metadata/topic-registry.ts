// The cluster's topics (name, id, partition count, config overrides). On a Kafka cluster this lives
// in the controller's metadata log; on one node a small JSON file beside the partition directories is enough.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DELETE_DIR_SUFFIX, META_PROPERTIES_FILE, parseLogDirName } from '../../storage/log-file-names.js';
import { writeFileAtomically } from '../../storage/checkpoint-file.js';
import { readPartitionMetadata } from '../../storage/meta-properties.js';
import { KafkaError, ErrorCode } from '../errors.js';

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

/** How to rebuild a registry file that cannot be read: from the partition directories of the log dirs. */
export interface RegistryRecovery {
  logDirs: readonly string[];
  log: Logger;
  /** Config overrides a rebuilt topic gets (those the broker itself sets, e.g. for __consumer_offsets). */
  configsFor(topic: string): Record<string, string>;
}

export class TopicRegistry {
  private readonly byName = new Map<string, TopicInfo>();
  private readonly byId = new Map<string, TopicInfo>();

  private constructor(
    private readonly file: string,
    /** Kafka's cluster id form: a random UUID in URL-safe base64 without padding. */
    readonly clusterId: string,
  ) {}

  /**
   * Loads the registry. A file that cannot be parsed (damaged outside kafkite: writes are atomic) is
   * moved aside to `<file>.corrupt` and rebuilt from the log dirs, so the data stays reachable; only
   * topic config overrides are lost, and the log says which topics lost them.
   */
  static loadOrCreate(file: string, recovery: RegistryRecovery): TopicRegistry {
    if (!existsSync(file)) {
      const registry = new TopicRegistry(file, clusterIdOf(recovery.logDirs) ?? Buffer.from(newTopicId(), 'hex').toString('base64url'));
      // Formatted log dirs without a registry: it was deleted, so the topics come back from the directories.
      if (recovery.logDirs.some((d) => existsSync(join(d, META_PROPERTIES_FILE)))) registry.rebuildFrom(recovery, `${file} is missing`);
      registry.persist();
      return registry;
    }
    let stored: { clusterId: string; topics: TopicInfo[] };
    try {
      stored = JSON.parse(readFileSync(file, 'utf8'));
      if (typeof stored.clusterId !== 'string' || !Array.isArray(stored.topics)) throw new Error('no clusterId or topics');
    } catch (err) {
      const aside = `${file}.corrupt`;
      renameSync(file, aside);
      const registry = new TopicRegistry(file, clusterIdOf(recovery.logDirs) ?? Buffer.from(newTopicId(), 'hex').toString('base64url'));
      registry.rebuildFrom(recovery, `cannot read ${file} (${(err as Error).message}); kept it as ${aside}`);
      registry.persist();
      return registry;
    }
    const registry = new TopicRegistry(file, stored.clusterId);
    for (const t of stored.topics) registry.index({ ...t });
    return registry;
  }

  /** Every `<topic>-<partition>` directory becomes a topic with partitions up to the highest one found. */
  private rebuildFrom(recovery: RegistryRecovery, why: string): void {
    const found = new Map<string, { topicId: string | null; partitions: number }>();
    for (const logDir of recovery.logDirs) {
      let entries;
      try {
        entries = readdirSync(logDir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const parsed = entry.isDirectory() && !entry.name.endsWith(DELETE_DIR_SUFFIX) ? parseLogDirName(entry.name) : null;
        if (parsed === null || invalidTopicNameReason(parsed.topic) !== null) continue;
        const topic = found.get(parsed.topic) ?? { topicId: null, partitions: 0 };
        topic.topicId ??= readPartitionMetadata(join(logDir, entry.name));
        topic.partitions = Math.max(topic.partitions, parsed.partition + 1);
        found.set(parsed.topic, topic);
      }
    }
    for (const [name, t] of found) {
      this.index({ name, topicId: t.topicId ?? newTopicId(), partitions: t.partitions, configs: recovery.configsFor(name) });
    }
    recovery.log.warn(
      { topics: [...found.keys()] },
      `${why}: rebuilt the topic registry from ${found.size} topic(s) in the log dirs; their config overrides are reset to the defaults`,
    );
  }

  private index(topic: TopicInfo): void {
    this.byName.set(topic.name, topic);
    this.byId.set(topic.topicId, topic);
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

  add(topic: TopicInfo): void {
    if (this.byName.has(topic.name)) throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${topic.name}' already exists.`);
    this.index(topic);
    this.persist();
  }

  remove(name: string): TopicInfo | undefined {
    const topic = this.byName.get(name);
    if (!topic) return undefined;
    this.byName.delete(name);
    this.byId.delete(topic.topicId);
    this.persist();
    return topic;
  }

  /** Records a change made to a TopicInfo in place (partitions added, configs altered). */
  update(): void {
    this.persist();
  }

  /**
   * A crash leaves the old or the new file, never half of one; and once this returns an OS crash cannot bring
   * the old one back (the directory is synced after the rename). A topic missing from the file would have
   * its partition directories removed at start-up as leftovers of a failed creation, data and all.
   */
  private persist(): void {
    writeFileAtomically(this.file, JSON.stringify({ version: 1, clusterId: this.clusterId, topics: [...this.byName.values()] }, null, 2));
  }
}

/** The cluster id the log dirs were formatted with (meta.properties), if any. */
function clusterIdOf(logDirs: readonly string[]): string | undefined {
  for (const dir of logDirs) {
    try {
      const match = /^cluster\.id=(.+)$/m.exec(readFileSync(join(dir, META_PROPERTIES_FILE), 'utf8'));
      if (match) return match[1]!.trim();
    } catch {
      // No meta.properties in this dir.
    }
  }
  return undefined;
}
