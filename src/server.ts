// Assembles a running kafkite: broker core, listeners, and the shutdown sequence.
import type { Logger } from 'pino';
import type { BrokerConfig } from '../config/broker-config.js';
import { startAdminServer, type AdminServer } from './admin/admin-server.js';
import { Broker } from './broker.js';
import { createResponseSender } from './network/sendfile-sender.js';
import { ListenerBindError, SocketServer } from './network/socket-server.js';

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
    });
    let bound;
    let admin: AdminServer | null = null;
    try {
      if (config.adminListener !== null) {
        admin = await startAdminServer({
          broker,
          listener: config.adminListener,
          log,
          isReady: () => broker.endpoints.length > 0 && !broker.closing,
          connectionCount: () => sockets.connectionCount,
        }).catch((err: Error) => {
          throw new ListenerBindError(`cannot listen on admin.listener ${config.adminListener}: ${err.message}`);
        });
      }
      bound = await sockets.bind(config.listeners);
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
    log.info(
      {
        listeners: bound.map((l) => `${l.name}://${l.host}:${l.boundPort}`),
        advertisedListeners: broker.endpoints.map((e) => `${e.listenerName}://${e.host}:${e.port}`),
        logDirs: config.logDirs,
        nodeId: config.nodeId,
        clusterId: broker.clusterId,
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
