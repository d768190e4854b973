// The record codecs throw the log's own error types, so a handler maps a bad batch to the same
// Kafka error code whether the codec or the log engine found the problem.
export { CorruptRecordError, RecordTooLargeError } from '../../storage/errors.js';
