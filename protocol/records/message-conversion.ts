// Conversion between message formats v0/v1 and record batch v2, as Kafka 3.x did it for clients older
// than 0.11 (LogValidator's up-conversion on append, RecordsUtil.downConvert / LazyDownConversionRecords
// on fetch). Storage keeps v2 only.
import { batchesIn, CompressionType } from './batch-header.js';
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from './compression.js';
import { UnsupportedCompressionTypeError } from './errors.js';
import { decodeMessageSet, encodeMessageSet, type LegacyMagic } from './legacy-records.js';
import { decodeBatch, encodeBatch } from './record-batch.js';

/**
 * A v0/v1 message set as v2 batches ready for the log: one batch per compressed wrapper (keeping its
 * codec) and one per run of uncompressed messages. Offsets are relative (the log assigns them).
 * v0 messages get the broker's clock as their timestamp, as Kafka did when it up-converted them;
 * v1 messages keep theirs. The log applies LogAppendTime where the topic asks for it.
 */
export function upConvertMessageSet(messageSet: Buffer, now: number, maxDecompressedBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Buffer {
  const entries = decodeMessageSet(messageSet, maxDecompressedBytes);
  const batches: Buffer[] = [];
  let plain: typeof entries[number]['records'] = [];
  const flushPlain = (): void => {
    if (plain.length > 0) batches.push(toBatch(plain, CompressionType.None, now));
    plain = [];
  };
  for (const entry of entries) {
    if (entry.compression === CompressionType.None) {
      plain.push(...entry.records);
      continue;
    }
    flushPlain();
    batches.push(toBatch(entry.records, entry.compression, now));
  }
  flushPlain();
  return batches.length === 1 ? batches[0]! : Buffer.concat(batches);
}

function toBatch(records: ReturnType<typeof decodeMessageSet>[number]['records'], compression: CompressionType, now: number): Buffer {
  return encodeBatch({
    baseOffset: 0,
    compression,
    records: records.map((r, i) => ({
      offset: i,
      timestamp: r.magic === 0 ? now : r.timestamp,
      key: r.key,
      value: r.value,
      headers: [],
    })),
  });
}

export interface DownConversion {
  /** The converted message set, at most `maxBytes` unless `minOneMessage` let a larger first entry through. */
  records: Buffer;
  /** Messages in `records`. */
  recordCount: number;
  /** Offset after the last converted message; the fetch offset when nothing was converted. */
  nextOffset: number;
}

/**
 * Converts the v2 batches in `batches` (whole batches as read from the log) to magic `toMagic`, from
 * `fetchOffset` on, stopping before `maxBytes` (Kafka's LazyDownConversionRecords, copying path).
 * As Kafka 3.x did: control batches are dropped, record headers and producer state are dropped,
 * transactional records are kept (v0-3 fetchers read uncommitted), each compressed batch becomes one
 * wrapper with the same codec. ZSTD cannot be expressed below v2: if the first batch to convert uses it,
 * UnsupportedCompressionTypeError (Kafka answers UNSUPPORTED_COMPRESSION_TYPE); later ones end the read.
 */
export function downConvertBatches(
  batches: Buffer, toMagic: LegacyMagic, fetchOffset: number, maxBytes: number, minOneMessage: boolean,
): DownConversion {
  const out: Buffer[] = [];
  let bytes = 0;
  let recordCount = 0;
  let nextOffset = fetchOffset;
  for (const header of batchesIn(batches)) {
    if (header.isControl || header.lastOffset < fetchOffset) continue;
    if (header.compression === CompressionType.Zstd) {
      if (out.length === 0) throw new UnsupportedCompressionTypeError(`batch at offset ${header.baseOffset} is zstd-compressed; message format v${toMagic} cannot carry it`);
      break;
    }
    const decoded = decodeBatch(batches.subarray(header.pos, header.pos + header.sizeInBytes));
    const records = decoded.records.filter((r) => r.offset >= fetchOffset);
    const entries = encodeMessageSet({
      magic: toMagic,
      compression: header.compression,
      records,
      ...(header.isLogAppendTime ? { logAppendTime: header.maxTimestamp } : {}),
    });
    const perEntry = header.compression === CompressionType.None ? 1 : records.length;
    for (const [i, entry] of entries.entries()) {
      if (bytes + entry.length > maxBytes && !(minOneMessage && out.length === 0)) {
        return { records: Buffer.concat(out), recordCount, nextOffset };
      }
      out.push(entry);
      bytes += entry.length;
      recordCount += perEntry;
      nextOffset = header.compression === CompressionType.None ? records[i]!.offset + 1 : records[records.length - 1]!.offset + 1;
    }
  }
  return { records: Buffer.concat(out), recordCount, nextOffset };
}
