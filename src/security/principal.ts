// The identity a connection acts as, in Kafka's form (KafkaPrincipal: "User:alice").
// Unauthenticated listeners (PLAINTEXT, SSL without a client certificate) act as User:ANONYMOUS.
export interface KafkaPrincipal {
  readonly principalType: string;
  readonly name: string;
}

export const ANONYMOUS: KafkaPrincipal = Object.freeze({ principalType: 'User', name: 'ANONYMOUS' });

export function principalToString(p: KafkaPrincipal): string {
  return `${p.principalType}:${p.name}`;
}
