// The registry's errors as Confluent's REST layer answers them (io.confluent.kafka.schemaregistry.rest.exceptions.Errors):
// an HTTP status and a body {error_code, message}.
export class SchemaRegistryError extends Error {
  override name = 'SchemaRegistryError';
  constructor(readonly status: number, readonly errorCode: number, message: string) {
    super(message);
  }
}

export const subjectNotFound = (s: string) => new SchemaRegistryError(404, 40401, `Subject '${s}' not found.`);
export const versionNotFound = (v: number | string) => new SchemaRegistryError(404, 40402, `Version ${v} not found.`);
export const schemaNotFound = (id?: number) => new SchemaRegistryError(404, 40403, id === undefined ? 'Schema not found' : `Schema ${id} not found`);
export const subjectSoftDeleted = (s: string) =>
  new SchemaRegistryError(404, 40404, `Subject '${s}' was soft deleted.Set permanent=true to delete permanently`);
export const subjectNotSoftDeleted = (s: string) =>
  new SchemaRegistryError(404, 40405, `Subject '${s}' was not deleted first before being permanently deleted`);
export const versionSoftDeleted = (s: string, v: number) =>
  new SchemaRegistryError(404, 40406, `Subject '${s}' Version ${v} was soft deleted.Set permanent=true to delete permanently`);
export const versionNotSoftDeleted = (s: string, v: number) =>
  new SchemaRegistryError(404, 40407, `Subject '${s}' Version ${v} was not deleted first before being permanently deleted`);
export const subjectConfigNotFound = (s: string) =>
  new SchemaRegistryError(404, 40408, `Subject '${s}' does not have subject-level compatibility configured`);
export const subjectModeNotFound = (s: string) =>
  new SchemaRegistryError(404, 40409, `Subject '${s}' does not have subject-level mode configured`);
// Confluent 7.x answers error_code 409 (8.x: 40901), HTTP 409 either way; clients look at the status.
export const incompatible = (subject: string, details: string[]) =>
  new SchemaRegistryError(409, 409, `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${details.join(', ')}]`);
export const invalidSchema = (message: string) => new SchemaRegistryError(422, 42201, message);
export const invalidVersion = (v: string) =>
  new SchemaRegistryError(422, 42202, `The specified version '${v}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`);
export const invalidCompatibility = () =>
  new SchemaRegistryError(422, 42203, 'Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive');
export const invalidMode = (m: string) =>
  new SchemaRegistryError(422, 42204, `Invalid mode. Valid values are READWRITE, READONLY, READONLY_OVERRIDE, IMPORT: ${m}`);
export const operationNotPermitted = (message: string) => new SchemaRegistryError(422, 42205, message);
export const referenceExists = (message: string) => new SchemaRegistryError(422, 42206, `One or more references exist to the schema ${message}.`);
export const storeError = (message: string) => new SchemaRegistryError(500, 50001, message);
