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
  return {
    append: (records) => topic.append(0, records.map((r) => ({ key: encodeKey(r), value: encodeValue(r) }))),
    async readAll() {
      const partitions = broker.topics.get(SCHEMAS_TOPIC)?.partitions ?? 0;
      // Confluent's registry refuses to start on a _schemas of several partitions; kafkite reads the first.
      if (partitions > 1) broker.log.error({ topic: SCHEMAS_TOPIC, partitions }, 'the schemas topic has more than one partition; reading partition 0 only');
      const out: RegistryRecord[] = [];
      for (const r of await topic.readAll(0)) {
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
