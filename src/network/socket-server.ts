// Accepts client connections on each configured listener. SSL and SASL_SSL listeners are TLS servers: the
// handshake (and the client certificate's principal) comes before a Connection is made; SASL listeners
// hand the Connection their mechanisms, and it authenticates before serving any request.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { Broker } from '../broker.js';
import { ANONYMOUS, type KafkaPrincipal } from '../security/principal.js';
import { FailedAuthenticationLog } from '../security/failed-authentication-log.js';
import type { SaslListenerConfig } from '../security/sasl/sasl-listener-config.js';
import type { ListenerSsl } from '../security/ssl-engine-factory.js';
import { rfc2253SubjectOf, SslPrincipalMappingError } from '../security/ssl-principal-mapper.js';
import { Connection } from './connection.js';
import { BufferPool } from './buffer-pool.js';
import { RequestMemoryPool } from './request-memory-pool.js';
import { loadSendfileAddon } from './sendfile-sender.js';
import type { ResponseSender } from './response-sender.js';

export interface ListenerSpec {
  name: string;
  host: string;
  port: number;
  /** SSL and SASL_SSL listeners. */
  ssl?: ListenerSsl;
  /** SASL_PLAINTEXT and SASL_SSL listeners. */
  sasl?: SaslListenerConfig;
}

/** A TLS handshake that has not finished by then is dropped (a client that connects and sends nothing). */
const TLS_HANDSHAKE_TIMEOUT_MS = 30_000;

export interface BoundListener extends ListenerSpec {
  /** The port actually bound (differs from `port` when 0 was asked for). */
  boundPort: number;
}

export interface SocketServerOptions {
  broker: Broker;
  sender: ResponseSender;
  log: Logger;
  maxRequestBytes: number;
  maxInFlightPerConnection: number;
  /** queued.max.request.bytes: request bytes all connections may be receiving at once; -1 for no bound. */
  queuedMaxRequestBytes: number;
  connectionsMaxIdleMs: number;
  maxConnections: number;
  maxConnectionsPerIp: number;
  /** socket.listen.backlog.size: how many connections may wait at max.connections (in Kafka, the kernel's accept queue). */
  listenBacklogSize: number;
  saslMaxReceiveSize: number;
  failedAuthenticationDelayMs: number;
  /** kafkite.failed.authentication.log.interval.ms: failed logins are logged one by one at most 5 per interval. */
  failedAuthenticationLogIntervalMs: number;
}

export class ListenerBindError extends Error {
  override name = 'ListenerBindError';
}

export class SocketServer {
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
  private nextConnectionId = 1;
  private readonly perIp = new Map<string, number>();
  private readonly memoryPool: RequestMemoryPool;
  /** 2 MiB holds any Produce request within librdkafka's and Kafka's default 1 MB message.max.bytes. */
  private readonly framePool = new BufferPool({ minBytes: 2 << 20, maxBytes: 2 << 20, maxFreeBytes: 8 * (2 << 20) });
  /** What plain TCP connections read into (Connection's receiveScratch): one buffer, always mapped. */
  private readonly receiveScratch = Buffer.allocUnsafeSlow(64 << 10);
  /** Accepted at max.connections: not read until a slot frees up. */
  private readonly waitingForSlot: Array<{ listener: ListenerSpec; socket: Socket; principal: KafkaPrincipal }> = [];

  /** TCP_QUICKACK through the native addon, when it is built with it. */
  private readonly quickAck: ((fd: number) => boolean) | undefined;
  private readonly failedAuthentications: FailedAuthenticationLog;

  constructor(private readonly opts: SocketServerOptions) {
    this.memoryPool = new RequestMemoryPool(opts.queuedMaxRequestBytes);
    this.failedAuthentications = new FailedAuthenticationLog(opts.log, opts.failedAuthenticationLogIntervalMs);
    const addon = loadSendfileAddon();
    this.quickAck = addon?.quickAck?.bind(addon);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Binds every listener; `localhost` binds both loopback addresses (clients may resolve it to ::1). */
  async bind(listeners: ReadonlyArray<ListenerSpec>): Promise<BoundListener[]> {
    const bound: BoundListener[] = [];
    for (const listener of listeners) {
      const hosts = listener.host === 'localhost' ? ['127.0.0.1', '::1'] : [listener.host || undefined];
      let port = listener.port;
      for (const [i, host] of hosts.entries()) {
        try {
          port = await this.listen(listener, host, port);
        } catch (err) {
          // ::1 is optional for `localhost` on machines without IPv6.
          if (i > 0) continue;
          throw new ListenerBindError(
            `cannot listen on ${listener.name}://${listener.host}:${listener.port}: ${(err as Error).message}`,
          );
        }
      }
      bound.push({ ...listener, boundPort: port });
    }
    return bound;
  }

  private listen(listener: ListenerSpec, host: string | undefined, port: number): Promise<number> {
    const server = listener.ssl ? this.tlsServer(listener, listener.ssl) : createServer({ noDelay: true }, (socket) => this.accept(listener, socket));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      // Node's default kernel backlog (511), not Kafka's 50: one event loop accepts in bursts behind
      // clients, where Kafka has an acceptor thread; 50 drops SYNs (1 s retries) under connection storms.
      server.listen({ host, port, ipv6Only: host === '::1' }, () => {
        server.off('error', reject);
        this.servers.push(server);
        resolve((server.address() as AddressInfo).port);
      });
    });
  }

  private tlsServer(listener: ListenerSpec, ssl: ListenerSsl): Server {
    const server = createTlsServer(
      {
        ...ssl.contextOptions,
        requestCert: ssl.clientAuth !== 'none',
        // 'requested' still refuses a certificate that does not verify, as Java's SSLEngine (wantClientAuth) does.
        rejectUnauthorized: ssl.clientAuth === 'required',
        handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
        noDelay: true,
      },
      (socket) => {
        const principal = this.certificatePrincipal(listener, ssl, socket);
        if (principal) this.accept(listener, socket, principal);
      },
    );
    // A plaintext client, garbage or a failed handshake: that socket is gone, nothing else is affected.
    server.on('tlsClientError', (err, socket) => {
      this.opts.log.debug({ remote: socket.remoteAddress, listener: listener.name, error: err.message }, 'TLS handshake failed');
      socket.destroy();
    });
    return server;
  }

  /** User:<mapped DN> for a verified client certificate, ANONYMOUS without one; null when refused (and closed). */
  private certificatePrincipal(listener: ListenerSpec, ssl: ListenerSsl, socket: TLSSocket): KafkaPrincipal | null {
    const cert = socket.getPeerX509Certificate();
    if (!cert) return ANONYMOUS;
    if (!socket.authorized) {
      this.opts.log.info({ remote: socket.remoteAddress, listener: listener.name, error: socket.authorizationError }, 'client certificate refused');
      socket.destroy();
      return null;
    }
    const dn = rfc2253SubjectOf(cert);
    try {
      return { principalType: 'User', name: ssl.principalMapper.getName(dn) };
    } catch (err) {
      if (!(err instanceof SslPrincipalMappingError)) throw err;
      this.opts.log.info({ remote: socket.remoteAddress, listener: listener.name, subject: dn, error: err.message }, 'client certificate refused');
      socket.destroy();
      return null;
    }
  }

  /**
   * Kafka's connection quotas: over max.connections.per.ip a connection is closed at once; at
   * max.connections new ones are not refused but wait, unread, for a free slot (as Kafka's acceptor
   * blocks), at most socket.listen.backlog.size of them.
   */
  private accept(listener: ListenerSpec, socket: Socket, principal: KafkaPrincipal = ANONYMOUS): void {
    const ip = socket.remoteAddress ?? '';
    const fromIp = this.perIp.get(ip) ?? 0;
    if (fromIp >= this.opts.maxConnectionsPerIp) {
      this.opts.log.debug({ remote: ip, fromIp }, 'connection refused: max.connections.per.ip reached');
      socket.destroy();
      return;
    }
    if (this.connections.size < this.opts.maxConnections && this.waitingForSlot.length === 0) {
      this.admit(listener, socket, principal);
      return;
    }
    if (this.waitingForSlot.length >= this.opts.listenBacklogSize) {
      this.opts.log.debug({ remote: ip, connections: this.connections.size }, 'connection refused: max.connections reached and backlog full');
      socket.destroy();
      return;
    }
    socket.pause();
    socket.on('error', () => socket.destroy());
    this.waitingForSlot.push({ listener, socket, principal });
  }

  private admit(listener: ListenerSpec, socket: Socket, principal: KafkaPrincipal): void {
    const ip = socket.remoteAddress ?? '';
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    const connection = new Connection(socket, {
      id: this.nextConnectionId++,
      listenerName: listener.name,
      ...(listener.sasl ? { sasl: listener.sasl } : {}),
      saslMaxReceiveSize: this.opts.saslMaxReceiveSize,
      failedAuthenticationDelayMs: this.opts.failedAuthenticationDelayMs,
      failedAuthentications: this.failedAuthentications,
      principal,
      broker: this.opts.broker,
      sender: this.opts.sender,
      maxRequestBytes: this.opts.maxRequestBytes,
      maxInFlight: this.opts.maxInFlightPerConnection,
      memoryPool: this.memoryPool,
      framePool: this.framePool,
      // TLS sockets decrypt into buffers of their own.
      ...(listener.ssl ? {} : { receiveScratch: this.receiveScratch }),
      log: this.opts.log,
      ...(this.quickAck ? { quickAck: this.quickAck } : {}),
      onClose: (c) => {
        this.connections.delete(c);
        this.opts.broker.sharePartitions.connectionClosed(c.id);
        const left = (this.perIp.get(ip) ?? 1) - 1;
        if (left > 0) this.perIp.set(ip, left);
        else this.perIp.delete(ip);
        this.admitWaiting();
      },
    });
    this.connections.add(connection);
    socket.setTimeout(this.opts.connectionsMaxIdleMs, () => connection.close());
    socket.resume();
  }

  /** A slot freed up: the longest-waiting connection still open gets it. */
  private admitWaiting(): void {
    while (this.waitingForSlot.length > 0 && this.connections.size < this.opts.maxConnections) {
      const { listener, socket, principal } = this.waitingForSlot.shift()!;
      if (socket.destroyed) continue;
      if ((this.perIp.get(socket.remoteAddress ?? '') ?? 0) >= this.opts.maxConnectionsPerIp) {
        socket.destroy();
        continue;
      }
      this.admit(listener, socket, principal);
    }
  }

  /** Stops accepting, lets in-flight requests finish (bounded by `graceMs`), then closes every connection. */
  async shutdown(graceMs: number): Promise<void> {
    for (const server of this.servers) server.close();
    for (const { socket } of this.waitingForSlot.splice(0)) socket.destroy();
    const deadline = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([Promise.all([...this.connections].map((c) => c.drained())), deadline]);
    for (const c of this.connections) c.close();
    this.failedAuthentications.flush();
  }
}
