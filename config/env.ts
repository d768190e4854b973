// Broker properties from environment variables, as the apache/kafka Docker image derives them
// (KafkaDockerWrapper): KAFKA_LOG_RETENTION_MS -> log.retention.ms, with ___ -> '-' and __ -> '_'.
// Also the image's security conventions (its `configure` script): KAFKA_SSL_{KEYSTORE,TRUSTSTORE}_FILENAME
// name files in /etc/kafka/secrets, KAFKA_SSL_{KEYSTORE,KEY,TRUSTSTORE}_CREDENTIALS name files there holding
// the passwords, and SASL's JAAS file comes from KAFKA_OPTS -Djava.security.auth.login.config=<file>.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';

/** Where the apache/kafka image expects keystores and their credential files. */
const DOCKER_SECRETS_DIR = '/etc/kafka/secrets';

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

// The image's file-name conventions, mapped to the properties they stand for.
const SECRET_FILES: ReadonlyArray<[variable: string, property: string, kind: 'path' | 'contents']> = [
  ['KAFKA_SSL_KEYSTORE_FILENAME', 'ssl.keystore.location', 'path'],
  ['KAFKA_SSL_TRUSTSTORE_FILENAME', 'ssl.truststore.location', 'path'],
  ['KAFKA_SSL_KEYSTORE_CREDENTIALS', 'ssl.keystore.password', 'contents'],
  ['KAFKA_SSL_KEY_CREDENTIALS', 'ssl.key.password', 'contents'],
  ['KAFKA_SSL_TRUSTSTORE_CREDENTIALS', 'ssl.truststore.password', 'contents'],
];
const SECRET_VARIABLES = new Set(SECRET_FILES.map(([v]) => v));

export function envVarToPropertyName(variable: string): string {
  return variable
    .slice('KAFKA_'.length)
    .toLowerCase()
    .replace(/_/g, '.')
    .replace(/\.\.\./g, '-')
    .replace(/\.\./g, '_');
}

function readSecret(variable: string, path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new ConfigError(variable, path, `a readable file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/**
 * The `KafkaServer` sections of a JAAS file (a listener's own `<listener>.KafkaServer` too), as the
 * sasl.jaas.config values they amount to.
 */
function jaasFileProperties(text: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const m of text.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/([A-Za-z0-9_.\-]+)\s*\{([\s\S]*?)\}\s*;/g)) {
    const [, section, body] = m as unknown as [string, string, string];
    if (section === 'KafkaServer') props.set('sasl.jaas.config', body.trim());
    else if (section.endsWith('.KafkaServer')) props.set(`listener.name.${section.slice(0, -'.KafkaServer'.length).toLowerCase()}.sasl.jaas.config`, body.trim());
  }
  return props;
}

/** The properties the environment sets; CLUSTER_ID (which the image formats storage with) sets cluster.id. */
export function propertiesFromEnv(env: Readonly<Record<string, string | undefined>>, secretsDir = DOCKER_SECRETS_DIR): Map<string, string> {
  const props = new Map<string, string>();
  if (env['CLUSTER_ID'] !== undefined) props.set('cluster.id', env['CLUSTER_ID']);
  const jaasFile = /-Djava\.security\.auth\.login\.config=(\S+)/.exec(env['KAFKA_OPTS'] ?? '')?.[1];
  if (jaasFile !== undefined) jaasFileProperties(readSecret('KAFKA_OPTS', jaasFile)).forEach((v, k) => props.set(k, v));
  for (const [variable, property, kind] of SECRET_FILES) {
    const name = env[variable];
    if (name === undefined) continue;
    const path = join(secretsDir, name);
    props.set(property, kind === 'path' ? path : readSecret(variable, path));
  }
  for (const [variable, value] of Object.entries(env)) {
    if (value === undefined || !variable.startsWith('KAFKA_') || EXCLUDED.has(variable) || SECRET_VARIABLES.has(variable)) continue;
    if (EXCLUDED_PREFIXES.some((prefix) => variable.startsWith(prefix))) continue;
    props.set(envVarToPropertyName(variable), value);
  }
  return props;
}
