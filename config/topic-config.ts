// Topic configs resolved as Kafka's LogConfig does: the topic's own override, else the first broker synonym set
// explicitly (log.retention.ms > log.retention.minutes ×60000 > log.retention.hours ×3600000), else the default.
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../storage/log-config.js';
import type { TopicConfigDef } from './config-def.js';
import {
  ConfigSource, CONFIG_TYPE_IDS, type BrokerPropLayers, type ConfigEntry, type ConfigSourceId, type ConfigSynonym,
} from './config-entry.js';
import { ConfigError, UnknownConfigError } from './config-error.js';
import { describeText, longToNumber, parseConfigValue, parseInteger, type ConfigValue } from './config-value.js';
import { brokerConfigDef, TOPIC_CONFIG_DEFS, topicConfigDef } from './definitions.js';

interface Resolved {
  readonly value: Exclude<ConfigValue, null>;
  /** The value as DescribeConfigs shows it, in the topic config's unit. */
  readonly text: string;
  readonly source: ConfigSourceId;
}

const INTEGER_TYPES = new Set(['int', 'short', 'long']);

export class TopicConfigResolver {
  /**
   * `brokerLayers`: the layers that set a broker config (dynamic per broker, dynamic default, static), already
   * validated; the first one wins, as in Kafka's KafkaConfig with its dynamic configs applied.
   */
  constructor(private readonly brokerLayers: BrokerPropLayers) {}

  /** Throws ConfigError (INVALID_CONFIG for CreateTopics) for unknown names, bad values, or conflicting ones. */
  validate(overrides: Readonly<Record<string, string>>): void {
    for (const [name, raw] of Object.entries(overrides)) {
      const def = topicConfigDef(name);
      if (!def) throw new UnknownConfigError(name, raw, 'topic');
      parseConfigValue(def, raw);
    }
    const config = this.logConfig(overrides);
    if (config.minCompactionLagMs > config.maxCompactionLagMs) {
      throw new ConfigError('max.compaction.lag.ms', String(config.maxCompactionLagMs), `a value >= min.compaction.lag.ms (${config.minCompactionLagMs})`);
    }
    const remote = overrides['remote.storage.enable'];
    if (remote !== undefined && parseConfigValue(topicConfigDef('remote.storage.enable')!, remote) === true) {
      throw new ConfigError('remote.storage.enable', remote, 'false: kafkite has no tiered storage');
    }
  }

  logConfig(overrides: Readonly<Record<string, string>>): LogConfig {
    const get = (name: string): Exclude<ConfigValue, null> => this.resolve(topicConfigDef(name)!, overrides).value;
    return {
      ...DEFAULT_LOG_CONFIG,
      // Kafka's LogConfig.segmentSize(): the internal internal.segment.bytes, when set, replaces segment.bytes (>= 1 MiB).
      segmentBytes: (overrides['internal.segment.bytes'] === undefined ? get('segment.bytes') : get('internal.segment.bytes')) as number,
      segmentMs: get('segment.ms') as number,
      segmentJitterMs: get('segment.jitter.ms') as number,
      segmentIndexBytes: get('segment.index.bytes') as number,
      indexIntervalBytes: get('index.interval.bytes') as number,
      flushMessages: get('flush.messages') as number,
      flushMs: get('flush.ms') as number,
      retentionBytes: get('retention.bytes') as number,
      retentionMs: get('retention.ms') as number,
      maxMessageBytes: get('max.message.bytes') as number,
      cleanupPolicy: get('cleanup.policy') as LogConfig['cleanupPolicy'],
      deleteRetentionMs: get('delete.retention.ms') as number,
      minCompactionLagMs: get('min.compaction.lag.ms') as number,
      maxCompactionLagMs: get('max.compaction.lag.ms') as number,
      minCleanableDirtyRatio: get('min.cleanable.dirty.ratio') as number,
      fileDeleteDelayMs: get('file.delete.delay.ms') as number,
      messageTimestampType: get('message.timestamp.type') as LogConfig['messageTimestampType'],
      messageTimestampBeforeMaxMs: get('message.timestamp.before.max.ms') as number,
      messageTimestampAfterMaxMs: get('message.timestamp.after.max.ms') as number,
      preallocate: get('preallocate') as boolean,
      messageDownconversionEnable: get('message.downconversion.enable') as boolean,
      compressionType: get('compression.type') as LogConfig['compressionType'],
      compressionGzipLevel: get('compression.gzip.level') as number,
      compressionZstdLevel: get('compression.zstd.level') as number,
    };
  }

  /**
   * Every topic config, with Kafka's source and synonyms (override, then static broker, then broker defaults);
   * Kafka's DescribeConfigs leaves out the internal ones (internal.segment.bytes).
   */
  describe(overrides: Readonly<Record<string, string>>): ConfigEntry[] {
    return TOPIC_CONFIG_DEFS.filter((def) => !def.name.startsWith('internal.')).map((def) => {
      const resolved = this.resolve(def, overrides);
      const synonyms: ConfigSynonym[] = [];
      if (overrides[def.name] !== undefined) {
        synonyms.push({ name: def.name, value: resolved.text, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
      }
      for (const source of [ConfigSource.DYNAMIC_BROKER_CONFIG, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, ConfigSource.STATIC_BROKER_CONFIG]) {
        for (const { name } of def.brokerSynonyms) {
          const layer = this.brokerLayers(name).find((l) => l.source === source);
          if (layer) synonyms.push({ name, value: describeText(brokerConfigDef(name)!, layer.raw), source });
        }
      }
      for (const { name } of def.brokerSynonyms) {
        const fallback = brokerConfigDef(name)!.default;
        if (fallback !== null) synonyms.push({ name, value: fallback, source: ConfigSource.DEFAULT_CONFIG });
      }
      return {
        name: def.name,
        value: resolved.text,
        source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
        isSensitive: false,
        readOnly: false,
        configType: CONFIG_TYPE_IDS[def.type],
        synonyms,
      };
    });
  }

  private resolve(def: TopicConfigDef, overrides: Readonly<Record<string, string>>): Resolved {
    const override = overrides[def.name];
    if (override !== undefined) {
      return { value: parseConfigValue(def, override), text: describeText(def, override), source: ConfigSource.DYNAMIC_TOPIC_CONFIG };
    }
    for (const synonym of def.brokerSynonyms) {
      const set = this.brokerLayers(synonym.name)[0];
      if (set === undefined) continue;
      const raw = set.raw;
      const brokerDef = brokerConfigDef(synonym.name)!;
      if (!INTEGER_TYPES.has(brokerDef.type)) {
        return { value: parseConfigValue(brokerDef, raw), text: describeText(brokerDef, raw), source: set.source };
      }
      let scaled = parseInteger(brokerDef, raw) * BigInt(synonym.multiplier);
      // Kafka's logRetentionTimeMillis: any negative retention means unlimited.
      if (def.name === 'retention.ms' && scaled < 0n) scaled = -1n;
      return { value: longToNumber(scaled), text: scaled.toString(), source: set.source };
    }
    // Every topic config has a default in Kafka's tables.
    return { value: parseConfigValue(def, def.default!), text: describeText(def, def.default!), source: ConfigSource.DEFAULT_CONFIG };
  }
}
