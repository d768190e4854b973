// The admin HTTP against a browser on the developer's machine (issue 34), with raw HTTP requests whose Host,
// Origin and Content-Type a browser would send for DNS rebinding or a cross-site form or fetch(): every write
// route of src/admin is refused and nothing changes on the broker; the same requests from the listener's own
// origin still work. Also the security headers, and the bearer token's failures: counted, logged sparingly,
// delayed more the more a client fails.
import { request as httpRequest } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAddress, REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** node:http, which sends the Host header it is given (fetch() would not); `host: ''` sends none. */
function send(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  const url = new URL(path, base);
  const sent: Record<string, string> = { host: url.host, ...headers };
  if (sent.host === '') delete sent.host;
  // node:http sends a DELETE's body without a length unless told.
  if (body !== undefined) sent['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers: sent, setHost: false, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: the console's HTML
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Every write route src/admin registers, as `METHOD /path` (so that a new one without a case here fails). */
function writeRoutesInSource(): string[] {
  const dir = join(REPO_ROOT, 'src', 'admin');
  const routes: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/app\.(post|put|patch|delete)\b[\s\S]*?\(\s*'(\/[^']*)'/g)) routes.push(`${m[1]!.toUpperCase()} ${m[2]}`);
  }
  return routes.sort();
}

interface WriteRoute {
  route: string;
  method: string;
  path: string;
  body?: unknown;
}

const TOPIC = 'victim';
const GROUP = 'victim-group';

// In the order their positive controls run: the group's reset needs it empty, the deletions come last.
const WRITES: WriteRoute[] = [
  { route: 'POST /v1/groups/:id/reset-offsets', method: 'POST', path: `/v1/groups/${GROUP}/reset-offsets`, body: { topic: TOPIC, to: 'earliest' } },
  { route: 'POST /v1/topics/:name/partitions/:partition/records', method: 'POST', path: `/v1/topics/${TOPIC}/partitions/0/records`, body: { value: 'forged' } },
  { route: 'POST /v1/topics/:name/partitions/:partition/delete-records', method: 'POST', path: `/v1/topics/${TOPIC}/partitions/0/delete-records`, body: { offset: 2 } },
  { route: 'PATCH /v1/topics/:name/configs', method: 'PATCH', path: `/v1/topics/${TOPIC}/configs`, body: { set: { 'retention.ms': '1234' } } },
  { route: 'POST /v1/topics/:name/partitions', method: 'POST', path: `/v1/topics/${TOPIC}/partitions`, body: { count: 3 } },
  { route: 'POST /v1/topics', method: 'POST', path: '/v1/topics', body: { name: 'forged-topic', partitions: 1 } },
  { route: 'DELETE /v1/groups/:id', method: 'DELETE', path: `/v1/groups/${GROUP}` },
  { route: 'DELETE /v1/topics/:name', method: 'DELETE', path: `/v1/topics/${TOPIC}` },
];

describe('admin http on loopback without a token', () => {
  let broker: BrokerProcess;
  let base: string;
  let port: number;

  beforeAll(async () => {
    broker = await startBroker({ overrides: ['num.partitions=1', 'kafkite.admin.allowed.hosts=kafkite.internal, Proxy.Example'] });
    base = adminAddress(broker);
    port = Number(new URL(base).port);
    const kafka = new Kafka({ brokers: [broker.bootstrap], clientId: 'admin-safety', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    const producer = kafka.producer();
    await admin.connect();
    await producer.connect();
    try {
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }] });
      await producer.send({ topic: TOPIC, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }, { value: 'd' }] });
      await admin.setOffsets({ groupId: GROUP, topic: TOPIC, partitions: [{ partition: 0, offset: '3' }] });
    } finally {
      await producer.disconnect();
      await admin.disconnect();
    }
  }, 60_000);

  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  /** What the broker holds, read with a proper Host: topics (offsets, sizes, configs), the partition, the group. */
  async function state(): Promise<string> {
    const topics = await send(base, 'GET', '/v1/topics');
    const topic = await send(base, 'GET', `/v1/topics/${TOPIC}`);
    const group = await send(base, 'GET', `/v1/groups/${GROUP}`);
    expect(topics.status).toBe(200);
    return JSON.stringify([topics.body, topic.status, topic.body, group.status, group.status === 200 ? group.body.offsets : null]);
  }

  it('covers every write route of src/admin', () => {
    expect(WRITES.map((w) => w.route).sort()).toEqual(writeRoutesInSource());
  });

  it('refuses forged Hosts, foreign Origins and non-JSON bodies on every write route, and nothing changes', async () => {
    const before = await state();
    expect(before).toContain('"highWatermark":4');
    const evilHost = `rebind.evil.example:${port}`;
    for (const w of WRITES) {
      const json = w.body === undefined ? undefined : JSON.stringify(w.body);
      const jsonHeaders: Record<string, string> = json === undefined ? {} : { 'content-type': 'application/json' };
      const attempts: Array<[string, Record<string, string>, string | undefined, number]> = [
        ['rebound Host', { host: evilHost, ...jsonHeaders }, json, 421],
        ['rebound Host and its Origin', { host: evilHost, origin: `http://${evilHost}`, ...jsonHeaders }, json, 421],
        ['rebound Host without port', { host: 'rebind.evil.example', ...jsonHeaders }, json, 421],
        // Node's HTTP server itself answers 400 to an HTTP/1.1 request without Host.
        ['no Host', { host: '', ...jsonHeaders }, json, 400],
        ['foreign Origin', { origin: 'http://evil.example', ...jsonHeaders }, json, 403],
        ['another local origin', { origin: `http://localhost:${port + 1}`, ...jsonHeaders }, json, 403],
        ['own name on the default port', { origin: 'http://127.0.0.1', ...jsonHeaders }, json, 403],
        ['opaque Origin', { origin: 'null', ...jsonHeaders }, json, 403],
        ['file Origin', { origin: 'file://', ...jsonHeaders }, json, 403],
        ['text/plain', { 'content-type': 'text/plain;charset=UTF-8' }, json ?? '{}', 415],
        ['form', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=forged-topic&partitions=1', 415],
        ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }, '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nforged\r\n--x--\r\n', 415],
      ];
      if (w.method !== 'DELETE') attempts.push(['no Content-Type', {}, json, 415]);
      for (const [what, headers, body, status] of attempts) {
        const res = await send(base, w.method, w.path, headers, body);
        expect(res.status, `${w.route}: ${what} ${JSON.stringify(res.body)}`).toBe(status);
        if (status !== 400) expect(res.body.error, `${w.route}: ${what}`).toMatch(/^(HOST_NOT_ALLOWED|ORIGIN_NOT_ALLOWED|UNSUPPORTED_MEDIA_TYPE)$/);
      }
    }
    expect(await state()).toBe(before);
  });

  it('refuses reads and the console page for a forged Host, but serves /health to any Host', async () => {
    for (const path of ['/v1/topics', '/v1/overview', `/v1/topics/${TOPIC}/partitions/0/records?offset=0`, '/metrics', '/ready', '/']) {
      const res = await send(base, 'GET', path, { host: `rebind.evil.example:${port}` });
      expect(res.status, path).toBe(421);
      expect(res.body.error).toBe('HOST_NOT_ALLOWED');
    }
    expect((await send(base, 'GET', '/health', { host: `rebind.evil.example:${port}` })).status).toBe(200);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `127.7.8.9:${port}`, `[::1]:${port}`, 'kafkite.internal', `proxy.example:8080`, `LOCALHOST.:${port}`]) {
      const res = await send(base, 'GET', '/v1/topics', { host });
      expect(res.status, host).toBe(200);
    }
  });

  it('sends the security headers on the console page and on the API', async () => {
    for (const path of ['/', '/v1/overview']) {
      const res = await send(base, 'GET', path);
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'.*frame-ancestors 'none'/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  // Each route from its own origin (scripts without Origin are covered by the console tests): it changes state,
  // so the refusals above could have failed.
  it('serves the same writes from its own origin, by name or by address', async () => {
    for (const [i, w] of WRITES.entries()) {
      const before = await state();
      const own = i % 2 === 0 ? `http://localhost:${port}` : `http://127.0.0.1:${port}`;
      const headers: Record<string, string> = { host: new URL(own).host, origin: own };
      if (w.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
      const res = await send(base, w.method, w.path, headers, w.body === undefined ? undefined : JSON.stringify(w.body));
      expect(res.status, `${w.route}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      expect(await state(), w.route).not.toBe(before);
    }
  });
});

describe('admin http on every interface, with a bearer token', () => {
  let broker: BrokerProcess;
  let base: string;
  const DELAY = 300;

  beforeAll(async () => {
    broker = await startBroker({ overrides: ['admin.listener=http://0.0.0.0:0', 'kafkite.admin.token=s3cret-token', `connection.failed.authentication.delay.ms=${DELAY}`] });
    base = adminAddress(broker).replace('0.0.0.0', '127.0.0.1');
  });

  afterAll(async () => {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  });

  async function timed(authorization?: string): Promise<{ status: number; ms: number }> {
    const started = performance.now();
    const res = await send(base, 'GET', '/v1/topics', authorization === undefined ? {} : { authorization });
    return { status: res.status, ms: performance.now() - started };
  }

  it("answers to the machine's addresses and hostname, still not to other names", async () => {
    const port = new URL(base).port;
    const auth = { authorization: 'Bearer s3cret-token' };
    const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => (i.family === 'IPv6' ? `[${i.address}]` : i.address)));
    for (const host of [...addresses, hostname()]) expect((await send(base, 'GET', '/v1/topics', { host: `${host}:${port}`, ...auth })).status, host).toBe(200);
    expect((await send(base, 'GET', '/v1/topics', { host: `rebind.evil.example:${port}`, ...auth })).status).toBe(421);
  });

  it('counts wrong tokens, delays them more the more a client fails, and logs them sparingly', async () => {
    // No token at all is the console asking for one: answered at once, not counted.
    const asked = await timed();
    expect(asked.status).toBe(401);
    expect(asked.ms).toBeLessThan(DELAY);
    const wrong = ['Bearer s3cret-tokem', 'Bearer x', 'Bearer s3cret-token-and-more', 'Basic czNjcmV0LXRva2Vu'];
    for (const [i, authorization] of wrong.entries()) {
      const res = await timed(authorization);
      expect(res.status).toBe(401);
      expect(res.ms, authorization).toBeGreaterThanOrEqual(DELAY * (i + 1) - 5);
    }
    const ok = await timed('Bearer s3cret-token');
    expect(ok.status).toBe(200);
    expect(ok.ms).toBeLessThan(DELAY);
    const metrics = await send(base, 'GET', '/metrics', { authorization: 'Bearer s3cret-token' });
    expect(metrics.body).toMatch(/^kafkite_admin_authentication_failures_total 4$/m);
    // As failed SASL logins: the host's first failure is logged at once, the next three are counted for the
    // line that ends the 20 s window.
    const lines = broker.logs.filter((l) => l.msg === 'failed authentication' && l.listener === 'admin');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, mechanism: 'bearer', user: null });
  });
});
