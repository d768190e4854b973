// Which broker configs AlterConfigs/IncrementalAlterConfigs may change at run time, as Kafka's
// DynamicBrokerConfig.AllDynamicConfigs lists them: the log defaults topics inherit (DynamicLogConfig: every
// broker synonym of a topic config, message.max.bytes among them), the cleaner (LogCleaner.ReconfigurableConfigs),
// thread pools, connection quotas, replication quotas, listeners and listener security (SSL/SASL).
import { brokerConfigDef } from './definitions.js';

const CLEANER = ['log.cleaner.threads', 'log.cleaner.dedupe.buffer.size', 'log.cleaner.io.buffer.size',
  'log.cleaner.io.buffer.load.factor', 'log.cleaner.io.max.bytes.per.second', 'log.cleaner.backoff.ms'];
const THREADS = ['num.io.threads', 'num.network.threads', 'num.replica.fetchers', 'num.recovery.threads.per.data.dir', 'background.threads'];
const CONNECTIONS = ['max.connections', 'max.connections.per.ip', 'max.connections.per.ip.overrides', 'max.connection.creation.rate'];
const QUOTAS = ['leader.replication.throttled.rate', 'follower.replication.throttled.rate', 'replica.alter.log.dirs.io.max.bytes.per.second'];
const OTHERS = ['metric.reporters', 'producer.id.expiration.ms', 'transaction.partition.verification.enable', 'remote.log.index.file.cache.total.size.bytes'];
/** DynamicListenerConfig.ReconfigurableConfigs: per broker only, never a cluster default. */
const LISTENERS = ['listeners', 'advertised.listeners', 'listener.security.protocol.map'];
/** Kafka's DynamicSecurityConfigs (keystores and truststores): per broker only. */
const SECURITY_PER_BROKER = new Set(['ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.password', 'ssl.key.password',
  'ssl.keystore.certificate.chain', 'ssl.keystore.key', 'ssl.truststore.type', 'ssl.truststore.location', 'ssl.truststore.password',
  'ssl.truststore.certificates']);

const DYNAMIC = new Set([...CLEANER, ...THREADS, ...CONNECTIONS, ...QUOTAS, ...OTHERS, ...LISTENERS]);
const PER_BROKER_ONLY = new Set([...LISTENERS, ...SECURITY_PER_BROKER]);

/** Listener SSL and SASL settings (Kafka's reconfigurable channel-builder configs), also under listener.name.<l>. */
function isListenerSecurityConfig(name: string): boolean {
  const key = name.replace(/^listener\.name\.[^.]+\./, '');
  return key.startsWith('ssl.') || key.startsWith('sasl.') || /^[a-z0-9-]+\.sasl\.jaas\.config$/.test(key);
}

/** Whether `name` can be altered on a BROKER resource. */
export function isDynamicBrokerConfig(name: string): boolean {
  if (name.startsWith('listener.name.')) return isListenerSecurityConfig(name);
  const def = brokerConfigDef(name);
  if (!def) return false;
  return def.topicName !== null || DYNAMIC.has(name) || isListenerSecurityConfig(name);
}

/** Configs Kafka refuses at the cluster-default level ("broker id must be specified"). */
export function isPerBrokerOnlyConfig(name: string): boolean {
  return PER_BROKER_ONLY.has(name) || name.startsWith('listener.name.') || SECURITY_PER_BROKER.has(name.replace(/^listener\.name\.[^.]+\./, ''));
}
