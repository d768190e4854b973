// The registry's operations, as Confluent's KafkaSchemaRegistry performs them: each write is one record
// appended to `_schemas` and answered once it is on disk, then applied to the in-memory state. Writes run
// one at a time, so version numbers and ids are allocated from a state no other write is changing.
import type { Logger } from 'pino';
import { parseAvro } from './avro.js';
import { checkedVersions, compatibilityErrors } from './compatibility.js';
import * as E from './errors.js';
import { parseJsonSchema } from './json-schema.js';
import { parseProtobuf } from './protobuf.js';
import type { Compatibility, ConfigValue, Mode, RegistryRecord, SchemaValue } from './records.js';
import { SchemaStore } from './store.js';
import { SCHEMA_TYPES, type ParsedSchema, type ResolvedReference, type SchemaReference, type SchemaType } from './schema-type.js';

/** Where the records go: `_schemas` on the broker's log, or memory in a unit test. */
export interface RegistryLog {
  /** Resolves once the records are durable. */
  append(records: readonly RegistryRecord[]): Promise<void>;
  /** The records appended since the last call (all of them, the first time). */
  readNew(): Promise<RegistryRecord[]>;
  /** Whether readNew has something to read. */
  hasNew(): boolean;
}

export interface SchemaRequest {
  schema?: unknown;
  schemaType?: unknown;
  references?: unknown;
  id?: unknown;
  version?: unknown;
}

const PARSERS: Record<SchemaType, (text: string, refs: readonly ResolvedReference[], normalize: boolean) => ParsedSchema> = {
  AVRO: parseAvro,
  JSON: parseJsonSchema,
  PROTOBUF: parseProtobuf,
};
const MAX_VERSION = 2 ** 31 - 1;

export class SchemaRegistry {
  readonly store = new SchemaStore();
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly log: RegistryLog, private readonly logger: Logger) {}

  async load(): Promise<void> {
    const records = await this.applyNew();
    this.logger.info({ records: records.length, subjects: this.store.subjectNames(true).length, maxId: this.store.maxId }, 'schema registry state rebuilt from _schemas');
  }

  /** Applies what `_schemas` holds past the last record applied: ours, and any another producer appended. */
  private async applyNew(): Promise<RegistryRecord[]> {
    const records = await this.log.readNew();
    for (const r of records) this.store.apply(r);
    return records;
  }

  /**
   * Brings the state up to the topic's end before a request is answered, as Confluent's KafkaStoreReaderThread
   * tails `_schemas`: records appended by another writer count from then on. Behind the writes in progress,
   * so that a record is seen only once it is on disk.
   */
  async catchUp(): Promise<void> {
    if (!this.log.hasNew()) return;
    const run = this.writes.then(() => this.applyNew());
    this.writes = run.catch(() => undefined);
    await run;
  }

  /**
   * Runs `fn` after every write before it, on the state caught up with the topic; its records are appended,
   * and read back and applied before the next starts (with any another writer put before them). What `fn`
   * notes is logged once the records are on disk.
   */
  private write<T>(fn: (note: (fields: Record<string, unknown>, msg: string) => void) => { records: RegistryRecord[]; result: T }): Promise<T> {
    const run = this.writes.then(async () => {
      await this.applyNew();
      const notes: Array<[Record<string, unknown>, string]> = [];
      const { records, result } = fn((fields, msg) => notes.push([fields, msg]));
      if (records.length === 0) return result;
      try {
        await this.log.append(records);
      } catch (err) {
        this.logger.error({ err }, 'schema registry write to _schemas failed');
        throw E.storeError(`Error while writing to the _schemas topic: ${(err as Error).message}`);
      }
      await this.applyNew();
      for (const [fields, msg] of notes) this.logger.info(fields, msg);
      return result;
    });
    this.writes = run.catch(() => undefined);
    return run;
  }

  private checkWritable(subject: string | null): void {
    const mode = this.store.effectiveMode(subject);
    if (mode === 'READONLY' || mode === 'READONLY_OVERRIDE') {
      throw E.operationNotPermitted(subject === null ? 'Global mode is read-only' : `Subject ${subject} is in read-only mode`);
    }
  }

  /** Parses a request's schema, its references resolved; 42201 when it does not parse. */
  parse(body: SchemaRequest, normalize: boolean): { parsed: ParsedSchema; references: SchemaReference[] } {
    const schemaType = body.schemaType === undefined || body.schemaType === null ? 'AVRO' : String(body.schemaType).toUpperCase();
    if (!SCHEMA_TYPES.includes(schemaType as SchemaType)) throw E.invalidSchema(`Invalid schema type ${String(body.schemaType)}`);
    if (typeof body.schema !== 'string' || body.schema.trim() === '') throw E.invalidSchema('Empty schema');
    const references = this.referencesOf(body.references);
    const resolved: ResolvedReference[] = [];
    this.resolve(references, resolved, new Set());
    try {
      return { parsed: PARSERS[schemaType as SchemaType](body.schema, resolved, normalize), references };
    } catch (err) {
      throw E.invalidSchema(`Invalid schema of type ${schemaType}, details: ${(err as Error).message}`);
    }
  }

  private referencesOf(raw: unknown): SchemaReference[] {
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) throw E.invalidSchema('references must be an array');
    return raw.map((r: Record<string, unknown>) => {
      if (typeof r?.name !== 'string' || typeof r.subject !== 'string' || typeof r.version !== 'number') {
        throw E.invalidSchema('Invalid reference: name, subject and version are required');
      }
      return { name: r.name, subject: r.subject, version: r.version };
    });
  }

  /** The referenced schemas, theirs first (depth first), each once. */
  private resolve(refs: readonly SchemaReference[], out: ResolvedReference[], seen: Set<string>): void {
    for (const ref of refs) {
      const v = ref.version === -1 ? this.store.versions(ref.subject, false).at(-1) : this.store.version(ref.subject, ref.version);
      if (!v) throw E.invalidSchema(`Invalid schema, details: reference ${ref.name} to subject ${ref.subject} version ${ref.version} not found`);
      const key = `${v.subject}\0${v.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.resolve(v.references, out, seen);
      out.push({ name: ref.name, type: v.schemaType, text: v.schema });
    }
  }

  /** The stored version parsed again, for a compatibility check. */
  private parsedVersion(v: SchemaValue): ParsedSchema {
    return this.parse({ schema: v.schema, schemaType: v.schemaType, references: v.references }, false).parsed;
  }

  private normalizeFor(subject: string, asked: boolean): boolean {
    return asked || (this.store.config(subject)?.normalize ?? this.store.config(null)?.normalize ?? false);
  }

  register(subject: string, body: SchemaRequest, normalizeAsked: boolean): Promise<{ id: number }> {
    return this.write((note) => {
      this.checkWritable(subject);
      const mode = this.store.effectiveMode(subject);
      const { parsed, references } = this.parse(body, this.normalizeFor(subject, normalizeAsked));
      const all = this.store.versions(subject, true);
      const live = all.filter((v) => !v.deleted);
      const same = live.find((v) => v.schemaType === parsed.type && v.schema === parsed.text && JSON.stringify(v.references) === JSON.stringify(references));
      const askedId = typeof body.id === 'number' && body.id >= 0 ? body.id : -1;
      if (same && (askedId < 0 || askedId === same.id)) return { records: [], result: { id: same.id } };
      if (askedId >= 0 && mode !== 'IMPORT') throw E.operationNotPermitted('Subject is not in import mode');
      if (mode !== 'IMPORT') {
        const level = this.store.compatibility(subject);
        const errors = compatibilityErrors(level, parsed, checkedVersions(level, live).map((v) => this.parsedVersion(v)));
        if (errors.length > 0) throw E.incompatible(subject, errors);
      }
      let id = askedId;
      if (id >= 0) {
        const holder = this.store.byId(id)[0];
        if (holder && holder.schema !== parsed.text) throw new E.SchemaRegistryError(422, 42207, `Schema already registered with id ${id} instead of input id`);
      } else {
        id = this.store.idOf(parsed.type, parsed.text, references) ?? this.store.maxId + 1;
      }
      const version = typeof body.version === 'number' && body.version > 0 && mode === 'IMPORT' ? body.version : (all.at(-1)?.version ?? 0) + 1;
      const value: SchemaValue = { subject, version, id, schemaType: parsed.type, references, schema: parsed.text, deleted: false };
      note({ subject, version, id, schemaType: parsed.type }, 'schema registered');
      return { records: [{ keytype: 'SCHEMA', subject, version, value }], result: { id } };
    });
  }

  /** POST /subjects/{s}: the version of `subject` holding this schema. */
  lookup(subject: string, body: SchemaRequest, normalize: boolean, includeDeleted: boolean): SchemaValue {
    const all = this.store.versions(subject, includeDeleted);
    if (all.length === 0) throw E.subjectNotFound(subject);
    const { parsed, references } = this.parse(body, this.normalizeFor(subject, normalize));
    const found = all.filter((v) => v.schemaType === parsed.type && v.schema === parsed.text && JSON.stringify(v.references) === JSON.stringify(references)).at(-1);
    if (!found) throw E.schemaNotFound();
    return found;
  }

  /** Parses a path's version: 'latest' or -1, else an integer in [1, 2^31-1]; 42202 otherwise. */
  static parseVersion(raw: string): number | 'latest' {
    if (raw === 'latest' || raw === '-1') return 'latest';
    if (!/^\d+$/.test(raw)) throw E.invalidVersion(raw);
    const n = Number(raw);
    if (n < 1 || n > MAX_VERSION) throw E.invalidVersion(raw);
    return n;
  }

  getVersion(subject: string, raw: string, includeDeleted: boolean): SchemaValue {
    const version = SchemaRegistry.parseVersion(raw);
    const all = this.store.versions(subject, includeDeleted);
    if (all.length === 0) throw E.subjectNotFound(subject);
    const found = version === 'latest' ? all.at(-1) : all.find((v) => v.version === version);
    if (!found) throw E.versionNotFound(raw);
    return found;
  }

  deleteVersion(subject: string, raw: string, permanent: boolean): Promise<number> {
    return this.write((note) => {
      this.checkWritable(subject);
      const version = SchemaRegistry.parseVersion(raw);
      if (this.store.versions(subject, true).length === 0) throw E.subjectNotFound(subject);
      // 'latest' of a permanent delete may be a soft-deleted version, which is what it removes.
      const v = version === 'latest' ? this.store.versions(subject, permanent).at(-1) : this.store.version(subject, version);
      if (!v) throw E.versionNotFound(raw);
      if (this.store.referencedBy(subject, v.version, permanent).length > 0) throw E.referenceExists(`${subject}/${v.version}`);
      if (permanent) {
        if (!v.deleted) throw E.versionNotSoftDeleted(subject, v.version);
        note({ subject, version: v.version, id: v.id }, 'schema version deleted permanently');
        return { records: [{ keytype: 'SCHEMA', subject, version: v.version, value: null }], result: v.version };
      }
      if (v.deleted) throw E.versionSoftDeleted(subject, v.version);
      note({ subject, version: v.version, id: v.id }, 'schema version soft-deleted');
      return { records: [{ keytype: 'SCHEMA', subject, version: v.version, value: { ...v, deleted: true } }], result: v.version };
    });
  }

  deleteSubject(subject: string, permanent: boolean): Promise<number[]> {
    return this.write((note) => {
      this.checkWritable(subject);
      const all = this.store.versions(subject, true);
      if (all.length === 0) throw E.subjectNotFound(subject);
      const live = all.filter((v) => !v.deleted);
      for (const v of all) {
        const others = this.store.referencedBy(subject, v.version, permanent).filter((r) => r.subject !== subject);
        if (others.length > 0) throw E.referenceExists(`${subject}/${v.version}`);
      }
      if (permanent) {
        if (live.length > 0) throw E.subjectNotSoftDeleted(subject);
        // Highest version first, for references within the subject (KafkaSchemaRegistry.deleteSubject).
        const records: RegistryRecord[] = [...all].reverse().map((v) => ({ keytype: 'SCHEMA', subject, version: v.version, value: null }));
        if (this.store.mode(subject) !== undefined) records.push({ keytype: 'MODE', subject, value: null });
        if (this.store.config(subject) !== undefined) records.push({ keytype: 'CONFIG', subject, value: null });
        note({ subject, versions: all.map((v) => v.version) }, 'subject deleted permanently');
        return { records, result: all.map((v) => v.version) };
      }
      if (live.length === 0) throw E.subjectSoftDeleted(subject);
      note({ subject, versions: live.map((v) => v.version) }, 'subject soft-deleted');
      return { records: [{ keytype: 'DELETE_SUBJECT', subject, value: { version: live.at(-1)!.version } }], result: live.map((v) => v.version) };
    });
  }

  /** POST /compatibility/subjects/{s}/versions[/{v}]: against one version, or (no version) as a registration would check. */
  checkCompatibility(subject: string, raw: string | null, body: SchemaRequest, normalize: boolean): string[] {
    const { parsed } = this.parse(body, this.normalizeFor(subject, normalize));
    const level = this.store.compatibility(subject);
    if (raw === null) return compatibilityErrors(level, parsed, checkedVersions(level, this.store.versions(subject, false)).map((v) => this.parsedVersion(v)));
    const v = this.getVersion(subject, raw, false);
    // One version named: the level's direction against it alone (Confluent's testCompatibility).
    return compatibilityErrors(level.replace('_TRANSITIVE', '') as Compatibility, parsed, [this.parsedVersion(v)]);
  }

  setConfig(subject: string | null, config: ConfigValue): Promise<ConfigValue> {
    return this.write((note) => {
      if (subject !== null) this.checkWritable(subject);
      const merged = { ...this.store.config(subject), ...config };
      note({ subject, config: merged }, 'schema registry config set');
      return { records: [{ keytype: 'CONFIG', subject, value: merged }], result: config };
    });
  }

  deleteConfig(subject: string | null): Promise<ConfigValue> {
    return this.write((note) => {
      const before = this.store.config(subject);
      if (subject !== null && before === undefined) throw E.subjectConfigNotFound(subject);
      note({ subject }, 'schema registry config deleted');
      return { records: [{ keytype: 'CONFIG', subject, value: null }], result: before ?? { compatibilityLevel: 'BACKWARD' } };
    });
  }

  setMode(subject: string | null, mode: Mode, force: boolean): Promise<Mode> {
    return this.write((note) => {
      // Confluent refuses IMPORT over existing schemas unless forced (KafkaSchemaRegistry.setMode).
      const existing = subject === null ? this.store.subjectNames(false).length : this.store.versions(subject, false).length;
      if (mode === 'IMPORT' && !force && existing > 0) {
        throw E.operationNotPermitted('Cannot import since found existing subjects');
      }
      note({ subject, mode }, 'schema registry mode set');
      return { records: [{ keytype: 'MODE', subject, value: mode }], result: mode };
    });
  }

  deleteMode(subject: string): Promise<Mode> {
    return this.write((note) => {
      const before = this.store.mode(subject);
      if (before === undefined) throw E.subjectModeNotFound(subject);
      note({ subject }, 'schema registry mode deleted');
      return { records: [{ keytype: 'MODE', subject, value: null }], result: before };
    });
  }
}
