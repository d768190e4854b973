// JSON Schema with ajv: a schema is valid when ajv compiles it (drafts 4 to 2020-12 keywords, strict off,
// as Confluent's everit/json-sKema loaders accept unknown keywords). Compatibility follows Confluent's
// JsonSchema compatibility checker (io.confluent.kafka.schemaregistry.json.diff) for the common cases only:
// TYPE_CHANGED / TYPE_NARROWED (integer -> number is TYPE_EXTENDED, compatible), a property added to or
// removed from an open or closed content model (additionalProperties), REQUIRED_ATTRIBUTE_ADDED, ENUM_ARRAY
// narrowed, and `items` and `properties` recursively. Not covered: combined schemas (oneOf/anyOf/allOf), $ref
// resolution, dependencies, and the numeric and string bounds.
import { Ajv } from 'ajv';
import type { ParsedSchema, ResolvedReference } from './schema-type.js';

type Json = Record<string, unknown>;

class JsonSchema implements ParsedSchema {
  readonly type = 'JSON' as const;
  constructor(readonly text: string, readonly json: unknown) {}

  readErrors(writer: ParsedSchema): string[] {
    if (!(writer instanceof JsonSchema)) return [`Incompatible schema type: ${writer.type} against JSON`];
    const errors: string[] = [];
    compare(this.json, writer.json, '#', errors);
    return errors;
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function typesOf(s: Json): string[] | null {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === 'string');
  return null;
}

/** Whether data valid against `writer` stays valid against `reader`; each difference that breaks it goes to `errors`. */
function compare(reader: unknown, writer: unknown, path: string, errors: string[]): void {
  // `true`/{} accept anything; a writer of `false` produces nothing.
  if (reader === true || writer === false) return;
  if (!isObject(reader) || !isObject(writer)) {
    if (reader === false) errors.push(`{errorType:'TYPE_NARROWED', description:'${path} accepts nothing'}`);
    return;
  }
  const rTypes = typesOf(reader);
  const wTypes = typesOf(writer);
  if (rTypes !== null) {
    const lost = (wTypes ?? ['any']).filter((t) => !rTypes.includes(t) && !(t === 'integer' && rTypes.includes('number')));
    if (lost.length > 0) {
      const narrowed = wTypes !== null && wTypes.some((t) => rTypes.includes(t) || (t === 'number' && rTypes.includes('integer')));
      errors.push(`{errorType:'${narrowed ? 'TYPE_NARROWED' : 'TYPE_CHANGED'}', description:'${path}: ${(wTypes ?? ['any']).join('|')} -> ${rTypes.join('|')}'}`);
      return;
    }
  }
  if (Array.isArray(reader.enum)) {
    const allowed = reader.enum.map((v) => JSON.stringify(v));
    const written = Array.isArray(writer.enum) ? writer.enum.map((v) => JSON.stringify(v)) : null;
    if (written === null || written.some((v) => !allowed.includes(v))) errors.push(`{errorType:'ENUM_ARRAY_NARROWED', description:'${path}/enum'}`);
  }
  const rRequired = Array.isArray(reader.required) ? (reader.required as string[]) : [];
  const wRequired = Array.isArray(writer.required) ? (writer.required as string[]) : [];
  for (const name of rRequired) {
    if (!wRequired.includes(name)) errors.push(`{errorType:'REQUIRED_ATTRIBUTE_ADDED', description:'${path}/required/${name}'}`);
  }
  const rProps = isObject(reader.properties) ? reader.properties : {};
  const wProps = isObject(writer.properties) ? writer.properties : {};
  const rOpen = reader.additionalProperties !== false;
  const wOpen = writer.additionalProperties !== false;
  for (const [name, rProp] of Object.entries(rProps)) {
    if (name in wProps) compare(rProp, wProps[name], `${path}/properties/${name}`, errors);
    // An open writer may have written this property with any content: the reader's schema for it must accept anything.
    else if (wOpen && rProp !== true && !(isObject(rProp) && Object.keys(rProp).length === 0)) {
      errors.push(`{errorType:'PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', description:'${path}/properties/${name}'}`);
    }
  }
  for (const name of Object.keys(wProps)) {
    if (!(name in rProps)) {
      if (!rOpen) errors.push(`{errorType:'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL', description:'${path}/properties/${name}'}`);
      else if (isObject(reader.additionalProperties)) compare(reader.additionalProperties, wProps[name], `${path}/properties/${name}`, errors);
    }
  }
  if (!rOpen && wOpen) errors.push(`{errorType:'ADDITIONAL_PROPERTIES_REMOVED', description:'${path}/additionalProperties'}`);
  if (reader.items !== undefined && writer.items !== undefined && !Array.isArray(reader.items) && !Array.isArray(writer.items)) {
    compare(reader.items, writer.items, `${path}/items`, errors);
  }
}

/** Parses and validates `text` as a JSON Schema; throws with ajv's reason. */
export function parseJsonSchema(text: string, references: readonly ResolvedReference[], normalize: boolean): JsonSchema {
  const json: unknown = JSON.parse(text);
  if (typeof json !== 'boolean' && !isObject(json)) throw new Error('a JSON Schema is an object or a boolean');
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });
  // Referenced schemas are added under the name the referring schema uses in its $ref.
  for (const ref of references) ajv.addSchema(JSON.parse(ref.text) as object, ref.name);
  if (isObject(json)) {
    // Draft-specific $schema URIs ajv does not ship (draft 4/6) are checked against its default meta-schema.
    const { $schema: _ignored, ...rest } = json;
    ajv.compile(rest);
  }
  const stored = normalize ? JSON.stringify(sortKeys(json)) : JSON.stringify(json);
  return new JsonSchema(stored, json);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}
