// The records of the `_schemas` topic in Confluent's formats (io.confluent.kafka.schemaregistry.storage:
// SchemaKey, ConfigKey, ModeKey, DeleteSubjectKey, ClearSubjectKey, NoopKey and their values), so that
// Confluent's registry started on the same topic sees the same subjects, versions and ids. Keys and values
// are Jackson JSON with NON_EMPTY inclusion: a null subject (the global config or mode) and empty
// references are left out; key fields come in their @JsonPropertyOrder.
import type { SchemaReference, SchemaType } from './schema-type.js';

export const SCHEMAS_TOPIC = '_schemas';

export type Compatibility = 'NONE' | 'BACKWARD' | 'BACKWARD_TRANSITIVE' | 'FORWARD' | 'FORWARD_TRANSITIVE' | 'FULL' | 'FULL_TRANSITIVE';
export const COMPATIBILITY_LEVELS: readonly Compatibility[] = ['NONE', 'BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE'];
export type Mode = 'READWRITE' | 'READONLY' | 'READONLY_OVERRIDE' | 'IMPORT';
export const MODES: readonly Mode[] = ['READWRITE', 'READONLY', 'READONLY_OVERRIDE', 'IMPORT'];

export interface SchemaValue {
  subject: string;
  version: number;
  id: number;
  schemaType: SchemaType;
  references: SchemaReference[];
  schema: string;
  deleted: boolean;
}

export interface ConfigValue {
  compatibilityLevel?: Compatibility;
  normalize?: boolean;
}

/** One decoded record; `value` null is a tombstone. */
export type RegistryRecord =
  | { keytype: 'SCHEMA'; subject: string; version: number; value: SchemaValue | null }
  | { keytype: 'CONFIG'; subject: string | null; value: ConfigValue | null }
  | { keytype: 'MODE'; subject: string | null; value: Mode | null }
  | { keytype: 'DELETE_SUBJECT'; subject: string; value: { version: number } | null }
  | { keytype: 'CLEAR_SUBJECT'; subject: string; value: unknown }
  | { keytype: 'NOOP' };

function subjectField(subject: string | null): { subject?: string } {
  return subject === null || subject === '' ? {} : { subject };
}

export function encodeKey(r: RegistryRecord): Buffer {
  let key: object;
  switch (r.keytype) {
    case 'SCHEMA': key = { keytype: 'SCHEMA', subject: r.subject, version: r.version, magic: 1 }; break;
    case 'NOOP': key = { keytype: 'NOOP', magic: 0 }; break;
    default: key = { keytype: r.keytype, ...subjectField(r.subject), magic: 0 };
  }
  return Buffer.from(JSON.stringify(key), 'utf8');
}

export function encodeValue(r: RegistryRecord): Buffer | null {
  if (r.keytype === 'NOOP' || r.value === null) return null;
  let value: object;
  switch (r.keytype) {
    case 'SCHEMA': {
      const v = r.value;
      value = {
        subject: v.subject,
        version: v.version,
        id: v.id,
        // Left out for AVRO as Confluent 5.5 to 7.x write it (SchemaTypeConverter); 8.0 writes "AVRO". Both
        // read either: a missing schemaType is AVRO.
        ...(v.schemaType === 'AVRO' ? {} : { schemaType: v.schemaType }),
        ...(v.references.length > 0 ? { references: v.references.map((x) => ({ name: x.name, subject: x.subject, version: x.version })) } : {}),
        schema: v.schema,
        deleted: v.deleted,
      };
      break;
    }
    // ConfigValue's @JsonCreator order: subject, ..., normalize, ..., compatibilityLevel.
    case 'CONFIG': value = { ...subjectField(r.subject), normalize: r.value.normalize, compatibilityLevel: r.value.compatibilityLevel }; break;
    case 'MODE': value = { ...subjectField(r.subject), mode: r.value }; break;
    case 'DELETE_SUBJECT': value = { subject: r.subject, version: r.value.version }; break;
    case 'CLEAR_SUBJECT': value = { subject: r.subject }; break;
  }
  return Buffer.from(JSON.stringify(value), 'utf8');
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Decodes a record as Confluent's SchemaRegistrySerializer does; null for keys it does not know (skipped, as it logs and skips them). */
export function decodeRecord(keyBytes: Buffer, valueBytes: Buffer | null): RegistryRecord | null {
  const key = JSON.parse(keyBytes.toString('utf8')) as Record<string, unknown>;
  const value = valueBytes === null ? null : (JSON.parse(valueBytes.toString('utf8')) as Record<string, unknown>);
  const subject = str(key.subject);
  switch (key.keytype) {
    case 'SCHEMA': {
      if (subject === null || typeof key.version !== 'number') return null;
      if (value === null) return { keytype: 'SCHEMA', subject, version: key.version, value: null };
      const refs = Array.isArray(value.references) ? (value.references as SchemaReference[]) : [];
      return {
        keytype: 'SCHEMA', subject, version: key.version,
        value: {
          subject, version: key.version, id: Number(value.id),
          schemaType: (str(value.schemaType) ?? 'AVRO') as SchemaType,
          references: refs.map((x) => ({ name: x.name, subject: x.subject, version: x.version })),
          schema: str(value.schema) ?? '',
          deleted: value.deleted === true,
        },
      };
    }
    case 'CONFIG': {
      if (value === null) return { keytype: 'CONFIG', subject, value: null };
      const config: ConfigValue = {};
      if (typeof value.compatibilityLevel === 'string') config.compatibilityLevel = value.compatibilityLevel as Compatibility;
      if (typeof value.normalize === 'boolean') config.normalize = value.normalize;
      return { keytype: 'CONFIG', subject, value: config };
    }
    case 'MODE': return { keytype: 'MODE', subject, value: value === null ? null : (str(value.mode) as Mode | null) };
    case 'DELETE_SUBJECT':
      if (subject === null) return null;
      return { keytype: 'DELETE_SUBJECT', subject, value: value === null ? null : { version: Number(value.version) } };
    case 'CLEAR_SUBJECT':
      return subject === null ? null : { keytype: 'CLEAR_SUBJECT', subject, value };
    case 'NOOP': return { keytype: 'NOOP' };
    default: return null;
  }
}
