// What the registry needs of each schema type (Confluent's ParsedSchema): a parse that rejects what does not
// parse, the string it stores, and one directional compatibility check the levels are built from.
export type SchemaType = 'AVRO' | 'JSON' | 'PROTOBUF';
export const SCHEMA_TYPES: readonly SchemaType[] = ['AVRO', 'JSON', 'PROTOBUF'];

export interface SchemaReference {
  name: string;
  subject: string;
  version: number;
}

export interface ParsedSchema {
  readonly type: SchemaType;
  /** The schema as stored and served; with normalize=true, the type's normalized form. */
  readonly text: string;
  /**
   * Why data written with `writer` cannot be read with this schema; empty when it can. BACKWARD asks it of
   * the new schema against an old one, FORWARD of an old one against the new.
   */
  readErrors(writer: ParsedSchema): string[];
}

/** A referenced schema, resolved: its name as the referring schema imports it, and its text. */
export interface ResolvedReference {
  name: string;
  type: SchemaType;
  text: string;
}
