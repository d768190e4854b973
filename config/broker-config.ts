// The broker's configuration: server.properties, then KAFKA_* environment variables, then --override key=value,
// each later source winning. Every known key is parsed and validated up front, so a bad value stops startup with
// one ConfigError line instead of surfacing later.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LogConfig } from '../storage/log-config.js';
import { ConfigSource, CONFIG_TYPE_IDS, type BrokerPropValue, type ConfigEntry, type ConfigSynonym } from './config-entry.js';
import { isDynamicBrokerConfig } from './dynamic-broker-configs.js';
import { ConfigError, UnknownConfigError } from './config-error.js';
import { describeText, parseBytesOrPercent, parseConfigValue, defaultValue, type ConfigValue } from './config-value.js';
import { ALL_BROKER_CONFIG_DEFS, brokerConfigDef, brokerSynonymChain } from './definitions.js';
import { propertiesFromEnv } from './env.js';
import { isInertKey } from './inert-keys.js';
import { checkServable, parseAdminListener, parseEndpoints, parseSecurityProtocolMap, type Endpoint } from './listeners.js';
import { parseProperties } from './properties.js';
import { TopicConfigResolver } from './topic-config.js';

export { ConfigError, UnknownConfigError } from './config-error.js';
export { PropertiesSyntaxError } from './properties.js';
export { ConfigSource, type ConfigEntry } from './config-entry.js';
export type { Endpoint } from './listeners.js';
export type { ConfigValue } from './config-value.js';

/** Where Kafka would put an empty advertised host (InetAddress.getLocalHost().getCanonicalHostName()). */
const ADVERTISED_WILDCARD_HOST = 'localhost';
/** node.id when neither node.id nor broker.id is set (Kafka: required in KRaft, auto-generated under ZooKeeper). */
const DEFAULT_NODE_ID = 1;

export class BrokerConfig {
  readonly listeners: readonly Endpoint[];
  readonly advertisedListeners: readonly Endpoint[];
  readonly logDirs: readonly string[];
  readonly nodeId: number;
  private readonly props: ReadonlyMap<string, string>;
  private dynamicPerBroker: ReadonlyMap<string, string> = new Map();
  private dynamicDefault: ReadonlyMap<string, string> = new Map();
  /** listener.name.<listener>.<key> overrides, by lower-cased listener name (Kafka's ListenerName.configPrefix). */
  private readonly listenerProps: ReadonlyMap<string, string>;
  private readonly values = new Map<string, ConfigValue>();
  private readonly topics: TopicConfigResolver;

  /**
   * `props`: explicitly set configs (unknown keys are ignored here; loadBrokerConfig reports them).
   * Relative log directories resolve against `cwd`.
   */
  constructor(props: Readonly<Record<string, string>> | ReadonlyMap<string, string> = {}, private readonly cwd = process.cwd()) {
    const entries = props instanceof Map ? [...props] : Object.entries(props);
    // An empty advertised.listeners, which Kafka 4.4's ValidList refuses, counts as unset (each listener advertises
    // itself): kafkite's test and bench harness clear config/server.properties' value with `advertised.listeners=`.
    this.props = new Map(entries.filter(([name, value]) => brokerConfigDef(name) !== undefined && !(name === 'advertised.listeners' && value.trim() === '')));
    this.listenerProps = new Map(entries.filter(([name]) => name.startsWith('listener.name.')));
    this.recomputeValues();
    this.topics = new TopicConfigResolver((name) => this.layers(name));
    [this.listeners, this.advertisedListeners] = this.resolveListeners();
    this.logDirs = this.resolveLogDirs(cwd);
    this.nodeId = this.resolveNodeId();
    if (this.adminListener !== null) this.checkAdminToken(parseAdminListener(this.adminListener).host);
  }

  get numPartitions(): number { return this.number('num.partitions'); }
  get defaultReplicationFactor(): number { return this.number('default.replication.factor'); }
  get autoCreateTopicsEnable(): boolean { return this.boolean('auto.create.topics.enable'); }
  get socketRequestMaxBytes(): number { return this.number('socket.request.max.bytes'); }
  get messageMaxBytes(): number { return this.number('message.max.bytes'); }
  get maxConnections(): number { return this.number('max.connections'); }
  get maxConnectionsPerIp(): number { return this.number('max.connections.per.ip'); }
  get connectionsMaxIdleMs(): number { return this.number('connections.max.idle.ms'); }
  get queuedMaxRequestBytes(): number { return this.number('queued.max.request.bytes'); }
  get socketListenBacklogSize(): number { return this.number('socket.listen.backlog.size'); }
  get maxIncrementalFetchSessionCacheSlots(): number { return this.number('max.incremental.fetch.session.cache.slots'); }
  get logRetentionCheckIntervalMs(): number { return this.number('log.retention.check.interval.ms'); }
  /** Number.MAX_SAFE_INTEGER (Kafka's Long.MAX_VALUE) by default: never. */
  get logFlushSchedulerIntervalMs(): number { return this.number('log.flush.scheduler.interval.ms'); }
  get logCleanerEnable(): boolean { return this.boolean('log.cleaner.enable'); }
  get logCleanerBackoffMs(): number { return this.number('log.cleaner.backoff.ms'); }
  get offsetsTopicNumPartitions(): number { return this.number('offsets.topic.num.partitions'); }
  get offsetsRetentionMinutes(): number { return this.number('offsets.retention.minutes'); }
  get groupInitialRebalanceDelayMs(): number { return this.number('group.initial.rebalance.delay.ms'); }
  get groupMinSessionTimeoutMs(): number { return this.number('group.min.session.timeout.ms'); }
  get groupMaxSessionTimeoutMs(): number { return this.number('group.max.session.timeout.ms'); }
  get groupMaxSize(): number { return this.number('group.max.size'); }
  get deleteTopicEnable(): boolean { return this.boolean('delete.topic.enable'); }
  /** A pino level: trace, debug, info, warn, error, fatal or silent. */
  get logLevel(): string { return (this.values.get('log.level') as string).toLowerCase(); }
  get adminListener(): string | null { return this.values.get('admin.listener') as string | null; }
  /** Idle time after which a partition log is unloaded; -1 never. */
  get logUnloadIdleMs(): number { return this.number('kafkite.log.unload.idle.ms'); }
  get failedAuthenticationLogIntervalMs(): number { return this.number('kafkite.failed.authentication.log.interval.ms'); }
  get zeroCopyEnable(): boolean { return this.boolean('kafkite.zero.copy.enable'); }
  get logFlushSyncfsEnable(): boolean { return this.boolean('kafkite.log.flush.syncfs.enable'); }
  get consoleEnable(): boolean { return this.boolean('kafkite.console.enable'); }
  get consoleReadOnly(): boolean { return this.boolean('kafkite.console.read.only'); }
  get schemaRegistryEnable(): boolean { return this.boolean('kafkite.schema.registry.enable'); }
  get schemaRegistryBasicAuthEnable(): boolean { return this.boolean('kafkite.schema.registry.basic.auth.enable'); }
  /** Free space each log dir keeps: bytes or a percentage of its filesystem (validated at load). */
  get storageMinFree(): { bytes: number } | { percent: number } { return parseBytesOrPercent(this.values.get('kafkite.storage.min.free.bytes') as string)!; }
  get clusterId(): string | null { return this.values.get('cluster.id') as string | null; }
  /** Where __cluster_metadata-0 lives; null means the first of log.dirs (Kafka's KafkaConfig.metadataLogDir). */
  get metadataLogDir(): string | null {
    const dir = this.string('metadata.log.dir');
    return dir === null || dir.trim() === '' ? null : resolve(this.cwd, dir.trim());
  }
  get adminToken(): string | null { return this.values.get('kafkite.admin.token') as string | null; }
  get adminTokenFile(): string | null { return this.values.get('kafkite.admin.token.file') as string | null; }
  get adminAllowedHosts(): readonly string[] { return this.values.get('kafkite.admin.allowed.hosts') as string[]; }
  /** `User:ANONYMOUS` by default; validated as one principal. */
  get adminPrincipal(): { principalType: string; name: string } {
    const text = (this.values.get('kafkite.admin.principal') as string).trim();
    const colon = text.indexOf(':');
    return { principalType: text.slice(0, colon), name: text.slice(colon + 1) };
  }
  get saslServerMaxReceiveSize(): number { return this.number('sasl.server.max.receive.size'); }
  get connectionFailedAuthenticationDelayMs(): number { return this.number('connection.failed.authentication.delay.ms'); }

  /**
   * A security setting as one listener sees it (raw text): `listener.name.<listener>.<key>` first, then the
   * broker-wide `<key>` (set or default), as Kafka's ListenerName.configPrefix overrides do. Keys without a
   * broker-wide form (e.g. `plain.sasl.jaas.config`) give undefined unless the listener sets them.
   */
  listenerValue(listenerName: string, key: string): string | undefined {
    const prefixed = `listener.name.${listenerName.toLowerCase()}.${key}`;
    const own = this.dynamicPerBroker.get(prefixed) ?? this.listenerProps.get(prefixed);
    if (own !== undefined) return own;
    const def = brokerConfigDef(key);
    if (!def) return undefined;
    return this.layers(key)[0]?.raw ?? def.default ?? undefined;
  }

  /**
   * Replaces the dynamic broker configs (Kafka's DynamicBrokerConfig): `perBroker` for this broker id, and
   * `clusterDefault` for the resource name "". Each value must have been validated (validateDynamic).
   * Getters, topic log configs and DescribeConfigs see them at once; listeners bound at start-up do not move.
   */
  setDynamicConfigs(perBroker: ReadonlyMap<string, string>, clusterDefault: ReadonlyMap<string, string>): void {
    this.dynamicPerBroker = new Map(perBroker);
    this.dynamicDefault = new Map(clusterDefault);
    this.recomputeValues();
  }

  /** The dynamic configs of one layer: this broker's (perBroker) or the cluster default's. */
  dynamicConfigs(perBroker: boolean): ReadonlyMap<string, string> {
    return perBroker ? this.dynamicPerBroker : this.dynamicDefault;
  }

  /** Throws ConfigError when `name` is not dynamically updatable or `raw` is not a valid value for it. */
  static validateDynamic(name: string, raw: string): void {
    if (name.startsWith('listener.name.')) {
      if (!isDynamicBrokerConfig(name)) throw new ConfigError(name, raw, 'a dynamically updatable broker config');
      const def = brokerConfigDef(name.replace(/^listener\.name\.[^.]+\./, ''));
      if (def) parseConfigValue(def, raw);
      return;
    }
    const def = brokerConfigDef(name);
    if (!def) throw new UnknownConfigError(name, raw, 'broker');
    if (!isDynamicBrokerConfig(name)) throw new ConfigError(name, raw, 'a dynamically updatable broker config (Kafka: "Cannot update these configs dynamically")');
    parseConfigValue(def, raw);
  }

  /** Every layer that sets `name`, highest priority first: dynamic per broker, dynamic default, static. */
  private layers(name: string): BrokerPropValue[] {
    const found: BrokerPropValue[] = [];
    const perBroker = this.dynamicPerBroker.get(name);
    if (perBroker !== undefined) found.push({ raw: perBroker, source: ConfigSource.DYNAMIC_BROKER_CONFIG });
    const clusterDefault = this.dynamicDefault.get(name);
    if (clusterDefault !== undefined) found.push({ raw: clusterDefault, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
    const configured = this.props.get(name);
    if (configured !== undefined) found.push({ raw: configured, source: ConfigSource.STATIC_BROKER_CONFIG });
    return found;
  }

  private recomputeValues(): void {
    for (const def of ALL_BROKER_CONFIG_DEFS) {
      const raw = this.layers(def.name)[0]?.raw;
      this.values.set(def.name, raw === undefined ? defaultValue(def) : parseConfigValue(def, raw));
    }
  }

  /** The typed value of any known broker config (null when unset without a default). */
  get(name: string): ConfigValue {
    if (!this.values.has(name)) throw new UnknownConfigError(name, null, 'broker');
    return this.values.get(name)!;
  }

  /**
   * Every broker config for DescribeConfigs of this broker id; read-only unless dynamically updatable. Synonyms
   * are listed layer by layer, as Kafka's ConfigHelper.configSynonyms does.
   */
  entries(): ConfigEntry[] {
    return ALL_BROKER_CONFIG_DEFS.map((def) => {
      const isSensitive = def.type === 'password';
      const shown = (text: string): string | null => (isSensitive ? null : text);
      const raw = this.layers(def.name)[0]?.raw ?? def.default;
      const chain = brokerSynonymChain(def.name);
      const synonyms: ConfigSynonym[] = [];
      for (const source of [ConfigSource.DYNAMIC_BROKER_CONFIG, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, ConfigSource.STATIC_BROKER_CONFIG]) {
        for (const name of chain) {
          const set = this.layers(name).find((l) => l.source === source);
          if (set) synonyms.push({ name, value: shown(describeText(brokerConfigDef(name)!, set.raw)), source });
        }
      }
      for (const name of chain) {
        const fallback = brokerConfigDef(name)!.default;
        if (fallback !== null) synonyms.push({ name, value: shown(fallback), source: ConfigSource.DEFAULT_CONFIG });
      }
      return {
        name: def.name,
        value: raw === null ? null : shown(describeText(def, raw)),
        source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
        isSensitive,
        readOnly: !isDynamicBrokerConfig(def.name),
        configType: CONFIG_TYPE_IDS[def.type],
        synonyms,
      };
    });
  }

  /** A topic's LogConfig: its overrides, else the broker's synonyms (with unit multipliers), else Kafka's defaults. */
  logConfig(topicOverrides: Readonly<Record<string, string>>): LogConfig {
    return this.topics.logConfig(topicOverrides);
  }

  /** Throws ConfigError for unknown topic config names and bad values (CreateTopics: INVALID_CONFIG). */
  validateTopicConfigs(overrides: Readonly<Record<string, string>>): void {
    this.topics.validate(overrides);
  }

  describeTopicConfig(topicOverrides: Readonly<Record<string, string>>): ConfigEntry[] {
    return this.topics.describe(topicOverrides);
  }

  private number(name: string): number {
    return this.values.get(name) as number;
  }

  private boolean(name: string): boolean {
    return this.values.get(name) as boolean;
  }

  private string(name: string): string | null {
    return this.values.get(name) as string | null;
  }

  /** A list config (listeners, log.dirs, ...: lists since Kafka 4.1) as its comma-separated text; null when unset. */
  private listText(name: string): string | null {
    return (this.values.get(name) as readonly string[] | null)?.join(',') ?? null;
  }

  /**
   * Controller listeners (controller.listener.names) are left out: kafkite has no controller quorum to serve.
   * An empty advertised host becomes `localhost`, where Kafka would use the machine's canonical host name; that
   * suits a development broker, and containers publishing the port.
   */
  private resolveListeners(): [Endpoint[], Endpoint[]] {
    const protocols = parseSecurityProtocolMap(this.string('listener.security.protocol.map')!);
    const controllerNames = new Set((this.listText('controller.listener.names') ?? '').split(',').map((n) => n.trim().toUpperCase()));
    const listenersRaw = this.listText('listeners')!;
    const listeners = parseEndpoints('listeners', listenersRaw, protocols).filter((e) => !controllerNames.has(e.name));
    if (listeners.length === 0) throw new ConfigError('listeners', listenersRaw, 'at least one listener besides controller.listener.names');
    checkServable('listeners', listenersRaw, listeners);

    const advertisedKey = this.props.has('advertised.listeners') ? 'advertised.listeners' : 'listeners';
    const advertisedRaw = this.listText('advertised.listeners') ?? listenersRaw;
    const advertised = parseEndpoints(advertisedKey, advertisedRaw, protocols)
      .filter((e) => !controllerNames.has(e.name))
      .map((e) => (e.host === '' ? { ...e, host: ADVERTISED_WILDCARD_HOST } : e));
    const names = new Set(listeners.map((e) => e.name));
    for (const e of advertised) {
      if (!names.has(e.name)) throw new ConfigError('advertised.listeners', advertisedRaw, `listener names that listeners defines (${[...names].join(', ')})`);
      if (e.host === '0.0.0.0') throw new ConfigError('advertised.listeners', advertisedRaw, 'a routable host, not the meta-address 0.0.0.0');
    }
    return [listeners, advertised];
  }

  /** An admin HTTP reachable beyond this machine needs a bearer token (kafkite.admin.token or .file). */
  private checkAdminToken(host: string): void {
    const loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
    if (loopback || this.adminToken !== null || this.adminTokenFile !== null) return;
    throw new ConfigError(
      'kafkite.admin.token',
      null,
      `a bearer token (or kafkite.admin.token.file) because admin.listener ${this.adminListener} is not a loopback address`,
    );
  }

  /** log.dirs, else log.dir; comma-separated. */
  private resolveLogDirs(cwd: string): string[] {
    const key = this.props.has('log.dirs') ? 'log.dirs' : 'log.dir';
    // Kafka 4.4's ValidList has already refused an empty list.
    return (this.values.get(key) as readonly string[]).map((d) => resolve(cwd, d));
  }

  /**
   * node.id (Kafka 4.4 requires it, >= 0), else broker.id (Kafka copies one to the other and requires them equal),
   * else 1; broker.id -1 means unset.
   */
  private resolveNodeId(): number {
    const nodeId = this.values.get('node.id') as number | null;
    const brokerId = this.number('broker.id');
    if (brokerId < -1) throw new ConfigError('broker.id', String(brokerId), `an int >= 0 (or -1: unset, kafkite uses ${DEFAULT_NODE_ID})`);
    if (nodeId !== null && brokerId !== -1 && nodeId !== brokerId) {
      throw new ConfigError('node.id', String(nodeId), `the same value as broker.id (${brokerId})`);
    }
    if (nodeId !== null) return nodeId;
    return brokerId !== -1 ? brokerId : DEFAULT_NODE_ID;
  }
}

export interface LoadedConfig {
  config: BrokerConfig;
  /** Keys no Kafka or kafkite config has; ignored, as Kafka does, and worth a warning. */
  unknownKeys: string[];
  /** Kafka's keys accepted without effect on a single node (replication factors, controller quorum, …). */
  inertKeys: string[];
  /** Every key and value as given (file, env, overrides merged). */
  properties: ReadonlyMap<string, string>;
}

export interface LoadOptions {
  /**
   * A server.properties file, read as UTF-8 (Java reads ISO-8859-1; the two agree on ASCII and \u escapes).
   * A missing file throws the fs error (ENOENT); a malformed \u escape, PropertiesSyntaxError.
   */
  file?: string;
  /** "key=value" strings from --override. */
  overrides?: string[];
  /** Usually process.env: KAFKA_* variables, mapped as the apache/kafka Docker image does. */
  env?: Record<string, string | undefined>;
}

/** Loads and validates the broker config: file < env < overrides. Throws ConfigError on the first bad value. */
export function loadBrokerConfig(opts: LoadOptions): LoadedConfig {
  const props = new Map<string, string>();
  const merge = (source: ReadonlyMap<string, string>): void => source.forEach((value, key) => props.set(key, value));
  if (opts.file !== undefined) merge(parseProperties(readFileSync(opts.file, 'utf8'), opts.file));
  if (opts.env) merge(propertiesFromEnv(opts.env));
  merge(parseOverrides(opts.overrides ?? []));

  const keys = [...props.keys()];
  return {
    config: new BrokerConfig(props),
    // Keys Kafka 4.4 does not define (ZooKeeper's among them) are unknown, as Kafka warns of them.
    unknownKeys: keys.filter((key) => !brokerConfigDef(key) && !key.startsWith('listener.name.')),
    inertKeys: keys.filter((key) => brokerConfigDef(key) !== undefined && isInertKey(key)),
    properties: props,
  };
}

function parseOverrides(overrides: readonly string[]): Map<string, string> {
  const props = new Map<string, string>();
  for (const override of overrides) {
    const eq = override.indexOf('=');
    if (eq <= 0) throw new ConfigError('--override', override, 'key=value');
    props.set(override.slice(0, eq).trim(), override.slice(eq + 1));
  }
  return props;
}
