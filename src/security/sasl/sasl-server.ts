// The server side of one SASL mechanism (javax.security.sasl.SaslServer as Kafka uses it).

export interface SaslServer {
  readonly mechanism: string;
  /** The client's next token in, the server's challenge out; throws SaslError or SaslAuthenticationError. */
  evaluateResponse(token: Buffer): Buffer;
  readonly complete: boolean;
  /** The authenticated user once complete; before that, the user the client claims ('' until known). */
  readonly authorizationId: string;
}

/** A failure whose text must not reach the client: it gets Kafka's generic message instead. */
export class SaslError extends Error {
  override name = 'SaslError';
}

/** A failure whose text is safe to send the client (Kafka's SaslAuthenticationException). */
export class SaslAuthenticationError extends Error {
  override name = 'SaslAuthenticationError';
}
