// The pieces of SASL and TLS without a broker: JAAS parsing, principal mapping rules, cipher names, the
// SCRAM credential records, and hostile tokens fuzzed into the PLAIN and SCRAM servers and the authenticator.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJaasConfig, plainUsers, JaasConfigError } from '../../src/security/jaas.js';
import { PlainSaslServer } from '../../src/security/sasl/plain-sasl-server.js';
import { SaslAuthenticationError, SaslError } from '../../src/security/sasl/sasl-server.js';
import { ScramSaslServer } from '../../src/security/sasl/scram-sasl-server.js';
import {
  decodeRemoveUserScramCredentialRecord,
  decodeUserScramCredentialRecord,
  encodeRemoveUserScramCredentialRecord,
  encodeUserScramCredentialRecord,
  ScramCredentialStore,
  ScramFormatter,
  scramMechanismByName,
} from '../../src/security/scram-credentials.js';
import { openSslCipherName } from '../../src/security/ssl-engine-factory.js';
import { SslPrincipalMapper, SslPrincipalMappingError } from '../../src/security/ssl-principal-mapper.js';

describe('JAAS config', () => {
  it('reads PlainLoginModule users as Kafka does, quoted or bare, with comments', () => {
    const modules = parseJaasConfig(
      'org.apache.kafka.common.security.plain.PlainLoginModule required /* broker */ username="admin" password="a;b" user_admin="a;b" user_alice=alice-secret user_q="with \\"quote\\"";',
    );
    expect(modules).toHaveLength(1);
    expect(modules[0]!.flag).toBe('required');
    expect([...plainUsers(modules)]).toEqual([['admin', 'a;b'], ['alice', 'alice-secret'], ['q', 'with "quote"']]);
  });

  it('rejects a missing semicolon, a bad flag and a dangling option', () => {
    expect(() => parseJaasConfig('a.B required user_x="y"')).toThrow(JaasConfigError);
    expect(() => parseJaasConfig('a.B mandatory;')).toThrow(/control flag/);
    expect(() => parseJaasConfig('a.B required user_x=;')).toThrow(JaasConfigError);
    expect(() => parseJaasConfig('')).toThrow(JaasConfigError);
  });
});

describe('ssl.principal.mapping.rules', () => {
  it('applies the first matching rule, with case folding, and DEFAULT', () => {
    const mapper = SslPrincipalMapper.fromRules('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, RULE:^CN=(.*?),OU=(.*?),O=(.*?)$/$1@$2/, DEFAULT');
    expect(mapper.getName('CN=Kafka-Svc,OU=ServiceUsers,O=Org')).toBe('kafka-svc');
    expect(mapper.getName('CN=bob,OU=dev,O=Org')).toBe('bob@dev');
    expect(mapper.getName('CN=x')).toBe('CN=x');
  });

  it('fails when no rule applies, and on malformed rules', () => {
    expect(() => SslPrincipalMapper.fromRules('RULE:^CN=(a)$/$1/').getName('CN=b')).toThrow(SslPrincipalMappingError);
    expect(() => SslPrincipalMapper.fromRules('RULE:^CN=(a)$')).toThrow(SslPrincipalMappingError);
  });
});

it('spells Java cipher suite names as OpenSSL does', () => {
  expect(openSslCipherName('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256')).toBe('ECDHE-RSA-AES128-GCM-SHA256');
  expect(openSslCipherName('TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256')).toBe('ECDHE-ECDSA-CHACHA20-POLY1305');
  expect(openSslCipherName('TLS_RSA_WITH_AES_256_CBC_SHA256')).toBe('AES256-SHA256');
  expect(openSslCipherName('TLS_AES_256_GCM_SHA384')).toBe('TLS_AES_256_GCM_SHA384');
});

describe('SCRAM credential records', () => {
  it('round-trip UserScramCredentialRecord and RemoveUserScramCredentialRecord v0', () => {
    const record = { name: 'alice', mechanism: 2, salt: Buffer.from('salt'), storedKey: Buffer.alloc(64, 1), serverKey: Buffer.alloc(64, 2), iterations: 4096 };
    const body = encodeUserScramCredentialRecord(record);
    // compact string "alice" (len+1 = 6), int8 2, compact bytes "salt" (5), ...
    expect(body.subarray(0, 7)).toEqual(Buffer.from([6, 0x61, 0x6c, 0x69, 0x63, 0x65, 2]));
    expect(decodeUserScramCredentialRecord(body)).toEqual(record);
    expect(decodeRemoveUserScramCredentialRecord(encodeRemoveUserScramCredentialRecord('bob', 1))).toEqual({ name: 'bob', mechanism: 1 });
  });

  it('refuses duplicate users and empty names in one request, as ScramControlManager does', async () => {
    const store = new ScramCredentialStore(null);
    const upsert = { name: 'a', mechanism: 1, iterations: 4096, salt: Buffer.from('s'), saltedPassword: Buffer.alloc(32) };
    const results = await store.alter([], [upsert, { ...upsert, mechanism: 2 }, { ...upsert, name: '' }, { ...upsert, name: 'b', mechanism: 9 }]);
    expect(results).toEqual([
      { user: 'a', errorCode: 92, errorMessage: 'A user credential cannot be altered twice in the same request' },
      { user: '', errorCode: 93, errorMessage: 'Username must not be empty' },
      { user: 'b', errorCode: 33, errorMessage: 'Unknown SCRAM mechanism' },
    ]);
    expect(store.size).toBe(0);
  });
});

function expectSaslErrorsOnly(run: () => void): void {
  try {
    run();
  } catch (err) {
    if (!(err instanceof SaslError) && !(err instanceof SaslAuthenticationError)) throw err;
  }
}

describe('hostile tokens', () => {
  const sha512 = scramMechanismByName('SCRAM-SHA-512')!;
  const salt = Buffer.from('0123456789abcdef');
  const credential = ScramFormatter.credential(sha512, Buffer.alloc(64, 7), salt, 4096);

  it('PLAIN and SCRAM servers only ever refuse random or mutated tokens with SASL errors', () => {
    const valid = ['\u0000alice\u0000alice-secret', 'n,,n=alice,r=abcdef', 'c=biws,r=abcdefXYZ,p=AAAA'];
    const token = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.tuple(fc.constantFrom(...valid), fc.nat(), fc.string({ maxLength: 8 })).map(([v, at, s]) => Buffer.from(v.slice(0, at % (v.length + 1)) + s + v.slice(at % (v.length + 1)))),
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 3 }), (tokens) => {
        const plain = new PlainSaslServer(new Map([['alice', 'alice-secret']]));
        const scram = new ScramSaslServer(sha512, (u) => (u === 'alice' ? credential : undefined));
        for (const t of tokens) {
          expectSaslErrorsOnly(() => plain.evaluateResponse(t));
          expectSaslErrorsOnly(() => scram.evaluateResponse(t));
        }
        // Random bytes never complete a SCRAM exchange (nobody knows the salted password's keys).
        expect(scram.complete).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('never completes SCRAM with a proof for another exchange (replay)', async () => {
    const scramA = new ScramSaslServer(sha512, () => credential);
    const scramB = new ScramSaslServer(sha512, () => credential);
    const first = Buffer.from('n,,n=alice,r=clientnonce');
    const serverFirstA = scramA.evaluateResponse(first).toString();
    scramB.evaluateResponse(first);
    // A valid final message for exchange A (computed from the salted password) replayed on B fails on the nonce.
    const nonceA = /r=([^,]+)/.exec(serverFirstA)![1]!;
    const clientKey = ScramFormatter.clientKey(sha512, Buffer.alloc(64, 7));
    const authMessage = `n=alice,r=clientnonce,${serverFirstA},c=biws,r=${nonceA}`;
    const signature = ScramFormatter.hmac(sha512, ScramFormatter.storedKey(sha512, clientKey), authMessage);
    const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!)).toString('base64');
    const final = Buffer.from(`c=biws,r=${nonceA},p=${proof}`);
    expect(() => scramB.evaluateResponse(final)).toThrow(SaslError);
    expect(scramB.complete).toBe(false);
    expect(scramA.evaluateResponse(final).toString()).toMatch(/^v=/);
    expect(scramA.complete).toBe(true);
    // librdkafka < 2.6.1 repeats the client nonce: accepted (the proof covers the nonce it sent).
    const scramC = new ScramSaslServer(sha512, () => credential);
    const serverFirstC = scramC.evaluateResponse(first).toString();
    const quirkNonce = `clientnonce${/r=([^,]+)/.exec(serverFirstC)![1]!}`;
    const quirkAuth = `n=alice,r=clientnonce,${serverFirstC},c=biws,r=${quirkNonce}`;
    const quirkSig = ScramFormatter.hmac(sha512, ScramFormatter.storedKey(sha512, clientKey), quirkAuth);
    const quirkProof = Buffer.from(clientKey.map((b, i) => b ^ quirkSig[i]!)).toString('base64');
    scramC.evaluateResponse(Buffer.from(`c=biws,r=${quirkNonce},p=${quirkProof}`));
    expect(scramC.complete).toBe(true);
  });
});
