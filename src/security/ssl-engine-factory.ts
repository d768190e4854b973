// TLS for SSL and SASL_SSL listeners from Kafka's ssl.* keys (Kafka's DefaultSslEngineFactory): keystore and
// truststore as JKS (Kafka's default type), PKCS12 or PEM (file or inline), client auth, protocols, cipher suites.
import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { createSecureContext, type SecureContextOptions, type SecureVersion } from 'node:tls';
import type * as JksJs from 'jks-js';
import type * as Forge from 'node-forge';
import type { BrokerConfig } from '../../config/broker-config.js';
import { SslPrincipalMapper, SslPrincipalMappingError } from './ssl-principal-mapper.js';

/** A keystore or truststore that cannot be used: start-up stops with this one line. */
export class SslConfigError extends Error {
  override name = 'SslConfigError';
  constructor(listenerName: string, key: string, detail: string) {
    super(`Invalid SSL configuration for listener ${listenerName}: ${key}: ${detail}`);
  }
}

type ClientAuth = 'none' | 'requested' | 'required';

export interface ListenerSsl {
  /** Key, chain, CAs, ciphers and protocol bounds, checked by building a context once at start-up. */
  readonly contextOptions: SecureContextOptions;
  readonly clientAuth: ClientAuth;
  readonly principalMapper: SslPrincipalMapper;
}

interface KeyMaterial {
  key: string;
  cert: string;
}

const PROTOCOL_ORDER: readonly SecureVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

function csv(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Java's cipher suite names (IANA, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) as OpenSSL spells them
 * (ECDHE-RSA-AES128-GCM-SHA256). TLS 1.3 suites (TLS_AES_128_GCM_SHA256) are the same in both.
 */
export function openSslCipherName(iana: string): string {
  const m = /^TLS_(.+)_WITH_(.+)$/.exec(iana);
  if (!m) return iana;
  const kx = m[1] === 'RSA' ? '' : `${m[1]!.replace(/_/g, '-')}-`;
  const cipher = m[2]!
    .replace(/^AES_(\d+)_GCM_(SHA\d+)$/, 'AES$1-GCM-$2')
    .replace(/^AES_(\d+)_CBC_(SHA\d*)$/, 'AES$1-$2')
    .replace(/^CHACHA20_POLY1305_SHA256$/, 'CHACHA20-POLY1305');
  return kx + cipher;
}

function readStoreFile(listenerName: string, key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new SslConfigError(listenerName, key, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

// Loaded on first use: jks-js and node-forge under it are 59 modules, about 50 ms of every start-up,
// and only a listener with a JKS or PKCS12 store needs them.
const requireLazily = createRequire(import.meta.url);
let jksJs: typeof JksJs | undefined;
let forge: typeof Forge | undefined;

/** A JKS file starts with 0xFEEDFEED; anything else is taken for PKCS12 (DER). */
function isJks(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32BE(0) === 0xfeedfeed;
}

/** What a keystore or truststore holds, as PEM. */
interface StoreContents {
  /** The private key entry's key, and the chain a server presents with it (its certificate first). */
  key?: { pem: string; chain: string[] };
  /** Every certificate in the store (a truststore's trusted ones). */
  certs: string[];
}

/**
 * A PKCS12 store through node-forge's PKCS#12 reader, which reads what OpenSSL's `pkcs12 -export` writes (with
 * or without -name, with -certfile, -legacy's RC2/3DES and the default AES/PBKDF2) and keytool's, as Java's
 * PKCS12 KeyStore does. Not Node's `pfx`: OpenSSL 3 refuses -legacy files without its legacy provider, and a
 * pfx's extra certificates become trusted for client certificates, which a Kafka keystore's never are.
 */
function pkcs12Contents(bytes: Buffer, password: string): StoreContents {
  forge ??= requireLazily('node-forge') as typeof Forge;
  const { asn1, pkcs12, pki } = forge;
  const p12 = pkcs12.pkcs12FromAsn1(asn1.fromDer(bytes.toString('binary'), false), false, password);
  const der = (node: Forge.asn1.Asn1) => Buffer.from(asn1.toDer(node).getBytes(), 'binary');
  const keyBags = [pki.oids.pkcs8ShroudedKeyBag!, pki.oids.keyBag!].flatMap((bagType) => p12.getBags({ bagType })[bagType] ?? []);
  // An RSA key forge decodes; any other type it leaves as its PrivateKeyInfo.
  const keyBag = keyBags[0];
  const key = keyBag === undefined ? undefined : createPrivateKey({
    key: keyBag.key ? der(pki.wrapRsaPrivateKey(pki.privateKeyToAsn1(keyBag.key))) : der(keyBag.asn1!),
    format: 'der',
    type: 'pkcs8',
  });
  const certBags = p12.getBags({ bagType: pki.oids.certBag! })[pki.oids.certBag!] ?? [];
  const certs = certBags.map((b) => new X509Certificate(b.cert ? der(pki.certificateToAsn1(b.cert)) : der(b.asn1!)));
  const leaf = key === undefined ? -1 : certs.findIndex((c) => c.checkPrivateKey(key));
  const pems = certs.map((c) => c.toString());
  if (key === undefined || leaf < 0) return { certs: pems };
  // The key's certificate, then the others in file order (OpenSSL's -certfile: the issuers).
  return { key: { pem: key.export({ format: 'pem', type: 'pkcs8' }).toString(), chain: [pems[leaf]!, ...pems.filter((_, i) => i !== leaf)] }, certs: pems };
}

/** A JKS store through jks-js: its key entry and every certificate. */
function jksContents(bytes: Buffer, password: string, keyPassword?: string): StoreContents {
  jksJs ??= requireLazily('jks-js') as typeof JksJs;
  const entries = Object.values(jksJs.toPem(bytes, password, keyPassword));
  const entry = entries.find((e) => e.key !== undefined && e.cert !== undefined);
  const certs = entries.flatMap((e) => [e.ca, e.cert]).filter((c): c is string => c !== undefined);
  return entry ? { key: { pem: entry.key!, chain: [entry.cert!] }, certs } : { certs };
}

/** JKS or PKCS12, told apart by content as Java's keystore loader does (keystore.type.compat). */
function javaStoreContents(listenerName: string, store: 'keystore' | 'truststore', path: string, password: string, keyPassword?: string): StoreContents {
  const bytes = readStoreFile(listenerName, `ssl.${store}.location`, path);
  try {
    return isJks(bytes) ? jksContents(bytes, password, keyPassword) : pkcs12Contents(bytes, password);
  } catch (err) {
    throw new SslConfigError(listenerName, `ssl.${store}.password`, `cannot load ${path} (wrong password or not a keystore): ${(err as Error).message}`);
  }
}

export class SslEngineFactory {
  constructor(
    private readonly config: BrokerConfig,
    private readonly listenerName: string,
  ) {}

  private value(key: string): string | undefined {
    return this.config.listenerValue(this.listenerName, key);
  }

  private fail(key: string, detail: string): never {
    throw new SslConfigError(this.listenerName, key, detail);
  }

  /** Builds the listener's TLS context; throws SslConfigError naming the key and file at fault. */
  build(): ListenerSsl {
    const keyMaterial = this.keystore();
    const ca = this.truststore();
    const clientAuth = (this.value('ssl.client.auth') ?? 'none').toLowerCase();
    if (clientAuth !== 'none' && clientAuth !== 'requested' && clientAuth !== 'required') {
      this.fail('ssl.client.auth', `expected none, requested or required, got ${clientAuth}`);
    }
    if (clientAuth !== 'none' && ca === undefined) {
      this.fail('ssl.truststore.location', `ssl.client.auth=${clientAuth} needs a truststore to verify client certificates`);
    }
    const protocols = csv(this.value('ssl.enabled.protocols'));
    const enabled = PROTOCOL_ORDER.filter((p) => protocols.includes(p));
    if (enabled.length === 0) this.fail('ssl.enabled.protocols', `none of ${protocols.join(',')} is one of ${PROTOCOL_ORDER.join(', ')}`);
    const suites = csv(this.value('ssl.cipher.suites'));
    const contextOptions: SecureContextOptions = {
      key: keyMaterial.key,
      cert: keyMaterial.cert,
      ...(ca !== undefined ? { ca } : {}),
      ...(suites.length > 0 ? { ciphers: suites.map(openSslCipherName).join(':') } : {}),
      minVersion: enabled[0]!,
      maxVersion: enabled[enabled.length - 1]!,
    };
    try {
      createSecureContext(contextOptions);
    } catch (err) {
      const key = /cipher/i.test((err as Error).message) ? 'ssl.cipher.suites' : 'ssl.keystore.location';
      this.fail(key, (err as Error).message);
    }
    let principalMapper: SslPrincipalMapper;
    try {
      principalMapper = SslPrincipalMapper.fromRules(this.value('ssl.principal.mapping.rules') ?? 'DEFAULT');
    } catch (err) {
      if (!(err instanceof SslPrincipalMappingError)) throw err;
      this.fail('ssl.principal.mapping.rules', err.message);
    }
    return {
      contextOptions,
      clientAuth: clientAuth as ClientAuth,
      principalMapper,
    };
  }

  private keystore(): KeyMaterial {
    const type = (this.value('ssl.keystore.type') ?? 'JKS').toUpperCase();
    const location = this.value('ssl.keystore.location');
    const password = this.value('ssl.keystore.password');
    const keyPassword = this.value('ssl.key.password');
    if (type === 'PEM') return this.pemKeystore(location, keyPassword);
    if (type !== 'JKS' && type !== 'PKCS12') this.fail('ssl.keystore.type', `expected JKS, PKCS12 or PEM, got ${type}`);
    if (location === undefined) this.fail('ssl.keystore.location', 'not set; SSL and SASL_SSL listeners need a keystore');
    if (password === undefined) this.fail('ssl.keystore.password', `not set for keystore ${location}`);
    const contents = javaStoreContents(this.listenerName, 'keystore', location, password, keyPassword ?? password);
    if (contents.key === undefined) this.fail('ssl.keystore.location', `${location} holds no private key entry`);
    return { key: contents.key.pem, cert: contents.key.chain.join('\n') };
  }

  /** PEM keystore: a file with the key and its chain, or inline ssl.keystore.key / ssl.keystore.certificate.chain. */
  private pemKeystore(location: string | undefined, keyPassword: string | undefined): KeyMaterial {
    let text: string;
    let keyName = 'ssl.keystore.key';
    if (location !== undefined) {
      text = readStoreFile(this.listenerName, 'ssl.keystore.location', location).toString('utf8');
      keyName = 'ssl.keystore.location';
    } else {
      const key = this.value('ssl.keystore.key');
      const chain = this.value('ssl.keystore.certificate.chain');
      if (key === undefined || chain === undefined) {
        this.fail('ssl.keystore.key', 'PEM keystores need ssl.keystore.location or both ssl.keystore.key and ssl.keystore.certificate.chain');
      }
      text = `${key}\n${chain}`;
    }
    const keyPem = /-----BEGIN (?:ENCRYPTED |RSA |EC )?PRIVATE KEY-----[\s\S]+?-----END (?:ENCRYPTED |RSA |EC )?PRIVATE KEY-----/.exec(text)?.[0];
    const certs = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
    if (!keyPem) this.fail(keyName, `${location ?? 'the inline PEM'} holds no private key`);
    if (!certs) this.fail(location !== undefined ? keyName : 'ssl.keystore.certificate.chain', `${location ?? 'the inline PEM'} holds no certificate`);
    let key: string;
    try {
      // An encrypted key is decrypted with ssl.key.password; a wrong one fails here, at start-up.
      key = createPrivateKey({ key: keyPem, format: 'pem', ...(keyPassword !== undefined ? { passphrase: keyPassword } : {}) })
        .export({ format: 'pem', type: 'pkcs8' })
        .toString();
    } catch (err) {
      this.fail('ssl.key.password', `cannot decrypt the private key in ${location ?? 'ssl.keystore.key'}: ${(err as Error).message}`);
    }
    return { key, cert: certs.join('\n') };
  }

  /** CA certificates that verify client certificates; undefined when no truststore is configured. */
  private truststore(): string[] | undefined {
    const type = (this.value('ssl.truststore.type') ?? 'JKS').toUpperCase();
    const location = this.value('ssl.truststore.location');
    if (type === 'PEM') {
      const text = location !== undefined
        ? readStoreFile(this.listenerName, 'ssl.truststore.location', location).toString('utf8')
        : this.value('ssl.truststore.certificates');
      if (text === undefined) return undefined;
      const certs = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
      if (!certs) this.fail(location !== undefined ? 'ssl.truststore.location' : 'ssl.truststore.certificates', `${location ?? 'the inline PEM'} holds no certificate`);
      return certs;
    }
    if (type !== 'JKS' && type !== 'PKCS12') this.fail('ssl.truststore.type', `expected JKS, PKCS12 or PEM, got ${type}`);
    if (location === undefined) return undefined;
    // Java opens a truststore without a password too (no integrity check); jks-js needs one, so '' stands in.
    const password = this.value('ssl.truststore.password') ?? '';
    const { certs } = javaStoreContents(this.listenerName, 'truststore', location, password);
    if (certs.length === 0) this.fail('ssl.truststore.location', `${location} holds no certificate`);
    return certs;
  }
}
