// Kafka's ACL model (org.apache.kafka.common.acl / .resource): resource types, pattern types, operations and
// permission types with their wire codes, bindings and binding filters, and the metadata records that persist
// them (AccessControlEntryRecord, RemoveAccessControlEntryRecord) in the cluster metadata log.
import { Reader, Writer } from '../../protocol/primitives.js';

export const ResourceType = {
  UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7,
} as const;

export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;

export const AclOperation = {
  UNKNOWN: 0, ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8, CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12, CREATE_TOKENS: 13, DESCRIBE_TOKENS: 14,
} as const;

export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

/** The one name of the CLUSTER resource (Kafka's Resource.CLUSTER_NAME). */
export const CLUSTER_NAME = 'kafka-cluster';
/** ResourcePattern.WILDCARD_RESOURCE: a LITERAL '*' matches every name. */
export const WILDCARD_RESOURCE = '*';
/** AclEntry.WILDCARD_PRINCIPAL_STRING and WILDCARD_HOST. */
export const WILDCARD_PRINCIPAL = 'User:*';
export const WILDCARD_HOST = '*';

const { READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, CREATE_TOKENS, DESCRIBE_TOKENS } = AclOperation;

/** The operations each resource type supports (Kafka's AclEntry.supportedOperations), for KIP-430 masks. */
export const SUPPORTED_OPERATIONS: ReadonlyMap<number, readonly number[]> = new Map([
  [ResourceType.TOPIC, [READ, WRITE, CREATE, DESCRIBE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS]],
  [ResourceType.GROUP, [READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS]],
  [ResourceType.CLUSTER, [CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER, DESCRIBE]],
  [ResourceType.TRANSACTIONAL_ID, [DESCRIBE, WRITE]],
  [ResourceType.DELEGATION_TOKEN, [DESCRIBE]],
  [ResourceType.USER, [CREATE_TOKENS, DESCRIBE_TOKENS]],
]);

export interface AclBinding {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly patternType: number;
  /** "Type:name", e.g. User:alice or User:* */
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

/** An ACL as the metadata log stores it: a binding with its id (32 hex digits). */
export interface StoredAcl extends AclBinding {
  readonly id: string;
}

/** Nulls and ANY match everything; MATCH matches the patterns that would apply to the named resource. */
export interface AclBindingFilter {
  readonly resourceType: number;
  readonly resourceName: string | null;
  readonly patternType: number;
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: number;
  readonly permissionType: number;
}

/** An ACL creation or filter Kafka refuses with INVALID_REQUEST; the message is Kafka's. */
export class InvalidAclError extends Error {
  override name = 'InvalidAclError';
}

/** ResourcePatternFilter.matches + AccessControlEntryFilter.matches. */
export function filterMatches(f: AclBindingFilter, acl: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== acl.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== acl.patternType) return false;
  if (f.resourceName !== null) {
    if (f.patternType === PatternType.MATCH) {
      const applies = acl.patternType === PatternType.PREFIXED
        ? f.resourceName.startsWith(acl.resourceName)
        : f.resourceName === acl.resourceName || acl.resourceName === WILDCARD_RESOURCE;
      if (!applies) return false;
    } else if (f.resourceName !== acl.resourceName) {
      return false;
    }
  }
  if (f.principal !== null && f.principal !== acl.principal) return false;
  if (f.host !== null && f.host !== acl.host) return false;
  if (f.operation !== AclOperation.ANY && f.operation !== acl.operation) return false;
  return f.permissionType === AclPermissionType.ANY || f.permissionType === acl.permissionType;
}

/** AclBindingFilter.findIndefiniteField: a filter with an UNKNOWN field matches nothing and is refused. */
export function validateFilter(f: AclBindingFilter): void {
  if (f.resourceType === ResourceType.UNKNOWN || !isCode(ResourceType, f.resourceType)) throw new InvalidAclError('Resource type is UNKNOWN.');
  if (f.patternType === PatternType.UNKNOWN || !isCode(PatternType, f.patternType)) throw new InvalidAclError('Resource pattern type is UNKNOWN.');
  if (f.operation === AclOperation.UNKNOWN || !isCode(AclOperation, f.operation)) throw new InvalidAclError('Operation is UNKNOWN.');
  if (f.permissionType === AclPermissionType.UNKNOWN || !isCode(AclPermissionType, f.permissionType)) throw new InvalidAclError('Permission type is UNKNOWN.');
}

/** What Kafka's AclApis and AclControlManager.validateNewAcl check before creating an ACL. */
export function validateNewAcl(acl: AclBinding): void {
  if (acl.resourceType === ResourceType.CLUSTER && acl.resourceName !== CLUSTER_NAME) {
    throw new InvalidAclError(`The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`);
  }
  if (acl.resourceName === '') throw new InvalidAclError('Invalid empty resource name specified.');
  if (acl.resourceType <= ResourceType.ANY || !isCode(ResourceType, acl.resourceType)) {
    throw new InvalidAclError(`Invalid resourceType ${nameOf(ResourceType, acl.resourceType)}`);
  }
  if (acl.patternType !== PatternType.LITERAL && acl.patternType !== PatternType.PREFIXED) {
    throw new InvalidAclError(`Invalid patternType ${nameOf(PatternType, acl.patternType)}`);
  }
  if (acl.operation <= AclOperation.ANY || !isCode(AclOperation, acl.operation)) {
    throw new InvalidAclError(`Invalid operation ${nameOf(AclOperation, acl.operation)}`);
  }
  if (acl.permissionType <= AclPermissionType.ANY || !isCode(AclPermissionType, acl.permissionType)) {
    throw new InvalidAclError(`Invalid permissionType ${nameOf(AclPermissionType, acl.permissionType)}`);
  }
  const colon = acl.principal.indexOf(':');
  if (colon <= 0 || colon === acl.principal.length - 1) {
    throw new InvalidAclError(`Could not parse principal from \`${acl.principal}\` (no colon is present separating the principal type from the principal name)`);
  }
}

export function sameBinding(a: AclBinding, b: AclBinding): boolean {
  return a.resourceType === b.resourceType && a.resourceName === b.resourceName && a.patternType === b.patternType &&
    a.principal === b.principal && a.host === b.host && a.operation === b.operation && a.permissionType === b.permissionType;
}

function isCode(table: Record<string, number>, code: number): boolean {
  return Object.values(table).includes(code);
}

function nameOf(table: Record<string, number>, code: number): string {
  return Object.keys(table).find((k) => table[k] === code) ?? 'UNKNOWN';
}

// ---- metadata records (../shared/kafka-record-specs/metadata, version 0, flexible) ----

export const ACCESS_CONTROL_ENTRY_RECORD = 18;
export const REMOVE_ACCESS_CONTROL_ENTRY_RECORD = 19;

export function encodeAccessControlEntryRecord(acl: StoredAcl): Buffer {
  return new Writer(64 + acl.resourceName.length + acl.principal.length + acl.host.length)
    .uuid(acl.id)
    .int8(acl.resourceType)
    .string(acl.resourceName, true)
    .int8(acl.patternType)
    .string(acl.principal, true)
    .string(acl.host, true)
    .int8(acl.operation)
    .int8(acl.permissionType)
    .taggedFields()
    .toBuffer();
}

export function decodeAccessControlEntryRecord(body: Buffer): StoredAcl {
  const r = new Reader(body);
  const acl: StoredAcl = {
    id: r.uuid(),
    resourceType: r.int8(),
    resourceName: r.string(true),
    patternType: r.int8(),
    principal: r.string(true),
    host: r.string(true),
    operation: r.int8(),
    permissionType: r.int8(),
  };
  r.skipTaggedFields();
  return acl;
}

export function encodeRemoveAccessControlEntryRecord(id: string): Buffer {
  return new Writer(24).uuid(id).taggedFields().toBuffer();
}

export function decodeRemoveAccessControlEntryRecord(body: Buffer): string {
  const r = new Reader(body);
  const id = r.uuid();
  r.skipTaggedFields();
  return id;
}
