// Kafka's StandardAuthorizer (org.apache.kafka.metadata.authorizer.StandardAuthorizer / StandardAuthorizerData):
// super users, ALLOW/DENY ACLs on LITERAL, wildcard and PREFIXED patterns where DENY wins, the operations an ALLOW
// implies (DESCRIBE from READ/WRITE/DELETE/ALTER, DESCRIBE_CONFIGS from ALTER_CONFIGS), and
// allow.everyone.if.no.acl.found for resources no ACL mentions. ACLs live in the cluster metadata log.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/broker-config.js';
import { ConfigError } from '../../config/broker-config.js';
import type { ClusterMetadataLog } from '../metadata/cluster-metadata-log.js';
import type { MetadataRecord } from '../metadata/metadata-frame.js';
import {
  ACCESS_CONTROL_ENTRY_RECORD,
  AclOperation,
  AclPermissionType,
  type AclBinding,
  type AclBindingFilter,
  decodeAccessControlEntryRecord,
  decodeRemoveAccessControlEntryRecord,
  encodeAccessControlEntryRecord,
  encodeRemoveAccessControlEntryRecord,
  filterMatches,
  InvalidAclError,
  PatternType,
  REMOVE_ACCESS_CONTROL_ENTRY_RECORD,
  sameBinding,
  type StoredAcl,
  SUPPORTED_OPERATIONS,
  validateFilter,
  validateNewAcl,
  WILDCARD_PRINCIPAL,
  WILDCARD_RESOURCE,
} from './acls.js';
import { aclHostMatches, invalidCidr } from './acl-host.js';
import { principalToString, type KafkaPrincipal } from './principal.js';

/** authorizer.class.name values that mean "Kafka's ACL authorizer" (KRaft's and the ZooKeeper-era one). */
const AUTHORIZER_CLASS_NAMES: readonly string[] = [
  'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'kafka.security.authorizer.AclAuthorizer',
  'kafka.security.auth.SimpleAclAuthorizer',
];

/** What a request is checked as: who, and from which address (an IP, as Kafka's RequestContext.clientAddress). */
export interface AuthorizableRequest {
  readonly principal: KafkaPrincipal;
  readonly host: string;
}

const { READ, WRITE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS, ALL } = AclOperation;

/** The operations whose ALLOW also allows `op` (Kafka's StandardAuthorizerData.IMPLIES / AclEntry rules). */
function allowImplies(aclOp: number, op: number): boolean {
  if (aclOp === op || aclOp === ALL) return true;
  if (op === DESCRIBE) return aclOp === READ || aclOp === WRITE || aclOp === DELETE || aclOp === ALTER;
  if (op === DESCRIBE_CONFIGS) return aclOp === ALTER_CONFIGS;
  return false;
}

export class StandardAuthorizer {
  /** By id; the authorizer's whole state. Small (ACL counts are in the hundreds), so scans are fine. */
  private readonly acls = new Map<string, StoredAcl>();

  private constructor(
    private readonly metadataLog: ClusterMetadataLog,
    private readonly superUsers: ReadonlySet<string>,
    private readonly allowEveryoneIfNoAclFound: boolean,
    private readonly log: Logger,
  ) {}

  /** null without authorizer.class.name; a ConfigError for a class kafkite does not have. Its ACLs come from replay. */
  static fromConfig(config: BrokerConfig, metadataLog: ClusterMetadataLog, log: Logger): StandardAuthorizer | null {
    const className = String(config.get('authorizer.class.name') ?? '').trim();
    if (className === '') return null;
    if (!AUTHORIZER_CLASS_NAMES.includes(className)) {
      throw new ConfigError('authorizer.class.name', className, `one of ${AUTHORIZER_CLASS_NAMES.join(', ')} (kafkite's StandardAuthorizer)`);
    }
    const superUsers = new Set(
      String(config.get('super.users') ?? '').split(';').map((p) => p.trim()).filter((p) => p !== ''),
    );
    log.info({ superUsers: [...superUsers] }, `authorizer ${className} configured`);
    return new StandardAuthorizer(metadataLog, superUsers, config.get('allow.everyone.if.no.acl.found') === true, log);
  }

  get aclCount(): number {
    return this.acls.size;
  }

  replay(record: MetadataRecord): void {
    if (record.type === ACCESS_CONTROL_ENTRY_RECORD) {
      const acl = decodeAccessControlEntryRecord(record.body);
      this.acls.set(acl.id, acl);
    } else if (record.type === REMOVE_ACCESS_CONTROL_ENTRY_RECORD) {
      this.acls.delete(decodeRemoveAccessControlEntryRecord(record.body));
    }
  }

  isSuperUser(principal: KafkaPrincipal): boolean {
    return this.superUsers.has(principalToString(principal));
  }

  /** Authorizer.authorize for one action. */
  authorize(req: AuthorizableRequest, op: number, resourceType: number, resourceName: string): boolean {
    if (this.isSuperUser(req.principal)) return true;
    const principal = principalToString(req.principal);
    let resourceHasAcls = false;
    let allowed = false;
    for (const acl of this.acls.values()) {
      if (acl.resourceType !== resourceType || !patternApplies(acl, resourceName)) continue;
      resourceHasAcls = true;
      if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) continue;
      if (!aclHostMatches(acl.host, req.host)) continue;
      if (acl.permissionType === AclPermissionType.DENY) {
        // A DENY applies to its own operation (or ALL) only; it implies nothing.
        if (acl.operation === op || acl.operation === ALL) return false;
      } else if (allowImplies(acl.operation, op)) {
        allowed = true;
      }
    }
    return allowed || (!resourceHasAcls && this.allowEveryoneIfNoAclFound);
  }

  /**
   * Authorizer.authorizeByResourceType: may the principal do `op` on at least one resource of the type? Used
   * where Kafka accepts "WRITE on any topic" (InitProducerId for an idempotent producer). An ALLOW counts
   * unless a DENY for the same principal covers its whole pattern (a literal deny of that name, a wildcard deny,
   * or a prefixed deny that is a prefix of it).
   */
  authorizeByResourceType(req: AuthorizableRequest, op: number, resourceType: number): boolean {
    if (this.isSuperUser(req.principal)) return true;
    const principal = principalToString(req.principal);
    const applicable = [...this.acls.values()].filter((acl) =>
      acl.resourceType === resourceType &&
      (acl.principal === principal || acl.principal === WILDCARD_PRINCIPAL) &&
      aclHostMatches(acl.host, req.host));
    const denies = applicable.filter((a) => a.permissionType === AclPermissionType.DENY && (a.operation === op || a.operation === ALL));
    if (denies.some((d) => d.patternType === PatternType.LITERAL && d.resourceName === WILDCARD_RESOURCE)) return false;
    const covered = (allow: StoredAcl) => denies.some((d) =>
      d.patternType === PatternType.PREFIXED
        ? allow.resourceName.startsWith(d.resourceName)
        : allow.patternType === PatternType.LITERAL && allow.resourceName === d.resourceName);
    const anyAllow = applicable.some((a) => a.permissionType === AclPermissionType.ALLOW && allowImplies(a.operation, op) && !covered(a));
    if (anyAllow) return true;
    // No ACL of this type at all: allow.everyone.if.no.acl.found decides, as for a single resource.
    return this.allowEveryoneIfNoAclFound && ![...this.acls.values()].some((a) => a.resourceType === resourceType);
  }

  /** KIP-430: the bit set (1 << operation code) of the resource type's operations the request may do. */
  authorizedOperations(req: AuthorizableRequest, resourceType: number, resourceName: string): number {
    let mask = 0;
    for (const op of SUPPORTED_OPERATIONS.get(resourceType) ?? []) {
      if (this.authorize(req, op, resourceType, resourceName)) mask |= 1 << op;
    }
    return mask;
  }

  /** DescribeAcls: the ACLs the filter matches (an invalid filter throws InvalidAclError). */
  describeAcls(filter: AclBindingFilter): StoredAcl[] {
    validateFilter(filter);
    return [...this.acls.values()].filter((acl) => filterMatches(filter, acl));
  }

  /**
   * CreateAcls: one result per binding, in order: null, or the InvalidAclError refusing it. An ACL that exists
   * already is not added twice (AclControlManager). The new ones are persisted as one batch before returning.
   */
  async createAcls(bindings: readonly AclBinding[]): Promise<Array<InvalidAclError | null>> {
    const results: Array<InvalidAclError | null> = [];
    const added: StoredAcl[] = [];
    for (const binding of bindings) {
      try {
        validateNewAcl(binding);
        const cidr = invalidCidr(binding.host);
        if (cidr !== null) throw new InvalidAclError(cidr);
      } catch (err) {
        if (!(err instanceof InvalidAclError)) throw err;
        results.push(err);
        continue;
      }
      results.push(null);
      const existing = [...this.acls.values(), ...added].some((acl) => sameBinding(acl, binding));
      if (!existing) added.push({ ...bindingOf(binding), id: newAclId() });
    }
    if (added.length > 0) {
      await this.metadataLog.append(added.map((acl) => ({ type: ACCESS_CONTROL_ENTRY_RECORD, version: 0, body: encodeAccessControlEntryRecord(acl) })));
      for (const acl of added) this.acls.set(acl.id, acl);
      this.log.info({ acls: added.map(describeAcl) }, `created ${added.length} ACL(s)`);
    }
    return results;
  }

  /** DeleteAcls: per filter, the ACLs it removed (or its InvalidAclError); persisted before returning. */
  async deleteAcls(filters: readonly AclBindingFilter[]): Promise<Array<StoredAcl[] | InvalidAclError>> {
    const removed = new Map<string, StoredAcl>();
    const results = filters.map((filter): StoredAcl[] | InvalidAclError => {
      try {
        validateFilter(filter);
      } catch (err) {
        if (err instanceof InvalidAclError) return err;
        throw err;
      }
      const matching = [...this.acls.values()].filter((acl) => filterMatches(filter, acl));
      for (const acl of matching) removed.set(acl.id, acl);
      return matching;
    });
    if (removed.size > 0) {
      await this.metadataLog.append([...removed.keys()].map((id) => ({ type: REMOVE_ACCESS_CONTROL_ENTRY_RECORD, version: 0, body: encodeRemoveAccessControlEntryRecord(id) })));
      for (const id of removed.keys()) this.acls.delete(id);
      this.log.info({ acls: [...removed.values()].map(describeAcl) }, `deleted ${removed.size} ACL(s)`);
    }
    return results;
  }
}

/** Does the ACL's pattern cover the resource name? LITERAL equal or '*', PREFIXED a prefix. */
function patternApplies(acl: AclBinding, name: string): boolean {
  if (acl.patternType === PatternType.PREFIXED) return name.startsWith(acl.resourceName);
  return acl.resourceName === name || acl.resourceName === WILDCARD_RESOURCE;
}

function bindingOf(b: AclBinding): AclBinding {
  return {
    resourceType: b.resourceType, resourceName: b.resourceName, patternType: b.patternType, principal: b.principal,
    host: b.host, operation: b.operation, permissionType: b.permissionType,
  };
}

function newAclId(): string {
  return randomBytes(16).toString('hex');
}

function describeAcl(acl: StoredAcl): string {
  return `${acl.permissionType === AclPermissionType.ALLOW ? 'ALLOW' : 'DENY'} ${acl.principal}@${acl.host} op=${acl.operation} on type=${acl.resourceType} ${acl.patternType === PatternType.PREFIXED ? 'prefixed' : 'literal'}:${acl.resourceName}`;
}
