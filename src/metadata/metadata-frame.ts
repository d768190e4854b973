// A metadata record's value as Kafka's MetadataRecordSerde (AbstractApiMessageSerde) frames it: unsigned varint
// frame version, unsigned varint record type (the spec's apiKey), unsigned varint record version, then the
// record's fields in that version's encoding. Records have a null key.
import { Reader, Writer } from '../../protocol/primitives.js';

/** MetadataRecordSerde's DEFAULT_FRAME_VERSION. */
const METADATA_FRAME_VERSION = 1;

export interface MetadataRecord {
  /** The record spec's apiKey (e.g. 6 = AccessControlEntryRecord). */
  readonly type: number;
  readonly version: number;
  readonly body: Buffer;
}

/** A record in the metadata log that cannot be unframed (a frame version this code does not know, a cut value). */
class MetadataRecordError extends Error {
  override name = 'MetadataRecordError';
}

export function frameMetadataRecord(r: MetadataRecord): Buffer {
  const w = new Writer(r.body.length + 8);
  w.uvarint(METADATA_FRAME_VERSION).uvarint(r.type).uvarint(r.version).raw(r.body);
  return w.toBuffer();
}

export function unframeMetadataRecord(value: Buffer): MetadataRecord {
  try {
    const r = new Reader(value);
    const frameVersion = r.uvarint();
    if (frameVersion !== METADATA_FRAME_VERSION) throw new MetadataRecordError(`unknown metadata frame version ${frameVersion}`);
    const type = r.uvarint();
    const version = r.uvarint();
    return { type, version, body: value.subarray(r.offset) };
  } catch (err) {
    if (err instanceof MetadataRecordError) throw err;
    throw new MetadataRecordError(`cannot unframe a metadata record: ${(err as Error).message}`);
  }
}
