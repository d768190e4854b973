// Kafka 4.4's group.streams.* broker configs (GroupCoordinatorConfig, KIP-1071), with its defaults and bounds:
// newer than the 4.0 tables definitions.generated.ts comes from.
import type { BrokerConfigDef } from './config-def.js';

const int = (name: string, def: string, min: number): BrokerConfigDef => ({
  name, type: 'int', default: def, validator: { kind: 'range', min, max: null }, topicName: null, group: 'group-coordinator',
});

export const STREAMS_GROUP_CONFIG_DEFS: readonly BrokerConfigDef[] = [
  int('group.streams.session.timeout.ms', '45000', 1),
  int('group.streams.min.session.timeout.ms', '45000', 1),
  int('group.streams.max.session.timeout.ms', '60000', 1),
  int('group.streams.heartbeat.interval.ms', '5000', 1),
  int('group.streams.min.heartbeat.interval.ms', '5000', 1),
  int('group.streams.max.heartbeat.interval.ms', '15000', 1),
  int('group.streams.max.size', '2147483647', 1),
  int('group.streams.num.standby.replicas', '0', 0),
  int('group.streams.max.standby.replicas', '2', 0),
  int('group.streams.initial.rebalance.delay.ms', '3000', 0),
  int('group.streams.assignment.interval.ms', '1000', 0),
  int('group.streams.min.assignment.interval.ms', '0', 0),
  int('group.streams.max.assignment.interval.ms', '15000', 0),
  { name: 'group.streams.assignors', type: 'list', default: 'sticky', validator: null, topicName: null, group: 'group-coordinator' },
  { name: 'group.streams.assignor.offload.enable', type: 'boolean', default: 'true', validator: null, topicName: null, group: 'group-coordinator' },
  int('group.streams.task.offset.interval.ms', '60000', 1),
  int('group.streams.min.task.offset.interval.ms', '15000', 1),
  int('group.streams.num.warmup.replicas', '2', 0),
  int('group.streams.max.warmup.replicas', '20', 0),
  { name: 'group.streams.rack.aware.assignment.tags', type: 'list', default: '', validator: null, topicName: null, group: 'group-coordinator' },
  { name: 'group.streams.topology.description.plugin.class', type: 'class', default: null, validator: null, topicName: null, group: 'group-coordinator' },
  { name: 'group.streams.acceptable.recovery.lag', type: 'long', default: '10000', validator: { kind: 'range', min: 0, max: null }, topicName: null, group: 'group-coordinator' },
];
