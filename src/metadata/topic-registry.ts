// The cluster's topics (name, id, partition count, config overrides). On a Kafka cluster this lives
// in the controller's metadata log; on one node a small JSON file beside the partition directories is enough.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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

export class TopicRegistry {
  private readonly byName = new Map<string, TopicInfo>();
  private readonly byId = new Map<string, TopicInfo>();

  private constructor(
    private readonly file: string,
    /** Kafka's cluster id form: a random UUID in URL-safe base64 without padding. */
    readonly clusterId: string,
  ) {}

  static loadOrCreate(file: string): TopicRegistry {
    if (!existsSync(file)) {
      const registry = new TopicRegistry(file, Buffer.from(newTopicId(), 'hex').toString('base64url'));
      registry.persist();
      return registry;
    }
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { clusterId: string; topics: TopicInfo[] };
    const registry = new TopicRegistry(file, stored.clusterId);
    for (const t of stored.topics) registry.index({ ...t });
    return registry;
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

  /** Written to a temporary file, synced, then renamed: a crash leaves the old or the new file, never half of one. */
  private persist(): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, clusterId: this.clusterId, topics: [...this.byName.values()] }, null, 2));
    const fd = openSync(tmp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.file);
  }
}
