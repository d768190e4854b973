// Idempotent and transactional producer state (Kafka's ProducerStateManager): per producer id the
// epoch and the last five batches' sequence and offset ranges, plus each open transaction's first offset.
// Snapshots (`<offset>.snapshot`, Kafka's format v1) are written when a segment rolls and at clean
// shutdown; at start-up the latest one is loaded and the batch headers after it are replayed.
import { crc32c } from '@node-rs/crc32';
import fs from 'node:fs';
import { readInt64, writeInt64 } from '../protocol/primitives.js';
import type { BatchHeader } from '../protocol/records/batch-header.js';
import { writeFileAtomically } from './checkpoint-file.js';
import { CorruptRecordError, InvalidProducerEpochError, OutOfOrderSequenceError } from './errors.js';

export const NUM_BATCHES_TO_RETAIN = 5;
const NO_SEQUENCE = -1;
const INT32_MAX = 0x7fffffff;

export interface BatchMetadata {
  firstSeq: number;
  lastSeq: number;
  firstOffset: number;
  lastOffset: number;
  timestamp: number;
}

export interface ProducerStateEntry {
  producerId: number;
  producerEpoch: number;
  batches: BatchMetadata[];
  /** First offset of the open transaction, or -1. */
  currentTxnFirstOffset: number;
  lastTimestamp: number;
}

/** The producer-related fields of a batch (a header, or the same fields after offset assignment). */
export interface ProducerBatch {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  lastOffsetDelta: number;
  baseOffset: number;
  maxTimestamp: number;
  isTransactional: boolean;
  isControl: boolean;
}

export function lastSequence(batch: Pick<ProducerBatch, 'baseSequence' | 'lastOffsetDelta'>): number {
  if (batch.baseSequence === NO_SEQUENCE) return NO_SEQUENCE;
  const last = batch.baseSequence + batch.lastOffsetDelta;
  return last > INT32_MAX ? last - INT32_MAX - 1 : last;
}

export function producerBatchOf(h: BatchHeader): ProducerBatch {
  return {
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    lastOffsetDelta: h.lastOffsetDelta,
    baseOffset: h.baseOffset,
    maxTimestamp: h.maxTimestamp,
    isTransactional: h.isTransactional,
    isControl: h.isControl,
  };
}

export class ProducerStateManager {
  private readonly producers = new Map<number, ProducerStateEntry>();

  get activeProducers(): ReadonlyMap<number, ProducerStateEntry> {
    return this.producers;
  }

  /**
   * Checks a client batch against the producer's state before it is appended. Returns the original
   * metadata when the batch is a retry of one of the last five (a duplicate); throws when fenced or out of order.
   */
  checkBatch(batch: ProducerBatch): BatchMetadata | null {
    const entry = this.producers.get(batch.producerId);
    const firstSeq = batch.baseSequence;
    if (entry === undefined) {
      if (firstSeq !== 0 && firstSeq !== NO_SEQUENCE) {
        throw new OutOfOrderSequenceError(`producer ${batch.producerId} is unknown and its first sequence is ${firstSeq}, not 0`);
      }
      return null;
    }
    if (batch.producerEpoch < entry.producerEpoch) {
      throw new InvalidProducerEpochError(`producer ${batch.producerId} epoch ${batch.producerEpoch} is older than ${entry.producerEpoch}`);
    }
    if (batch.isControl || firstSeq === NO_SEQUENCE) return null;
    if (batch.producerEpoch > entry.producerEpoch) {
      if (firstSeq !== 0) throw new OutOfOrderSequenceError(`producer ${batch.producerId} new epoch ${batch.producerEpoch} starts at sequence ${firstSeq}, not 0`);
      return null;
    }
    const last = lastSequence(batch);
    const duplicate = entry.batches.find((b) => b.firstSeq === firstSeq && b.lastSeq === last);
    if (duplicate) return duplicate;
    const currentLastSeq = entry.batches.length > 0 ? entry.batches[entry.batches.length - 1].lastSeq : NO_SEQUENCE;
    const inSequence = currentLastSeq === NO_SEQUENCE ? firstSeq === 0 : firstSeq === currentLastSeq + 1 || (firstSeq === 0 && currentLastSeq === INT32_MAX);
    if (!inSequence) {
      throw new OutOfOrderSequenceError(`producer ${batch.producerId}: sequence ${firstSeq} does not follow ${currentLastSeq}`);
    }
    return null;
  }

  /** Records an appended batch (offsets assigned). */
  update(batch: ProducerBatch): void {
    if (batch.producerId < 0) return;
    let entry = this.producers.get(batch.producerId);
    if (entry === undefined || batch.producerEpoch > entry.producerEpoch) {
      entry = { producerId: batch.producerId, producerEpoch: batch.producerEpoch, batches: [], currentTxnFirstOffset: entry?.currentTxnFirstOffset ?? -1, lastTimestamp: -1 };
      this.producers.set(batch.producerId, entry);
    }
    entry.lastTimestamp = batch.maxTimestamp;
    if (batch.isControl) {
      entry.currentTxnFirstOffset = -1;
      return;
    }
    if (batch.isTransactional && entry.currentTxnFirstOffset < 0) entry.currentTxnFirstOffset = batch.baseOffset;
    if (batch.baseSequence !== NO_SEQUENCE) {
      entry.batches.push({
        firstSeq: batch.baseSequence,
        lastSeq: lastSequence(batch),
        firstOffset: batch.baseOffset,
        lastOffset: batch.baseOffset + batch.lastOffsetDelta,
        timestamp: batch.maxTimestamp,
      });
      if (entry.batches.length > NUM_BATCHES_TO_RETAIN) entry.batches.shift();
    }
  }

  /** The first offset of the oldest open transaction, or null: the last stable offset stops there. */
  firstUnstableOffset(): number | null {
    let first: number | null = null;
    for (const e of this.producers.values()) {
      if (e.currentTxnFirstOffset >= 0 && (first === null || e.currentTxnFirstOffset < first)) first = e.currentTxnFirstOffset;
    }
    return first;
  }

  clear(): void {
    this.producers.clear();
  }

  /**
   * Kafka's snapshot v1: version int16, CRC32C (of what follows) uint32, then an int32-counted array of
   * (producerId int64, epoch int16, lastSequence int32, lastOffset int64, offsetDelta int32,
   * timestamp int64, coordinatorEpoch int32, currentTxnFirstOffset int64). Only each producer's last
   * batch is kept, as in Kafka.
   */
  writeSnapshot(file: string): void {
    const entries = [...this.producers.values()];
    const buf = Buffer.alloc(SNAPSHOT_HEADER_SIZE + entries.length * SNAPSHOT_ENTRY_SIZE);
    buf.writeInt16BE(PRODUCER_SNAPSHOT_VERSION, 0);
    buf.writeInt32BE(entries.length, 6);
    let pos = SNAPSHOT_HEADER_SIZE;
    for (const e of entries) {
      const last = e.batches[e.batches.length - 1];
      writeInt64(buf, e.producerId, pos);
      buf.writeInt16BE(e.producerEpoch, pos + 8);
      buf.writeInt32BE(last?.lastSeq ?? NO_SEQUENCE, pos + 10);
      writeInt64(buf, last?.lastOffset ?? -1, pos + 14);
      buf.writeInt32BE(last ? last.lastSeq - last.firstSeq : 0, pos + 22);
      writeInt64(buf, e.lastTimestamp, pos + 26);
      buf.writeInt32BE(-1, pos + 34);
      writeInt64(buf, e.currentTxnFirstOffset, pos + 38);
      pos += SNAPSHOT_ENTRY_SIZE;
    }
    buf.writeUInt32BE(crc32c(buf.subarray(6)) >>> 0, 2);
    writeFileAtomically(file, buf);
  }

  /** Replaces the state with a snapshot's; throws CorruptRecordError for a damaged file. */
  loadSnapshot(file: string): void {
    const buf = fs.readFileSync(file);
    if (buf.length < SNAPSHOT_HEADER_SIZE || buf.readInt16BE(0) !== PRODUCER_SNAPSHOT_VERSION) throw new CorruptRecordError(`bad snapshot header in ${file}`);
    if ((crc32c(buf.subarray(6)) >>> 0) !== buf.readUInt32BE(2)) throw new CorruptRecordError(`snapshot CRC mismatch in ${file}`);
    const count = buf.readInt32BE(6);
    if (buf.length !== SNAPSHOT_HEADER_SIZE + count * SNAPSHOT_ENTRY_SIZE) throw new CorruptRecordError(`bad snapshot size in ${file}`);
    this.producers.clear();
    for (let i = 0, pos = SNAPSHOT_HEADER_SIZE; i < count; i++, pos += SNAPSHOT_ENTRY_SIZE) {
      const producerId = readInt64(buf, pos);
      const lastSeq = buf.readInt32BE(pos + 10);
      const lastOffset = readInt64(buf, pos + 14);
      const offsetDelta = buf.readInt32BE(pos + 22);
      const timestamp = readInt64(buf, pos + 26);
      const batches = lastSeq === NO_SEQUENCE ? [] : [{ firstSeq: lastSeq - offsetDelta, lastSeq, firstOffset: lastOffset - offsetDelta, lastOffset, timestamp }];
      this.producers.set(producerId, {
        producerId,
        producerEpoch: buf.readInt16BE(pos + 8),
        batches,
        currentTxnFirstOffset: readInt64(buf, pos + 38),
        lastTimestamp: timestamp,
      });
    }
  }
}

const PRODUCER_SNAPSHOT_VERSION = 1;
const SNAPSHOT_HEADER_SIZE = 10;
const SNAPSHOT_ENTRY_SIZE = 46;
