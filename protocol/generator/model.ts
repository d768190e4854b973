// The resolved message model the emitters work from: struct references resolved, version ranges
// parsed, defaults converted to values, and each struct tagged with the versions it can appear in.
import type { FieldSpec, MessageSpec } from './spec.js';
import { VersionRange } from './versions.js';

const PRIMITIVE_TYPES = [
  'bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'string', 'bytes', 'records', 'uuid',
] as const;
export type PrimitiveType = (typeof PRIMITIVE_TYPES)[number];

export type ElementType = { kind: 'primitive'; name: PrimitiveType } | { kind: 'struct'; struct: StructDef };
export type TypeRef = ElementType | { kind: 'array'; element: ElementType };

/** A field's value when absent: a primitive value, or a marker for the type's empty value. */
type DefaultValue = number | boolean | string | null | 'empty';

export interface FieldDef {
  /** JSON name with the first letter lower-cased. */
  readonly name: string;
  readonly specName: string;
  readonly type: TypeRef;
  readonly versions: VersionRange;
  readonly nullableVersions: VersionRange;
  /** Nullable in any version: the TypeScript type includes null. */
  readonly nullable: boolean;
  readonly taggedVersions: VersionRange;
  readonly tag: number | null;
  /** Compact encoding versions when the field overrides the message's flexible versions. */
  readonly flexibleVersions: VersionRange | null;
  readonly defaultValue: DefaultValue;
  /** The spec gives a default: a field without one must be set whenever it is written. */
  readonly hasDefault: boolean;
  readonly about: string;
}

export interface StructDef {
  readonly name: string;
  readonly fields: FieldDef[];
  /** Versions in which this struct can be read or written. */
  readonly versions: VersionRange;
}

export interface MessageDef {
  readonly name: string;
  readonly type: MessageSpec['type'];
  readonly apiKey: number | null;
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange;
  readonly latestVersionUnstable: boolean;
  readonly root: StructDef;
  /** Nested structs in first-use order (depth first), the root excluded. */
  readonly structs: StructDef[];
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

function isPrimitive(type: string): type is PrimitiveType {
  return (PRIMITIVE_TYPES as readonly string[]).includes(type);
}

function parseDefault(spec: FieldSpec, type: TypeRef, nullable: boolean): DefaultValue {
  const raw = spec.default;
  if (type.kind !== 'primitive') {
    if (raw === 'null' && nullable) return null;
    if (raw !== undefined && raw !== '') throw new Error(`${spec.name}: unsupported default ${JSON.stringify(raw)}`);
    return 'empty';
  }
  switch (type.name) {
    case 'bool':
      return raw === undefined ? false : String(raw) === 'true';
    case 'string':
      if (raw === undefined) return '';
      return raw === 'null' && nullable ? null : String(raw);
    case 'bytes':
    case 'uuid':
      if (raw === 'null' && nullable) return null;
      return 'empty';
    case 'records':
      return null;
    case 'float64':
      return raw === undefined ? 0 : Number(raw);
    default: {
      if (raw === undefined) return 0;
      const text = String(raw).trim();
      const negative = text.startsWith('-');
      const digits = negative ? text.slice(1) : text;
      const value = /^0x/i.test(digits) ? parseInt(digits.slice(2), 16) : Number(digits);
      if (!Number.isInteger(value)) throw new Error(`${spec.name}: invalid default ${JSON.stringify(raw)}`);
      return negative ? -value : value;
    }
  }
}

class MessageResolver {
  private readonly structs: StructDef[] = [];
  private readonly common = new Map<string, StructDef>();
  /** Common structs some field refers to. */
  private readonly used = new Set<string>();

  constructor(private readonly spec: MessageSpec, private readonly validVersions: VersionRange) {}

  resolve(): MessageDef {
    for (const common of this.spec.commonStructs ?? []) {
      // Filled in below, so that common structs may refer to each other in any order.
      this.common.set(common.name, {
        name: common.name,
        fields: [],
        versions: VersionRange.parse(common.versions).intersect(this.validVersions),
      });
    }
    const root: StructDef = {
      name: this.spec.name,
      fields: [],
      versions: this.validVersions,
    };
    root.fields.push(...this.resolveFields(this.spec.fields, root.versions));
    for (const common of this.spec.commonStructs ?? []) {
      const def = this.common.get(common.name)!;
      def.fields.push(...this.resolveFields(common.fields, def.versions));
    }
    // Common structs go after the inline ones, in declaration order, when used.
    for (const common of this.spec.commonStructs ?? []) {
      const def = this.common.get(common.name)!;
      if (this.used.has(common.name)) this.structs.push(def);
    }
    return {
      name: this.spec.name,
      type: this.spec.type,
      apiKey: this.spec.apiKey ?? null,
      validVersions: this.validVersions,
      flexibleVersions: VersionRange.parse(this.spec.flexibleVersions),
      latestVersionUnstable: this.spec.latestVersionUnstable === true,
      root,
      structs: this.structs,
    };
  }

  private resolveFields(specs: FieldSpec[], context: VersionRange): FieldDef[] {
    return specs.map((spec) => this.resolveField(spec, context));
  }

  private resolveField(spec: FieldSpec, context: VersionRange): FieldDef {
    const versions = VersionRange.parse(spec.versions);
    const isArray = spec.type.startsWith('[]');
    const typeName = isArray ? spec.type.slice(2) : spec.type;
    let element: ElementType;
    if (isPrimitive(typeName)) {
      element = { kind: 'primitive', name: typeName };
    } else if (spec.fields) {
      const struct: StructDef = { name: typeName, fields: [], versions: versions.intersect(context) };
      if (this.structs.some((s) => s.name === typeName) || this.common.has(typeName)) {
        throw new Error(`${this.spec.name}: struct ${typeName} defined twice`);
      }
      this.structs.push(struct);
      struct.fields.push(...this.resolveFields(spec.fields, struct.versions));
      element = { kind: 'struct', struct };
    } else {
      const common = this.common.get(typeName);
      if (!common) throw new Error(`${this.spec.name}: unknown type ${spec.type} of ${spec.name}`);
      this.used.add(typeName);
      element = { kind: 'struct', struct: common };
    }
    const type: TypeRef = isArray ? { kind: 'array', element } : element;
    const nullableVersions = spec.nullableVersions ? VersionRange.parse(spec.nullableVersions) : VersionRange.NONE;
    if (type.kind === 'primitive' && type.name === 'uuid' && !nullableVersions.empty) {
      throw new Error(`${this.spec.name}: uuid field ${spec.name} cannot be nullable`);
    }
    // Records are typed nullable in every version (a response may carry no records at all).
    const nullable = type.kind === 'primitive' && type.name === 'records' ? true : !nullableVersions.intersect(versions).empty;
    const taggedVersions = spec.taggedVersions ? VersionRange.parse(spec.taggedVersions) : VersionRange.NONE;
    if (spec.tag !== undefined && (taggedVersions.empty || taggedVersions.toString() !== versions.toString())) {
      throw new Error(`${this.spec.name}: tagged field ${spec.name} must be tagged in all its versions`);
    }
    return {
      name: lowerFirst(spec.name),
      specName: spec.name,
      type,
      versions,
      nullableVersions,
      nullable,
      taggedVersions,
      tag: spec.tag ?? null,
      flexibleVersions: spec.flexibleVersions ? VersionRange.parse(spec.flexibleVersions) : null,
      defaultValue: parseDefault(spec, type, nullable),
      hasDefault: spec.default !== undefined,
      about: spec.about ?? '',
    };
  }
}

export function resolveMessage(spec: MessageSpec): MessageDef {
  return new MessageResolver(spec, VersionRange.parse(spec.validVersions)).resolve();
}
