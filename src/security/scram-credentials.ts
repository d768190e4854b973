// SCRAM credentials (salt, StoredKey, ServerKey, iterations; never a password), managed by
// AlterUserScramCredentials as Kafka's ScramControlManager does and kept in the cluster metadata log as
// UserScramCredentialRecord / RemoveUserScramCredentialRecord, replayed at start-up.
import { createHash, createHmac, pbkdf2 } from 'node:crypto';
import { Reader, Writer } from '../../protocol/primitives.js';
import { ErrorCode } from '../errors.js';

export interface ScramMechanism {
  readonly name: 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
  /** Kafka's ScramMechanism type in AlterUserScramCredentials and the metadata records. */
  readonly type: number;
  readonly hash: 'sha256' | 'sha512';
  readonly keyLength: number;
  readonly minIterations: number;
}

const SCRAM_MECHANISMS: readonly ScramMechanism[] = [
  { name: 'SCRAM-SHA-256', type: 1, hash: 'sha256', keyLength: 32, minIterations: 4096 },
  { name: 'SCRAM-SHA-512', type: 2, hash: 'sha512', keyLength: 64, minIterations: 4096 },
];
/** ScramControlManager.MAX_ITERATIONS. */
const MAX_ITERATIONS = 16384;

export function scramMechanismByName(name: string): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.name === name);
}

function scramMechanismByType(type: number): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.type === type);
}

export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

/** Kafka's ScramFormatter: the RFC 5802 primitives. */
export const ScramFormatter = {
  hmac(m: ScramMechanism, key: Buffer, data: Buffer | string): Buffer {
    return createHmac(m.hash, key).update(data).digest();
  },
  hash(m: ScramMechanism, data: Buffer): Buffer {
    return createHash(m.hash).update(data).digest();
  },
  clientKey(m: ScramMechanism, saltedPassword: Buffer): Buffer {
    return ScramFormatter.hmac(m, saltedPassword, 'Client Key');
  },
  storedKey(m: ScramMechanism, clientKey: Buffer): Buffer {
    return ScramFormatter.hash(m, clientKey);
  },
  serverKey(m: ScramMechanism, saltedPassword: Buffer): Buffer {
    return ScramFormatter.hmac(m, saltedPassword, 'Server Key');
  },
  /** Hi() of RFC 5802 (PBKDF2), on libuv's thread pool so the event loop keeps serving. */
  saltedPassword(m: ScramMechanism, password: string, salt: Buffer, iterations: number): Promise<Buffer> {
    return new Promise((resolve, reject) =>
      pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, m.keyLength, m.hash, (err, key) => (err ? reject(err) : resolve(key))),
    );
  },
  credential(m: ScramMechanism, saltedPassword: Buffer, salt: Buffer, iterations: number): ScramCredential {
    return {
      salt,
      storedKey: ScramFormatter.storedKey(m, ScramFormatter.clientKey(m, saltedPassword)),
      serverKey: ScramFormatter.serverKey(m, saltedPassword),
      iterations,
    };
  },
};

const USER_SCRAM_CREDENTIAL_RECORD = 11;
const REMOVE_USER_SCRAM_CREDENTIAL_RECORD = 22;

export interface UserScramCredentialRecord extends ScramCredential {
  readonly name: string;
  readonly mechanism: number;
}

/** UserScramCredentialRecord v0 (flexible): compact string, int8, compact bytes x3, int32, tagged fields. */
export function encodeUserScramCredentialRecord(r: UserScramCredentialRecord): Buffer {
  return new Writer(64 + r.name.length + r.salt.length + r.storedKey.length + r.serverKey.length)
    .string(r.name, true)
    .int8(r.mechanism)
    .bytes(r.salt, true)
    .bytes(r.storedKey, true)
    .bytes(r.serverKey, true)
    .int32(r.iterations)
    .taggedFields()
    .toBuffer();
}

export function decodeUserScramCredentialRecord(body: Buffer): UserScramCredentialRecord {
  const r = new Reader(body);
  const name = r.string(true);
  const mechanism = r.int8();
  const salt = Buffer.from(r.bytes(true));
  const storedKey = Buffer.from(r.bytes(true));
  const serverKey = Buffer.from(r.bytes(true));
  const iterations = r.int32();
  r.skipTaggedFields();
  return { name, mechanism, salt, storedKey, serverKey, iterations };
}

/** RemoveUserScramCredentialRecord v0 (flexible): compact string, int8, tagged fields. */
export function encodeRemoveUserScramCredentialRecord(name: string, mechanism: number): Buffer {
  return new Writer(16 + name.length).string(name, true).int8(mechanism).taggedFields().toBuffer();
}

export function decodeRemoveUserScramCredentialRecord(body: Buffer): { name: string; mechanism: number } {
  const r = new Reader(body);
  const name = r.string(true);
  const mechanism = r.int8();
  r.skipTaggedFields();
  return { name, mechanism };
}

export interface MetadataRecordLike {
  readonly type: number;
  readonly version: number;
  readonly body: Buffer;
}

/** What the cluster metadata log offers this store. */
export interface MetadataLogLike {
  append(records: MetadataRecordLike[]): Promise<void>;
}

export interface ScramDeletion {
  name: string;
  mechanism: number;
}

export interface ScramUpsertion {
  name: string;
  mechanism: number;
  iterations: number;
  salt: Buffer;
  saltedPassword: Buffer;
}

export interface AlterResult {
  user: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface DescribeResult {
  user: string;
  errorCode: number;
  errorMessage: string | null;
  credentialInfos: Array<{ mechanism: number; iterations: number }>;
}

function keyOf(name: string, mechanism: number): string {
  return `${mechanism}:${name}`;
}

export class ScramCredentialStore {
  private readonly credentials = new Map<string, UserScramCredentialRecord>();
  /** Alterations persist one after another, so the log holds them in the order they were answered. */
  private tail: Promise<unknown> = Promise.resolve();

  /** Its credentials come from replay. */
  constructor(private readonly log: MetadataLogLike | null) {}

  replay(record: MetadataRecordLike): void {
    if (record.type === USER_SCRAM_CREDENTIAL_RECORD) {
      const r = decodeUserScramCredentialRecord(record.body);
      this.credentials.set(keyOf(r.name, r.mechanism), r);
    } else if (record.type === REMOVE_USER_SCRAM_CREDENTIAL_RECORD) {
      const r = decodeRemoveUserScramCredentialRecord(record.body);
      this.credentials.delete(keyOf(r.name, r.mechanism));
    }
  }

  get(name: string, mechanism: ScramMechanism): ScramCredential | undefined {
    return this.credentials.get(keyOf(name, mechanism.type));
  }

  get size(): number {
    return this.credentials.size;
  }

  /** Kafka's ScramControlManager.alterCredentials: validates every entry, then appends the records atomically. */
  async alter(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): Promise<AlterResult[]> {
    const errors = new Map<string, [number, string]>();
    const toDelete = new Map<string, ScramDeletion>();
    const toUpsert = new Map<string, ScramUpsertion>();
    const duplicate: [number, string] = [ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'];
    for (const d of deletions) {
      if (errors.has(d.name)) continue;
      if (toDelete.delete(d.name)) {
        errors.set(d.name, duplicate);
        continue;
      }
      const error = validateName(d.name, d.mechanism) ??
        (this.credentials.has(keyOf(d.name, d.mechanism))
          ? null
          : ([ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'] as [number, string]));
      if (error) errors.set(d.name, error);
      else toDelete.set(d.name, d);
    }
    for (const u of upsertions) {
      if (errors.has(u.name)) continue;
      if (toDelete.delete(u.name) || toUpsert.delete(u.name)) {
        errors.set(u.name, duplicate);
        continue;
      }
      const error = validateName(u.name, u.mechanism) ??
        (u.iterations < scramMechanismByType(u.mechanism)!.minIterations
          ? ([ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'] as [number, string])
          : u.iterations > MAX_ITERATIONS
            ? ([ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'] as [number, string])
            : null);
      if (error) errors.set(u.name, error);
      else toUpsert.set(u.name, u);
    }
    const records: MetadataRecordLike[] = [];
    const results: AlterResult[] = [];
    for (const d of toDelete.values()) {
      records.push({ type: REMOVE_USER_SCRAM_CREDENTIAL_RECORD, version: 0, body: encodeRemoveUserScramCredentialRecord(d.name, d.mechanism) });
      results.push({ user: d.name, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    for (const u of toUpsert.values()) {
      const m = scramMechanismByType(u.mechanism)!;
      const credential = ScramFormatter.credential(m, u.saltedPassword, u.salt, u.iterations);
      records.push({
        type: USER_SCRAM_CREDENTIAL_RECORD,
        version: 0,
        body: encodeUserScramCredentialRecord({ name: u.name, mechanism: u.mechanism, ...credential }),
      });
      results.push({ user: u.name, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    for (const [user, [errorCode, errorMessage]] of errors) results.push({ user, errorCode, errorMessage });
    if (records.length > 0) {
      const appended = this.tail.then(() => this.log?.append(records));
      this.tail = appended.catch(() => undefined);
      await appended;
      for (const record of records) this.replay(record);
    }
    return results;
  }

  /** DescribeUserScramCredentials: every user with credentials when `users` is null or empty. */
  describe(users: readonly string[] | null): DescribeResult[] {
    const byUser = new Map<string, Array<{ mechanism: number; iterations: number }>>();
    for (const c of this.credentials.values()) {
      const infos = byUser.get(c.name) ?? [];
      infos.push({ mechanism: c.mechanism, iterations: c.iterations });
      byUser.set(c.name, infos);
    }
    if (users === null || users.length === 0) {
      return [...byUser].map(([user, credentialInfos]) => ({ user, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos }));
    }
    const seen = new Set<string>();
    const duplicates = new Set(users.filter((u) => (seen.has(u) ? true : (seen.add(u), false))));
    return [...new Set(users)].map((user) => {
      if (duplicates.has(user)) {
        return { user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: 'Cannot describe SCRAM credentials for the same user twice in a single request', credentialInfos: [] };
      }
      const credentialInfos = byUser.get(user);
      if (!credentialInfos) {
        return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to describe a user credential that does not exist', credentialInfos: [] };
      }
      return { user, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos };
    });
  }
}

function validateName(name: string, mechanism: number): [number, string] | null {
  if (name === '') return [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'];
  if (!scramMechanismByType(mechanism)) return [ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'];
  return null;
}
