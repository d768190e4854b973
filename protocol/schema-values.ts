// Values of messages described by the compact schemas (protocol/generated/schemas.ts): which versions carry a
// field, its key in the generated types, and what Kafka's generated code holds for it when none is given.
import type { FieldSchema } from './generated/schemas.js';

const ZERO_UUID = '0'.repeat(32);

export interface VersionRange {
  lowest: number;
  highest: number;
}

/** A spec's version range: "0+", "3-5", "4" or "none" (absent too). */
export function parseVersionRange(text: string | undefined): VersionRange {
  if (text === undefined || text === 'none') return { lowest: 0, highest: -1 };
  if (text.endsWith('+')) return { lowest: Number(text.slice(0, -1)), highest: Infinity };
  const [lo, hi] = text.split('-');
  return { lowest: Number(lo), highest: Number(hi ?? lo) };
}

export function inVersionRange(version: number, text: string | undefined): boolean {
  const range = parseVersionRange(text);
  return version >= range.lowest && version <= range.highest;
}

/** The field's property in the generated types: the spec name with a lower-case first letter. */
export function fieldKey(field: FieldSchema): string {
  return field.name.charAt(0).toLowerCase() + field.name.slice(1);
}

export function elementType(field: FieldSchema): string {
  return field.type.startsWith('[]') ? field.type.slice(2) : field.type;
}

function integerDefault(text: string): number {
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  const value = digits.startsWith('0x') ? parseInt(digits.slice(2), 16) : Number(digits);
  return negative ? -value : value;
}

/** What Kafka's generated code holds for a field nobody set (and reads for one its version does not carry). */
export function defaultOf(field: FieldSchema): unknown {
  const d = field.default;
  if (field.type.startsWith('[]')) return d === 'null' ? null : [];
  if (field.fields) return d === 'null' ? null : defaultStruct(field.fields);
  switch (field.type) {
    case 'bool':
      return d === 'true';
    case 'string':
      return d === 'null' ? null : (d ?? '');
    case 'bytes':
      return d === 'null' ? null : Buffer.alloc(0);
    case 'records':
      return null;
    case 'uuid':
      return ZERO_UUID;
    case 'float64':
      return d === undefined ? 0 : Number(d);
    default:
      return d === undefined ? 0 : integerDefault(d);
  }
}

export function defaultStruct(fields: readonly FieldSchema[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [fieldKey(f), defaultOf(f)]));
}
