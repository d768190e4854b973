// What handlers call to authorize a request (Kafka's AuthHelper): one call per check. Without an authorizer
// (authorizer.class.name unset) everything is allowed and KIP-430 masks hold every supported operation.
import type { Logger } from 'pino';
import { AclOperation, CLUSTER_NAME, ResourceType, SUPPORTED_OPERATIONS } from './acls.js';
import { principalToString, type KafkaPrincipal } from './principal.js';
import type { StandardAuthorizer } from './standard-authorizer.js';

export { AclOperation, CLUSTER_NAME, ResourceType } from './acls.js';

/** The parts of a RequestContext authorization reads. */
export interface AuthContext {
  readonly principal: KafkaPrincipal;
  readonly remoteAddress: string;
  readonly clientId: string | null;
  readonly apiKey: number;
  readonly broker: { readonly authorizer: StandardAuthorizer | null };
  readonly log: Logger;
}

/** KIP-430's "not requested" value of authorized-operations fields. */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** The client's IP without the port (and IPv4 without the IPv6 mapping), as Kafka's InetAddress gives it. */
function hostOf(remoteAddress: string): string {
  const colon = remoteAddress.lastIndexOf(':');
  const ip = colon >= 0 ? remoteAddress.slice(0, colon) : remoteAddress;
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * May this request do `op` on the resource? A denial is logged at info like Kafka's kafka.authorizer.logger,
 * unless `logIfDenied` is false (filtering, where a denial is expected and not worth a line).
 */
export function authorize(ctx: AuthContext, op: number, type: number, name: string, logIfDenied = true): boolean {
  const authorizer = ctx.broker.authorizer;
  if (authorizer === null) return true;
  const allowed = authorizer.authorize({ principal: ctx.principal, host: hostOf(ctx.remoteAddress) }, op, type, name);
  if (!allowed && logIfDenied) {
    ctx.log.info(
      { principal: principalToString(ctx.principal), host: hostOf(ctx.remoteAddress), clientId: ctx.clientId, apiKey: ctx.apiKey, operation: opName(op), resourceType: typeName(type), resource: name },
      'Principal is denied operation on resource',
    );
  }
  return allowed;
}

export function authorizeCluster(ctx: AuthContext, op: number): boolean {
  return authorize(ctx, op, ResourceType.CLUSTER, CLUSTER_NAME);
}

/** Authorizer.authorizeByResourceType: `op` on at least one resource of the type. */
export function authorizeAny(ctx: AuthContext, op: number, type: number): boolean {
  const authorizer = ctx.broker.authorizer;
  return authorizer === null || authorizer.authorizeByResourceType({ principal: ctx.principal, host: hostOf(ctx.remoteAddress) }, op, type);
}

/** KIP-430 mask (bit = operation code) of what the request may do on the resource. */
export function authorizedOperations(ctx: AuthContext, type: number, name: string): number {
  const authorizer = ctx.broker.authorizer;
  if (authorizer === null) return (SUPPORTED_OPERATIONS.get(type) ?? []).reduce((mask, op) => mask | (1 << op), 0);
  return authorizer.authorizedOperations({ principal: ctx.principal, host: hostOf(ctx.remoteAddress) }, type, name);
}

function opName(op: number): string {
  return Object.keys(AclOperation).find((k) => AclOperation[k as keyof typeof AclOperation] === op) ?? String(op);
}

function typeName(type: number): string {
  return Object.keys(ResourceType).find((k) => ResourceType[k as keyof typeof ResourceType] === type) ?? String(type);
}

export function authorizeTopic(ctx: AuthContext, op: number, topic: string, logIfDenied = true): boolean {
  return authorize(ctx, op, ResourceType.TOPIC, topic, logIfDenied);
}

export function authorizeGroup(ctx: AuthContext, op: number, groupId: string, logIfDenied = true): boolean {
  return authorize(ctx, op, ResourceType.GROUP, groupId, logIfDenied);
}

export function authorizeTransactionalId(ctx: AuthContext, op: number, transactionalId: string): boolean {
  return authorize(ctx, op, ResourceType.TRANSACTIONAL_ID, transactionalId);
}

/** Auto-creation and CreateTopics: CREATE on the cluster, else on the topic (KafkaApis). */
export function authorizeTopicCreation(ctx: AuthContext, topic: string): boolean {
  return authorize(ctx, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME, false) || authorizeTopic(ctx, AclOperation.CREATE, topic);
}

/** DescribeConfigs/AlterConfigs: the ACL resource a config resource (ConfigResource.Type code) is checked on. */
export function authorizeConfigResource(ctx: AuthContext, op: number, configResourceType: number, name: string): { allowed: boolean; errorCode: number } {
  // ConfigResource.Type: TOPIC 2, BROKER 4, BROKER_LOGGER 8, CLIENT_METRICS 16, GROUP 32.
  const [type, resourceName, errorCode] = configResourceType === 2
    ? [ResourceType.TOPIC, name, TOPIC_AUTHORIZATION_FAILED]
    : configResourceType === 32
      ? [ResourceType.GROUP, name, GROUP_AUTHORIZATION_FAILED]
      : [ResourceType.CLUSTER, CLUSTER_NAME, CLUSTER_AUTHORIZATION_FAILED];
  return { allowed: authorize(ctx, op, type, resourceName), errorCode };
}

const TOPIC_AUTHORIZATION_FAILED = 29;
const GROUP_AUTHORIZATION_FAILED = 30;
const CLUSTER_AUTHORIZATION_FAILED = 31;
