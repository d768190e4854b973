// Assembles a running kafkite: broker core, listeners, and the shutdown sequence.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config/broker-config.js';
import { ConfigError } from '../config/config-error.js';
import { usesSasl, usesTls } from '../config/listeners.js';
import type { AdminServer } from './admin/admin-server.js';
import { Broker } from './broker.js';
import { crc32cImplementation } from '../protocol/records/crc32c.js';
import { createResponseSender } from './network/sendfile-sender.js';
import { ListenerBindError, SocketServer, type ListenerSpec } from './network/socket-server.js';
import { SaslListenerConfig } from './security/sasl/sasl-listener-config.js';
import { SslEngineFactory, type ListenerSsl } from './security/ssl-engine-factory.js';

/** Requests one connection may have decoded but unanswered before we stop reading it. */
const MAX_IN_FLIGHT_PER_CONNECTION = 100;
const SHUTDOWN_GRACE_MS = 10_000;

export class KafkiteServer {
  private constructor(
    readonly broker: Broker,
    private readonly sockets: SocketServer,
    private readonly admin: AdminServer | null,
    private readonly log: Logger,
  ) {}

  static async start(config: BrokerConfig, log: Logger): Promise<KafkiteServer> {
    // Keystores and the admin token are checked before any log is opened: a bad one stops start-up at once.
    const ssl = new Map<string, ListenerSsl>();
    for (const l of config.listeners) if (usesTls(l.securityProtocol)) ssl.set(l.name, new SslEngineFactory(config, l.name).build());
    const adminToken = readAdminToken(config);
    const broker = await Broker.open(config, log);
    const sockets = new SocketServer({
      broker,
      sender: createResponseSender({ zeroCopy: config.zeroCopyEnable, log }),
      log,
      maxRequestBytes: config.socketRequestMaxBytes,
      maxInFlightPerConnection: MAX_IN_FLIGHT_PER_CONNECTION,
      queuedMaxRequestBytes: config.queuedMaxRequestBytes,
      connectionsMaxIdleMs: config.connectionsMaxIdleMs,
      maxConnections: config.maxConnections,
      maxConnectionsPerIp: config.maxConnectionsPerIp,
      listenBacklogSize: config.socketListenBacklogSize,
      saslMaxReceiveSize: config.saslServerMaxReceiveSize,
      failedAuthenticationDelayMs: config.connectionFailedAuthenticationDelayMs,
      failedAuthenticationLogIntervalMs: config.failedAuthenticationLogIntervalMs,
    });
    let bound;
    let admin: AdminServer | null = null;
    try {
      if (config.adminListener !== null) {
        // Loaded only when asked for: the admin HTTP server, the console and the schema registry (fastify, avsc,
        // protobufjs, ajv, ...) are a third of an idle broker's RSS and of its start-up compile time.
        const { startAdminServer } = await import('./admin/admin-server.js');
        admin = await startAdminServer({
          broker,
          listener: config.adminListener,
          token: adminToken,
          log,
          isReady: () => broker.endpoints.length > 0 && !broker.closing,
          connectionCount: () => sockets.connectionCount,
        }).catch((err: Error) => {
          throw new ListenerBindError(`cannot listen on admin.listener ${config.adminListener}: ${err.message}`);
        });
      }
      const specs: ListenerSpec[] = config.listeners.map((l) => ({
        name: l.name,
        host: l.host,
        port: l.port,
        ...(ssl.has(l.name) ? { ssl: ssl.get(l.name)! } : {}),
        ...(usesSasl(l.securityProtocol) ? { sasl: SaslListenerConfig.resolve(config, l.name, broker.scramCredentials) } : {}),
      }));
      bound = await sockets.bind(specs);
    } catch (err) {
      await admin?.close();
      await broker.shutdown();
      throw err;
    }
    broker.endpoints = bound.map((l) => {
      const advertised = config.advertisedListeners.find((a) => a.name === l.name) ?? l;
      return {
        listenerName: l.name,
        host: advertised.host || 'localhost',
        port: advertised.port === 0 || advertised === l ? l.boundPort : advertised.port,
      };
    });
    await broker.register();
    log.info(
      {
        listeners: bound.map((l) => `${l.name}://${l.host}:${l.boundPort}`),
        securityProtocols: Object.fromEntries(config.listeners.map((l) => [l.name, l.securityProtocol])),
        advertisedListeners: broker.endpoints.map((e) => `${e.listenerName}://${e.host}:${e.port}`),
        logDirs: config.logDirs,
        nodeId: config.nodeId,
        clusterId: broker.clusterId,
        // Every produced batch's CRC is checked: the native addon's, or @node-rs/crc32 when it is not built.
        crc32c: crc32cImplementation,
      },
      'kafkite started',
    );
    return new KafkiteServer(broker, sockets, admin, log);
  }

  /** Stop accepting, answer in-flight requests, flush and close the logs. */
  async stop(): Promise<void> {
    this.broker.closing = true;
    this.broker.purgatory.wakeAll();
    await this.sockets.shutdown(SHUTDOWN_GRACE_MS);
    await this.broker.shutdown();
    await this.admin?.close();
    this.log.info('kafkite stopped');
  }
}

/** kafkite.admin.token, else the first line of kafkite.admin.token.file; null when neither is set. */
function readAdminToken(config: BrokerConfig): string | null {
  if (config.adminToken !== null) return config.adminToken;
  const file = config.adminTokenFile;
  if (file === null) return null;
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new ConfigError('kafkite.admin.token.file', file, `a readable file holding the admin token (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (token === '') throw new ConfigError('kafkite.admin.token.file', file, 'a file holding a non-empty admin token');
  return token;
}
