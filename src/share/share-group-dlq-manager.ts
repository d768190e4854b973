// The share groups' dead-letter queue (KIP-1191), as Kafka 4.4's DefaultShareGroupDLQManager and
// ShareGroupDLQStateManager write it: a record a share consumer rejected, or released past the delivery count limit,
// is written to the group's errors.deadletterqueue.topic.name, one DLQ record per offset, before the share partition
// archives it. The DLQ record holds the original key and value only with errors.deadletterqueue.copy.record.enable,
// and always Kafka's context headers (ProduceRequestHandler.headers), as UTF-8 strings; it is timestamped now and
// goes to the DLQ topic's partition (source partition % its partition count), appended as an acks=all Produce is.
// The topic must not start with "__", must start with errors.deadletterqueue.topic.name.prefix, and must exist with
// errors.deadletterqueue.group.enable=true, or be created so when errors.deadletterqueue.auto.create.topics.enable;
// otherwise the write fails (ProduceRequestHandler.validateDlqTopic's messages) and the records are only archived.
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/broker-config.js';
import { decodeBatch, encodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { ErrorCode, KafkaError } from '../errors.js';
import type { TopicInfo } from '../metadata/topic-registry.js';
import { readSlices } from './share-fetch.js';
import type { DeadLetterBatch } from './share-partition.js';

/** Kafka's ShareGroupDLQStateManager.ProduceRequestHandler.HEADER_DLQ_ERRORS_*. */
const DLQ_HEADER = {
  TOPIC: '__dlq.errors.topic',
  PARTITION: '__dlq.errors.partition',
  OFFSET: '__dlq.errors.offset',
  GROUP: '__dlq.errors.group',
  DELIVERY_COUNT: '__dlq.errors.delivery.count',
  MESSAGE: '__dlq.errors.message',
} as const;

/** The topic config that lets share groups write to a topic (LogConfig's errors.deadletterqueue.group.enable). */
const DLQ_TOPIC_ENABLE = 'errors.deadletterqueue.group.enable';

/** What the dead-letter writer needs of the broker. */
export interface DlqBroker {
  readonly config: Pick<BrokerConfig, 'get'>;
  readonly topics: { get(name: string): TopicInfo | undefined; getById(topicId: string): TopicInfo | undefined };
  readonly purgatory: { notify(topic: string, partition: number): void };
  readonly log: Logger;
  createTopic(name: string, opts: { partitions: number; replicationFactor: number; configs: Record<string, string>; validateOnly: boolean }): Promise<TopicInfo>;
  getLog(topic: string, partition: number): UnifiedLog | undefined;
}

/** The share partition whose records go to the dead-letter queue. */
export interface DlqSource {
  groupId: string;
  topicId: string;
  partition: number;
}

/** A record batch's own bytes (DefaultRecordBatch.RECORD_BATCH_OVERHEAD), and a bound on one record's besides its data. */
const BATCH_OVERHEAD = 61;
const RECORD_OVERHEAD = 21;

/**
 * The records cut into batches of at most `maxBytes` (the DLQ topic's max.message.bytes), one record at least, as
 * ProduceRequestHandler.topicProduceData fills each produce round.
 */
function chunks(records: KafkaRecord[], maxBytes: number): KafkaRecord[][] {
  const out: KafkaRecord[][] = [];
  let size = BATCH_OVERHEAD;
  for (const r of records) {
    const bytes = RECORD_OVERHEAD + (r.key?.length ?? 0) + (r.value?.length ?? 0) + r.headers.reduce((n, h) => n + 10 + h.key.length + (h.value?.length ?? 0), 0);
    const last = out[out.length - 1];
    if (last && size + bytes <= maxBytes) {
      last.push({ ...r, offset: last.length });
      size += bytes;
    } else {
      out.push([{ ...r, offset: 0 }]);
      size = BATCH_OVERHEAD + bytes;
    }
  }
  return out;
}

/** Most bytes read from the source log per round when copying records (Kafka's DLQ_MAX_FETCH_BYTES is per fetch). */
const READ_BYTES = 1 << 20;

export class ShareGroupDLQManager {
  constructor(
    private readonly broker: DlqBroker,
    /** A group config's value for the group (its own, else the default). */
    private readonly groupSetting: (groupId: string, name: string) => string,
  ) {}

  /** Writes the batch's records to the group's DLQ topic, durably; rejects (and logs) when it cannot. */
  async write(source: DlqSource, batch: DeadLetterBatch): Promise<void> {
    try {
      const topic = await this.dlqTopic(source.groupId);
      const log = this.broker.getLog(topic.name, source.partition % topic.partitions);
      if (!log) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `DLQ topic partition leader node for share group ${source.groupId} with DLQ topic ${topic.name} and partition ${source.partition % topic.partitions} could not be found.`);
      const copy = this.groupSetting(source.groupId, 'errors.deadletterqueue.copy.record.enable').toLowerCase() === 'true';
      const originals = copy ? this.readOriginals(source, batch) : new Map<number, KafkaRecord>();
      const now = Date.now();
      const sourceTopic = this.broker.topics.getById(source.topicId)?.name ?? source.topicId;
      const records: KafkaRecord[] = [];
      for (let offset = batch.firstOffset; offset <= batch.lastOffset; offset++) {
        const original = originals.get(offset);
        records.push({
          offset: offset - batch.firstOffset,
          timestamp: now,
          key: original?.key ?? null,
          value: original?.value ?? null,
          headers: [
            [DLQ_HEADER.TOPIC, sourceTopic],
            [DLQ_HEADER.PARTITION, String(source.partition)],
            [DLQ_HEADER.OFFSET, String(offset)],
            [DLQ_HEADER.GROUP, source.groupId],
            [DLQ_HEADER.DELIVERY_COUNT, String(batch.deliveryCount)],
            [DLQ_HEADER.MESSAGE, batch.cause],
          ].map(([key, value]) => ({ key: key!, value: Buffer.from(value!, 'utf8') })),
        });
      }
      for (const chunk of chunks(records, log.config.maxMessageBytes)) log.appendAsLeader(encodeBatch({ baseOffset: 0, records: chunk }), now);
      this.broker.purgatory.notify(log.topic, log.partition);
      // Kafka produces with acks=-1: kafkite answers those once on disk.
      await log.flush();
    } catch (err) {
      this.broker.log.error({ groupId: source.groupId, topicId: source.topicId, partition: source.partition, firstOffset: batch.firstOffset, lastOffset: batch.lastOffset, error: (err as Error).message },
        'Failed to write to DLQ, proceeding to ARCHIVED regardless.');
      throw err;
    }
  }

  /** The group's DLQ topic, checked as ProduceRequestHandler.validateDlqTopic does, created if allowed and missing. */
  private async dlqTopic(groupId: string): Promise<TopicInfo> {
    const name = this.groupSetting(groupId, 'errors.deadletterqueue.topic.name');
    const refuse = (message: string): never => {
      throw new KafkaError(ErrorCode.INVALID_CONFIG, message);
    };
    if (name === '') refuse(`Configured DLQ topic name in share group: ${groupId} is empty.`);
    if (name.startsWith('__')) refuse(`Configured DLQ topic name in share group: ${groupId} cannot start with __, topic: ${name}.`);
    const prefix = String(this.broker.config.get('errors.deadletterqueue.topic.name.prefix') ?? '');
    if (prefix !== '' && !name.startsWith(prefix)) {
      refuse(`Configured DLQ topic name does not comply with the DLQ topic prefix in share group: ${groupId}, topic: ${name}, prefix: ${prefix}.`);
    }
    const existing = this.broker.topics.get(name);
    if (existing) {
      if (existing.configs[DLQ_TOPIC_ENABLE]?.toLowerCase() !== 'true') refuse(`DLQ is not enabled on configured DLQ topic for share group: ${groupId}, topic: ${name}.`);
      return existing;
    }
    if (String(this.broker.config.get('errors.deadletterqueue.auto.create.topics.enable')) !== 'true') {
      refuse(`DLQ topic does not exist and auto create is disabled on cluster for share group: ${groupId}, topic: ${name}.`);
    }
    // As ProduceRequestHandler.createTopicBuilder: the broker's partition count and replication factor, the topic
    // enabled as a DLQ, CreateTime timestamps.
    try {
      return await this.broker.createTopic(name, {
        partitions: -1, replicationFactor: -1, validateOnly: false,
        configs: { [DLQ_TOPIC_ENABLE]: 'true', 'message.timestamp.type': 'CreateTime' },
      });
    } catch (err) {
      const raced = err instanceof KafkaError && err.code === ErrorCode.TOPIC_ALREADY_EXISTS ? this.broker.topics.get(name) : undefined;
      if (!raced) throw err;
      return raced;
    }
  }

  /** The source records of the batch's offsets (Kafka's ShareGroupDLQRecordFetcher); an offset no longer in the log has none. */
  private readOriginals(source: DlqSource, batch: DeadLetterBatch): Map<number, KafkaRecord> {
    const found = new Map<number, KafkaRecord>();
    const topic = this.broker.topics.getById(source.topicId);
    const log = topic && this.broker.getLog(topic.name, source.partition);
    if (!log) return found;
    let offset = Math.max(batch.firstOffset, log.logStartOffset);
    while (offset <= batch.lastOffset && offset < log.highWatermark) {
      const { slices, bytes } = log.read(offset, READ_BYTES, true);
      if (bytes === 0) break;
      const buf = readSlices(slices, bytes);
      let next = offset;
      for (let pos = 0; pos + 12 <= buf.length;) {
        const size = buf.readInt32BE(pos + 8) + 12;
        if (pos + size > buf.length) break;
        const decoded = decodeBatch(buf.subarray(pos, pos + size));
        pos += size;
        next = decoded.header.lastOffset + 1;
        if (decoded.header.isControl) continue;
        for (const r of decoded.records) if (r.offset >= batch.firstOffset && r.offset <= batch.lastOffset) found.set(r.offset, r);
      }
      offset = Math.max(next, offset + 1);
    }
    return found;
  }
}
