// Lookup over every configuration kafkite knows: Kafka's broker and topic configs, plus kafkite's own.
import type { BrokerConfigDef, TopicConfigDef } from './config-def.js';
import { BROKER_CONFIG_DEFS, TOPIC_CONFIG_DEFS as KAFKA_TOPIC_CONFIG_DEFS } from './definitions.generated.js';
import { LEGACY_BROKER_CONFIG_DEFS, LEGACY_TOPIC_CONFIG_DEFS } from './legacy-definitions.js';
import { REMOVED_SHARE_GROUP_CONFIGS, SHARE_GROUP_CONFIG_DEFS } from './share-group-definitions.js';
import { STREAMS_GROUP_CONFIG_DEFS } from './streams-group-definitions.js';

/** kafkite's own broker configs; known keys like Kafka's, never reported as unknown. */
const KAFKITE_CONFIG_DEFS: readonly BrokerConfigDef[] = [
  {
    name: 'log.level',
    type: 'string',
    default: 'info',
    validator: { kind: 'oneOf', values: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], caseInsensitive: true },
    topicName: null,
    group: 'kafkite',
  },
  { name: 'admin.listener', type: 'string', default: null, validator: null, topicName: null, group: 'kafkite' },
  // Bearer token every admin HTTP route but /health requires; mandatory when admin.listener is not loopback.
  { name: 'kafkite.admin.token', type: 'password', default: null, validator: null, topicName: null, group: 'kafkite' },
  { name: 'kafkite.admin.token.file', type: 'string', default: null, validator: null, topicName: null, group: 'kafkite' },
  // Host names the admin HTTP answers to besides localhost, the loopback addresses and admin.listener's host
  // (DNS rebinding): the names a proxy or a container's port mapping reaches it by.
  { name: 'kafkite.admin.allowed.hosts', type: 'list', default: '', validator: null, topicName: null, group: 'kafkite' },
  // The principal the console's and /v1's writes are authorized as when authorizer.class.name is set.
  { name: 'kafkite.admin.principal', type: 'string', default: 'User:ANONYMOUS', validator: { kind: 'principal' }, topicName: null, group: 'kafkite' },
  // The web console on the admin listener (issue 12): served under / with its JSON under /v1.
  { name: 'kafkite.console.enable', type: 'boolean', default: 'true', validator: null, topicName: null, group: 'kafkite' },
  // Hides the console's writing actions and refuses them (create, delete, reset, produce, config edit).
  { name: 'kafkite.console.read.only', type: 'boolean', default: 'false', validator: null, topicName: null, group: 'kafkite' },
  // Confluent's Schema Registry REST API on the admin listener, stored in `_schemas` (issue 33). Off by default:
  // it creates a topic in the user's data and a write API, which a broker should not do unasked.
  { name: 'kafkite.schema.registry.enable', type: 'boolean', default: 'false', validator: null, topicName: null, group: 'kafkite' },
  // The registry's routes ask for HTTP basic auth of a SASL/SCRAM user (Confluent's authentication.method=BASIC);
  // kafkite.admin.token still opens them.
  { name: 'kafkite.schema.registry.basic.auth.enable', type: 'boolean', default: 'false', validator: null, topicName: null, group: 'kafkite' },
  // A partition log unused this long is closed and only its offsets stay in memory (new and background-loaded
  // ones at once); loaded again on its next use. -1 keeps every log loaded, as Kafka does.
  { name: 'kafkite.log.unload.idle.ms', type: 'long', default: '600000', validator: { kind: 'range', min: -1, max: null }, topicName: null, group: 'kafkite' },
  // Failed SASL logins are logged one by one up to 5 per interval (the first of each user and host); one line at
  // its end counts the rest. Kafka logs every one.
  { name: 'kafkite.failed.authentication.log.interval.ms', type: 'long', default: '60000', validator: { kind: 'range', min: 1, max: null }, topicName: null, group: 'kafkite' },
  { name: 'kafkite.zero.copy.enable', type: 'boolean', default: 'true', validator: null, topicName: null, group: 'kafkite' },
  // Flushes (acks=all, flush.ms/flush.messages) of a log dir's partitions share commit rounds with one syncfs(2)
  // each (native addon); false, or no addon, fdatasyncs each partition's files on its own.
  { name: 'kafkite.log.flush.syncfs.enable', type: 'boolean', default: 'true', validator: null, topicName: null, group: 'kafkite' },
  // Below this much free space on a log dir's filesystem, Produce is refused (retriable KAFKA_STORAGE_ERROR)
  // while reads, deletes, retention and compaction go on; 0 turns the check off (Redpanda's storage_min_free_bytes).
  { name: 'kafkite.storage.min.free.bytes', type: 'string', default: '1073741824', validator: { kind: 'bytesOrPercent' }, topicName: null, group: 'kafkite' },
  // Kafka keeps the cluster id in meta.properties; kafkite takes a fixed one here (the Docker image's CLUSTER_ID).
  { name: 'cluster.id', type: 'string', default: null, validator: { kind: 'nonEmptyString' }, topicName: null, group: 'kafkite' },
];

/** The hand-written group configs replace the table's rows of the same names. */
const HAND_WRITTEN = new Set([...SHARE_GROUP_CONFIG_DEFS, ...STREAMS_GROUP_CONFIG_DEFS].map((d) => d.name));

export const ALL_BROKER_CONFIG_DEFS: readonly BrokerConfigDef[] = [
  ...BROKER_CONFIG_DEFS.filter((d) => !HAND_WRITTEN.has(d.name) && !REMOVED_SHARE_GROUP_CONFIGS.has(d.name)),
  ...SHARE_GROUP_CONFIG_DEFS,
  ...STREAMS_GROUP_CONFIG_DEFS,
  ...LEGACY_BROKER_CONFIG_DEFS,
  ...KAFKITE_CONFIG_DEFS,
];
export const TOPIC_CONFIG_DEFS: readonly TopicConfigDef[] = [...KAFKA_TOPIC_CONFIG_DEFS, ...LEGACY_TOPIC_CONFIG_DEFS];

const brokerDefs = new Map(ALL_BROKER_CONFIG_DEFS.map((def) => [def.name, def]));
const topicDefs = new Map(TOPIC_CONFIG_DEFS.map((def) => [def.name, def]));

export function brokerConfigDef(name: string): BrokerConfigDef | undefined {
  return brokerDefs.get(name);
}

export function topicConfigDef(name: string): TopicConfigDef | undefined {
  return topicDefs.get(name);
}

/**
 * The broker configs that stand for the same setting, highest priority first (Kafka's brokerConfigSynonyms):
 * the whole chain for log.retention.{ms,minutes,hours} and the like, else just the name itself.
 */
export function brokerSynonymChain(name: string): readonly string[] {
  const topicName = brokerDefs.get(name)?.topicName;
  const chain = topicName ? topicDefs.get(topicName)?.brokerSynonyms.map((s) => s.name) : undefined;
  return chain && chain.includes(name) ? chain : [name];
}
