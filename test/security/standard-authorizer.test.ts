// StandardAuthorizer semantics on its own (Kafka's StandardAuthorizerData rules), over a real metadata log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerConfig } from '../../config/broker-config.js';
import { ClusterMetadataLog } from '../../src/metadata/cluster-metadata-log.js';
import { AclOperation as Op, AclPermissionType, PatternType, ResourceType as R, type AclBinding } from '../../src/security/acls.js';
import { StandardAuthorizer } from '../../src/security/standard-authorizer.js';

const log = pino({ level: 'silent' });
const alice = { principal: { principalType: 'User', name: 'alice' }, host: '10.0.0.1' };
const bob = { principal: { principalType: 'User', name: 'bob' }, host: '10.0.0.2' };
const bits = (...ops: number[]) => ops.reduce((m, op) => m | (1 << op), 0);
let dir: string;
let metadataLog: ClusterMetadataLog;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kafkite-authorizer-'));
  metadataLog = await ClusterMetadataLog.open({ dir, config: new BrokerConfig().logConfig({}), logger: log, nodeId: 1 });
});
afterEach(async () => {
  await metadataLog.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An authorizer with the ACLs of the metadata log, as the broker's start-up replay leaves it. */
function authorizer(props: Record<string, string> = {}): StandardAuthorizer {
  const a = StandardAuthorizer.fromConfig(new BrokerConfig({ 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer', ...props }), metadataLog, log)!;
  metadataLog.replay([a]);
  return a;
}

function acl(over: Partial<AclBinding>): AclBinding {
  return { resourceType: R.TOPIC, resourceName: 't', patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: Op.READ, permissionType: AclPermissionType.ALLOW, ...over };
}

describe('StandardAuthorizer', () => {
  it('is off without authorizer.class.name and refuses an unknown class naming the key', () => {
    expect(StandardAuthorizer.fromConfig(new BrokerConfig(), metadataLog, log)).toBeNull();
    expect(() => StandardAuthorizer.fromConfig(new BrokerConfig({ 'authorizer.class.name': 'com.example.Nope' }), metadataLog, log)).toThrow(/authorizer\.class\.name/);
  });

  it('denies without ACLs unless allow.everyone.if.no.acl.found, which stops applying once the resource has any ACL', async () => {
    expect(authorizer().authorize(alice, Op.READ, R.TOPIC, 't')).toBe(false);
    const open = authorizer({ 'allow.everyone.if.no.acl.found': 'true' });
    expect(open.authorize(alice, Op.READ, R.TOPIC, 't')).toBe(true);
    await open.createAcls([acl({ principal: 'User:bob' })]);
    expect(open.authorize(alice, Op.READ, R.TOPIC, 't')).toBe(false);
    expect(open.authorize(alice, Op.READ, R.TOPIC, 'other')).toBe(true);
  });

  it('lets super users do anything, even against a DENY', async () => {
    const a = authorizer({ 'super.users': 'User:bob;User:carol' });
    await a.createAcls([acl({ principal: 'User:bob', operation: Op.ALL, permissionType: AclPermissionType.DENY })]);
    expect(a.authorize(bob, Op.DELETE, R.TOPIC, 't')).toBe(true);
    expect(a.authorizedOperations(bob, R.CLUSTER, 'kafka-cluster')).toBe(bits(Op.CREATE, Op.CLUSTER_ACTION, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS, Op.IDEMPOTENT_WRITE, Op.ALTER, Op.DESCRIBE));
  });

  it('implies DESCRIBE from READ/WRITE/DELETE/ALTER and DESCRIBE_CONFIGS from ALTER_CONFIGS, never from a DENY', async () => {
    const a = authorizer();
    await a.createAcls([
      acl({ resourceName: 'w', operation: Op.WRITE }),
      acl({ resourceName: 'c', operation: Op.ALTER_CONFIGS }),
      acl({ resourceName: 'd', operation: Op.DESCRIBE }),
      acl({ resourceName: 'd', operation: Op.READ, permissionType: AclPermissionType.DENY }),
    ]);
    expect(a.authorize(alice, Op.DESCRIBE, R.TOPIC, 'w')).toBe(true);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'w')).toBe(false);
    expect(a.authorize(alice, Op.DESCRIBE_CONFIGS, R.TOPIC, 'c')).toBe(true);
    expect(a.authorize(alice, Op.DESCRIBE, R.TOPIC, 'c')).toBe(false);
    expect(a.authorize(alice, Op.DESCRIBE, R.TOPIC, 'd')).toBe(true);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'd')).toBe(false);
  });

  it('matches wildcard and prefixed patterns, User:* and hosts; DENY ALL wins over any ALLOW', async () => {
    const a = authorizer();
    await a.createAcls([
      acl({ resourceName: '*', principal: 'User:*', operation: Op.READ, host: '10.0.0.1' }),
      acl({ resourceName: 'fin-', patternType: PatternType.PREFIXED, operation: Op.ALL }),
      acl({ resourceName: 'fin-secret', operation: Op.ALL, permissionType: AclPermissionType.DENY }),
    ]);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'anything')).toBe(true);
    expect(a.authorize(bob, Op.READ, R.TOPIC, 'anything')).toBe(false); // wrong host
    expect(a.authorize(alice, Op.WRITE, R.TOPIC, 'fin-ledger')).toBe(true);
    expect(a.authorize(alice, Op.WRITE, R.TOPIC, 'fi')).toBe(false);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'fin-secret')).toBe(false);
    expect(a.authorize(alice, Op.READ, R.GROUP, 'fin-ledger')).toBe(false); // another resource type
    expect(a.authorizedOperations(alice, R.TOPIC, 'fin-ledger')).toBe(bits(Op.READ, Op.WRITE, Op.CREATE, Op.DELETE, Op.ALTER, Op.DESCRIBE, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS));
  });

  it('authorizes by resource type unless a DENY covers the whole ALLOW', async () => {
    const a = authorizer();
    expect(a.authorizeByResourceType(alice, Op.WRITE, R.TOPIC)).toBe(false);
    await a.createAcls([acl({ resourceName: 'app-', patternType: PatternType.PREFIXED, operation: Op.WRITE })]);
    expect(a.authorizeByResourceType(alice, Op.WRITE, R.TOPIC)).toBe(true);
    expect(a.authorizeByResourceType(bob, Op.WRITE, R.TOPIC)).toBe(false);
    await a.createAcls([acl({ resourceName: 'app', patternType: PatternType.PREFIXED, operation: Op.WRITE, permissionType: AclPermissionType.DENY })]);
    expect(a.authorizeByResourceType(alice, Op.WRITE, R.TOPIC)).toBe(false);
  });

  it('replays creations and deletions from the metadata log', async () => {
    const a = authorizer();
    await a.createAcls([acl({}), acl({ resourceName: 'u' })]);
    const removed = await a.deleteAcls([{ resourceType: R.TOPIC, resourceName: 'u', patternType: PatternType.MATCH, principal: null, host: null, operation: Op.ANY, permissionType: AclPermissionType.ANY }]);
    expect(removed).toEqual([[expect.objectContaining({ resourceName: 'u' })]]);
    const b = authorizer();
    expect(b.authorize(alice, Op.READ, R.TOPIC, 't')).toBe(true);
    expect(b.authorize(alice, Op.READ, R.TOPIC, 'u')).toBe(false);
    expect(b.describeAcls({ resourceType: R.ANY, resourceName: null, patternType: PatternType.ANY, principal: null, host: null, operation: Op.ANY, permissionType: AclPermissionType.ANY })).toHaveLength(1);
  });
});
