// Random messages for any spec and version, built from the compact schemas (no spec files needed),
// and the Kafka rules for what a field holds when its version does not carry it.
import fc from 'fast-check';
import type { FieldSchema, MessageSchema } from '../../protocol/generated/schemas.js';
import { defaultOf, elementType, fieldKey, inVersionRange as inRange, parseVersionRange } from '../../protocol/schema-values.js';

export function versionsOf(schema: MessageSchema): number[] {
  const { lowest, highest } = parseVersionRange(schema.validVersions);
  return Array.from({ length: highest - lowest + 1 }, (_, i) => lowest + i);
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function primitive(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'bool':
      return fc.boolean();
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'uint16':
      return fc.integer({ min: 0, max: 65535 });
    case 'int32':
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'uint32':
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case 'int64':
      return fc.oneof(fc.maxSafeInteger(), fc.constantFrom(-1, 0, 2 ** 32, -(2 ** 32) - 1));
    case 'float64':
      return fc.double();
    case 'string':
      return fc.string({ maxLength: 12, unit: 'grapheme' });
    case 'bytes':
    case 'records':
      return fc.uint8Array({ maxLength: 24 }).map((a) => Buffer.from(a));
    case 'uuid':
      return fc.uint8Array({ minLength: 16, maxLength: 16 }).map(hex);
    default:
      throw new Error(`unknown type ${type}`);
  }
}

/**
 * A field's value for `version`. `present` is false for fields the version does not carry: any
 * value of the right type then, since the writer must skip it.
 */
function fieldArbitrary(field: FieldSchema, version: number, present: boolean): fc.Arbitrary<unknown> {
  const nullable = present ? inRange(version, field.nullableVersions) : field.nullableVersions !== undefined;
  const element = field.fields
    ? structArbitrary(field.fields, version, present)
    : primitive(elementType(field));
  const value = field.type.startsWith('[]') ? fc.array(element, { maxLength: 3 }) : element;
  return nullable ? fc.option(value, { nil: null, freq: 3 }) : value;
}

function structArbitrary(fields: readonly FieldSchema[], version: number, present: boolean): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of fields) {
    shape[fieldKey(field)] = fieldArbitrary(field, version, present && inRange(version, field.versions));
  }
  return fc.record(shape);
}

export function messageArbitrary(schema: MessageSchema, version: number): fc.Arbitrary<Record<string, unknown>> {
  return structArbitrary(schema.fields, version, true);
}

/** The value a reader must produce for `value` written at `version`: absent fields at their defaults. */
export function normalize(fields: readonly FieldSchema[], version: number, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const key = fieldKey(field);
    const v = value[key];
    if (!inRange(version, field.versions)) out[key] = defaultOf(field);
    else if (field.fields && v !== null) {
      const nested = field.fields;
      out[key] = Array.isArray(v)
        ? v.map((e) => normalize(nested, version, e as Record<string, unknown>))
        : normalize(nested, version, v as Record<string, unknown>);
    } else out[key] = v;
  }
  return out;
}

/** `partial` with every field it leaves out at its default, nested structs too: requests for the differential suite. */
export function withDefaults(fields: readonly FieldSchema[], partial: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => {
    const key = fieldKey(field);
    if (!(key in partial)) return [key, defaultOf(field)];
    const v = partial[key];
    const nested = field.fields;
    if (!nested || v === null) return [key, v];
    return [key, Array.isArray(v) ? v.map((e) => withDefaults(nested, e)) : withDefaults(nested, v as Record<string, unknown>)];
  }));
}
