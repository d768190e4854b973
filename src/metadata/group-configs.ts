// Per-group configs (config resource type GROUP = 32, Kafka 4.0's GroupConfig): the consumer protocol's session
// timeout, heartbeat interval and assignment interval (KIP-1263), bounded by the broker's group.consumer.min/max.*
// settings, and Kafka 4.4's share-group ones (GroupConfig.SHARE_*), bounded by group.share.min/max.*. Unset, each takes the broker's group.*
// value, or GroupConfig's default where no broker config stands behind it.
import type { BrokerConfig } from '../../config/broker-config.js';
import { ConfigSource, CONFIG_TYPE_IDS, type ConfigEntry } from '../../config/config-entry.js';
import { ErrorCode, KafkaError } from '../errors.js';
import type { StreamsGroupSettings } from '../coordinator/streams/streams-group-coordinator.js';

interface GroupConfigDef {
  readonly name: string;
  readonly type: 'int' | 'string' | 'boolean';
  /** The broker config whose value a group without its own takes. */
  readonly brokerDefault: string | null;
  readonly fallback?: string;
  /** [min, max] bounding the value, for ints: a broker config's name, a number, or null for none. */
  readonly bounds?: readonly [string | number, string | null];
  readonly oneOf?: readonly string[];
  /** A pattern the value may match instead of oneOf (share.auto.offset.reset's by_duration). */
  readonly orMatches?: RegExp;
}

const GROUP_CONFIG_DEFS: readonly GroupConfigDef[] = [
  { name: 'consumer.session.timeout.ms', type: 'int', brokerDefault: 'group.consumer.session.timeout.ms',
    bounds: ['group.consumer.min.session.timeout.ms', 'group.consumer.max.session.timeout.ms'] },
  { name: 'consumer.heartbeat.interval.ms', type: 'int', brokerDefault: 'group.consumer.heartbeat.interval.ms',
    bounds: ['group.consumer.min.heartbeat.interval.ms', 'group.consumer.max.heartbeat.interval.ms'] },
  { name: 'consumer.assignment.interval.ms', type: 'int', brokerDefault: 'group.consumer.assignment.interval.ms',
    bounds: ['group.consumer.min.assignment.interval.ms', 'group.consumer.max.assignment.interval.ms'] },
  { name: 'consumer.assignor.offload.enable', type: 'boolean', brokerDefault: 'group.consumer.assignor.offload.enable' },
  { name: 'share.session.timeout.ms', type: 'int', brokerDefault: 'group.share.session.timeout.ms',
    bounds: ['group.share.min.session.timeout.ms', 'group.share.max.session.timeout.ms'] },
  { name: 'share.heartbeat.interval.ms', type: 'int', brokerDefault: 'group.share.heartbeat.interval.ms',
    bounds: ['group.share.min.heartbeat.interval.ms', 'group.share.max.heartbeat.interval.ms'] },
  { name: 'share.record.lock.duration.ms', type: 'int', brokerDefault: 'group.share.record.lock.duration.ms',
    bounds: ['group.share.min.record.lock.duration.ms', 'group.share.max.record.lock.duration.ms'] },
  { name: 'share.delivery.count.limit', type: 'int', brokerDefault: 'group.share.delivery.count.limit',
    bounds: ['group.share.min.delivery.count.limit', 'group.share.max.delivery.count.limit'] },
  { name: 'share.partition.max.record.locks', type: 'int', brokerDefault: 'group.share.partition.max.record.locks',
    bounds: ['group.share.min.partition.max.record.locks', 'group.share.max.partition.max.record.locks'] },
  // by_duration:<ISO-8601 duration> (KIP-1106): start that far back in time.
  { name: 'share.auto.offset.reset', type: 'string', brokerDefault: null, fallback: 'latest', oneOf: ['latest', 'earliest'],
    orMatches: /^by_duration:P(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d{1,9})?S)?)?$/i },
  { name: 'share.isolation.level', type: 'string', brokerDefault: null, fallback: 'read_uncommitted', oneOf: ['read_committed', 'read_uncommitted'] },
  { name: 'share.renew.acknowledge.enable', type: 'boolean', brokerDefault: null, fallback: 'true' },
  { name: 'share.assignment.interval.ms', type: 'int', brokerDefault: 'group.share.assignment.interval.ms',
    bounds: ['group.share.min.assignment.interval.ms', 'group.share.max.assignment.interval.ms'] },
  { name: 'share.assignor.offload.enable', type: 'boolean', brokerDefault: 'group.share.assignor.offload.enable' },
  // The share group's dead-letter queue (KIP-1191): the topic rejected and exhausted records go to ("": none), and
  // whether their key and value are copied there or only the headers written.
  { name: 'errors.deadletterqueue.topic.name', type: 'string', brokerDefault: null, fallback: '' },
  { name: 'errors.deadletterqueue.copy.record.enable', type: 'boolean', brokerDefault: null, fallback: 'false' },
  // Kafka 4.4's GroupConfig for streams groups (KIP-1071).
  { name: 'streams.session.timeout.ms', type: 'int', brokerDefault: 'group.streams.session.timeout.ms',
    bounds: ['group.streams.min.session.timeout.ms', 'group.streams.max.session.timeout.ms'] },
  { name: 'streams.heartbeat.interval.ms', type: 'int', brokerDefault: 'group.streams.heartbeat.interval.ms',
    bounds: ['group.streams.min.heartbeat.interval.ms', 'group.streams.max.heartbeat.interval.ms'] },
  { name: 'streams.num.standby.replicas', type: 'int', brokerDefault: 'group.streams.num.standby.replicas', bounds: [0, 'group.streams.max.standby.replicas'] },
  { name: 'streams.initial.rebalance.delay.ms', type: 'int', brokerDefault: 'group.streams.initial.rebalance.delay.ms', bounds: [0, null] },
  { name: 'streams.assignment.interval.ms', type: 'int', brokerDefault: 'group.streams.assignment.interval.ms',
    bounds: ['group.streams.min.assignment.interval.ms', 'group.streams.max.assignment.interval.ms'] },
  { name: 'streams.task.offset.interval.ms', type: 'int', brokerDefault: 'group.streams.task.offset.interval.ms', bounds: ['group.streams.min.task.offset.interval.ms', null] },
  { name: 'streams.num.warmup.replicas', type: 'int', brokerDefault: 'group.streams.num.warmup.replicas', bounds: [0, 'group.streams.max.warmup.replicas'] },
  { name: 'streams.acceptable.recovery.lag', type: 'int', brokerDefault: 'group.streams.acceptable.recovery.lag', bounds: [0, null] },
  { name: 'streams.rack.aware.assignment.tags', type: 'string', brokerDefault: 'group.streams.rack.aware.assignment.tags' },
  { name: 'streams.assignor.offload.enable', type: 'boolean', brokerDefault: 'group.streams.assignor.offload.enable' },
  { name: 'streams.assignor.name', type: 'string', brokerDefault: null, fallback: '' },
];

const defs = new Map(GROUP_CONFIG_DEFS.map((d) => [d.name, d]));

export function groupConfigDef(name: string): GroupConfigDef | undefined {
  return defs.get(name);
}

function invalid(message: string): KafkaError {
  return new KafkaError(ErrorCode.INVALID_CONFIG, message);
}

function defaultOf(def: GroupConfigDef, broker: Pick<BrokerConfig, 'get'>): string {
  return def.brokerDefault === null ? def.fallback! : String(broker.get(def.brokerDefault));
}

/** A group's value of a group config: its own, else the broker config behind it, else GroupConfig's default. */
export function groupConfigValue(name: string, configs: ReadonlyMap<string, string>, broker: Pick<BrokerConfig, 'get'>): string {
  return configs.get(name) ?? defaultOf(defs.get(name)!, broker);
}

/** Kafka's GroupConfig.validate: known names, typed values within the broker's bounds, heartbeat < session. */
export function validateGroupConfigs(configs: ReadonlyMap<string, string>, broker: BrokerConfig): void {
  const effective = new Map<string, number>();
  for (const [name, raw] of configs) {
    const def = defs.get(name);
    if (!def) throw invalid(`Unknown group config name: ${name}`);
    if (def.type === 'string') {
      if (def.oneOf && !def.oneOf.includes(raw.toLowerCase()) && !def.orMatches?.test(raw)) {
        throw invalid(`Invalid value ${raw} for configuration ${name}: String must be one of: ${def.oneOf.join(', ')}`);
      }
      // GroupConfig.validateValues: the only check of the DLQ topic name at alter time (the prefix, the topic's
      // existence and its errors.deadletterqueue.group.enable are checked when a record is written).
      if (name === 'errors.deadletterqueue.topic.name' && raw.startsWith('__')) throw invalid(`${name}: DLQ topic name must not start with '__'`);
      continue;
    }
    if (def.type === 'boolean') {
      if (!/^(true|false)$/i.test(raw.trim())) throw invalid(`Invalid value ${raw} for configuration ${name}: Expected value to be either true or false`);
      continue;
    }
    if (!/^-?\d+$/.test(raw.trim())) throw invalid(`Invalid value ${raw} for configuration ${name}: Not a number of type INT`);
    const value = Number(raw.trim());
    const [minKey, maxKey] = def.bounds!;
    const min = typeof minKey === 'number' ? minKey : Number(broker.get(minKey));
    if (value < min) throw invalid(`${name} must be greater than or equal to ${minKey}`);
    if (maxKey !== null && value > Number(broker.get(maxKey))) throw invalid(`${name} must be less than or equal to ${maxKey}`);
  }
  for (const def of GROUP_CONFIG_DEFS) {
    if (def.type === 'int') effective.set(def.name, Number(configs.get(def.name) ?? defaultOf(def, broker)));
  }
  for (const prefix of ['consumer', 'share', 'streams']) {
    if (effective.get(`${prefix}.heartbeat.interval.ms`)! >= effective.get(`${prefix}.session.timeout.ms`)!) {
      throw invalid(`${prefix}.heartbeat.interval.ms must be less than ${prefix}.session.timeout.ms`);
    }
  }
}

/** DescribeConfigs of a group: its own values (GROUP_CONFIG), else the broker's (DEFAULT_CONFIG). */
export function describeGroupConfigs(configs: ReadonlyMap<string, string>, broker: BrokerConfig): ConfigEntry[] {
  return GROUP_CONFIG_DEFS.map((def) => {
    const own = configs.get(def.name);
    const fallback = defaultOf(def, broker);
    const synonyms = [
      ...(own === undefined ? [] : [{ name: def.name, value: own, source: ConfigSource.GROUP_CONFIG }]),
      // Named as the broker config the value comes from, as Kafka 4.4 reports it (group.consumer.session.timeout.ms).
      { name: def.brokerDefault ?? def.name, value: fallback, source: ConfigSource.DEFAULT_CONFIG },
    ];
    return {
      name: def.name,
      value: own ?? fallback,
      source: own === undefined ? ConfigSource.DEFAULT_CONFIG : ConfigSource.GROUP_CONFIG,
      isSensitive: false,
      readOnly: false,
      configType: CONFIG_TYPE_IDS[def.type],
      synonyms,
    };
  });
}

/** What the consumer and share group coordinators read at each heartbeat. */
export interface ConsumerGroupTimeouts {
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  /** The KIP-1263 assignment interval; none: each new group epoch is assigned at once. */
  readonly assignmentIntervalMs?: number;
}

/** A consumer or share group's session timeout, heartbeat interval and assignment interval: its own, else the broker's. */
function modernGroupTimeouts(type: 'consumer' | 'share', configs: ReadonlyMap<string, string> | undefined, broker: BrokerConfig): Required<ConsumerGroupTimeouts> {
  const get = (name: string) => Number(configs?.get(`${type}.${name}`) ?? broker.get(`group.${type}.${name}`));
  return { sessionTimeoutMs: get('session.timeout.ms'), heartbeatIntervalMs: get('heartbeat.interval.ms'), assignmentIntervalMs: get('assignment.interval.ms') };
}

/** What the share group coordinator reads at each heartbeat (share.session.timeout.ms, share.heartbeat.interval.ms, share.assignment.interval.ms). */
export function shareGroupTimeouts(configs: ReadonlyMap<string, string> | undefined, broker: BrokerConfig): Required<ConsumerGroupTimeouts> {
  return modernGroupTimeouts('share', configs, broker);
}

/** What the consumer-protocol coordinator reads at each heartbeat: its timeouts and the KIP-1263 assignment interval. */
export function consumerGroupTimeouts(configs: ReadonlyMap<string, string> | undefined, broker: BrokerConfig): Required<ConsumerGroupTimeouts> {
  return modernGroupTimeouts('consumer', configs, broker);
}

/** What the streams-protocol coordinator reads at each heartbeat (Kafka's GroupConfig over GroupCoordinatorConfig). */
export function streamsGroupSettings(configs: ReadonlyMap<string, string> | undefined, broker: BrokerConfig): StreamsGroupSettings {
  const get = (own: string, brokerName: string) => Number(configs?.get(own) ?? broker.get(brokerName));
  return {
    sessionTimeoutMs: get('streams.session.timeout.ms', 'group.streams.session.timeout.ms'),
    heartbeatIntervalMs: get('streams.heartbeat.interval.ms', 'group.streams.heartbeat.interval.ms'),
    numStandbyReplicas: get('streams.num.standby.replicas', 'group.streams.num.standby.replicas'),
    initialRebalanceDelayMs: get('streams.initial.rebalance.delay.ms', 'group.streams.initial.rebalance.delay.ms'),
    assignmentIntervalMs: get('streams.assignment.interval.ms', 'group.streams.assignment.interval.ms'),
    acceptableRecoveryLag: get('streams.acceptable.recovery.lag', 'group.streams.acceptable.recovery.lag'),
    taskOffsetIntervalMs: get('streams.task.offset.interval.ms', 'group.streams.task.offset.interval.ms'),
    maxSize: Number(broker.get('group.streams.max.size')),
  };
}
