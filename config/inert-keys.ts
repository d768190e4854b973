// Kafka configs a stock file sets that mean nothing on one node: replication, the controller quorum, JVM thread
// pools, inter-broker traffic, and JMX metrics. kafkite validates them as Kafka does and reports them once at
// startup. Keys Kafka 4.4 no longer defines (zookeeper.*) are unknown keys instead, warned of as Kafka does.

const INERT_PATTERNS: readonly RegExp[] = [
  /\.replication\.factor$/,
  /\.min\.isr$/,
  /^controller\./,
  /^process\.roles$/,
  /^num\.(network\.threads|io\.threads|recovery\.threads\.per\.data\.dir|replica\.fetchers|replica\.alter\.log\.dirs\.threads)$/,
  /^background\.threads$/,
  /^queued\.max\.request/,
  /^socket\.(send|receive)\.buffer\.bytes$/,
  /^replica\./,
  /^inter\.broker\./,
  /^security\.inter\.broker\.protocol$/,
  /^sasl\.mechanism\.(inter\.broker|controller)\.protocol$/,
  /^early\.start\.listeners$/,
  /^broker\.(heartbeat\.interval\.ms|session\.timeout\.ms|rack)$/,
  /^initial\.broker\.registration\.timeout\.ms$/,
  /^metadata\.max\.idle\.interval\.ms$/, // the other metadata.log.* and metadata.max.* keys place, snapshot and clean __cluster_metadata-0
  /^controlled\.shutdown\./,
  /^auto\.leader\.rebalance\.enable$/,
  /^leader\.imbalance\./,
  /^unclean\.leader\.election\./,
  /^(leader|follower)\.replication\.throttled\.rate$/,
  /^(alter\.log\.dirs\.)?replication\.quota\./,
  /^(kafka\.metrics\.|metrics\.|metric\.reporters$)/,
];

export function isInertKey(name: string): boolean {
  return INERT_PATTERNS.some((pattern) => pattern.test(name));
}
