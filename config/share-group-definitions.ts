// Kafka 4.4's group.share.* broker configs (GroupCoordinatorConfig and ShareGroupConfig), which the 4.0 tables of
// definitions.generated.ts predate: they replace the tables' rows of the same names, and the two 4.0 rows 4.4 no
// longer has (group.share.enable: share groups follow the share.version feature; group.share.max.groups) go.
import type { BrokerConfigDef } from './config-def.js';

const range = (min: number, max: number | null = null) => ({ kind: 'range', min, max }) as const;
const def = (name: string, type: BrokerConfigDef['type'], dflt: string, validator: BrokerConfigDef['validator']): BrokerConfigDef =>
  ({ name, type, default: dflt, validator, topicName: null, group: 'group-coordinator' });

export const SHARE_GROUP_CONFIG_DEFS: readonly BrokerConfigDef[] = [
  def('group.share.session.timeout.ms', 'int', '45000', range(1)),
  def('group.share.min.session.timeout.ms', 'int', '45000', range(1)),
  def('group.share.max.session.timeout.ms', 'int', '60000', range(1)),
  def('group.share.heartbeat.interval.ms', 'int', '5000', range(1)),
  def('group.share.min.heartbeat.interval.ms', 'int', '5000', range(1)),
  def('group.share.max.heartbeat.interval.ms', 'int', '15000', range(1)),
  def('group.share.max.size', 'int', '200', range(1, 1000)),
  def('group.share.assignors', 'list', 'simple', null),
  def('group.share.assignment.interval.ms', 'int', '1000', range(0)),
  def('group.share.min.assignment.interval.ms', 'int', '0', range(0)),
  def('group.share.max.assignment.interval.ms', 'int', '15000', range(0)),
  def('group.share.assignor.offload.enable', 'boolean', 'true', null),
  def('group.share.initialize.retry.interval.ms', 'int', '30000', range(1)),
  def('group.share.delivery.count.limit', 'int', '5', range(2, 10)),
  def('group.share.min.delivery.count.limit', 'int', '2', range(2, 5)),
  def('group.share.max.delivery.count.limit', 'int', '10', range(5, 25)),
  def('group.share.record.lock.duration.ms', 'int', '30000', range(1000, 3600000)),
  def('group.share.min.record.lock.duration.ms', 'int', '15000', range(1000, 30000)),
  def('group.share.max.record.lock.duration.ms', 'int', '60000', range(30000, 3600000)),
  def('group.share.partition.max.record.locks', 'int', '2000', range(100, 10000)),
  def('group.share.min.partition.max.record.locks', 'int', '100', range(100, 2000)),
  def('group.share.max.partition.max.record.locks', 'int', '4000', range(2000, 10000)),
  def('group.share.max.share.sessions', 'int', '2000', range(1)),
  def('group.share.persister.class.name', 'string', 'org.apache.kafka.server.share.persister.DefaultStatePersister', null),
  def('group.share.dlq.manager.class.name', 'string', 'org.apache.kafka.server.share.dlq.DefaultShareGroupDLQManager', null),
];

/** The 4.0 table rows Kafka 4.4 dropped. */
export const REMOVED_SHARE_GROUP_CONFIGS: ReadonlySet<string> = new Set(['group.share.enable', 'group.share.max.groups']);
