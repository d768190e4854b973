// Fetch v0-3 for consumers older than Kafka 0.11: the log holds record batch v2, these fetchers read
// message format v0 (Fetch v0-1) or v1 (Fetch v2-3). The batches are read, converted in memory and
// sent by copying (never by sendfile), bounded by the partition's byte limit, as Kafka 3.x's
// LazyDownConversionRecords did. message.downconversion.enable=false answers UNSUPPORTED_VERSION.
import { readSync } from 'node:fs';
import type { FileSlice } from '../../protocol/primitives.js';
import type { LegacyMagic } from '../../protocol/records/legacy-records.js';
import { downConvertBatches } from '../../protocol/records/message-conversion.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { ErrorCode } from '../errors.js';

/** Fetch v4 is the first to carry record batch v2 (KIP-98). */
export const FIRST_V2_FETCH_VERSION = 4;

/** Kafka's FetchRequest: v0-1 read magic 0, v2-3 magic 1. */
function magicForFetchVersion(version: number): LegacyMagic {
  return version <= 1 ? 0 : 1;
}

class DownConversionDisabledError extends Error {
  override name = 'DownConversionDisabledError';
  readonly code = ErrorCode.UNSUPPORTED_VERSION;
}

export interface DownConvertedRead {
  records: Buffer;
  /** Bytes sent (of the converted message set). */
  bytes: number;
  /** Bytes of v2 batches read from the log, for the cost of conversion. */
  sourceBytes: number;
  recordCount: number;
}

/**
 * Reads from `fetchOffset` up to `maxBytes` of converted messages. `minOneMessage` lets a first message
 * larger than the limit through whole (KIP-74 for v3; for v0-2 Kafka sent a truncated one, which
 * the old clients could only skip by growing their fetch size).
 */
export function readDownConverted(log: UnifiedLog, fetchOffset: number, maxBytes: number, version: number, minOneMessage: boolean): DownConvertedRead {
  if (!log.config.messageDownconversionEnable) {
    throw new DownConversionDisabledError(`${log.topic}-${log.partition}: message.downconversion.enable is false; Fetch v${version} needs message format v${magicForFetchVersion(version)}`);
  }
  const { slices, bytes } = log.read(fetchOffset, maxBytes, minOneMessage);
  if (bytes === 0) return { records: Buffer.alloc(0), bytes: 0, sourceBytes: 0, recordCount: 0 };
  const source = slices.length === 1 ? readSlice(slices[0]!) : Buffer.concat(slices.map(readSlice));
  const converted = downConvertBatches(source, magicForFetchVersion(version), fetchOffset, maxBytes, minOneMessage);
  return { records: converted.records, bytes: converted.records.length, sourceBytes: bytes, recordCount: converted.recordCount };
}

/** Read now, while the segment is surely open: the fetch may wait long before it is answered. */
function readSlice(slice: FileSlice): Buffer {
  const buf = Buffer.allocUnsafe(slice.length);
  let filled = 0;
  while (filled < slice.length) {
    const n = readSync(slice.fd, buf, filled, slice.length - filled, slice.position + filled);
    if (n === 0) throw new Error(`short read of ${slice.length} bytes at ${slice.position}`);
    filled += n;
  }
  return buf;
}
