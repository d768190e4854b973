// The topic-level settings the log engine acts on (Kafka's LogConfig). Values are resolved by
// config/ from topic overrides, then broker synonyms, then Kafka's defaults.
export interface LogConfig {
  segmentBytes: number;
  segmentMs: number;
  segmentJitterMs: number;
  segmentIndexBytes: number;
  indexIntervalBytes: number;
  /** Flush after this many messages; Number.MAX_SAFE_INTEGER means never by count. */
  flushMessages: number;
  /** Flush when the oldest unflushed write is this old; Number.MAX_SAFE_INTEGER means never by time. */
  flushMs: number;
  /** -1: unlimited. */
  retentionBytes: number;
  /** -1: unlimited. */
  retentionMs: number;
  maxMessageBytes: number;
  cleanupPolicy: ReadonlyArray<'delete' | 'compact'>;
  deleteRetentionMs: number;
  minCompactionLagMs: number;
  maxCompactionLagMs: number;
  minCleanableDirtyRatio: number;
  fileDeleteDelayMs: number;
  messageTimestampType: 'CreateTime' | 'LogAppendTime';
  /** CreateTime records older than now minus this are refused (INVALID_TIMESTAMP); MAX_SAFE_INTEGER: unbounded. */
  messageTimestampBeforeMaxMs: number;
  /** CreateTime records newer than now plus this are refused; MAX_SAFE_INTEGER: unbounded. */
  messageTimestampAfterMaxMs: number;
  preallocate: boolean;
  /** Kafka's message.downconversion.enable: whether Fetch v0-3 may convert v2 batches down for old consumers. */
  messageDownconversionEnable: boolean;
  /** Kafka's compression.type: 'producer' keeps each batch's codec; a codec makes the log recompress clients' batches into it. */
  compressionType: TopicCompression;
  /** KIP-390's levels, used when the log recompresses: compression.gzip.level (-1: zlib's default) and compression.zstd.level. */
  compressionGzipLevel: number;
  compressionZstdLevel: number;
}

export type TopicCompression = 'producer' | 'uncompressed' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

export const DEFAULT_LOG_CONFIG: Readonly<LogConfig> = Object.freeze<LogConfig>({
  segmentBytes: 1073741824,
  segmentMs: 604800000,
  segmentJitterMs: 0,
  segmentIndexBytes: 10485760,
  indexIntervalBytes: 4096,
  flushMessages: Number.MAX_SAFE_INTEGER,
  flushMs: Number.MAX_SAFE_INTEGER,
  retentionBytes: -1,
  retentionMs: 604800000,
  maxMessageBytes: 1048588,
  cleanupPolicy: ['delete'],
  deleteRetentionMs: 86400000,
  minCompactionLagMs: 0,
  maxCompactionLagMs: Number.MAX_SAFE_INTEGER,
  minCleanableDirtyRatio: 0.5,
  fileDeleteDelayMs: 60000,
  messageTimestampType: 'CreateTime',
  messageTimestampBeforeMaxMs: Number.MAX_SAFE_INTEGER,
  messageTimestampAfterMaxMs: Number.MAX_SAFE_INTEGER,
  preallocate: false,
  messageDownconversionEnable: true,
  compressionType: 'producer',
  compressionGzipLevel: -1,
  compressionZstdLevel: 3,
});
