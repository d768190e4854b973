// SASL/SCRAM-SHA-256 and -512 (RFC 5802) as Kafka's ScramSaslServer: client-first, server-first (salt and
// iterations from the stored credential), client-final with the proof checked against StoredKey, server-final
// with the ServerSignature. Message grammar follows Kafka's ScramMessages.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ScramFormatter, type ScramCredential, type ScramMechanism } from '../scram-credentials.js';
import { SaslAuthenticationError, SaslError, type SaslServer } from './sasl-server.js';

const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const PRINTABLE = '[\\x21-\\x2B\\x2D-\\x7E]+';
const VALUE = '[\\x01-\\x2B\\x2D-\\x7F]+';
const BASE64 = '(?:[a-zA-Z0-9/+]{4})*(?:[a-zA-Z0-9/+]{3}=|[a-zA-Z0-9/+]{2}==)?';
const EXTENSIONS = `(?:,[A-Za-z]+=${VALUE})*`;
const CLIENT_FIRST = new RegExp(`^n,(?:a=(${SASLNAME}))?,((?:m=${VALUE},)?n=(${SASLNAME}),r=(${PRINTABLE})${EXTENSIONS})$`);
const CLIENT_FINAL = new RegExp(`^c=(${BASE64}),r=(${PRINTABLE})${EXTENSIONS},p=(${BASE64})$`);

/** RFC 5802 saslname decoding (ScramFormatter.username). */
function username(saslName: string): string {
  return saslName.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

export type ScramCredentialLookup = (user: string, mechanism: ScramMechanism) => ScramCredential | undefined;

type State = 'RECEIVE_CLIENT_FIRST_MESSAGE' | 'RECEIVE_CLIENT_FINAL_MESSAGE' | 'COMPLETE' | 'FAILED';

export class ScramSaslServer implements SaslServer {
  private state: State = 'RECEIVE_CLIENT_FIRST_MESSAGE';
  private user = '';
  private credential: ScramCredential | undefined;
  private clientNonce = '';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';

  constructor(
    private readonly scram: ScramMechanism,
    private readonly lookup: ScramCredentialLookup,
  ) {}

  get mechanism(): string {
    return this.scram.name;
  }

  get complete(): boolean {
    return this.state === 'COMPLETE';
  }

  get authorizationId(): string {
    return this.user;
  }

  evaluateResponse(token: Buffer): Buffer {
    try {
      switch (this.state) {
        case 'RECEIVE_CLIENT_FIRST_MESSAGE':
          return this.clientFirst(token.toString('utf8'));
        case 'RECEIVE_CLIENT_FINAL_MESSAGE':
          return this.clientFinal(token.toString('utf8'));
        default:
          throw new SaslError(`Unexpected challenge in Sasl server state ${this.state}`);
      }
    } catch (err) {
      this.credential = undefined;
      this.state = 'FAILED';
      throw err;
    }
  }

  private clientFirst(message: string): Buffer {
    const m = CLIENT_FIRST.exec(message);
    if (!m) throw new SaslError('Invalid SCRAM client first message format');
    const [, authzid, bare, saslName, clientNonce] = m as unknown as [string, string | undefined, string, string, string];
    const user = username(saslName);
    this.user = user;
    const credential = this.lookup(user, this.scram);
    if (!credential) throw new SaslError('Authentication failed: Invalid user credentials');
    if (authzid !== undefined && authzid !== '' && username(authzid) !== user) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    if (credential.iterations < this.scram.minIterations) {
      throw new SaslError(`Iterations ${credential.iterations} is less than the minimum ${this.scram.minIterations} for ${this.scram.name}`);
    }
    this.credential = credential;
    this.clientNonce = clientNonce;
    this.clientFirstBare = bare;
    this.nonce = clientNonce + randomBytes(18).toString('base64url');
    this.serverFirst = `r=${this.nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    this.state = 'RECEIVE_CLIENT_FINAL_MESSAGE';
    return Buffer.from(this.serverFirst, 'utf8');
  }

  private clientFinal(message: string): Buffer {
    const m = CLIENT_FINAL.exec(message);
    if (!m) throw new SaslError('Invalid SCRAM client final message format');
    const [, channel, nonce, proofText] = m as unknown as [string, string, string, string];
    // librdkafka before 2.6.1 sends the client nonce once more in front of the combined nonce.
    if (nonce !== this.nonce && nonce !== this.clientNonce + this.nonce) {
      throw new SaslError('Invalid client nonce in the final client message.');
    }
    const credential = this.credential!;
    const authMessage = `${this.clientFirstBare},${this.serverFirst},c=${channel},r=${nonce}`;
    const clientSignature = ScramFormatter.hmac(this.scram, credential.storedKey, authMessage);
    const proof = Buffer.from(proofText, 'base64');
    if (proof.length !== clientSignature.length) throw new SaslError('Invalid client credentials');
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    if (!timingSafeEqual(ScramFormatter.storedKey(this.scram, clientKey), credential.storedKey)) {
      throw new SaslError('Invalid client credentials');
    }
    const serverSignature = ScramFormatter.hmac(this.scram, credential.serverKey, authMessage);
    this.credential = undefined;
    this.state = 'COMPLETE';
    return Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8');
  }
}
