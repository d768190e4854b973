// Client quota configuration (Kafka's ClientQuotaControlManager / ClientQuotasImage): quotas per user,
// client-id and ip entity (a null name is the entity type's default), altered by AlterClientQuotas,
// described by DescribeClientQuotas, and persisted as ClientQuotaRecord in the cluster metadata log.
import { Reader, Writer } from '../../protocol/primitives.js';
import type { ClusterMetadataLog } from '../metadata/cluster-metadata-log.js';

const CLIENT_QUOTA_RECORD = 14;

export const USER = 'user';
export const CLIENT_ID = 'client-id';
const IP = 'ip';

/** The quota keys of each entity type, and whether the value must be a whole number (Kafka's QuotaConfig). */
const USER_CLIENT_KEYS: ReadonlyMap<string, boolean> = new Map([
  ['producer_byte_rate', true], ['consumer_byte_rate', true], ['request_percentage', false], ['controller_mutation_rate', false],
]);
const IP_KEYS: ReadonlyMap<string, boolean> = new Map([['connection_creation_rate', true]]);

/** entity type -> name; null is the default entity of that type. */
export type QuotaEntity = ReadonlyMap<string, string | null>;

export interface QuotaEntityData {
  entityType: string;
  entityName: string | null;
}

/** A request Kafka refuses with INVALID_REQUEST; the message is Kafka's. */
export class InvalidQuotaError extends Error {
  override name = 'InvalidQuotaError';
}

export interface QuotaFilterComponent {
  entityType: string;
  /** 0 EXACT (match names the entity, null its default), 1 DEFAULT, 2 SPECIFIED (any named entity of the type). */
  matchType: number;
  match: string | null;
}

function entityOf(data: readonly QuotaEntityData[]): QuotaEntity {
  const entity = new Map<string, string | null>();
  for (const e of data) {
    if (entity.has(e.entityType)) throw new InvalidQuotaError(`Duplicate entity type ${e.entityType}`);
    entity.set(e.entityType, e.entityName);
  }
  return entity;
}

/** A stable key for an entity, e.g. "client-id=\u0000|user=alice" (\u0000 for the default). */
function entityKey(entity: QuotaEntity): string {
  return [...entity.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([t, n]) => `${t}=${n ?? '\u0000'}`).join('|');
}

function validateEntity(entity: QuotaEntity): void {
  if (entity.size === 0) throw new InvalidQuotaError('Invalid empty client quota entity');
  for (const type of entity.keys()) {
    if (type !== USER && type !== CLIENT_ID && type !== IP) throw new InvalidQuotaError(`Unhandled client quota entity type: ${type}`);
  }
  if (entity.has(IP) && entity.size > 1) throw new InvalidQuotaError('Invalid quota entity combination, IP entity should not be combined with User or ClientId');
}

function validateQuota(entity: QuotaEntity, key: string, value: number, remove: boolean): void {
  const keys = entity.has(IP) ? IP_KEYS : USER_CLIENT_KEYS;
  const whole = keys.get(key);
  if (whole === undefined) throw new InvalidQuotaError(`Invalid configuration key ${key}`);
  if (remove) return;
  if (!Number.isFinite(value)) throw new InvalidQuotaError(`Invalid value ${value} for configuration key ${key}`);
  if (whole && !Number.isInteger(value)) throw new InvalidQuotaError(`Configuration ${key} must be a Long value`);
  if (value <= 0) throw new InvalidQuotaError(`Invalid value ${value} for configuration key ${key}: it must be positive`);
}

function encodeClientQuotaRecord(entity: QuotaEntity, key: string, value: number, remove: boolean): Buffer {
  const w = new Writer(64);
  w.arrayLength(entity.size, true);
  for (const [type, name] of entity) w.string(type, true).nullableString(name, true).taggedFields();
  return w.string(key, true).float64(value).int8(remove ? 1 : 0).taggedFields().toBuffer();
}

function decodeClientQuotaRecord(body: Buffer): { entity: QuotaEntity; key: string; value: number; remove: boolean } {
  const r = new Reader(body);
  const n = r.arrayLength(true, false);
  const entity = new Map<string, string | null>();
  for (let i = 0; i < n; i++) {
    const type = r.string(true);
    entity.set(type, r.nullableString(true));
    r.skipTaggedFields();
  }
  const key = r.string(true);
  const value = r.float64();
  const remove = r.bool();
  r.skipTaggedFields();
  return { entity, key, value, remove };
}

export class ClientQuotaStore {
  private readonly quotas = new Map<string, { entity: QuotaEntity; values: Map<string, number> }>();
  /** Bumped on every change, so enforcement can cache its lookups. */
  version = 0;

  /** Its quotas come from replay. */
  constructor(private readonly metadataLog: ClusterMetadataLog) {}

  replay(record: { type: number; body: Buffer }): void {
    if (record.type !== CLIENT_QUOTA_RECORD) return;
    const { entity, key, value, remove } = decodeClientQuotaRecord(record.body);
    this.apply(entity, key, value, remove);
  }

  private apply(entity: QuotaEntity, key: string, value: number, remove: boolean): void {
    const k = entityKey(entity);
    let entry = this.quotas.get(k);
    if (!remove) {
      if (!entry) this.quotas.set(k, (entry = { entity, values: new Map() }));
      entry.values.set(key, value);
    } else if (entry) {
      entry.values.delete(key);
      if (entry.values.size === 0) this.quotas.delete(k);
    }
    this.version++;
  }

  get isEmpty(): boolean {
    return this.quotas.size === 0;
  }

  /** The value of `key` set on exactly this entity, if any. */
  get(entity: QuotaEntity, key: string): number | undefined {
    return this.quotas.get(entityKey(entity))?.values.get(key);
  }

  /**
   * AlterClientQuotas for one entry: validated, then (unless validateOnly) persisted and applied. Throws
   * InvalidQuotaError for what Kafka refuses.
   */
  async alter(data: readonly QuotaEntityData[], ops: ReadonlyArray<{ key: string; value: number; remove: boolean }>, validateOnly: boolean): Promise<void> {
    const entity = entityOf(data);
    validateEntity(entity);
    const seen = new Set<string>();
    for (const op of ops) {
      if (seen.has(op.key)) throw new InvalidQuotaError(`Duplicate quota key ${op.key} not updating quota for entity ${entityKey(entity)}`);
      seen.add(op.key);
      validateQuota(entity, op.key, op.value, op.remove);
    }
    if (validateOnly || ops.length === 0) return;
    await this.metadataLog.append(ops.map((op) => ({ type: CLIENT_QUOTA_RECORD, version: 0, body: encodeClientQuotaRecord(entity, op.key, op.value, op.remove) })));
    for (const op of ops) this.apply(entity, op.key, op.value, op.remove);
  }

  /** DescribeClientQuotas (ClientQuotasImage.describe): the entities the filter matches, with their values. */
  describe(components: readonly QuotaFilterComponent[], strict: boolean): Array<{ entity: QuotaEntity; values: Map<string, number> }> {
    const types = new Set<string>();
    for (const c of components) {
      if (types.has(c.entityType)) throw new InvalidQuotaError(`Entity type ${c.entityType} cannot appear more than once in the filter.`);
      types.add(c.entityType);
      if (c.matchType < 0 || c.matchType > 2) throw new InvalidQuotaError(`Unknown match type ${c.matchType}`);
    }
    return [...this.quotas.values()].filter(({ entity }) => {
      if (strict && entity.size !== components.length) return false;
      return components.every((c) => {
        if (!entity.has(c.entityType)) return false;
        const name = entity.get(c.entityType)!;
        if (c.matchType === 0) return name === c.match;
        if (c.matchType === 1) return name === null;
        return name !== null;
      });
    });
  }
}
