// Protobuf schemas given or asked for as a base64 FileDescriptorProto, as confluent-kafka-python's
// ProtobufSerializer registers them and its deserializer fetches them (`?format=serialized`). Confluent's
// ProtobufSchema takes either form and keeps the .proto text; kafkite does the same, printing the descriptor.
import protobuf from 'protobufjs';
import * as descriptorTypes from 'protobufjs/ext/descriptor.js';

// A CommonJS module whose exports Node's ESM loader cannot name: its default export is the namespace.
const descriptor = ((descriptorTypes as unknown as { default?: typeof descriptorTypes }).default ?? descriptorTypes);

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

// FieldDescriptorProto.Type numbers (descriptor.proto) to .proto scalar names; 11 message, 14 enum, 10 group.
const SCALARS: Record<number, string> = {
  1: 'double', 2: 'float', 3: 'int64', 4: 'uint64', 5: 'int32', 6: 'fixed64', 7: 'fixed32', 8: 'bool',
  9: 'string', 12: 'bytes', 13: 'uint32', 15: 'sfixed32', 16: 'sfixed64', 17: 'sint32', 18: 'sint64',
};

interface Field { name: string; number: number; label?: number; type?: number; typeName?: string; oneofIndex?: number; proto3Optional?: boolean }
interface Message { name: string; field?: Field[]; nestedType?: Message[]; enumType?: Enum[]; oneofDecl?: { name: string }[]; options?: { mapEntry?: boolean } }
interface Enum { name: string; value?: { name: string; number: number }[] }
interface File { package?: string; syntax?: string; dependency?: string[]; messageType?: Message[]; enumType?: Enum[] }

/** True when `text` is a base64 descriptor rather than .proto text (which always has spaces or `;`). */
export function isSerializedDescriptor(text: string): boolean {
  return BASE64.test(text.trim());
}

function typeOf(f: Field, maps: Map<string, Message>): string {
  const entry = f.typeName ? maps.get(f.typeName) : undefined;
  if (entry) {
    const [k, v] = [entry.field!.find((e) => e.number === 1)!, entry.field!.find((e) => e.number === 2)!];
    return `map<${typeOf(k, maps)}, ${typeOf(v, maps)}>`;
  }
  return SCALARS[f.type ?? 0] ?? f.typeName!;
}

function fieldLine(f: Field, proto3: boolean, maps: Map<string, Message>): string {
  const map = f.typeName !== undefined && maps.has(f.typeName);
  const label = map ? '' : f.label === 3 ? 'repeated ' : f.label === 2 ? 'required ' : (!proto3 || f.proto3Optional) ? 'optional ' : '';
  return `${label}${typeOf(f, maps)} ${f.name} = ${f.number};`;
}

function printEnum(e: Enum, indent: string): string[] {
  return [`${indent}enum ${e.name} {`, ...(e.value ?? []).map((v) => `${indent}  ${v.name} = ${v.number};`), `${indent}}`];
}

function printMessage(m: Message, scope: string, proto3: boolean, indent: string): string[] {
  const full = `${scope}.${m.name}`;
  // Descriptors from protoc and the Python and Java runtimes name types fully qualified.
  const maps = new Map((m.nestedType ?? []).filter((n) => n.options?.mapEntry).map((n) => [`${full}.${n.name}`, n]));
  const lines = [`${indent}message ${m.name} {`];
  const inner = `${indent}  `;
  const fields = m.field ?? [];
  // A proto3 `optional` is a synthetic oneof of its own: printed as the field's label, not as a oneof.
  const real = (f: Field) => f.oneofIndex !== undefined && !f.proto3Optional;
  for (const f of fields.filter((x) => !real(x))) lines.push(inner + fieldLine(f, proto3, maps));
  (m.oneofDecl ?? []).forEach((o, i) => {
    const members = fields.filter((f) => real(f) && f.oneofIndex === i);
    if (members.length > 0) lines.push(`${inner}oneof ${o.name} {`, ...members.map((f) => `${inner}  ${fieldLine(f, true, maps)}`), `${inner}}`);
  });
  for (const n of (m.nestedType ?? []).filter((x) => !x.options?.mapEntry)) lines.push(...printMessage(n, full, proto3, inner));
  for (const e of m.enumType ?? []) lines.push(...printEnum(e, inner));
  lines.push(`${indent}}`);
  return lines;
}

/** The .proto text of a base64 FileDescriptorProto. Throws when it does not decode. */
export function descriptorToText(base64: string): string {
  const file = descriptor.FileDescriptorProto.toObject(descriptor.FileDescriptorProto.decode(Buffer.from(base64.trim(), 'base64'))) as File;
  const proto3 = file.syntax === 'proto3';
  const scope = file.package ? `.${file.package}` : '';
  return [
    `syntax = "${proto3 ? 'proto3' : 'proto2'}";`,
    ...(file.package ? [`package ${file.package};`] : []),
    ...(file.dependency ?? []).map((d) => `import "${d}";`),
    ...(file.messageType ?? []).flatMap((m) => printMessage(m, scope, proto3, '')),
    ...(file.enumType ?? []).flatMap((e) => printEnum(e, '')),
  ].join('\n');
}

/** The base64 FileDescriptorProto of .proto `text` (its own file only, as Confluent's `format=serialized`). */
export function textToDescriptor(text: string, name: string): string {
  const root = new protobuf.Root();
  protobuf.parse(text, root, { keepCase: true, alternateCommentMode: true });
  root.resolveAll();
  const set = root.toDescriptor('proto3');
  const file = set.file![0]!;
  file.name = name;
  return Buffer.from(descriptor.FileDescriptorProto.encode(file).finish()).toString('base64');
}
