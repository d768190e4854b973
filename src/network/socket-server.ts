// Accepts client connections on each configured listener (PLAINTEXT today; SSL/SASL would wrap the
// socket here, before a Connection is made).
import { createServer, type Server, type AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Broker } from '../broker.js';
import { Connection } from './connection.js';
import type { ResponseSender } from './response-sender.js';

export interface ListenerSpec {
  name: string;
  host: string;
  port: number;
}

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
  connectionsMaxIdleMs: number;
  maxConnections: number;
  maxConnectionsPerIp: number;
}

export class ListenerBindError extends Error {
  override name = 'ListenerBindError';
}

export class SocketServer {
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
  private nextConnectionId = 1;
  private readonly perIp = new Map<string, number>();

  constructor(private readonly opts: SocketServerOptions) {}

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
          port = await this.listen(listener.name, host, port);
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

  private listen(listenerName: string, host: string | undefined, port: number): Promise<number> {
    const server = createServer({ noDelay: true }, (socket) => {
      const ip = socket.remoteAddress ?? '';
      const fromIp = this.perIp.get(ip) ?? 0;
      // Kafka refuses connections over max.connections / max.connections.per.ip by closing them.
      if (this.connections.size >= this.opts.maxConnections || fromIp >= this.opts.maxConnectionsPerIp) {
        this.opts.log.debug({ remote: ip, connections: this.connections.size, fromIp }, 'connection refused: too many connections');
        socket.destroy();
        return;
      }
      this.perIp.set(ip, fromIp + 1);
      const connection = new Connection(socket, {
        id: this.nextConnectionId++,
        listenerName,
        broker: this.opts.broker,
        sender: this.opts.sender,
        maxRequestBytes: this.opts.maxRequestBytes,
        maxInFlight: this.opts.maxInFlightPerConnection,
        log: this.opts.log,
        onClose: (c) => {
          this.connections.delete(c);
          const left = (this.perIp.get(ip) ?? 1) - 1;
          if (left > 0) this.perIp.set(ip, left);
          else this.perIp.delete(ip);
        },
      });
      this.connections.add(connection);
      socket.setTimeout(this.opts.connectionsMaxIdleMs, () => connection.close());
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, ipv6Only: host === '::1' }, () => {
        server.off('error', reject);
        this.servers.push(server);
        resolve((server.address() as AddressInfo).port);
      });
    });
  }

  /** Stops accepting, lets in-flight requests finish (bounded by `graceMs`), then closes every connection. */
  async shutdown(graceMs: number): Promise<void> {
    for (const server of this.servers) server.close();
    const deadline = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([Promise.all([...this.connections].map((c) => c.drained())), deadline]);
    for (const c of this.connections) c.close();
  }
}
