// Protobuf schemas with protobufjs: a schema is valid when it parses and every type it names resolves
// (imports come from its references). Compatibility follows Confluent's protobuf SchemaDiff: these changes
// are incompatible, the rest (fields, messages, enums and oneofs added or removed, renames) are not:
// PACKAGE_CHANGED, MESSAGE_REMOVED, FIELD_KIND_CHANGED (scalar/message/enum/map), FIELD_SCALAR_KIND_CHANGED
// outside protobuf's wire-compatible groups, FIELD_NAMED_TYPE_CHANGED, FIELD_NUMERIC_LABEL_CHANGED (repeated
// numeric), REQUIRED_FIELD_ADDED/REMOVED (proto2), ONEOF_FIELD_REMOVED and FIELD_MOVED_TO_EXISTING_ONEOF.
import protobuf from 'protobufjs';
import { descriptorToText, isSerializedDescriptor } from './protobuf-descriptor.js';
import type { ParsedSchema, ResolvedReference } from './schema-type.js';

class ProtobufSchema implements ParsedSchema {
  readonly type = 'PROTOBUF' as const;
  constructor(readonly text: string, readonly pkg: string, readonly messages: Map<string, protobuf.Type>) {}

  readErrors(writer: ParsedSchema): string[] {
    if (!(writer instanceof ProtobufSchema)) return [`Incompatible schema type: ${writer.type} against PROTOBUF`];
    return diff(writer, this);
  }
}

// Scalars that read each other's wire values (protobuf's language guide, "Updating a message type").
const SCALAR_GROUPS: readonly (readonly string[])[] = [
  ['int32', 'uint32', 'int64', 'uint64', 'bool'],
  ['sint32', 'sint64'],
  ['fixed32', 'sfixed32'],
  ['fixed64', 'sfixed64'],
  ['string', 'bytes'],
  ['float'],
  ['double'],
];
const NUMERIC = new Set(SCALAR_GROUPS.slice(0, 4).flat().concat(['float', 'double']));

function kindOf(field: protobuf.Field): string {
  if (field instanceof protobuf.MapField) return 'map';
  if (field.resolvedType instanceof protobuf.Enum) return 'enum';
  if (field.resolvedType instanceof protobuf.Type) return 'message';
  return 'scalar';
}

function failure(type: string, description: string): string {
  return `{errorType:'${type}', description:'${description}'}`;
}

/** Confluent's SchemaDiff.compare(original, update), keeping only the incompatible differences. */
function diff(original: ProtobufSchema, update: ProtobufSchema): string[] {
  const errors: string[] = [];
  if (original.pkg !== update.pkg) errors.push(failure('PACKAGE_CHANGED', `${original.pkg} -> ${update.pkg}`));
  for (const [name, before] of original.messages) {
    const after = update.messages.get(name);
    if (!after) {
      errors.push(failure('MESSAGE_REMOVED', name));
      continue;
    }
    const movedToNewOneof = new Map<string, number>();
    for (const f of before.fieldsArray) {
      const g = after.fieldsById[f.id];
      const where = `${name}.${f.name}`;
      if (!g) {
        if (f.partOf) errors.push(failure('ONEOF_FIELD_REMOVED', where));
        continue;
      }
      const kind = kindOf(f);
      if (kind !== kindOf(g)) errors.push(failure('FIELD_KIND_CHANGED', where));
      else if (kind === 'scalar' && !SCALAR_GROUPS.some((grp) => grp.includes(f.type) && grp.includes(g.type))) {
        errors.push(failure('FIELD_SCALAR_KIND_CHANGED', `${where}: ${f.type} -> ${g.type}`));
      } else if ((kind === 'message' || kind === 'enum') && f.resolvedType?.fullName !== g.resolvedType?.fullName) {
        errors.push(failure('FIELD_NAMED_TYPE_CHANGED', where));
      } else if (kind === 'scalar' && NUMERIC.has(f.type) && f.repeated !== g.repeated) {
        errors.push(failure('FIELD_NUMERIC_LABEL_CHANGED', where));
      }
      if (f.required !== g.required) errors.push(failure(g.required ? 'REQUIRED_FIELD_ADDED' : 'REQUIRED_FIELD_REMOVED', where));
      if (f.partOf && !g.partOf) continue;
      if (!f.partOf && g.partOf) {
        // A oneof the update adds may take one existing field; one that existed before may take none.
        const existed = before.oneofs?.[g.partOf.name] !== undefined;
        if (existed) errors.push(failure('FIELD_MOVED_TO_EXISTING_ONEOF', where));
        else movedToNewOneof.set(g.partOf.name, (movedToNewOneof.get(g.partOf.name) ?? 0) + 1);
      }
    }
    for (const [oneof, count] of movedToNewOneof) if (count > 1) errors.push(failure('MULTIPLE_FIELDS_MOVED_TO_ONEOF', `${name}.${oneof}`));
    for (const g of after.fieldsArray) {
      if (!before.fieldsById[g.id] && g.required) errors.push(failure('REQUIRED_FIELD_ADDED', `${name}.${g.name}`));
    }
  }
  return errors;
}

function collectMessages(ns: protobuf.NamespaceBase, out: Map<string, protobuf.Type>): void {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) out.set(nested.fullName.replace(/^\./, ''), nested);
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) collectMessages(nested, out);
  }
}

/** Parses `text`; its imports are the references' names. Throws with protobufjs's reason. */
export function parseProtobuf(given: string, references: readonly ResolvedReference[], _normalize: boolean): ProtobufSchema {
  const text = isSerializedDescriptor(given) ? descriptorToText(given) : given;
  const own = new protobuf.Root();
  const parsed = protobuf.parse(text, own, { keepCase: true, alternateCommentMode: true });
  const known = new Set(references.map((r) => r.name));
  for (const imp of parsed.imports ?? []) {
    // google/protobuf/*.proto come with protobufjs (its common types); everything else must be a reference.
    if (!known.has(imp) && protobuf.common.get(imp) === null) throw new Error(`import "${imp}" is not among the schema's references`);
  }
  // Types are resolved against the references too, in a separate root so that only this file's messages are compared.
  const full = new protobuf.Root();
  for (const imp of parsed.imports ?? []) {
    const common = imp.startsWith('google/protobuf/') ? protobuf.common.get(imp) : null;
    if (common) full.addJSON(common.nested ?? {});
  }
  for (const ref of references) protobuf.parse(ref.text, full, { keepCase: true });
  protobuf.parse(text, full, { keepCase: true });
  full.resolveAll();
  const messages = new Map<string, protobuf.Type>();
  collectMessages(own, messages);
  // Compare the resolved copies: their fields know the types they name.
  for (const name of messages.keys()) messages.set(name, full.lookupType(name));
  return new ProtobufSchema(text.trim(), parsed.package ?? '', messages);
}
