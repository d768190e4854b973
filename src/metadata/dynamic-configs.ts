// Dynamic configs kept in the cluster metadata log as Kafka's ConfigRecord (apiKey 4, version 0): dynamic broker
// configs (resource type BROKER, name = this broker's id or "" for the cluster default) and group configs
// (resource type GROUP). A null value deletes the key, as in KRaft. Replayed at start-up, appended (and fsynced)
// before an alteration is acknowledged.
import type { Logger } from 'pino';
import type { BrokerConfig } from '../../config/broker-config.js';
import { Reader, Writer } from '../../protocol/primitives.js';
import type { ClusterMetadataLog } from './cluster-metadata-log.js';
import type { MetadataRecord } from './metadata-frame.js';
import { ResourceType } from './config-resources.js';
import { validateGroupConfigs } from './group-configs.js';

const CONFIG_RECORD_TYPE = 4;

export interface ConfigRecord {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly name: string;
  readonly value: string | null;
}

/** ConfigRecord v0 (flexible): int8, compact string ×2, compact nullable string, tagged fields. */
function encodeConfigRecord(r: ConfigRecord): Buffer {
  return new Writer(64).int8(r.resourceType).string(r.resourceName, true).string(r.name, true).nullableString(r.value, true)
    .taggedFields().toBuffer();
}

function decodeConfigRecord(body: Buffer): ConfigRecord {
  const r = new Reader(body);
  const record = { resourceType: r.int8(), resourceName: r.string(true), name: r.string(true), value: r.nullableString(true) };
  r.skipTaggedFields();
  return record;
}

/** The dynamic config maps, by resource, and their persistence. */
export class DynamicConfigs {
  private readonly perBroker = new Map<string, string>();
  private readonly clusterDefault = new Map<string, string>();
  private readonly groups = new Map<string, Map<string, string>>();

  constructor(
    private readonly metadataLog: ClusterMetadataLog,
    private readonly config: BrokerConfig,
    private readonly log: Logger,
  ) {}

  replay(record: MetadataRecord): void {
    if (record.type === CONFIG_RECORD_TYPE) this.apply(decodeConfigRecord(record.body));
  }

  /** Once replayed: applies the broker configs to the config. */
  loaded(): void {
    this.config.setDynamicConfigs(this.perBroker, this.clusterDefault);
    if (this.perBroker.size + this.clusterDefault.size + this.groups.size > 0) {
      this.log.info({ perBroker: [...this.perBroker.keys()], clusterDefault: [...this.clusterDefault.keys()], groups: this.groups.size }, 'dynamic configs loaded');
    }
  }

  /** The configs a group was given (empty when none). */
  groupConfigs(groupId: string): ReadonlyMap<string, string> {
    return this.groups.get(groupId) ?? new Map();
  }

  /** The dynamic broker configs of this broker (perBroker) or of the cluster default. */
  brokerConfigs(perBroker: boolean): ReadonlyMap<string, string> {
    return perBroker ? this.perBroker : this.clusterDefault;
  }

  /**
   * Replaces the dynamic configs of this broker (perBroker) or the cluster default with `next`; every value
   * must already be valid. Persisted, then applied: topics without their own override change at once.
   */
  async alterBroker(perBroker: boolean, next: ReadonlyMap<string, string>): Promise<void> {
    const current = perBroker ? this.perBroker : this.clusterDefault;
    const resourceName = perBroker ? String(this.config.nodeId) : '';
    await this.persist(ResourceType.BROKER, resourceName, current, next);
    const staged = new Map(next);
    current.clear();
    for (const [k, v] of staged) current.set(k, v);
    this.config.setDynamicConfigs(this.perBroker, this.clusterDefault);
    this.log.info({ resource: perBroker ? `broker ${resourceName}` : 'cluster default', configs: Object.fromEntries(redacted(staged)) }, 'dynamic broker configs altered');
  }

  /** Replaces a group's configs; validated against the broker's bounds. Throws KafkaError (INVALID_CONFIG). */
  async alterGroup(groupId: string, next: ReadonlyMap<string, string>, validateOnly: boolean): Promise<void> {
    validateGroupConfigs(next, this.config);
    if (validateOnly) return;
    const current = this.groups.get(groupId) ?? new Map<string, string>();
    await this.persist(ResourceType.GROUP, groupId, current, next);
    if (next.size === 0) this.groups.delete(groupId);
    else this.groups.set(groupId, new Map(next));
    this.log.info({ group: groupId, configs: Object.fromEntries(next) }, 'group configs altered');
  }

  private async persist(resourceType: number, resourceName: string, current: ReadonlyMap<string, string>, next: ReadonlyMap<string, string>): Promise<void> {
    const records: MetadataRecord[] = [];
    const add = (name: string, value: string | null) => records.push({
      type: CONFIG_RECORD_TYPE, version: 0, body: encodeConfigRecord({ resourceType, resourceName, name, value }),
    });
    for (const [name, value] of next) if (current.get(name) !== value) add(name, value);
    for (const name of current.keys()) if (!next.has(name)) add(name, null);
    await this.metadataLog.append(records);
  }

  private apply(r: ConfigRecord): void {
    let target: Map<string, string> | undefined;
    if (r.resourceType === ResourceType.BROKER) {
      if (r.resourceName === '') target = this.clusterDefault;
      else if (r.resourceName === String(this.config.nodeId)) target = this.perBroker;
    } else if (r.resourceType === ResourceType.GROUP) {
      target = this.groups.get(r.resourceName);
      if (!target) this.groups.set(r.resourceName, (target = new Map()));
    }
    if (!target) return;
    if (r.value === null) target.delete(r.name);
    else target.set(r.name, r.value);
    if (r.resourceType === ResourceType.GROUP && target.size === 0) this.groups.delete(r.resourceName);
  }
}

/** Passwords are never logged. */
function redacted(configs: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...configs].map(([k, v]) => [k, /password|jaas|secret|key$/i.test(k) ? '[hidden]' : v]));
}
