// An ACL host matches a client's address as Kafka 4.4's authorizer matches it (KIP-1276): '*', the address itself, or
// a CIDR block holding it, IPv4 or IPv6; anything else (a name, a malformed block) only itself.
import { describe, expect, it } from 'vitest';
import { aclHostMatches, invalidCidr } from '../../src/security/acl-host.js';

describe('aclHostMatches', () => {
  it.each([
    ['*', '10.1.2.3', true],
    ['10.1.2.3', '10.1.2.3', true],
    ['10.1.2.4', '10.1.2.3', false],
    ['10.0.0.0/8', '10.1.2.3', true],
    ['10.0.0.0/8', '11.1.2.3', false],
    ['192.168.1.128/25', '192.168.1.127', false],
    ['192.168.1.128/25', '192.168.1.200', true],
    ['0.0.0.0/0', '8.8.8.8', true],
    ['10.1.2.3/32', '10.1.2.3', true],
    ['2001:db8::/32', '2001:db8:1::5', true],
    ['2001:db8::/32', '2001:db9::5', false],
    ['10.0.0.0/8', '2001:db8::5', false],
    ['10.0.0.0/33', '10.1.2.3', false],
    ['not-an-ip/8', '10.1.2.3', false],
    ['10.0.0.0/8', 'localhost', false],
  ])('%s covers %s: %s', (aclHost, host, expected) => {
    expect(aclHostMatches(aclHost, host)).toBe(expected);
  });
});

describe('invalidCidr', () => {
  // Kafka 4.4's answers to kafka-acls --add --allow-host with these hosts (InvalidRequestException).
  it.each([
    ['10.0.0.0/8', null],
    ['10.1.2.3/8', null],
    ['2001:db8::/32', null],
    ['*', null],
    ['10.1.2.3', null],
    ['10.0.0.0/33', "Invalid CIDR notation '10.0.0.0/33': Value [33] not in range [0,32]"],
    ['2001:db8::/129', "Invalid CIDR notation '2001:db8::/129': Could not parse [2001:db8::/129] - prefix length must be between 0 and 128"],
    ['not-a-host/8', "Invalid CIDR notation 'not-a-host/8': Could not parse [not-a-host/8]"],
  ])('%s: %s', (host, expected) => {
    expect(invalidCidr(host)).toBe(expected);
  });
});
