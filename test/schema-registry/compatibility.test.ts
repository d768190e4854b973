// Each schema type's one-way check and the levels built on it, without a broker: the rules Confluent's
// checkers apply (AvroSchema, the JSON Schema diff, the protobuf SchemaDiff) for the cases kafkite covers.
import { describe, expect, it } from 'vitest';
import { parseAvro } from '../../src/schema-registry/avro.js';
import { checkedVersions, compatibilityErrors } from '../../src/schema-registry/compatibility.js';
import { parseJsonSchema } from '../../src/schema-registry/json-schema.js';
import { parseProtobuf } from '../../src/schema-registry/protobuf.js';
import type { Compatibility } from '../../src/schema-registry/records.js';
import type { ParsedSchema } from '../../src/schema-registry/schema-type.js';

const avro = (fields: object[]) => parseAvro(JSON.stringify({ type: 'record', name: 'R', fields }), [], false);
const json = (schema: object) => parseJsonSchema(JSON.stringify(schema), [], false);
const proto = (body: string, pkg = 'p') => parseProtobuf(`syntax = "proto3";\npackage ${pkg};\n${body}`, [], false);
const ok = (level: Compatibility, next: ParsedSchema, ...prev: ParsedSchema[]) => compatibilityErrors(level, next, prev).length === 0;

describe('Avro (the spec schema resolution, as AvroSchema.isBackwardCompatible)', () => {
  const v1 = avro([{ name: 'a', type: 'string' }]);
  const addedNoDefault = avro([{ name: 'a', type: 'string' }, { name: 'b', type: 'int' }]);
  const addedDefault = avro([{ name: 'a', type: 'string' }, { name: 'b', type: 'int', default: 0 }]);
  const removed = avro([{ name: 'b', type: 'int', default: 0 }]);

  it('BACKWARD: a field added without a default cannot read old data; with one it can', () => {
    expect(ok('BACKWARD', addedNoDefault, v1)).toBe(false);
    expect(ok('BACKWARD', addedDefault, v1)).toBe(true);
    expect(compatibilityErrors('BACKWARD', addedNoDefault, [v1]).join()).toMatch(/R\.b/);
  });

  it('FORWARD: the old schema must read new data: removing a field without a default breaks it', () => {
    expect(ok('FORWARD', addedNoDefault, v1)).toBe(true);
    expect(ok('FORWARD', removed, v1)).toBe(false);
    expect(ok('FULL', addedDefault, v1)).toBe(true);
    expect(ok('FULL', addedNoDefault, v1)).toBe(false);
  });

  it('type promotion int -> long reads; long -> int does not', () => {
    const i = avro([{ name: 'a', type: 'int' }]);
    const l = avro([{ name: 'a', type: 'long' }]);
    expect(ok('BACKWARD', l, i)).toBe(true);
    expect(ok('BACKWARD', i, l)).toBe(false);
  });

  it('the non-transitive levels check the latest version only; the transitive ones every version', () => {
    const v2 = avro([{ name: 'a', type: 'string' }, { name: 'b', type: 'int', default: 0 }]);
    const v3 = avro([{ name: 'b', type: 'int', default: 0 }, { name: 'c', type: 'string' }]);
    // b without a default reads v2's data (which has b) but not v1's (which lacks it).
    const v3ok = avro([{ name: 'b', type: 'int' }]);
    expect(ok('BACKWARD', v3, v2)).toBe(false);
    expect(ok('BACKWARD', v3ok, v1, v2)).toBe(true);
    expect(ok('BACKWARD_TRANSITIVE', v3ok, v1, v2)).toBe(false);
    expect(ok('NONE', v3, v1, v2)).toBe(true);
  });

  it('refuses what does not parse', () => {
    expect(() => parseAvro('{"type":"record","name":"R"}', [], false)).toThrow();
    expect(() => parseAvro('{"type":"recor"}', [], false)).toThrow(/recor/);
  });
});

describe('JSON Schema (the common cases of Confluent JSON diff)', () => {
  const open = json({ type: 'object', properties: { a: { type: 'string' } } });

  it('TYPE_CHANGED and TYPE_NARROWED are incompatible; integer -> number is not', () => {
    expect(ok('BACKWARD', json({ type: 'object', properties: { a: { type: 'integer' } } }), open)).toBe(false);
    const int = json({ type: 'object', properties: { n: { type: 'integer' } } });
    const num = json({ type: 'object', properties: { n: { type: 'number' } } });
    expect(ok('BACKWARD', num, int)).toBe(true);
    expect(ok('BACKWARD', int, num)).toBe(false);
  });

  it('REQUIRED_ATTRIBUTE_ADDED is incompatible, a required removed is not', () => {
    const req = json({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(ok('BACKWARD', req, open)).toBe(false);
    expect(ok('BACKWARD', open, req)).toBe(true);
  });

  it('open content model: adding a typed property is incompatible, removing one is not; closed: the reverse', () => {
    const added = json({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } });
    expect(ok('BACKWARD', added, open)).toBe(false);
    expect(ok('BACKWARD', open, added)).toBe(true);
    const closed = json({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false });
    const closedAdded = json({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, additionalProperties: false });
    expect(ok('BACKWARD', closedAdded, closed)).toBe(true);
    expect(ok('BACKWARD', closed, closedAdded)).toBe(false);
  });

  it('an enum narrowed is incompatible', () => {
    expect(ok('BACKWARD', json({ enum: ['a'] }), json({ enum: ['a', 'b'] }))).toBe(false);
    expect(ok('BACKWARD', json({ enum: ['a', 'b'] }), json({ enum: ['a'] }))).toBe(true);
  });

  it('refuses a schema ajv cannot compile', () => {
    expect(() => parseJsonSchema('{"type":"objekt"}', [], false)).toThrow();
    expect(() => parseJsonSchema('[1]', [], false)).toThrow();
  });
});

describe('Protobuf (the incompatible changes of Confluent SchemaDiff)', () => {
  const v1 = proto('message M { string a = 1; int32 n = 2; }');

  it('fields added or removed are compatible', () => {
    expect(ok('FULL', proto('message M { string a = 1; int32 n = 2; bool b = 3; }'), v1)).toBe(true);
    expect(ok('FULL', proto('message M { string a = 1; }'), v1)).toBe(true);
  });

  it('a scalar kind changed outside its wire group, a kind changed, a message removed or a package changed is not', () => {
    expect(ok('BACKWARD', proto('message M { int32 a = 1; int32 n = 2; }'), v1)).toBe(false);
    expect(ok('BACKWARD', proto('message M { string a = 1; int64 n = 2; }'), v1)).toBe(true);
    expect(ok('BACKWARD', proto('message M { string a = 1; N n = 2; } message N {}'), v1)).toBe(false);
    expect(ok('BACKWARD', proto('message Other { string a = 1; }'), v1)).toBe(false);
    expect(ok('BACKWARD', proto('message M { string a = 1; int32 n = 2; }', 'q'), v1)).toBe(false);
  });

  it('refuses what does not parse or names an unknown type', () => {
    expect(() => proto('message M { string a = ; }')).toThrow();
    expect(() => proto('message M { Missing a = 1; }')).toThrow();
    expect(() => proto('import "other.proto";\nmessage M { string a = 1; }')).toThrow(/other\.proto/);
  });

  it("resolves google/protobuf's well-known types and the references' types, comparing only the schema's own messages", () => {
    const wkt = proto('import "google/protobuf/timestamp.proto";\nmessage E { google.protobuf.Timestamp at = 1; }');
    expect([...wkt.messages.keys()]).toEqual(['p.E']);
    const money = { name: 'money.proto', type: 'PROTOBUF' as const, text: 'syntax = "proto3";\npackage shop;\nmessage Money { int64 cents = 1; }' };
    const inv = (t: string) => parseProtobuf(`syntax = "proto3";\npackage p;\nimport "money.proto";\nmessage Inv { ${t} total = 1; }`, [money], false);
    expect([...inv('shop.Money').messages.keys()]).toEqual(['p.Inv']);
    expect(ok('BACKWARD', inv('string'), inv('shop.Money'))).toBe(false);
  });
});

describe('the versions a level reads', () => {
  // What the registry parses before a check: the latest version only, unless the level is transitive.
  it('is the latest for BACKWARD, FORWARD and FULL, every one for their _TRANSITIVE levels, none for NONE', () => {
    for (const level of ['BACKWARD', 'FORWARD', 'FULL'] as const) {
      expect(checkedVersions(level, [1, 2, 3])).toEqual([3]);
      expect(checkedVersions(`${level}_TRANSITIVE`, [1, 2, 3])).toEqual([1, 2, 3]);
    }
    expect(checkedVersions('NONE', [1, 2, 3])).toEqual([]);
    expect(checkedVersions('BACKWARD', [])).toEqual([]);
  });
});
