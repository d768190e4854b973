// The subscription metadata hash of a KIP-848 consumer group (KIP-1101, Kafka 4.1+): kept in the group's
// ConsumerGroupMetadataValue (tag 0) instead of a ConsumerGroupPartitionMetadata record; a change in it (a topic
// created, deleted or grown) bumps the group epoch. Follows group-coordinator's Utils.computeTopicHash and
// computeGroupHash, whose hash4j stream is XXH3-64 (seed 0) over little-endian values, a string being its UTF-16
// code units then its length as int32.
import { xxh3 } from '@node-rs/xxhash';
import type { TopicMetadata } from './consumer/assignors/assignor.js';

/** Utils.TOPIC_HASH_MAGIC_BYTE. */
const TOPIC_HASH_MAGIC_BYTE = 0;

function topicHash(t: TopicMetadata): bigint {
  const buf = Buffer.alloc(1 + 16 + t.name.length * 2 + 4 + 4 + t.numPartitions * 4);
  let pos = buf.writeUInt8(TOPIC_HASH_MAGIC_BYTE, 0);
  // The id's most then least significant long, each little-endian.
  const id = Buffer.from(t.topicId, 'hex');
  pos = buf.writeBigInt64LE(id.readBigInt64BE(0), pos);
  pos = buf.writeBigInt64LE(id.readBigInt64BE(8), pos);
  for (let i = 0; i < t.name.length; i++) pos = buf.writeUInt16LE(t.name.charCodeAt(i), pos);
  pos = buf.writeInt32LE(t.name.length, pos);
  pos = buf.writeInt32LE(t.numPartitions, pos);
  // Each partition's racks would follow its index: kafkite's broker has none (Metadata answers rack null).
  for (let p = 0; p < t.numPartitions; p++) pos = buf.writeInt32LE(p, pos);
  return BigInt.asIntN(64, xxh3.xxh64(buf));
}

/** The group's hash over its subscribed topics that exist (0 for none), as a signed int64. */
export function metadataHash(topics: Iterable<TopicMetadata>): bigint {
  // Sorted by name as Java's String.compareTo sorts (UTF-16 code units), as JavaScript's default sort does.
  const sorted = [...topics].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (sorted.length === 0) return 0n;
  const buf = Buffer.alloc(sorted.length * 8);
  sorted.forEach((t, i) => buf.writeBigInt64LE(topicHash(t), i * 8));
  return BigInt.asIntN(64, xxh3.xxh64(buf));
}
