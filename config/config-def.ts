// The shape of a configuration definition (Kafka's ConfigDef.ConfigKey, reduced to what a broker checks).

export type ConfigType = 'boolean' | 'string' | 'int' | 'short' | 'long' | 'double' | 'list' | 'class' | 'password';

/** Kafka's validators, parsed from the reference tables' `valid_values` text by generate-definitions. */
export type Validator =
  /** Inclusive bounds (null: open); `orValue` is one extra accepted value, as in "-1 or >= 1". */
  | { readonly kind: 'range'; readonly min: number | null; readonly max: number | null; readonly orValue?: number }
  | { readonly kind: 'oneOf'; readonly values: readonly string[]; readonly caseInsensitive: boolean }
  /** Kafka's ValidList: no value empty or twice (KIP-1161), maybe not empty, each one of `values` unless null. */
  | { readonly kind: 'list'; readonly nonEmpty: boolean; readonly values: readonly string[] | null }
  | { readonly kind: 'nonEmptyString' }
  | { readonly kind: 'nonNullString' }
  /** `User:alice;User:bob` */
  | { readonly kind: 'principals' }
  /** One principal, `User:alice` */
  | { readonly kind: 'principal' }
  /** `{host}:{port}`, comma-separated, may be empty. */
  | { readonly kind: 'hostPortList' }
  /** `{node.id}@{host}:{port}`, comma-separated, may be empty. */
  | { readonly kind: 'voterList' }
  /** `*` or `{partitionId}:{brokerId}`, comma-separated. */
  | { readonly kind: 'throttledReplicas' }
  /** A byte count (`1073741824`) or a percentage of a filesystem's size (`5%`, 0 to 100). */
  | { readonly kind: 'bytesOrPercent' };

export interface ConfigDef {
  readonly name: string;
  readonly type: ConfigType;
  /** Kafka's default as text; null when the config has none. */
  readonly default: string | null;
  readonly validator: Validator | null;
}

export interface BrokerConfigDef extends ConfigDef {
  /** The topic config this broker config supplies the default of, if any. */
  readonly topicName: string | null;
  readonly group: string;
}

/** A broker config a topic config falls back to; its value times `multiplier` is the topic value. */
export interface BrokerSynonym {
  readonly name: string;
  readonly multiplier: number;
}

export interface TopicConfigDef extends ConfigDef {
  /** Highest priority first: the first one set explicitly wins, else the topic default applies. */
  readonly brokerSynonyms: readonly BrokerSynonym[];
}
