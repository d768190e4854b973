// The client side of SASL for the wire client: PLAIN and SCRAM-SHA-256/512 (RFC 5802) over SaslHandshake v1 +
// SaslAuthenticate, and SCRAM user management through AlterUserScramCredentials, as kafka-configs does it.
import { createHash, createHmac, pbkdf2, randomBytes } from 'node:crypto';
import type { WireClient } from './wire-client.js';

type Hash = 'sha256' | 'sha512';
const HASH: Record<string, Hash> = { 'SCRAM-SHA-256': 'sha256', 'SCRAM-SHA-512': 'sha512' };
const MECHANISM_TYPE: Record<string, number> = { 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 };

function saltedPassword(mechanism: string, password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  const hash = HASH[mechanism]!;
  return new Promise((resolve, reject) =>
    pbkdf2(password, salt, iterations, hash === 'sha256' ? 32 : 64, hash, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** kafka-configs --alter --add-config 'SCRAM-SHA-512=[iterations=4096,password=…]' --entity-type users. */
export async function upsertScramUser(client: WireClient, mechanism: string, user: string, password: string, iterations = 4096): Promise<{ errorCode: number; errorMessage: string | null }> {
  const salt = randomBytes(32);
  const salted = await saltedPassword(mechanism, password, salt, iterations);
  const res = await client.send(51, 0, {
    deletions: [],
    upsertions: [{ name: user, mechanism: MECHANISM_TYPE[mechanism], iterations, salt, saltedPassword: salted }],
  });
  return res.results[0];
}

export async function deleteScramUser(client: WireClient, mechanism: string, user: string): Promise<{ errorCode: number; errorMessage: string | null }> {
  const res = await client.send(51, 0, { deletions: [{ name: user, mechanism: MECHANISM_TYPE[mechanism] }], upsertions: [] });
  return res.results[0];
}

export class SaslFailure extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

export interface ScramOptions {
  /** Salted passwords by salt and iterations: a client reconnecting skips PBKDF2, as Java's ScramSaslClient cannot. */
  cache?: Map<string, Buffer>;
  /** Tamper with the exchange, for tests. */
  proof?: (proof: Buffer) => Buffer;
}

/** SaslHandshake v1 + SaslAuthenticate v2 for PLAIN or SCRAM; throws SaslFailure when the broker refuses. */
export async function saslAuthenticate(client: WireClient, mechanism: string, user: string, password: string, opts: ScramOptions = {}): Promise<{ sessionLifetimeMs: number }> {
  const handshake = await client.send(17, 1, { mechanism });
  if (handshake.errorCode !== 0) throw new SaslFailure(handshake.errorCode, `handshake refused, broker offers ${handshake.mechanisms}`);
  const step = async (token: Buffer) => {
    const res = await client.send(36, 2, { authBytes: token });
    if (res.errorCode !== 0) throw new SaslFailure(res.errorCode, res.errorMessage ?? '');
    return res as { authBytes: Buffer; sessionLifetimeMs: number };
  };
  if (mechanism === 'PLAIN') return step(Buffer.from(`\u0000${user}\u0000${password}`));
  const hash = HASH[mechanism]!;
  const clientNonce = randomBytes(18).toString('base64url');
  const clientFirstBare = `n=${user.replace(/=/g, '=3D').replace(/,/g, '=2C')},r=${clientNonce}`;
  const serverFirst = (await step(Buffer.from(`n,,${clientFirstBare}`))).authBytes.toString();
  const fields = Object.fromEntries(serverFirst.split(',').map((kv) => [kv[0], kv.slice(2)]));
  const salt = Buffer.from(fields.s!, 'base64');
  const iterations = Number(fields.i);
  const key = `${fields.s}:${iterations}:${password}`;
  const salted = opts.cache?.get(key) ?? (await saltedPassword(mechanism, password, salt, iterations));
  opts.cache?.set(key, salted);
  const clientKey = createHmac(hash, salted).update('Client Key').digest();
  const storedKey = createHash(hash).update(clientKey).digest();
  const withoutProof = `c=biws,r=${fields.r}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const signature = createHmac(hash, storedKey).update(authMessage).digest();
  let proof: Buffer = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
  if (opts.proof) proof = opts.proof(proof);
  const final = await step(Buffer.from(`${withoutProof},p=${proof.toString('base64')}`));
  const serverKey = createHmac(hash, salted).update('Server Key').digest();
  const expected = `v=${createHmac(hash, serverKey).update(authMessage).digest('base64')}`;
  if (final.authBytes.toString() !== expected) throw new Error('server signature does not verify');
  return { sessionLifetimeMs: final.sessionLifetimeMs };
}
