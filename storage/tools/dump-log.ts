// `kafkite dump-log`: prints segment files the way Kafka's kafka-dump-log.sh (DumpLogSegments) does,
// so the two outputs can be compared line by line.
import fs from 'node:fs';
import path from 'node:path';
import { BATCH_HEADER_SIZE, BATCH_LENGTH, BatchHeader, CompressionType, LOG_OVERHEAD } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import { FileRecords } from '../file-records.js';
import {
  INDEX_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  PRODUCER_SNAPSHOT_FILE_SUFFIX,
  TIME_INDEX_FILE_SUFFIX,
  TXN_INDEX_FILE_SUFFIX,
  offsetFromFileName,
} from '../log-file-names.js';
import { OffsetIndex } from '../offset-index.js';
import { ProducerStateManager } from '../producer-state-manager.js';
import { TimeIndex } from '../time-index.js';
import { ABORTED_TXN_VERSION, decodeAbortedTxns } from '../transaction-index.js';
import { shareGroupStateRecordText } from './share-group-state-decoder.js';

export interface DumpLogOptions {
  files: string[];
  /** --print-data-log: keys and values too (implies deep iteration). */
  printDataLog: boolean;
  /** --deep-iteration: one line per record. */
  deepIteration: boolean;
  /** --index-sanity-check: only check the index files. */
  indexSanityCheck: boolean;
  /** --share-group-state-decoder: keys and values as __share_group_state records (implies printing data). */
  shareGroupStateDecoder?: boolean;
}

const DELETE_HORIZON_FLAG = 0x40;
const INT32_MAX = 0x7fffffff;

/** The lines kafka-dump-log.sh prints for the files; problems it reports on stderr come last. */
export async function* dumpLog(opts: DumpLogOptions): AsyncIterable<string> {
  const problems: string[] = [];
  for (const file of opts.files) {
    yield `Dumping ${file}`;
    const name = path.basename(file);
    const suffix = name.slice(name.lastIndexOf('.'));
    const printData = opts.printDataLog || opts.shareGroupStateDecoder === true;
    const decode = opts.shareGroupStateDecoder ? shareGroupStateRecordText : undefined;
    if (suffix === LOG_FILE_SUFFIX) yield* dumpLogFile(file, printData || opts.deepIteration, printData, problems, decode);
    else if (suffix === INDEX_FILE_SUFFIX) yield* dumpIndex(file, opts.indexSanityCheck, problems);
    else if (suffix === TIME_INDEX_FILE_SUFFIX) yield* dumpTimeIndex(file, opts.indexSanityCheck, problems);
    else if (suffix === PRODUCER_SNAPSHOT_FILE_SUFFIX) yield* dumpProducerSnapshot(file, problems);
    else if (suffix === TXN_INDEX_FILE_SUFFIX) yield* dumpTxnIndex(file);
    else problems.push(`Ignoring unknown file ${file}`);
  }
  yield* problems;
}

function compressionName(type: CompressionType): string {
  return ['none', 'gzip', 'snappy', 'lz4', 'zstd'][type] ?? `unknown(${type})`;
}

function incrementSequence(sequence: number, increment: number): number {
  return sequence > INT32_MAX - increment ? increment - (INT32_MAX - sequence) - 1 : sequence + increment;
}

function* dumpLogFile(
  file: string, deep: boolean, printData: boolean, problems: string[], decode?: (key: Buffer | null, value: Buffer | null) => string,
): Generator<string> {
  yield `Log starting offset: ${offsetFromFileName(path.basename(file))}`;
  const records = FileRecords.open(file);
  try {
    let validBytes = 0;
    let lastOffset = -1;
    const nonConsecutive: string[] = [];
    for (const chunk of records.chunksFrom(0)) {
      let pos = 0;
      while (pos + LOG_OVERHEAD <= chunk.buf.length) {
        const size = chunk.buf.readInt32BE(pos + BATCH_LENGTH) + LOG_OVERHEAD;
        if (size < BATCH_HEADER_SIZE) break;
        const bytes = chunk.buf.subarray(pos, pos + size);
        const h = new BatchHeader(bytes, 0);
        yield batchLine(h, validBytes);
        if (deep) {
          for (const r of decodeBatch(bytes).records) {
            if (lastOffset !== -1 && r.offset !== lastOffset + 1) nonConsecutive.push(`  ${lastOffset} is followed by ${r.offset}`);
            lastOffset = r.offset;
            const sequence = h.baseSequence >= 0 ? incrementSequence(h.baseSequence, r.offset - h.baseOffset) : -1;
            let line =
              `| offset: ${r.offset} ${h.isLogAppendTime ? 'LogAppendTime' : 'CreateTime'}: ${r.timestamp} ` +
              `keySize: ${r.key?.length ?? -1} valueSize: ${r.value?.length ?? -1} sequence: ${sequence} ` +
              `headerKeys: [${r.headers.map((x) => x.key).join(',')}]`;
            if (h.isControl && r.key !== null && r.key.length >= 4) {
              const type = r.key.readInt16BE(2);
              const coordinatorEpoch = r.value !== null && r.value.length >= 6 ? r.value.readInt32BE(2) : -1;
              line += type === 0 || type === 1 ? ` endTxnMarker: ${type === 0 ? 'ABORT' : 'COMMIT'} coordinatorEpoch: ${coordinatorEpoch}` : ` controlType: UNKNOWN(${type})`;
            }
            if (printData && !h.isControl && decode) line += decode(r.key, r.value);
            else if (printData && !h.isControl) {
              if (r.key !== null) line += ` key: ${r.key.toString('utf8')}`;
              if (r.value !== null) line += ` payload: ${r.value.toString('utf8')}`;
            }
            yield line;
          }
        }
        validBytes += size;
        pos += size;
      }
    }
    const trailing = records.sizeInBytes - validBytes;
    if (trailing > 0) yield `Found ${trailing} invalid bytes at the end of ${path.basename(file)}`;
    if (nonConsecutive.length > 0) problems.push(`Non-consecutive offsets in ${path.resolve(file)}`, ...nonConsecutive);
  } finally {
    records.close();
  }
}

function batchLine(h: BatchHeader, position: number): string {
  const lastSequence = h.baseSequence < 0 ? -1 : incrementSequence(h.baseSequence, h.lastOffsetDelta);
  const deleteHorizon = (h.attributes & DELETE_HORIZON_FLAG) !== 0 ? `OptionalLong[${h.baseTimestamp}]` : 'OptionalLong.empty';
  return (
    `baseOffset: ${h.baseOffset} lastOffset: ${h.lastOffset} count: ${h.recordsCount} baseSequence: ${h.baseSequence} ` +
    `lastSequence: ${lastSequence} producerId: ${h.producerId} producerEpoch: ${h.producerEpoch} ` +
    `partitionLeaderEpoch: ${h.partitionLeaderEpoch} isTransactional: ${h.isTransactional} isControl: ${h.isControl} ` +
    `deleteHorizonMs: ${deleteHorizon} position: ${position} ${h.isLogAppendTime ? 'LogAppendTime' : 'CreateTime'}: ${h.maxTimestamp} ` +
    `size: ${h.sizeInBytes} magic: ${h.magic} compresscodec: ${compressionName(h.compression)} crc: ${h.crc} isvalid: ${h.isCrcValid()}`
  );
}

function siblingLog(file: string): FileRecords | null {
  const logFile = path.join(path.dirname(file), path.basename(file).split('.')[0] + LOG_FILE_SUFFIX);
  return fs.existsSync(logFile) ? FileRecords.open(logFile) : null;
}

function* dumpIndex(file: string, sanityOnly: boolean, problems: string[]): Generator<string> {
  const baseOffset = offsetFromFileName(path.basename(file));
  const contents = fs.readFileSync(file);
  const index = new OffsetIndex(file, baseOffset, Math.max(contents.length, 8), contents);
  if (index.entries === 0) {
    yield `${file} is empty.`;
    return;
  }
  const log = siblingLog(file);
  try {
    if (sanityOnly) {
      const problem = contents.length % 8 !== 0 ? `Index file ${file} is corrupt, found ${contents.length} bytes which is neither positive nor a multiple of 8.` : null;
      if (problem) throw new Error(problem);
      yield `${file} passed sanity check.`;
      return;
    }
    const mismatches: string[] = [];
    for (let i = 0; i < index.entries; i++) {
      const entry = index.entry(i);
      // A preallocated file after a crash ends in zero entries.
      if (entry.offset === baseOffset && i > 0) break;
      const batch = log?.readHeader(entry.position);
      const batchLastOffset = batch ? batch.lastOffset : -1;
      if (batchLastOffset !== entry.offset) mismatches.unshift(`  Index offset: ${entry.offset}, log offset: ${batchLastOffset}`);
      yield `offset: ${entry.offset} position: ${entry.position}`;
    }
    if (mismatches.length > 0) problems.push(`Mismatches in :${path.resolve(file)}`, ...mismatches);
  } finally {
    log?.close();
  }
}

function* dumpTimeIndex(file: string, sanityOnly: boolean, problems: string[]): Generator<string> {
  const baseOffset = offsetFromFileName(path.basename(file));
  const contents = fs.readFileSync(file);
  const timeIndex = new TimeIndex(file, baseOffset, Math.max(contents.length, 12), contents);
  if (sanityOnly) {
    if (contents.length % 12 !== 0) throw new Error(`Time index file ${file} is corrupt, found ${contents.length} bytes which is neither positive nor a multiple of 12.`);
    yield `${file} passed sanity check.`;
    return;
  }
  const indexFile = path.join(path.dirname(file), path.basename(file).split('.')[0] + INDEX_FILE_SUFFIX);
  const offsetIndex = new OffsetIndex(indexFile, baseOffset, 1 << 30, fs.existsSync(indexFile) ? fs.readFileSync(indexFile) : Buffer.alloc(0));
  const log = siblingLog(file);
  try {
    for (let i = 0; i < timeIndex.entries; i++) {
      const entry = timeIndex.entry(i);
      if (entry.offset === baseOffset && i > 0) break;
      if (log) {
        let found: number | null = null;
        for (const b of log.batchesFrom(offsetIndex.lookup(entry.offset).position)) {
          if (b.lastOffset >= entry.offset) {
            found = b.lastOffset;
            break;
          }
        }
        if (found !== entry.offset) {
          problems.push('The following indexed offsets are not found in the log.', `Indexed offset: ${entry.offset}, found log offset: ${found ?? -1}`);
        }
      }
      yield `timestamp: ${entry.timestamp} offset: ${entry.offset}`;
    }
  } finally {
    log?.close();
  }
}

/** Kafka's DumpLogSegments.dumpTxnIndex: one line per aborted transaction. */
function* dumpTxnIndex(file: string): Generator<string> {
  for (const t of decodeAbortedTxns(fs.readFileSync(file), file)) {
    yield `version: ${ABORTED_TXN_VERSION} producerId: ${t.producerId} firstOffset: ${t.firstOffset} lastOffset: ${t.lastOffset} lastStableOffset: ${t.lastStableOffset}`;
  }
}

function* dumpProducerSnapshot(file: string, problems: string[]): Generator<string> {
  const state = new ProducerStateManager();
  try {
    state.loadSnapshot(file);
  } catch (err) {
    problems.push((err as Error).message);
    return;
  }
  for (const e of state.activeProducers.values()) {
    const txn = e.currentTxnFirstOffset >= 0 ? `OptionalLong[${e.currentTxnFirstOffset}]` : 'OptionalLong.empty';
    let line =
      `producerId: ${e.producerId} producerEpoch: ${e.producerEpoch} coordinatorEpoch: ${e.coordinatorEpoch} ` +
      `currentTxnFirstOffset: ${txn} lastTimestamp: ${e.lastTimestamp} `;
    const b = e.batches[0];
    if (b) {
      const offsetDelta = b.lastOffset - b.firstOffset;
      // Kafka's BatchMetadata.firstSeq: DefaultRecordBatch.decrementSequence, which wraps a batch without
      // sequences (lastSequence -1, a coordinator's transactional write) past Integer.MAX_VALUE.
      const firstSeq = b.lastSeq < offsetDelta ? 0x7fffffff - (offsetDelta - b.lastSeq) + 1 : b.lastSeq - offsetDelta;
      line += `firstSequence: ${firstSeq} lastSequence: ${b.lastSeq} lastOffset: ${b.lastOffset} offsetDelta: ${offsetDelta} timestamp: ${b.timestamp}`;
    }
    yield line;
  }
}
