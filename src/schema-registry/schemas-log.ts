// RegistryLog on the broker's own log: `_schemas` is created on the first write, as Confluent's KafkaStore
// creates it (one partition, cleanup.policy=compact), and written as the coordinators write their topics
// (LogOffsetsTopic: one batch per write, answered once on disk, as Confluent's acks=-1 producer is).
import { LogOffsetsTopic } from '../coordinator/log-offsets-topic.js';
import type { CoordinatorHost } from '../coordinator/open-group-coordinator.js';
import { decodeRecord, encodeKey, encodeValue, SCHEMAS_TOPIC, type RegistryRecord } from './records.js';
import type { RegistryLog } from './registry.js';

export function schemasTopicLog(broker: CoordinatorHost): RegistryLog {
  const topic = new LogOffsetsTopic({
    numPartitions: 1,
    get: (partition) => broker.getLog(SCHEMAS_TOPIC, partition),
    getOrCreate(partition) {
      if (!broker.topics.get(SCHEMAS_TOPIC)) {
        broker.createTopicSync(SCHEMAS_TOPIC, { partitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'compact' }, validateOnly: false });
      }
      const log = broker.getLog(SCHEMAS_TOPIC, partition);
      if (!log) throw new Error(`${SCHEMAS_TOPIC}-${partition} has no log`);
      return log;
    },
  });
  /** The offset after the last record read. */
  let next = 0;
  return {
    append: (records) => topic.append(0, records.map((r) => ({ key: encodeKey(r), value: encodeValue(r) }))),
    hasNew: () => (broker.getLog(SCHEMAS_TOPIC, 0)?.logEndOffset ?? 0) > next,
    async readNew() {
      const partitions = broker.topics.get(SCHEMAS_TOPIC)?.partitions ?? 0;
      // Confluent's registry refuses to start on a _schemas of several partitions; kafkite reads the first.
      if (partitions > 1 && next === 0) broker.log.error({ topic: SCHEMAS_TOPIC, partitions }, 'the schemas topic has more than one partition; reading partition 0 only');
      const log = broker.getLog(SCHEMAS_TOPIC, 0);
      if (!log) return [];
      // readAll reads synchronously up to the log end it finds, so that end is where the next read starts.
      const read = topic.readAll(0, next);
      next = log.logEndOffset;
      const out: RegistryRecord[] = [];
      for (const r of await read) {
        let record: RegistryRecord | null = null;
        try {
          record = decodeRecord(r.key, r.value);
        } catch {
          // A record that is not Confluent's JSON (another producer's): skipped, as KafkaStoreReaderThread skips it.
        }
        if (record) out.push(record);
        else broker.log.warn({ topic: SCHEMAS_TOPIC, key: r.key.toString('utf8').slice(0, 200) }, 'skipping a record the schema registry does not know');
      }
      return out;
    },
  };
}
