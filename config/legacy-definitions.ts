// Kafka 3.x's switch for converting record batches down for Fetch v0-3 (LogConfig's message.downconversion.enable,
// broker synonym log.message.downconversion.enable). Kafka 4.0 dropped it with those Fetch versions (KIP-896,
// KIP-724); kafkite still serves them (src/legacy/), so it keeps the switch and its 3.x default.
import type { BrokerConfigDef, TopicConfigDef } from './config-def.js';

export const LEGACY_BROKER_CONFIG_DEFS: readonly BrokerConfigDef[] = [
  { name: 'log.message.downconversion.enable', type: 'boolean', default: 'true', validator: null, topicName: 'message.downconversion.enable', group: 'log' },
];

export const LEGACY_TOPIC_CONFIG_DEFS: readonly TopicConfigDef[] = [
  { name: 'message.downconversion.enable', type: 'boolean', default: 'true', validator: null, brokerSynonyms: [{ name: 'log.message.downconversion.enable', multiplier: 1 }] },
];
