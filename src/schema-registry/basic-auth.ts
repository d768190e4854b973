// HTTP basic auth for the registry's routes against the broker's SASL/SCRAM users (issue 33), where Confluent's
// registry takes basic auth (authentication.method=BASIC) against the users of a JAAS file. It fits: a SCRAM
// credential keeps the salt, the iteration count and StoredKey = H(HMAC(Hi(password, salt, i), "Client Key"))
// (RFC 5802; Kafka's ScramFormatter), which is all a password check needs. The password is salted as a SCRAM
// client would salt it and the StoredKey it gives is compared with the stored one; no password is kept.
// One user, one password, for the Kafka clients and the serializers, managed with kafka-configs as before.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ScramFormatter, scramMechanismByName, type ScramCredential, type ScramMechanism } from '../security/scram-credentials.js';

/** The credential store as the verifier reads it. */
interface ScramCredentials {
  get(name: string, mechanism: ScramMechanism): ScramCredential | undefined;
}

const MECHANISMS = ['SCRAM-SHA-512', 'SCRAM-SHA-256'].map((name) => scramMechanismByName(name)!);
/**
 * Passwords checked recently: serializers send the header on every request, and each PBKDF2 costs 4,096 or more
 * hash rounds. Keyed by an HMAC with a per-process key over the user, the password and the credential, so a
 * changed or deleted credential no longer matches; the oldest goes first beyond this many.
 */
const VERIFIED_CACHE_SIZE = 1024;

export class BasicAuthVerifier {
  private readonly verified = new Set<string>();
  private readonly cacheKey = randomBytes(32);

  constructor(private readonly credentials: ScramCredentials) {}

  /** The user an `Authorization: Basic …` header authenticates, or null. */
  async verify(header: string | undefined): Promise<string | null> {
    const m = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header ?? '');
    if (!m) return null;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return null;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    for (const mechanism of MECHANISMS) {
      const credential = this.credentials.get(user, mechanism);
      if (!credential) continue;
      const key = createHmac('sha256', this.cacheKey)
        .update(`${mechanism.name}\0${user}\0${password}\0${credential.iterations}\0`)
        .update(credential.salt).update(credential.storedKey).digest('base64');
      if (this.verified.has(key)) return user;
      const salted = await ScramFormatter.saltedPassword(mechanism, password, credential.salt, credential.iterations);
      const storedKey = ScramFormatter.storedKey(mechanism, ScramFormatter.clientKey(mechanism, salted));
      if (storedKey.length === credential.storedKey.length && timingSafeEqual(storedKey, credential.storedKey)) {
        if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.values().next().value!);
        this.verified.add(key);
        return user;
      }
    }
    return null;
  }
}
