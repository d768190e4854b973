// Errors of the record codecs, each carrying the Kafka error code a handler puts in the response.
// The log engine throws these same types (storage/errors.ts re-exports them), so a bad batch maps to
// one error code whether the codec or the log found the problem.

export abstract class RecordError extends Error {
  abstract readonly code: number;
}

/** CORRUPT_MESSAGE: bad CRC, bad size or a batch that cannot be parsed. */
export class CorruptRecordError extends RecordError {
  override name = 'CorruptRecordError';
  readonly code = 2;
}

/** MESSAGE_TOO_LARGE: a batch larger than max.message.bytes. */
export class RecordTooLargeError extends RecordError {
  override name = 'RecordTooLargeError';
  readonly code = 10;
}

/** INVALID_RECORD: a well-formed batch or message that cannot be accepted (wrong magic, keyless record on a compacted topic, ...). */
export class InvalidRecordError extends RecordError {
  override name = 'InvalidRecordError';
  readonly code = 87;
}

/** UNSUPPORTED_COMPRESSION_TYPE: ZSTD exists only in record batch v2 (KIP-110), not in message formats v0/v1. */
export class UnsupportedCompressionTypeError extends RecordError {
  override name = 'UnsupportedCompressionTypeError';
  readonly code = 76;
}
