// Storage errors, each carrying the Kafka error code the handlers put in the response. The record
// codecs' errors are the protocol layer's own; the log throws them too.
export { CorruptRecordError, InvalidRecordError, RecordTooLargeError } from '../protocol/records/errors.js';

abstract class StorageError extends Error {
  abstract readonly code: number;
}

/** One rejected record of a batch: its index in the batch and why (Produce's recordErrors). */
export interface RejectedRecord {
  readonly batchIndex: number;
  readonly message: string;
}

/**
 * Kafka's RecordValidationException: the batch is refused because of the listed records, with INVALID_RECORD
 * or, when a timestamp is among the reasons, INVALID_TIMESTAMP.
 */
export class RecordValidationError extends StorageError {
  override name = 'RecordValidationError';
  constructor(readonly code: 87 | 32, message: string, readonly recordErrors: readonly RejectedRecord[]) {
    super(message);
  }
}

/** OFFSET_OUT_OF_RANGE: a fetch or delete below the log start offset or beyond the end. */
export class OffsetOutOfRangeError extends StorageError {
  override name = 'OffsetOutOfRangeError';
  readonly code = 1;
}

/** OUT_OF_ORDER_SEQUENCE_NUMBER: an idempotent producer skipped a sequence number. */
export class OutOfOrderSequenceError extends StorageError {
  override name = 'OutOfOrderSequenceError';
  readonly code = 45;
}

/** INVALID_PRODUCER_EPOCH: a fenced producer (its epoch is older than the latest one seen). */
export class InvalidProducerEpochError extends StorageError {
  override name = 'InvalidProducerEpochError';
  readonly code = 47;
}

/** INVALID_TXN_STATE: a non-transactional batch from a producer whose transaction is open. */
export class InvalidTxnStateError extends StorageError {
  override name = 'InvalidTxnStateError';
  readonly code = 48;
}

/** TRANSACTION_COORDINATOR_FENCED: a marker from an older coordinator epoch than the partition has seen. */
export class TransactionCoordinatorFencedError extends StorageError {
  override name = 'TransactionCoordinatorFencedError';
  readonly code = 52;
}

/** KAFKA_STORAGE_ERROR: an I/O failure on a log directory. */
export class KafkaStorageError extends StorageError {
  override name = 'KafkaStorageError';
  readonly code = 56;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A resource limit hit while writing or opening files: the request gets a retriable KAFKA_STORAGE_ERROR
 * but, unlike an I/O failure, the log dir stays online (the disk is fine; it is full, or we ran out of descriptors).
 */
export abstract class StorageResourceError extends KafkaStorageError {}

/** EMFILE/ENFILE: the process or system descriptor limit. */
export class TooManyOpenFilesError extends StorageResourceError {
  override name = 'TooManyOpenFilesError';
}

/** ENOSPC/EDQUOT during a write, or free space below kafkite.storage.min.free.bytes. */
export class DiskFullError extends StorageResourceError {
  override name = 'DiskFullError';
}

/** The errno code (EMFILE, ENOSPC, ...) of an error or of the first error in its cause chain. */
export function errnoCodeOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
