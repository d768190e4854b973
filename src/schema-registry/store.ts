// The registry's state, as Confluent's lookup cache keeps it: built by applying `_schemas` records in
// offset order, at start-up and after each write of ours. Nothing here writes; registry.ts does.
import type { Compatibility, ConfigValue, Mode, RegistryRecord, SchemaValue } from './records.js';

export class SchemaStore {
  /** subject -> version -> value (soft-deleted ones flagged). */
  private readonly subjects = new Map<string, Map<number, SchemaValue>>();
  private readonly configs = new Map<string | null, ConfigValue>();
  private readonly modes = new Map<string | null, Mode>();
  /** id -> the versions holding it: GET /schemas/ids/{id} is what every deserializer asks on a cache miss. */
  private readonly ids = new Map<number, Set<SchemaValue>>();
  /** An equal schema's content key -> its id, for registrations. */
  private readonly contents = new Map<string, number>();
  /**
   * The highest id ever read, tombstoned ones included: Confluent's IncrementalIdGenerator hands out max + 1,
   * so a hard-deleted schema's id is not given again while its record is in the topic.
   */
  maxId = 0;

  apply(r: RegistryRecord): void {
    switch (r.keytype) {
      case 'SCHEMA': {
        let versions = this.subjects.get(r.subject);
        const before = versions?.get(r.version);
        if (before) this.ids.get(before.id)?.delete(before);
        if (r.value === null) {
          versions?.delete(r.version);
          if (versions?.size === 0) this.subjects.delete(r.subject);
          return;
        }
        if (!versions) this.subjects.set(r.subject, (versions = new Map()));
        versions.set(r.version, r.value);
        let holders = this.ids.get(r.value.id);
        if (!holders) this.ids.set(r.value.id, (holders = new Set()));
        holders.add(r.value);
        this.contents.set(contentKey(r.value.schemaType, r.value.schema, r.value.references), r.value.id);
        this.maxId = Math.max(this.maxId, r.value.id);
        return;
      }
      case 'CONFIG':
        if (r.value === null) this.configs.delete(r.subject);
        else this.configs.set(r.subject, r.value);
        return;
      case 'MODE':
        if (r.value === null) this.modes.delete(r.subject);
        else this.modes.set(r.subject, r.value);
        return;
      case 'DELETE_SUBJECT':
        // Every version up to the one named is soft-deleted (KafkaStoreMessageHandler).
        if (r.value === null) return;
        for (const v of this.subjects.get(r.subject)?.values() ?? []) if (v.version <= r.value.version) v.deleted = true;
        return;
      case 'CLEAR_SUBJECT': {
        const versions = this.subjects.get(r.subject);
        for (const [n, v] of versions ?? []) {
          if (!v.deleted) continue;
          versions!.delete(n);
          this.ids.get(v.id)?.delete(v);
        }
        if (versions?.size === 0) this.subjects.delete(r.subject);
        return;
      }
      case 'NOOP':
        return;
    }
  }

  subjectNames(includeDeleted: boolean): string[] {
    return [...this.subjects].filter(([, vs]) => includeDeleted || [...vs.values()].some((v) => !v.deleted)).map(([s]) => s).sort();
  }

  /** The subject's versions in order, soft-deleted ones only when asked. */
  versions(subject: string, includeDeleted: boolean): SchemaValue[] {
    const vs = [...(this.subjects.get(subject)?.values() ?? [])].filter((v) => includeDeleted || !v.deleted);
    return vs.sort((a, b) => a.version - b.version);
  }

  version(subject: string, version: number): SchemaValue | undefined {
    return this.subjects.get(subject)?.get(version);
  }

  /** Every stored version of the schema with this id, in the order they were written. */
  byId(id: number): SchemaValue[] {
    return [...(this.ids.get(id) ?? [])];
  }

  /**
   * The id of an equal schema registered under any subject, deleted or not, which a registration reuses
   * (Confluent's lookup by MD5 of the schema); undefined once every version holding it is gone.
   */
  idOf(schemaType: string, schema: string, references: SchemaValue['references']): number | undefined {
    const id = this.contents.get(contentKey(schemaType, schema, references));
    return id !== undefined && (this.ids.get(id)?.size ?? 0) > 0 ? id : undefined;
  }

  /** Versions whose references name subject/version. */
  referencedBy(subject: string, version: number, includeDeleted: boolean): SchemaValue[] {
    const out: SchemaValue[] = [];
    for (const vs of this.subjects.values()) {
      for (const v of vs.values()) {
        if ((includeDeleted || !v.deleted) && v.references.some((r) => r.subject === subject && r.version === version)) out.push(v);
      }
    }
    return out;
  }

  config(subject: string | null): ConfigValue | undefined {
    return this.configs.get(subject);
  }

  compatibility(subject: string | null): Compatibility {
    return (subject !== null ? this.configs.get(subject)?.compatibilityLevel : undefined) ?? this.configs.get(null)?.compatibilityLevel ?? 'BACKWARD';
  }

  mode(subject: string | null): Mode | undefined {
    return this.modes.get(subject);
  }

  effectiveMode(subject: string | null): Mode {
    return (subject !== null ? this.modes.get(subject) : undefined) ?? this.modes.get(null) ?? 'READWRITE';
  }
}

function contentKey(schemaType: string, schema: string, references: SchemaValue['references']): string {
  return `${schemaType}\0${JSON.stringify(references)}\0${schema}`;
}
