// SASL/PLAIN (RFC 4616) as Kafka's PlainSaslServer: `[authzid] NUL authcid NUL passwd`, checked against the
// JAAS `user_<name>="<password>"` options (PlainServerCallbackHandler).
import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, SaslError, type SaslServer } from './sasl-server.js';

function equalSecrets(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export class PlainSaslServer implements SaslServer {
  readonly mechanism = 'PLAIN';
  complete = false;
  private user = '';

  constructor(private readonly users: ReadonlyMap<string, string>) {}

  get authorizationId(): string {
    return this.user;
  }

  evaluateResponse(token: Buffer): Buffer {
    if (this.complete) throw new SaslError('PLAIN authentication already completed');
    const tokens = token.toString('utf8').split('\u0000');
    if (tokens.length !== 3) throw new SaslError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${tokens.length}`);
    const [authorizationIdFromClient, username, password] = tokens as [string, string, string];
    if (username === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
    this.user = username;
    const expected = this.users.get(username);
    if (expected === undefined || !equalSecrets(expected, password)) {
      throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    }
    if (authorizationIdFromClient !== '' && authorizationIdFromClient !== username) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    this.complete = true;
    return Buffer.alloc(0);
  }
}
