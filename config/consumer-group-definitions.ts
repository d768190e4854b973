// Kafka 4.4's group.consumer.* assignment batching configs (GroupCoordinatorConfig, KIP-1263), with its defaults and
// bounds: newer than the 4.0 tables definitions.generated.ts comes from.
import type { BrokerConfigDef } from './config-def.js';

const int = (name: string, def: string): BrokerConfigDef => ({
  name, type: 'int', default: def, validator: { kind: 'range', min: 0, max: null }, topicName: null, group: 'group-coordinator',
});

export const CONSUMER_GROUP_CONFIG_DEFS: readonly BrokerConfigDef[] = [
  int('group.consumer.assignment.interval.ms', '1000'),
  int('group.consumer.min.assignment.interval.ms', '0'),
  int('group.consumer.max.assignment.interval.ms', '15000'),
  // Accepted for Kafka's server.properties; the assignor runs on the broker's one thread either way.
  { name: 'group.consumer.assignor.offload.enable', type: 'boolean', default: 'true', validator: null, topicName: null, group: 'group-coordinator' },
];
