// Whether an ACL's host covers a client's address: '*', the same address, or (KIP-1276, metadata.version 4.4-IV1 on)
// a CIDR block holding it, as Kafka 4.4's StandardAuthorizerData and Authorizer.authorizeByResourceType match hosts
// (CidrUtils.isInRange). A host that is neither an address nor a valid block matches only itself.
import { BlockList, isIP } from 'node:net';
import { WILDCARD_HOST } from './acls.js';

const CIDR = /^([^/]+)\/(\d{1,3})$/;
/** Parsed blocks by ACL host; null: not a CIDR block. */
const blocks = new Map<string, BlockList | null>();

function blockOf(aclHost: string): BlockList | null {
  let block = blocks.get(aclHost);
  if (block !== undefined) return block;
  block = null;
  const m = CIDR.exec(aclHost);
  const family = m ? isIP(m[1]!) : 0;
  const prefix = m ? Number(m[2]) : -1;
  if (family !== 0 && prefix <= (family === 4 ? 32 : 128)) {
    block = new BlockList();
    block.addSubnet(m![1]!, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  blocks.set(aclHost, block);
  return block;
}

/**
 * Why a host with a '/' is no CIDR block, in Kafka 4.4's words (CreateAcls answers INVALID_REQUEST with them, as Kafka
 * 4.4 answered `kafka-acls --add --allow-host` with 10.0.0.0/33, 2001:db8::/129 and not-a-host/8); null otherwise.
 */
export function invalidCidr(host: string): string | null {
  if (!host.includes('/')) return null;
  const m = CIDR.exec(host);
  const family = m ? isIP(m[1]!) : 0;
  const prefix = m ? Number(m[2]) : -1;
  const refused = `Invalid CIDR notation '${host}': `;
  if (family === 4 && prefix > 32) return `${refused}Value [${prefix}] not in range [0,32]`;
  if (family === 6 && prefix > 128) return `${refused}Could not parse [${host}] - prefix length must be between 0 and 128`;
  return family === 0 ? `${refused}Could not parse [${host}]` : null;
}

export function aclHostMatches(aclHost: string, host: string): boolean {
  if (aclHost === host || aclHost === WILDCARD_HOST) return true;
  const family = isIP(host);
  return family !== 0 && blockOf(aclHost)?.check(host, family === 4 ? 'ipv4' : 'ipv6') === true;
}
