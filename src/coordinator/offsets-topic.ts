// The coordinator's narrow view of the internal __consumer_offsets topic. The broker implements it
// on its logs (creating the topic on first use); tests implement it in memory.

export const OFFSETS_TOPIC_NAME = '__consumer_offsets';

/** One record of __consumer_offsets; a null value is a tombstone (compaction removes the key). */
export interface CoordinatorRecord {
  key: Buffer;
  value: Buffer | null;
  /** Read back only: the producer of a transactional record whose transaction had no marker yet (still pending). */
  pendingProducerId?: number;
  /** Read back only: the record's offset in its partition (the share coordinator tracks its snapshots' offsets). */
  offset?: number;
}

/** The producer of a transactional write (TxnOffsetCommit); its records count once its COMMIT marker is written. */
export interface TransactionalProducer {
  producerId: number;
  producerEpoch: number;
}

export interface OffsetsTopic {
  readonly numPartitions: number;
  /**
   * Appends the records to the partition as one batch (transactional when `producer` is given), at once, and
   * resolves once they are on disk: what a coordinator answers after a write is as durable as an acks=all
   * produce (Kafka appends these records with acks=-1), and an OS crash does not take it back.
   */
  append(partition: number, records: ReadonlyArray<CoordinatorRecord>, producer?: TransactionalProducer): Promise<void>;
  /**
   * Every record of the partition, in offset order (used once, at start-up). Transactional records count
   * at their COMMIT marker and are dropped at an ABORT; those still open come last, with `pendingProducerId`.
   */
  readAll(partition: number): Promise<CoordinatorRecord[]>;
}

/** Java's String.hashCode over UTF-16 code units, as Kafka uses it for the group's partition. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's Utils.abs: maps Integer.MIN_VALUE to 0 instead of overflowing. */
function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

export function partitionFor(groupId: string, numPartitions: number): number {
  return kafkaAbs(javaStringHashCode(groupId)) % numPartitions;
}
