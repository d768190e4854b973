// `kafkite kafka-config [server.properties] [--override key=value]... [--controller-port N]`: the server.properties
// an Apache Kafka 4.4 combined node (broker and controller) needs to start on kafkite's data dirs. kafkite's metadata
// log is a one-voter quorum at kraft.version 0 (a static voter set), so the node gets controller.quorum.voters
// naming itself (KIP-853's controller.quorum.bootstrap.servers needs kraft.version 1), a CONTROLLER listener, the
// same node id, listeners, log.dirs and metadata.log.dir, and every Kafka property the user gave kafkite.
import { resolve } from 'node:path';
import type { LoadedConfig } from '../../config/broker-config.js';

const DEFAULT_CONTROLLER_PORT = 9093;
/** Properties only kafkite reads: a Kafka node would warn about each. */
const KAFKITE_ONLY = (key: string) => key.startsWith('kafkite.') || key === 'admin.listener' || key === 'log.level';
/** Set here from kafkite's resolved config; the given values are not copied. */
const DERIVED = new Set([
  'process.roles', 'node.id', 'broker.id', 'controller.quorum.voters', 'controller.quorum.bootstrap.servers', 'controller.listener.names',
  'listeners', 'advertised.listeners', 'listener.security.protocol.map', 'inter.broker.listener.name', 'log.dirs', 'log.dir', 'metadata.log.dir',
]);

const ONE_NODE_DEFAULTS = [
  'offsets.topic.replication.factor', 'transaction.state.log.replication.factor', 'transaction.state.log.min.isr',
  'share.coordinator.state.topic.replication.factor', 'share.coordinator.state.topic.min.isr',
];

/** The properties, in the order a reader expects them: the node's identity and quorum first, then the user's. */
export function kafkaServerProperties(loaded: LoadedConfig, controllerPort = DEFAULT_CONTROLLER_PORT): Array<[string, string]> {
  const { config, properties } = loaded;
  const controllerNames = (properties.get('controller.listener.names') ?? 'CONTROLLER').split(',').map((n) => n.trim().toUpperCase()).filter((n) => n !== '');
  const controllerName = controllerNames[0] ?? 'CONTROLLER';
  const given = (properties.get('listeners') ?? '').split(',').map((l) => l.trim()).filter((l) => l !== '');
  const givenController = given.find((l) => controllerNames.includes(l.slice(0, l.indexOf(':')).toUpperCase()));
  const firstHost = config.listeners[0]?.host || 'localhost';
  const controllerListener = givenController ?? `${controllerName}://${firstHost}:${controllerPort}`;
  const match = /^[^:]+:\/\/\[?([^\]]*)\]?:(\d+)$/.exec(controllerListener);
  const controllerHost = match?.[1] || 'localhost';
  const port = match?.[2] ?? String(controllerPort);
  const listeners = config.listeners.map((l) => `${l.name}://${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`);
  const protocols = [...config.listeners.map((l) => `${l.name}:${l.securityProtocol}`), `${controllerListener.slice(0, controllerListener.indexOf(':')).toUpperCase()}:PLAINTEXT`];
  const logDirs = config.logDirs.map((d) => resolve(d));
  const derived: Array<[string, string]> = [
    ['process.roles', 'broker,controller'],
    ['node.id', String(config.nodeId)],
    ['controller.quorum.voters', `${config.nodeId}@${controllerHost}:${port}`],
    ['controller.listener.names', controllerListener.slice(0, controllerListener.indexOf(':')).toUpperCase()],
    ['listeners', [...listeners, controllerListener].join(',')],
    ['listener.security.protocol.map', [...new Set(protocols)].join(',')],
    ['inter.broker.listener.name', properties.get('inter.broker.listener.name') ?? config.listeners[0]!.name],
    ['log.dirs', logDirs.join(',')],
    ['metadata.log.dir', resolve(config.metadataLogDir ?? logDirs[0]!)],
  ];
  if (properties.has('advertised.listeners')) derived.push(['advertised.listeners', config.advertisedListeners.map((l) => `${l.name}://${l.host}:${l.port}`).join(',')]);
  // One node: the internal topics Kafka would create (or check) have one replica (Kafka's defaults, 3 and 2, fail).
  for (const key of ONE_NODE_DEFAULTS) if (!properties.has(key)) derived.push([key, '1']);
  // Kafka's SCRAM server needs a JAAS login module per SASL listener and mechanism (JaasContext.loadServerContext);
  // kafkite needs none, so a kafkite config may lack it.
  const mechanisms = (properties.get('sasl.enabled.mechanisms') ?? 'GSSAPI').split(',').map((m) => m.trim().toUpperCase()).filter((m) => m.startsWith('SCRAM-'));
  for (const l of config.listeners.filter((e) => e.securityProtocol.startsWith('SASL_'))) {
    for (const mechanism of mechanisms) {
      const key = `listener.name.${l.name.toLowerCase()}.${mechanism.toLowerCase()}.sasl.jaas.config`;
      if (!properties.has(key) && !properties.has('sasl.jaas.config')) derived.push([key, 'org.apache.kafka.common.security.scram.ScramLoginModule required;']);
    }
  }
  const user = [...properties].filter(([key]) => !DERIVED.has(key) && !KAFKITE_ONLY(key));
  return [...derived, ...user];
}
