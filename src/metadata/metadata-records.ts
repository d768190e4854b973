// Metadata records by Kafka 4.4's definitions (protocol/generated/records, from the kafka-metadata jar): a message
// encoded into the framed form the metadata log keeps (MetadataRecordSerde), and read back.
import { RECORD_CODECS, type RecordCodec } from '../../protocol/generated/records/index.js';
import { Reader, Writer } from '../../protocol/primitives.js';
import type { MetadataRecord } from './metadata-frame.js';

const METADATA_CODECS = new Map(RECORD_CODECS.filter((c) => c.type === 'metadata').map((c) => [c.name, c]));
const NAMES_BY_TYPE = new Map([...METADATA_CODECS.values()].map((c) => [c.recordType!, c.name]));

function codecOf(name: string): RecordCodec {
  const codec = METADATA_CODECS.get(name);
  if (!codec) throw new Error(`no metadata record named ${name}`);
  return codec;
}

/** The record type (the spec's apiKey) of a metadata record, by its name (e.g. TopicRecord). */
export function recordTypeOf(name: string): number {
  return codecOf(name).recordType!;
}

export function metadataRecord<T>(name: string, version: number, message: T): MetadataRecord {
  const codec = codecOf(name);
  const w = new Writer(64);
  codec.write(w, version, message);
  return { type: codec.recordType!, version, body: w.toBuffer() };
}

export function readMetadataRecord<T>(name: string, record: MetadataRecord): T {
  return codecOf(name).read(new Reader(record.body), record.version) as T;
}

/** The name of a metadata record type (e.g. TopicRecord for 2); undefined for a type Kafka 4.4 does not define. */
export function recordNameOf(type: number): string | undefined {
  return NAMES_BY_TYPE.get(type);
}
