// What DescribeConfigs reports for one configuration (DescribeConfigsResponse's ConfigSource and ConfigType ids).
import type { ConfigType } from './config-def.js';

export const ConfigSource = {
  /** A topic-level override (the wire enum calls it TOPIC_CONFIG). */
  DYNAMIC_TOPIC_CONFIG: 1,
  /** Set for this broker id with AlterConfigs/IncrementalAlterConfigs. */
  DYNAMIC_BROKER_CONFIG: 2,
  /** Set for the cluster default (resource name ""). */
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  /** A group config set with IncrementalAlterConfigs (Kafka's GROUP_CONFIG). */
  GROUP_CONFIG: 8,
} as const;
export type ConfigSourceId = (typeof ConfigSource)[keyof typeof ConfigSource];

/** A broker config's raw text and the layer it came from (dynamic per broker, dynamic default, or static). */
export interface BrokerPropValue {
  readonly raw: string;
  readonly source: ConfigSourceId;
}

/** Every layer that sets `name`, highest priority first (Kafka lists synonyms layer by layer). */
export type BrokerPropLayers = (name: string) => BrokerPropValue[];

export const CONFIG_TYPE_IDS: Readonly<Record<ConfigType, number>> = {
  boolean: 1,
  string: 2,
  int: 3,
  short: 4,
  long: 5,
  double: 6,
  list: 7,
  class: 8,
  password: 9,
};

export interface ConfigSynonym {
  readonly name: string;
  readonly value: string | null;
  readonly source: ConfigSourceId;
}

export interface ConfigEntry {
  readonly name: string;
  /** null when the config has no value, or is sensitive. */
  readonly value: string | null;
  readonly source: ConfigSourceId;
  readonly isSensitive: boolean;
  readonly readOnly: boolean;
  /** CONFIG_TYPE_IDS of the config's type, for DescribeConfigs v3+. */
  readonly configType: number;
  /** Highest priority first, as Kafka lists them. */
  readonly synonyms: readonly ConfigSynonym[];
}
