// Kafka's ConfigException, as kafkite raises it. The CLI prints the one-line message and exits 2; CreateTopics
// and AlterConfigs map it to INVALID_CONFIG (40).

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly key: string,
    readonly value: string | null,
    readonly expected: string,
    message = `Invalid value ${value} for configuration ${key}: expected ${expected}`,
  ) {
    super(message);
  }
}

/** A name that is not a configuration of the kind asked for (Kafka: "Unknown topic config name"). */
export class UnknownConfigError extends ConfigError {
  override name = 'UnknownConfigError';
  constructor(key: string, value: string | null, kind: 'topic' | 'broker') {
    super(key, value, `a known ${kind} configuration`, `Unknown ${kind} config name: ${key}`);
  }
}
