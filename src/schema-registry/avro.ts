// Avro schemas with avsc: it parses with the Avro spec's rules (names, defaults, unions) and its resolver
// is the spec's schema resolution, the rule Confluent's AvroSchema.isBackwardCompatible applies.
import avro from 'avsc';
import type { ParsedSchema, ResolvedReference } from './schema-type.js';

class AvroSchema implements ParsedSchema {
  readonly type = 'AVRO' as const;
  constructor(readonly text: string, readonly avroType: avro.Type) {}

  readErrors(writer: ParsedSchema): string[] {
    if (!(writer instanceof AvroSchema)) return [`Incompatible schema type: ${writer.type} against AVRO`];
    try {
      this.avroType.createResolver(writer.avroType);
      return [];
    } catch (err) {
      return [`{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE or TYPE_MISMATCH', description:'${(err as Error).message}'}`];
    }
  }
}

/** Parses `text` (references are named types defined by earlier schemas); throws with avsc's reason. */
export function parseAvro(text: string, references: readonly ResolvedReference[], normalize: boolean): AvroSchema {
  const registry: Record<string, avro.Type> = {};
  for (const ref of references) avro.Type.forSchema(JSON.parse(ref.text), { registry });
  const json: unknown = JSON.parse(text);
  const type = avro.Type.forSchema(json as avro.Schema, { registry });
  // Stored compact, as Java's Schema.toString() writes it; normalize keeps only what avsc exports (the
  // schema's attributes, defaults and logical types, in its key order), so equal schemas compare equal.
  const stored = normalize ? JSON.stringify(type.schema({ exportAttrs: true })) : JSON.stringify(json);
  return new AvroSchema(stored, type);
}
