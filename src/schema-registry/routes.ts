// Confluent's Schema Registry REST API (io.confluent.kafka.schemaregistry.rest.resources: SubjectsResource,
// SubjectVersionsResource, SchemasResource, ConfigResource, ModeResource, CompatibilityResource) as a fastify
// plugin on the admin listener: the listener's hooks (bearer token, ...) apply to it as to every admin route.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { CoordinatorHost } from '../coordinator/open-group-coordinator.js';
import type { BasicAuthVerifier } from './basic-auth.js';
import * as E from './errors.js';
import { COMPATIBILITY_LEVELS, MODES, type Compatibility, type Mode, type SchemaValue } from './records.js';
import { SchemaRegistry, type SchemaRequest } from './registry.js';
import { textToDescriptor } from './protobuf-descriptor.js';
import { schemasTopicLog } from './schemas-log.js';

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
/** Larger bodies are refused with 413 before they are read whole. */
const BODY_LIMIT_BYTES = 8 * 1024 * 1024;
const ALL_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;

export interface SchemaRegistryRoutesOptions {
  broker: CoordinatorHost;
  /** The admin listener's Prometheus registry, for the request counter. */
  metrics: Registry;
  /** kafkite.schema.registry.basic.auth.enable: the SCRAM users' check; null when off. */
  basicAuth: BasicAuthVerifier | null;
  /** Whether the admin guard has already checked a bearer token (kafkite.admin.token is set). */
  tokenChecked: boolean;
  authenticationFailed(): void;
}

/** The registry's paths, which take basic auth when it is on. */
export function isSchemaRegistryPath(url: string): boolean {
  return /^\/(subjects|schemas|config|mode|compatibility)(\/|\?|$)/.test(url);
}

type Query = Record<string, string | undefined>;
type Req = FastifyRequest<{ Params: Record<string, string>; Querystring: Query; Body: unknown }>;

const flag = (q: Query, name: string) => q[name] === 'true';

/** A version as GET /subjects/{s}/versions/{v} answers it (schemaType left out for AVRO, references when empty). */
/** The schema as stored, or for `?format=serialized` a Protobuf one as a base64 FileDescriptorProto. */
function schemaView(v: SchemaValue, query: Req['query']): Record<string, unknown> {
  const serialized = v.schemaType === 'PROTOBUF' && query.format === 'serialized';
  return {
    ...(v.schemaType === 'AVRO' ? {} : { schemaType: v.schemaType }),
    ...(v.references.length > 0 ? { references: v.references } : {}),
    schema: serialized ? textToDescriptor(v.schema, `${v.subject}.proto`) : v.schema,
  };
}

function versionView(v: SchemaValue, query: Req['query'] = {}): Record<string, unknown> {
  return { subject: v.subject, version: v.version, id: v.id, ...schemaView(v, query) };
}

function body(request: Req): SchemaRequest {
  const b = request.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw new E.SchemaRegistryError(422, 422, 'Request body must be a JSON object');
  return b as SchemaRequest;
}

function compatibilityOf(b: unknown): Compatibility {
  const raw = (b as { compatibility?: unknown } | null)?.compatibility;
  const level = typeof raw === 'string' ? raw.toUpperCase() : '';
  if (!COMPATIBILITY_LEVELS.includes(level as Compatibility)) throw E.invalidCompatibility();
  return level as Compatibility;
}

function schemaId(raw: string): number {
  if (!/^\d{1,10}$/.test(raw)) throw new E.SchemaRegistryError(404, 404, 'HTTP 404 Not Found');
  return Number(raw);
}

export async function schemaRegistryRoutes(app: FastifyInstance, opts: SchemaRegistryRoutesOptions): Promise<void> {
  const logger = opts.broker.log.child({ component: 'schema-registry' });
  const registry = new SchemaRegistry(schemasTopicLog(opts.broker), logger);
  await registry.load();
  const requests = new Counter({
    name: 'kafkite_schema_registry_requests_total',
    help: 'Schema registry REST requests, by HTTP status.',
    labelNames: ['status'],
    registers: [opts.metrics],
  });

  const json = (_req: FastifyRequest, text: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    try {
      done(null, text.length === 0 ? undefined : JSON.parse(text.toString()));
    } catch (err) {
      done(new E.SchemaRegistryError(400, 400, `Unexpected character in the request body: ${(err as Error).message}`));
    }
  };
  // Confluent's serializers send their own media types; any other body is read as JSON too.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, json);

  const basicAuth = opts.basicAuth;
  const failureDelayMs = opts.broker.config.connectionFailedAuthenticationDelayMs;
  if (basicAuth) {
    app.addHook('onRequest', async (request, reply) => {
      const header = request.headers.authorization;
      // A bearer token gets here only once the admin guard has accepted it.
      if (opts.tokenChecked && /^Bearer /i.test(header ?? '')) return undefined;
      if ((await basicAuth.verify(header)) !== null) return undefined;
      if (header !== undefined) {
        opts.authenticationFailed();
        // A wrong password is answered late, as Kafka's SocketServer delays a failed SASL login
        // (connection.failed.authentication.delay.ms): guessing costs the guesser time, not only our PBKDF2.
        if (failureDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, failureDelayMs));
      }
      // Confluent's registry answers 401 with this body and challenge.
      return reply.code(401).header('www-authenticate', 'Basic realm="kafkite schema registry"').send({ error_code: 401, message: 'Unauthorized' });
    });
  }
  app.addHook('preHandler', async () => {
    await registry.catchUp();
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-type', CONTENT_TYPE);
    return payload;
  });
  app.addHook('onResponse', async (_request, reply) => {
    requests.inc({ status: String(reply.statusCode) });
  });
  app.setErrorHandler((err: Error & { statusCode?: number }, request, reply) => {
    if (err instanceof E.SchemaRegistryError) {
      return reply.code(err.status).send({ error_code: err.errorCode, message: err.message });
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) logger.error({ err, url: request.url }, 'schema registry request failed');
    const message = status === 413 ? 'Request Entity Too Large' : status >= 500 ? `Internal Server Error: ${err.message}` : err.message;
    return reply.code(status).send({ error_code: status >= 500 ? 50001 : status, message });
  });

  /** url -> the methods it has, for the 405 answers below. */
  const known = new Map<string, Set<string>>();
  const route = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, handler: (request: Req, reply: FastifyReply) => unknown) => {
    known.set(url, (known.get(url) ?? new Set()).add(method));
    app.route({ method, url, bodyLimit: BODY_LIMIT_BYTES, handler: async (request, reply) => handler(request as Req, reply) });
  };

  route('GET', '/subjects', (req) => {
    const prefix = req.query.subjectPrefix ?? '';
    return registry.store.subjectNames(flag(req.query, 'deleted')).filter((s) => s.startsWith(prefix));
  });
  route('GET', '/subjects/:subject/versions', (req) => {
    const versions = registry.store.versions(req.params.subject!, flag(req.query, 'deleted'));
    if (versions.length === 0) throw E.subjectNotFound(req.params.subject!);
    return versions.map((v) => v.version);
  });
  route('POST', '/subjects/:subject/versions', (req) => registry.register(req.params.subject!, body(req), flag(req.query, 'normalize')));
  route('GET', '/subjects/:subject/versions/:version', (req) =>
    versionView(registry.getVersion(req.params.subject!, req.params.version!, flag(req.query, 'deleted')), req.query));
  route('GET', '/subjects/:subject/versions/:version/schema', (req, reply) =>
    reply.send(registry.getVersion(req.params.subject!, req.params.version!, flag(req.query, 'deleted')).schema));
  route('GET', '/subjects/:subject/versions/:version/referencedby', (req) => {
    const v = registry.getVersion(req.params.subject!, req.params.version!, false);
    return [...new Set(registry.store.referencedBy(v.subject, v.version, false).map((r) => r.id))];
  });
  route('DELETE', '/subjects/:subject/versions/:version', (req) =>
    registry.deleteVersion(req.params.subject!, req.params.version!, flag(req.query, 'permanent')));
  route('POST', '/subjects/:subject', (req) =>
    versionView(registry.lookup(req.params.subject!, body(req), flag(req.query, 'normalize'), flag(req.query, 'deleted'))));
  route('DELETE', '/subjects/:subject', (req) => registry.deleteSubject(req.params.subject!, flag(req.query, 'permanent')));

  const byId = (req: Req): SchemaValue[] => {
    const id = schemaId(req.params.id!);
    const versions = registry.store.byId(id);
    if (versions.length === 0) throw E.schemaNotFound(id);
    return versions;
  };
  route('GET', '/schemas/ids/:id', (req) => {
    return schemaView(byId(req)[0]!, req.query);
  });
  route('GET', '/schemas/ids/:id/schema', (req, reply) => reply.send(byId(req)[0]!.schema));
  route('GET', '/schemas/ids/:id/subjects', (req) =>
    [...new Set(byId(req).filter((v) => flag(req.query, 'deleted') || !v.deleted).map((v) => v.subject))].sort());
  route('GET', '/schemas/ids/:id/versions', (req) =>
    byId(req).filter((v) => flag(req.query, 'deleted') || !v.deleted).map((v) => ({ subject: v.subject, version: v.version })));
  route('GET', '/schemas/types', () => ['JSON', 'PROTOBUF', 'AVRO']);

  const configView = (subject: string | null) => {
    const c = registry.store.config(subject);
    return { ...(c?.normalize !== undefined ? { normalize: c.normalize } : {}), compatibilityLevel: c?.compatibilityLevel ?? registry.store.compatibility(null) };
  };
  const putConfig = async (subject: string | null, b: unknown) => {
    const level = compatibilityOf(b);
    const normalize = (b as { normalize?: unknown }).normalize;
    await registry.setConfig(subject, { compatibilityLevel: level, ...(typeof normalize === 'boolean' ? { normalize } : {}) });
    return { compatibility: level, ...(typeof normalize === 'boolean' ? { normalize } : {}) };
  };
  route('GET', '/config', () => configView(null));
  route('PUT', '/config', (req) => putConfig(null, req.body));
  route('DELETE', '/config', async () => {
    const before = await registry.deleteConfig(null);
    return { compatibilityLevel: before.compatibilityLevel ?? 'BACKWARD' };
  });
  route('GET', '/config/:subject', (req) => {
    const s = req.params.subject!;
    if (registry.store.config(s)?.compatibilityLevel === undefined && !flag(req.query, 'defaultToGlobal')) throw E.subjectConfigNotFound(s);
    return registry.store.config(s) ? configView(s) : configView(null);
  });
  route('PUT', '/config/:subject', (req) => putConfig(req.params.subject!, req.body));
  route('DELETE', '/config/:subject', async (req) => {
    const before = await registry.deleteConfig(req.params.subject!);
    return { compatibilityLevel: before.compatibilityLevel };
  });

  const modeOf = (b: unknown): Mode => {
    const raw = (b as { mode?: unknown } | null)?.mode;
    const mode = typeof raw === 'string' ? raw.toUpperCase() : '';
    if (!MODES.includes(mode as Mode)) throw E.invalidMode(String(raw));
    return mode as Mode;
  };
  route('GET', '/mode', () => ({ mode: registry.store.effectiveMode(null) }));
  route('PUT', '/mode', async (req) => ({ mode: await registry.setMode(null, modeOf(req.body), flag(req.query, 'force')) }));
  route('GET', '/mode/:subject', (req) => {
    const s = req.params.subject!;
    const mode = registry.store.mode(s);
    if (mode === undefined && !flag(req.query, 'defaultToGlobal')) throw E.subjectModeNotFound(s);
    return { mode: mode ?? registry.store.effectiveMode(null) };
  });
  route('PUT', '/mode/:subject', async (req) => ({ mode: await registry.setMode(req.params.subject!, modeOf(req.body), flag(req.query, 'force')) }));
  route('DELETE', '/mode/:subject', async (req) => ({ mode: await registry.deleteMode(req.params.subject!) }));

  const compatibility = (req: Req, version: string | null) => {
    const errors = registry.checkCompatibility(req.params.subject!, version, body(req), flag(req.query, 'normalize'));
    return { is_compatible: errors.length === 0, ...(flag(req.query, 'verbose') ? { messages: errors } : {}) };
  };
  route('POST', '/compatibility/subjects/:subject/versions/:version', (req) => compatibility(req, req.params.version!));
  route('POST', '/compatibility/subjects/:subject/versions', (req) => compatibility(req, null));

  // Other methods on these paths and unknown paths below them answer as Confluent's Jersey does.
  const notAllowed = () => { throw new E.SchemaRegistryError(405, 405, 'HTTP 405 Method Not Allowed'); };
  for (const [url, methods] of known) {
    const others = ALL_METHODS.filter((m) => !methods.has(m) && !(m === 'HEAD' && methods.has('GET')));
    if (others.length > 0) app.route({ method: [...others], url, handler: async () => notAllowed() });
  }
  const notFound = async () => { throw new E.SchemaRegistryError(404, 404, 'HTTP 404 Not Found'); };
  for (const prefix of ['/subjects/*', '/schemas/*', '/config/*', '/mode/*', '/compatibility/*']) app.route({ method: [...ALL_METHODS].filter((m) => m !== 'HEAD'), url: prefix, handler: notFound });
}
