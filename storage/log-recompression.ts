// A topic whose compression.type names a codec stores its clients' batches in that codec (Kafka's
// LogValidator.validateMessagesAndAssignOffsetsCompressed when the source codec differs from the target:
// not in place). A batch in another codec is rebuilt record for record, keeping its producer id, epoch,
// base sequence, transactional flag, timestamps and offset deltas, so that idempotence and transactions see
// the batch the producer sent. The levels are KIP-390's compression.gzip.level and compression.zstd.level.
import { batchesIn, CompressionType, type BatchHeader } from '../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../protocol/records/record-batch.js';
import { RecordTooLargeError } from './errors.js';
import type { LogConfig, TopicCompression } from './log-config.js';

const CODECS: Readonly<Record<Exclude<TopicCompression, 'producer'>, CompressionType>> = {
  uncompressed: CompressionType.None,
  gzip: CompressionType.Gzip,
  snappy: CompressionType.Snappy,
  lz4: CompressionType.Lz4,
  zstd: CompressionType.Zstd,
};

function levelOf(codec: CompressionType, config: LogConfig): number | undefined {
  if (codec === CompressionType.Gzip) return config.compressionGzipLevel;
  if (codec === CompressionType.Zstd) return config.compressionZstdLevel;
  return undefined;
}

/**
 * The batches of `records` (validated, headers `batches`) in the topic's codec, or null when they are in it
 * already or the topic keeps the producer's. A rebuilt batch larger than max.message.bytes is refused as
 * Kafka's UnifiedLog.append refuses it (its messageSizeMaybeChanged check).
 */
export function recompressForTopic(
  records: Buffer, batches: readonly BatchHeader[], config: LogConfig, topicPartition: string,
): { records: Buffer; batches: BatchHeader[] } | null {
  if (config.compressionType === 'producer') return null;
  const target = CODECS[config.compressionType];
  if (batches.every((b) => b.compression === target)) return null;
  const rebuilt = batches.map((b) => {
    const source = records.subarray(b.pos, b.pos + b.sizeInBytes);
    if (b.compression === target) return source;
    const batch = encodeBatch({
      baseOffset: b.baseOffset,
      lastOffset: b.lastOffset,
      records: decodeBatch(source).records,
      compression: target,
      compressionLevel: levelOf(target, config),
      timestampType: b.isLogAppendTime ? 'LogAppendTime' : 'CreateTime',
      producerId: b.producerId,
      producerEpoch: b.producerEpoch,
      baseSequence: b.baseSequence,
      isTransactional: b.isTransactional,
      partitionLeaderEpoch: b.partitionLeaderEpoch,
    });
    if (batch.length > config.maxMessageBytes) {
      throw new RecordTooLargeError(
        `Message batch size is ${batch.length} bytes in append to partition ${topicPartition} which exceeds the maximum configured size of ${config.maxMessageBytes}.`,
      );
    }
    return batch;
  });
  const out = Buffer.concat(rebuilt);
  return { records: out, batches: [...batchesIn(out)] };
}
