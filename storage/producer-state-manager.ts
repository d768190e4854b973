// Idempotent and transactional producer state (Kafka's ProducerStateManager): per producer id the
// epoch and the last five batches' sequence and offset ranges, plus each open transaction's first offset.
// Snapshots (`<offset>.snapshot`, Kafka's format v1) are written when a segment rolls and at clean
// shutdown; at start-up the latest one is loaded and the batch headers after it are replayed.
import { crc32c } from '@node-rs/crc32';
import fs from 'node:fs';
import { readInt64, writeInt64 } from '../protocol/primitives.js';
import type { BatchHeader } from '../protocol/records/batch-header.js';
import { writeFileAtomically } from './checkpoint-file.js';
import type { EndTxnMarker } from '../protocol/records/end-txn-marker.js';
import {
  CorruptRecordError,
  InvalidProducerEpochError,
  InvalidTxnStateError,
  OutOfOrderSequenceError,
  TransactionCoordinatorFencedError,
} from './errors.js';

const NUM_BATCHES_TO_RETAIN = 5;
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
  /** Epoch of the coordinator that wrote this producer's last marker, -1 before any. */
  coordinatorEpoch: number;
  lastTimestamp: number;
}

/** A transaction ended by a marker (Kafka's CompletedTxn); lastOffset is the marker's offset. */
export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  isAborted: boolean;
  /** The transaction wrote data to this partition (else firstOffset is the marker's offset). */
  hadData: boolean;
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

function lastSequence(batch: Pick<ProducerBatch, 'baseSequence' | 'lastOffsetDelta'>): number {
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
  /** Open transactions, first offset → producer id, kept in offset order (appends only ever add larger offsets). */
  private readonly ongoingTxns = new Map<number, number>();

  get activeProducers(): ReadonlyMap<number, ProducerStateEntry> {
    return this.producers;
  }

  /**
   * Checks a client batch against the producer's state before it is appended. Returns the original
   * metadata when the batch is a retry of one of the last five (a duplicate); throws when fenced or out of order.
   * `transactionVersion`: the producer's (2 for Produce v12 and later).
   */
  checkBatch(batch: ProducerBatch, transactionVersion: number): BatchMetadata | null {
    const entry = this.producers.get(batch.producerId);
    if (entry === undefined) {
      // An unknown producer (new, or its state expired or deleted with its records) may start at any
      // sequence, as Kafka's ProducerAppendInfo.checkSequence allows when there is no current epoch; but
      // under transaction version 2 every transaction has an epoch of its own and starts at sequence 0
      // (Kafka's checkSequence since KAFKA-18202, Kafka 4.1).
      if (transactionVersion >= 2 && batch.isTransactional && !batch.isControl && batch.baseSequence !== 0) {
        throw new OutOfOrderSequenceError(
          `transaction version 2 producer ${batch.producerId} has no state here and starts at sequence ${batch.baseSequence}, not 0`,
        );
      }
      return null;
    }
    if (batch.producerEpoch < entry.producerEpoch) {
      throw new InvalidProducerEpochError(`producer ${batch.producerId} epoch ${batch.producerEpoch} is older than ${entry.producerEpoch}`);
    }
    if (batch.isControl) return null;
    const duplicate = this.checkSequence(entry, batch);
    if (duplicate === null && !batch.isTransactional && entry.currentTxnFirstOffset >= 0) {
      // Kafka's ProducerAppendInfo.appendDataBatch.
      throw new InvalidTxnStateError(`Expected transactional write from producer ${batch.producerId}: its transaction started at offset ${entry.currentTxnFirstOffset}`);
    }
    return duplicate;
  }

  private checkSequence(entry: ProducerStateEntry, batch: ProducerBatch): BatchMetadata | null {
    const firstSeq = batch.baseSequence;
    if (firstSeq === NO_SEQUENCE) return null;
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

  /**
   * Checks a transaction marker before it is appended (Kafka's ProducerAppendInfo.appendEndTxnMarker):
   * a fenced producer epoch or an older coordinator epoch is refused. Under `transactionVersion` 2 the
   * coordinator bumps the epoch at every transaction end, so the marker's must be above the producer's
   * here; one at the same epoch would end the transaction of that epoch instead of the one it was written
   * for, unless no transaction is open (the marker written again when a Prepare* is completed again).
   * Kafka's checkProducerEpoch since KAFKA-19446 and KAFKA-19999 (Kafka 4.2).
   */
  checkMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number, transactionVersion: number): void {
    const entry = this.producers.get(producerId);
    if (entry === undefined) return;
    if (producerEpoch < entry.producerEpoch) {
      throw new InvalidProducerEpochError(`marker for producer ${producerId} has epoch ${producerEpoch}, older than ${entry.producerEpoch}`);
    }
    if (transactionVersion >= 2 && producerEpoch === entry.producerEpoch && entry.currentTxnFirstOffset >= 0) {
      throw new InvalidProducerEpochError(
        `transaction version 2 marker for producer ${producerId} has epoch ${producerEpoch}, not above that of its open transaction`,
      );
    }
    if (coordinatorEpoch < entry.coordinatorEpoch) {
      throw new TransactionCoordinatorFencedError(
        `marker for producer ${producerId} has coordinator epoch ${coordinatorEpoch}, older than ${entry.coordinatorEpoch}`,
      );
    }
  }

  hasOngoingTransaction(producerId: number): boolean {
    return (this.producers.get(producerId)?.currentTxnFirstOffset ?? -1) >= 0;
  }

  /**
   * Records an appended batch (offsets assigned). A control batch needs its marker; it ends the
   * producer's transaction, which is returned.
   */
  update(batch: ProducerBatch, marker?: EndTxnMarker): CompletedTxn | null {
    if (batch.producerId < 0) return null;
    let entry = this.producers.get(batch.producerId);
    if (entry === undefined || batch.producerEpoch > entry.producerEpoch) {
      entry = {
        producerId: batch.producerId,
        producerEpoch: batch.producerEpoch,
        batches: [],
        currentTxnFirstOffset: entry?.currentTxnFirstOffset ?? -1,
        coordinatorEpoch: entry?.coordinatorEpoch ?? -1,
        lastTimestamp: -1,
      };
      this.producers.set(batch.producerId, entry);
    }
    entry.lastTimestamp = batch.maxTimestamp;
    if (batch.isControl) {
      if (marker === undefined) return null;
      const hadData = entry.currentTxnFirstOffset >= 0;
      const completed: CompletedTxn = {
        producerId: batch.producerId,
        firstOffset: hadData ? entry.currentTxnFirstOffset : batch.baseOffset,
        lastOffset: batch.baseOffset,
        isAborted: !marker.commit,
        hadData,
      };
      if (hadData) this.ongoingTxns.delete(entry.currentTxnFirstOffset);
      entry.currentTxnFirstOffset = -1;
      entry.coordinatorEpoch = marker.coordinatorEpoch;
      return completed;
    }
    if (batch.isTransactional && entry.currentTxnFirstOffset < 0) {
      entry.currentTxnFirstOffset = batch.baseOffset;
      this.ongoingTxns.set(batch.baseOffset, batch.producerId);
    }
    // Every data batch, with a sequence or not (the coordinators' transactional offset commits have none), as
    // Kafka's ProducerAppendInfo.appendDataBatch adds it: its snapshot and the cleaner see its last offset.
    entry.batches.push({
      firstSeq: batch.baseSequence,
      lastSeq: lastSequence(batch),
      firstOffset: batch.baseOffset,
      lastOffset: batch.baseOffset + batch.lastOffsetDelta,
      timestamp: batch.maxTimestamp,
    });
    if (entry.batches.length > NUM_BATCHES_TO_RETAIN) entry.batches.shift();
    return null;
  }

  /**
   * producer.id.expiration.ms (Kafka's ProducerStateManager.removeExpiredProducers): forgets the producers
   * whose last batch's timestamp is at least `expirationMs` old, never one with an open transaction.
   * A forgotten producer id that writes again starts over at sequence 0 like a new one. Returns how many.
   */
  removeExpiredProducers(now: number, expirationMs: number): number {
    let removed = 0;
    for (const [producerId, entry] of this.producers) {
      if (entry.currentTxnFirstOffset < 0 && now - entry.lastTimestamp >= expirationMs) {
        this.producers.delete(producerId);
        removed++;
      }
    }
    return removed;
  }

  /** The first offset of the oldest open transaction, or null: the last stable offset stops there. */
  firstUnstableOffset(): number | null {
    for (const first of this.ongoingTxns.keys()) return first;
    return null;
  }

  /**
   * The LSO right after `txn` ended (Kafka's ProducerStateManager.lastStableOffset(CompletedTxn)): the
   * oldest other open transaction's first offset, else the offset after the marker. Call after update().
   */
  lastStableOffsetAfter(txn: CompletedTxn): number {
    return this.firstUnstableOffset() ?? txn.lastOffset + 1;
  }

  /** Open transactions in offset order. */
  ongoingTransactions(): Array<{ producerId: number; firstOffset: number }> {
    return [...this.ongoingTxns].map(([firstOffset, producerId]) => ({ producerId, firstOffset }));
  }

  clear(): void {
    this.producers.clear();
    this.ongoingTxns.clear();
  }

  /**
   * Kafka's snapshot v1: version int16, CRC32C (of what follows) uint32, then an int32-counted array of
   * (producerId int64, epoch int16, lastSequence int32, lastOffset int64, offsetDelta int32,
   * timestamp int64, coordinatorEpoch int32, currentTxnFirstOffset int64). Only each producer's last
   * batch is kept, as in Kafka.
   */
  writeSnapshot(file: string): void {
    writeFileAtomically(file, this.snapshotBytes());
  }

  /** The snapshot file's bytes (see writeSnapshot). */
  snapshotBytes(): Buffer {
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
      buf.writeInt32BE(last ? last.lastOffset - last.firstOffset : 0, pos + 22);
      writeInt64(buf, e.lastTimestamp, pos + 26);
      buf.writeInt32BE(e.coordinatorEpoch, pos + 34);
      writeInt64(buf, e.currentTxnFirstOffset, pos + 38);
      pos += SNAPSHOT_ENTRY_SIZE;
    }
    buf.writeUInt32BE(crc32c(buf.subarray(6)) >>> 0, 2);
    return buf;
  }

  /** Replaces the state with a snapshot's; throws CorruptRecordError for a damaged file. */
  loadSnapshot(file: string): void {
    const buf = fs.readFileSync(file);
    if (buf.length < SNAPSHOT_HEADER_SIZE || buf.readInt16BE(0) !== PRODUCER_SNAPSHOT_VERSION) throw new CorruptRecordError(`bad snapshot header in ${file}`);
    if ((crc32c(buf.subarray(6)) >>> 0) !== buf.readUInt32BE(2)) throw new CorruptRecordError(`snapshot CRC mismatch in ${file}`);
    const count = buf.readInt32BE(6);
    if (buf.length !== SNAPSHOT_HEADER_SIZE + count * SNAPSHOT_ENTRY_SIZE) throw new CorruptRecordError(`bad snapshot size in ${file}`);
    this.clear();
    for (let i = 0, pos = SNAPSHOT_HEADER_SIZE; i < count; i++, pos += SNAPSHOT_ENTRY_SIZE) {
      const producerId = readInt64(buf, pos);
      const lastSeq = buf.readInt32BE(pos + 10);
      const lastOffset = readInt64(buf, pos + 14);
      const offsetDelta = buf.readInt32BE(pos + 22);
      const timestamp = readInt64(buf, pos + 26);
      const firstSeq = lastSeq === NO_SEQUENCE ? NO_SEQUENCE : lastSeq - offsetDelta;
      const batches = lastOffset < 0 ? [] : [{ firstSeq, lastSeq, firstOffset: lastOffset - offsetDelta, lastOffset, timestamp }];
      const currentTxnFirstOffset = readInt64(buf, pos + 38);
      this.producers.set(producerId, {
        producerId,
        producerEpoch: buf.readInt16BE(pos + 8),
        batches,
        currentTxnFirstOffset,
        coordinatorEpoch: buf.readInt32BE(pos + 34),
        lastTimestamp: timestamp,
      });
    }
    const open = [...this.producers.values()].filter((e) => e.currentTxnFirstOffset >= 0).sort((a, b) => a.currentTxnFirstOffset - b.currentTxnFirstOffset);
    for (const e of open) this.ongoingTxns.set(e.currentTxnFirstOffset, e.producerId);
  }
}

const PRODUCER_SNAPSHOT_VERSION = 1;
const SNAPSHOT_HEADER_SIZE = 10;
const SNAPSHOT_ENTRY_SIZE = 46;
