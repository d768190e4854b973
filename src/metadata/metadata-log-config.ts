// The metadata log's settings (Kafka's MetadataLogConfig, applied in KafkaMetadataLog.createLog): its segments roll
// at metadata.log.segment.bytes (>= 8 MiB; the internal internal.metadata.log.segment.bytes, for tests, replaces it) / .ms, it has no time or size retention of its own (snapshots shrink it), and
// snapshots and cleaning follow metadata.log.max.* and metadata.max.retention.*.
import type { BrokerConfig } from '../../config/broker-config.js';
import type { LogConfig } from '../../storage/log-config.js';
import type { MetadataLogPolicy } from './snapshot-generator.js';

export function metadataLogConfig(config: BrokerConfig): { logConfig: LogConfig; policy: MetadataLogPolicy } {
  const num = (key: string): number => Number(config.get(key));
  const segmentBytes = num(config.get('internal.metadata.log.segment.bytes') === null ? 'metadata.log.segment.bytes' : 'internal.metadata.log.segment.bytes');
  return {
    logConfig: { ...config.logConfig({}), segmentBytes, segmentMs: num('metadata.log.segment.ms'), retentionBytes: -1, retentionMs: -1 },
    policy: {
      maxBytesBetweenSnapshots: num('metadata.log.max.record.bytes.between.snapshots'),
      maxSnapshotIntervalMs: num('metadata.log.max.snapshot.interval.ms'),
      retentionBytes: num('metadata.max.retention.bytes'),
      retentionMs: num('metadata.max.retention.ms'),
    },
  };
}
