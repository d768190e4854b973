// What keeps a web page the developer has open from using the admin HTTP (issue 34): the Host check against
// DNS rebinding, the Origin and Content-Type checks against cross-site writes, headers that forbid framing and
// sniffing, and the bearer token, compared in constant time, with failures counted, logged sparingly and slowed
// down as Kafka's connection.failed.authentication.delay.ms slows a failed SASL login.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { FailedAuthenticationLog } from '../security/failed-authentication-log.js';

/** The routes @fastify/static registers for the console's built files. */
const CONSOLE_FILE_ROUTES = new Set(['/', '/*']);

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * Write bodies taken: JSON, and the media types Confluent's schema registry clients send (issue 33). A page can
 * send none of them cross-site without a CORS preflight, which the listener never grants.
 */
const WRITE_CONTENT_TYPES = new Set(['application/json', 'application/vnd.schemaregistry.v1+json', 'application/vnd.schemaregistry+json']);

/**
 * On every response. The console's build loads only its own script and stylesheet files, so 'self' is all it
 * needs; frame-ancestors (and X-Frame-Options for older browsers) keep other pages from framing it.
 */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Failed token attempts are logged as failed SASL logins are: per client host, once per this window, the rest counted. */
const FAILURE_LOG_INTERVAL_MS = 20_000;
/** A client's failures count toward its delay for this long after its first one. */
const FAILURE_WINDOW_MS = 60_000;
/** The delay grows with a client's failures in the window, up to this many times the configured delay. */
const MAX_DELAY_FACTOR = 50;
/** Clients remembered at once; beyond it the oldest entry goes (a flood of addresses cannot grow memory). */
const MAX_TRACKED_CLIENTS = 4096;

export interface AdminGuardOptions {
  /** admin.listener's host, without brackets. */
  listenerHost: string;
  /** kafkite.admin.allowed.hosts. */
  allowedHosts: readonly string[];
  /** The port the listener bound (known once it listens). */
  port(): number;
  /** kafkite.admin.token; null: no token required. */
  token: string | null;
  /** connection.failed.authentication.delay.ms */
  failedAuthenticationDelayMs: number;
  log: Logger;
  authenticationFailed(): void;
  /** Requests a route authenticates itself (the schema registry's basic auth): no bearer token asked. */
  authenticatedElsewhere?(request: FastifyRequest): boolean;
}

export interface AdminGuard {
  close(): void;
}

/** `name[:port]` or `[v6][:port]` as in a Host header; null when malformed. */
function splitHostPort(value: string): { host: string; port: number | null } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]/@]+))(?::(\d{1,5}))?$/.exec(value.trim());
  if (!m) return null;
  return { host: (m[1] ?? m[2]!).toLowerCase().replace(/\.$/, ''), port: m[3] === undefined ? null : Number(m[3]) };
}

/** The names the listener answers to: localhost, loopback, its own address(es) and the configured names. */
function ownNames(listenerHost: string, allowedHosts: readonly string[]): (host: string) => boolean {
  const names = new Set(['localhost', '::1', ...allowedHosts.map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter((h) => h !== '')]);
  const host = listenerHost.toLowerCase();
  if (host === '0.0.0.0' || host === '::') {
    // A wildcard bind answers on every interface: their addresses (an IP literal cannot be rebound) and the
    // machine's own name (a container's, in Docker) are its names.
    for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) names.add(i.address.toLowerCase());
    names.add(hostname().toLowerCase());
  } else {
    names.add(host);
  }
  return (name) => names.has(name) || (isIP(name) === 4 && name.startsWith('127.'));
}

function defaultPort(scheme: string): number {
  return scheme === 'https:' ? 443 : 80;
}

function refuse(reply: FastifyReply, status: number, error: string, message: string): FastifyReply {
  return reply.code(status).send({ error, message });
}

/** Registers the checks as hooks that run before every route, including ones registered later. */
export function installAdminGuard(app: FastifyInstance, opts: AdminGuardOptions): AdminGuard {
  const isOwnName = ownNames(opts.listenerHost, opts.allowedHosts);
  const failures = new FailureTracker(opts);

  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    // Probes (Docker's HEALTHCHECK, a load balancer) may use any name; /health tells nothing.
    if (request.url === '/health' || request.url.startsWith('/health?')) return;

    const host = splitHostPort(request.headers.host ?? '');
    if (host === null || !isOwnName(host.host)) {
      return refuse(reply, 421, 'HOST_NOT_ALLOWED', `Host ${JSON.stringify(request.headers.host ?? '')} is not a name of this admin listener; add it to kafkite.admin.allowed.hosts.`);
    }

    if (WRITE_METHODS.has(request.method)) {
      const origin = request.headers.origin;
      // Scripts and curl send no Origin; a browser always does on these methods, "null" when it hides it.
      if (origin !== undefined && !sameOrigin(origin, host.port, opts.port(), isOwnName)) {
        return refuse(reply, 403, 'ORIGIN_NOT_ALLOWED', `Writes from origin ${origin} are refused.`);
      }
    }

    if (opts.token !== null && !openWithoutToken(request) && !opts.authenticatedElsewhere?.(request)) {
      const refused = await failures.check(request);
      if (refused) return refuse(reply.header('www-authenticate', 'Bearer realm="kafkite"'), 401, 'UNAUTHORIZED', 'A valid bearer token is required.');
    }

    if (WRITE_METHODS.has(request.method)) {
      // A form or a no-cors fetch can only send text/plain, urlencoded or multipart bodies without a preflight.
      const type = request.headers['content-type']?.split(';')[0]!.trim().toLowerCase();
      const bodyless = request.method === 'DELETE' && type === undefined;
      if (!bodyless && !WRITE_CONTENT_TYPES.has(type ?? '')) return refuse(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Writes take an application/json body.');
    }
    return undefined;
  });

  return { close: () => failures.close() };
}

/** The console's own files hold no data and must load for it to ask for the token. */
function openWithoutToken(request: FastifyRequest): boolean {
  return request.method === 'GET' && CONSOLE_FILE_ROUTES.has(request.routeOptions.url ?? '');
}

/** http(s) on one of the listener's names, at its port or at the port the request was addressed to. */
function sameOrigin(origin: string, hostPort: number | null, listenerPort: number, isOwnName: (host: string) => boolean): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const name = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);
  const addressed = hostPort ?? defaultPort(url.protocol);
  return isOwnName(name) && (port === listenerPort || port === addressed);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Bearer token checks, and what follows a wrong one: the metric, a sparse log line and a growing delay. */
class FailureTracker {
  private readonly expected: Buffer;
  /** Failures per client address within FAILURE_WINDOW_MS of its first. */
  private readonly clients = new Map<string, { count: number; since: number }>();
  private readonly failureLog: FailedAuthenticationLog;

  constructor(private readonly opts: AdminGuardOptions) {
    this.expected = digest(`Bearer ${opts.token ?? ''}`);
    this.failureLog = new FailedAuthenticationLog(opts.log, FAILURE_LOG_INTERVAL_MS);
  }

  /** true when refused (after the delay). A request without Authorization is asked for it, not counted. */
  async check(request: FastifyRequest): Promise<boolean> {
    const given = request.headers.authorization;
    if (given === undefined) return true;
    // Equal-length digests: the comparison takes the same time whatever the token's length or content.
    if (timingSafeEqual(digest(given), this.expected)) return false;
    this.opts.authenticationFailed();
    this.failureLog.record({ remote: `${request.ip}:${request.socket.remotePort}`, user: null, mechanism: 'bearer', listener: 'admin', reason: 'wrong bearer token' });
    const delay = this.opts.failedAuthenticationDelayMs * this.recordFailure(request.ip);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return true;
  }

  /** The client's failures in its window so far, this one included (capped): the delay's factor. */
  private recordFailure(ip: string): number {
    const now = Date.now();
    let entry = this.clients.get(ip);
    if (entry === undefined || now - entry.since > FAILURE_WINDOW_MS) {
      this.clients.delete(ip);
      if (this.clients.size >= MAX_TRACKED_CLIENTS) this.clients.delete(this.clients.keys().next().value!);
      entry = { count: 0, since: now };
      this.clients.set(ip, entry);
    }
    entry.count++;
    return Math.min(entry.count, MAX_DELAY_FACTOR);
  }

  close(): void {
    this.failureLog.flush();
  }
}
