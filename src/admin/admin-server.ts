// kafkite's admin HTTP (admin.listener): liveness and readiness probes, Prometheus metrics, JSON views of
// topics and consumer groups, and the console. Separate from the Kafka listeners, like Kafka's JMX port; what
// a web page may not do to it (Host, Origin, Content-Type, framing, token) is in admin-guard.ts.
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import type { Logger } from 'pino';
import { parseAdminListener } from '../../config/listeners.js';
import type { Broker } from '../broker.js';
import { installAdminGuard } from './admin-guard.js';
import { groupViews } from './group-views.js';
import { ongoingTransactions } from './transaction-views.js';
import { registerConsoleApi } from './console-api.js';
import { consoleRoot, KAFKITE_VERSION } from './console-files.js';
import { KafkiteMetrics } from './metrics.js';
import { BasicAuthVerifier } from '../schema-registry/basic-auth.js';
import { topicSummaries, topicView } from './topic-views.js';

export interface AdminServerOptions {
  broker: Broker;
  /** `http://host:port`; port 0 binds a free one. */
  listener: string;
  /** kafkite.admin.token: when set, every route but /health requires `Authorization: Bearer <token>`. */
  token?: string | null;
  log: Logger;
  /** Logs loaded and Kafka listeners bound (and not shutting down). */
  isReady(): boolean;
  connectionCount(): number;
}

export interface AdminServer {
  /** `http://host:port` actually bound. */
  readonly address: string;
  close(): Promise<void>;
}

/** Starts the admin HTTP and attaches the broker's metrics, which it serves on /metrics. */
export async function startAdminServer(opts: AdminServerOptions): Promise<AdminServer> {
  const { broker, log } = opts;
  const { host, port } = parseAdminListener(opts.listener);
  const metrics = new KafkiteMetrics({ broker, connectionCount: opts.connectionCount });

  const app = Fastify({ logger: false });
  app.setErrorHandler((err: Error, request, reply) => {
    log.warn({ err, url: request.url }, 'admin http request failed');
    reply.code(500).send({ error: err.message });
  });

  let boundPort = port;
  // The schema registry (avsc, protobufjs, its JSON Schema validator) is loaded only when it is on: an idle broker
  // without it is ~10 MB smaller and starts faster (bench/startup.ts).
  const registry = broker.config.schemaRegistryEnable ? await import('../schema-registry/routes.js') : null;
  const basicAuth = registry !== null && broker.config.schemaRegistryBasicAuthEnable ? new BasicAuthVerifier(broker.scramCredentials) : null;
  const guard = installAdminGuard(app, {
    listenerHost: host,
    allowedHosts: broker.config.adminAllowedHosts,
    port: () => boundPort,
    token: opts.token ?? null,
    failedAuthenticationDelayMs: broker.config.connectionFailedAuthenticationDelayMs,
    log,
    authenticationFailed: () => metrics.adminAuthenticationFailed(),
    // With basic auth on, the registry's routes check whatever is not a bearer token themselves (and ask for Basic).
    authenticatedElsewhere: (request) => basicAuth !== null && !/^Bearer /i.test(request.headers.authorization ?? '') && registry!.isSchemaRegistryPath(request.url),
  });

  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    if (!opts.isReady()) return reply.code(503).send({ status: 'not ready' });
    // Still serving reads, so still ready (200) for a load balancer; degraded says writes are refused.
    const diskFull = broker.logManager.diskSpace.fullLogDirs;
    if (diskFull.length > 0) return { status: 'degraded', reason: 'disk full: produce requests are refused', diskFullLogDirs: diskFull };
    return { status: 'ready' };
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });
  app.get('/v1/topics', async () => ({ topics: topicSummaries(broker) }));
  app.get<{ Params: { name: string } }>('/v1/topics/:name', async (request, reply) => {
    const view = topicView(broker, request.params.name);
    if (view) return view;
    return reply.code(404).send({ error: 'UNKNOWN_TOPIC_OR_PARTITION', message: `Topic ${request.params.name} does not exist.` });
  });
  app.get('/v1/groups', async (_request, reply) => {
    const groups = groupViews(broker);
    if (groups) return { groups };
    return reply.code(503).send({ error: 'COORDINATOR_LOAD_IN_PROGRESS', message: 'The group coordinator is loading offsets.' });
  });

  app.get('/v1/transactions', async () => ({ transactions: ongoingTransactions(broker) }));
  if (registry !== null) {
    await app.register(registry.schemaRegistryRoutes, {
      broker, metrics: metrics.registry, basicAuth, tokenChecked: opts.token != null, authenticationFailed: () => metrics.adminAuthenticationFailed(),
    });
  }

  let address = '';
  if (broker.config.consoleEnable) {
    registerConsoleApi(app, {
      broker,
      traffic: metrics.traffic,
      readOnly: broker.config.consoleReadOnly,
      version: KAFKITE_VERSION,
      startedAt: Date.now(),
      adminAddress: () => address,
      principal: broker.config.adminPrincipal,
      log,
    });
    const root = consoleRoot();
    if (root) await app.register(fastifyStatic, { root, prefix: '/', index: 'index.html', maxAge: 0 });
    else log.warn('console files not built (dist/console): serving its JSON API only');
  }

  try {
    await app.listen({ host, port });
  } catch (err) {
    guard.close();
    await app.close();
    throw err;
  }
  broker.metrics = metrics;
  const bound = app.server.address();
  if (bound !== null && typeof bound === 'object') boundPort = bound.port;
  address = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  log.info({ address }, 'admin http started');
  return {
    address,
    async close() {
      guard.close();
      await app.close();
      if (broker.metrics === metrics) broker.metrics = undefined;
      log.info({ address }, 'admin http stopped');
    },
  };
}
