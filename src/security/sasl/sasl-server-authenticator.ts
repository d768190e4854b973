// One connection's SASL exchange, as Kafka's SaslServerAuthenticator runs it: [ApiVersions] then SaslHandshake,
// then SaslAuthenticate requests (handshake v1+) or raw size-prefixed tokens (handshake v0), until the mechanism
// completes. Any other request before that ends the connection. With connections.max.reauth.ms the session
// expires and a new SaslHandshake re-authenticates in place (KIP-368); the principal may not change.
import type { KafkaPrincipal } from '../principal.js';
import type { SaslListenerConfig } from './sasl-listener-config.js';
import { SaslAuthenticationError, SaslError, type SaslServer } from './sasl-server.js';

export const SASL_HANDSHAKE = 17;
export const SASL_AUTHENTICATE = 36;
const API_VERSIONS = 18;

const ERROR_NONE = 0;
const UNSUPPORTED_SASL_MECHANISM = 33;
const SASL_AUTHENTICATION_FAILED = 58;

type State = 'HANDSHAKE_OR_VERSIONS_REQUEST' | 'HANDSHAKE_REQUEST' | 'AUTHENTICATE' | 'AUTHENTICATE_RAW' | 'COMPLETE' | 'FAILED';

export interface KafkaReply {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly body: unknown;
}

/** What the connection does next with a frame the authenticator took. */
export type AuthOutcome =
  /** Answer it (if reply) and keep reading. */
  | { kind: 'continue'; reply?: KafkaReply; rawToken?: Buffer }
  /** Let the ordinary handler answer it (ApiVersions before the handshake). */
  | { kind: 'dispatch' }
  /** Authenticated: answer, then serve requests as `principal`. */
  | { kind: 'authenticated'; reply?: KafkaReply; rawToken?: Buffer; principal: KafkaPrincipal; mechanism: string; reauthenticated: boolean }
  /** Failed: the reply goes out after connection.failed.authentication.delay.ms, then the connection closes. */
  | { kind: 'failed'; reply?: KafkaReply; reason: string; mechanism: string | null; user: string | null }
  /** Not a SASL exchange at all: close without an answer. */
  | { kind: 'close'; reason: string };

/** Every outcome but dispatch: what a token (rather than a request) can lead to. */
export type TokenOutcome = Exclude<AuthOutcome, { kind: 'dispatch' }>;

export class SaslServerAuthenticator {
  private state: State = 'HANDSHAKE_OR_VERSIONS_REQUEST';
  private server: SaslServer | null = null;
  private mechanism: string | null = null;
  /** Set once authenticated; a re-authentication must keep it. */
  private principal: KafkaPrincipal | null = null;
  private reauthenticating = false;
  private badReauthMechanism: string | null = null;
  /** When the session ends (performance.now() ms); null: never. */
  private expiresAt: number | null = null;

  constructor(private readonly config: SaslListenerConfig) {}

  get complete(): boolean {
    return this.state === 'COMPLETE';
  }

  /** Frames are raw SASL tokens (after a v0 handshake), not Kafka requests. */
  get expectsRawToken(): boolean {
    return this.state === 'AUTHENTICATE_RAW';
  }

  /** The session lifetime ran out: only a re-authentication (SaslHandshake) may come now. */
  sessionExpired(now = performance.now()): boolean {
    return this.expiresAt !== null && now > this.expiresAt;
  }

  /** Whether this request belongs to the authenticator rather than the handlers. */
  intercepts(apiKey: number): boolean {
    if (this.state !== 'COMPLETE') return true;
    // KafkaChannel.maybeBeginServerReauthentication: without a session lifetime, a late handshake goes to
    // the handler, which answers ILLEGAL_SASL_STATE.
    return apiKey === SASL_HANDSHAKE && this.expiresAt !== null;
  }

  handleRequest(apiKey: number, apiVersion: number, correlationId: number, request: unknown): AuthOutcome {
    if (this.state === 'COMPLETE') {
      this.reauthenticating = true;
      this.state = 'HANDSHAKE_REQUEST';
    }
    switch (this.state) {
      case 'HANDSHAKE_OR_VERSIONS_REQUEST':
      case 'HANDSHAKE_REQUEST':
        if (apiKey === API_VERSIONS && this.state === 'HANDSHAKE_OR_VERSIONS_REQUEST') {
          this.state = 'HANDSHAKE_REQUEST';
          return { kind: 'dispatch' };
        }
        if (apiKey !== SASL_HANDSHAKE) return this.closeWith(`Unexpected Kafka request of type ${apiKey} during SASL handshake.`);
        return this.handshake(apiVersion, correlationId, (request as { mechanism: string }).mechanism);
      case 'AUTHENTICATE': {
        if (apiKey !== SASL_AUTHENTICATE) return this.closeWith(`Unexpected Kafka request of type ${apiKey} during SASL authentication.`);
        const reply = (body: unknown): KafkaReply => ({ apiKey, apiVersion, correlationId, body });
        return this.evaluate((request as { authBytes: Buffer }).authBytes, apiVersion, reply);
      }
      default:
        return this.closeWith(`Unexpected Kafka request of type ${apiKey} in SASL state ${this.state}`);
    }
  }

  /** A raw token after a v0 handshake; the answer is a raw size-prefixed token too. */
  handleRawToken(token: Buffer): TokenOutcome {
    return this.evaluate(token, null, null);
  }

  private closeWith(reason: string): AuthOutcome {
    this.state = 'FAILED';
    return { kind: 'close', reason };
  }

  private handshake(apiVersion: number, correlationId: number, mechanism: string): AuthOutcome {
    const mechanisms = [...this.config.mechanisms];
    const reply = (errorCode: number): KafkaReply => ({
      apiKey: SASL_HANDSHAKE,
      apiVersion,
      correlationId,
      body: { errorCode, mechanisms },
    });
    const server = this.config.createServer(mechanism);
    if (!server) {
      this.state = 'FAILED';
      return { kind: 'failed', reply: reply(UNSUPPORTED_SASL_MECHANISM), reason: `Unsupported SASL mechanism ${mechanism}`, mechanism, user: null };
    }
    if (this.reauthenticating && mechanism !== this.mechanism) {
      // Kafka answers the handshake and fails the first token (REAUTH_BAD_MECHANISM).
      this.badReauthMechanism = `SASL mechanism '${mechanism}' requested by client is not supported for re-authentication of mechanism '${this.mechanism}'`;
    }
    this.server = server;
    this.mechanism = this.badReauthMechanism ? this.mechanism : mechanism;
    this.state = apiVersion >= 1 ? 'AUTHENTICATE' : 'AUTHENTICATE_RAW';
    return { kind: 'continue', reply: reply(ERROR_NONE) };
  }

  private evaluate(token: Buffer, apiVersion: number | null, reply: ((body: unknown) => KafkaReply) | null): TokenOutcome {
    const server = this.server!;
    const mechanism = server.mechanism;
    const failure = (message: string, reason: string): TokenOutcome => {
      this.state = 'FAILED';
      return {
        kind: 'failed',
        ...(reply ? { reply: reply({ errorCode: SASL_AUTHENTICATION_FAILED, errorMessage: message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 }) } : {}),
        reason,
        mechanism,
        user: server.authorizationId || null,
      };
    };
    if (this.badReauthMechanism) return failure(this.badReauthMechanism, this.badReauthMechanism);
    let response: Buffer;
    try {
      response = server.evaluateResponse(token);
    } catch (err) {
      const text = this.reauthenticating ? 're-authentication' : 'authentication';
      if (err instanceof SaslAuthenticationError) return failure(err.message, err.message);
      if (err instanceof SaslError) {
        // Kafka never sends a SaslException's text: it could tell whether the user exists.
        return failure(`Authentication failed during ${text} due to invalid credentials with SASL mechanism ${mechanism}`, err.message);
      }
      throw err;
    }
    if (!server.complete) {
      return { kind: 'continue', ...(reply ? { reply: reply({ errorCode: ERROR_NONE, errorMessage: '', authBytes: response, sessionLifetimeMs: 0 }) } : { rawToken: response }) };
    }
    const principal: KafkaPrincipal = { principalType: 'User', name: server.authorizationId };
    if (this.reauthenticating && this.principal && this.principal.name !== principal.name) {
      const message = `Cannot change principals during re-authentication from ${this.principal.principalType}.${this.principal.name}: ${principal.principalType}.${principal.name}`;
      return failure(message, message);
    }
    const lifetimeMs = Math.max(0, this.config.sessionLifetimeMs(mechanism));
    this.expiresAt = lifetimeMs > 0 ? performance.now() + lifetimeMs : null;
    const reauthenticated = this.reauthenticating;
    this.principal = principal;
    this.mechanism = mechanism;
    this.server = null;
    this.reauthenticating = false;
    this.state = 'COMPLETE';
    return {
      kind: 'authenticated',
      ...(reply
        ? { reply: reply({ errorCode: ERROR_NONE, errorMessage: '', authBytes: response, sessionLifetimeMs: apiVersion !== null && apiVersion >= 1 ? lifetimeMs : 0 }) }
        : { rawToken: response }),
      principal,
      mechanism,
      reauthenticated,
    };
  }
}
