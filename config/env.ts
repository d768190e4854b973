// Broker properties from environment variables, as the apache/kafka Docker image derives them
// (KafkaDockerWrapper): KAFKA_LOG_RETENTION_MS -> log.retention.ms, with ___ -> '-' and __ -> '_'.

// Variables the image's own scripts read, so they are never broker properties.
const EXCLUDED = new Set([
  'KAFKA_VERSION',
  'KAFKA_HOME',
  'KAFKA_HEAP_OPTS',
  'KAFKA_OPTS',
  'KAFKA_DEBUG',
  'KAFKA_GC_LOG_OPTS',
  'KAFKA_JVM_PERFORMANCE_OPTS',
  'KAFKA_TOOLS_LOG4J_LOGLEVEL',
]);
const EXCLUDED_PREFIXES = ['KAFKA_JMX_', 'KAFKA_LOG4J_'];

export function envVarToPropertyName(variable: string): string {
  return variable
    .slice('KAFKA_'.length)
    .toLowerCase()
    .replace(/_/g, '.')
    .replace(/\.\.\./g, '-')
    .replace(/\.\./g, '_');
}

/** The properties the environment sets; CLUSTER_ID (which the image formats storage with) sets cluster.id. */
export function propertiesFromEnv(env: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const props = new Map<string, string>();
  if (env['CLUSTER_ID'] !== undefined) props.set('cluster.id', env['CLUSTER_ID']);
  for (const [variable, value] of Object.entries(env)) {
    if (value === undefined || !variable.startsWith('KAFKA_') || EXCLUDED.has(variable)) continue;
    if (EXCLUDED_PREFIXES.some((prefix) => variable.startsWith(prefix))) continue;
    props.set(envVarToPropertyName(variable), value);
  }
  return props;
}
