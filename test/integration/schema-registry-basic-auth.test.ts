// HTTP basic auth of the schema registry against the broker's SASL/SCRAM users
// (kafkite.schema.registry.basic.auth.enable): a real broker, users created with AlterUserScramCredentials as
// kafka-configs creates them, and what a second client finds stored after each refused or accepted request;
// then confluent-kafka-python's serializers with the user's credentials in the registry URL.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { deleteScramUser, upsertScramUser } from '../../bench/lib/scram-client.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { adminAddress, brokerForFile, startBroker } from '../helpers/broker-process.js';
import { CLIENTS_VENV } from '../helpers/current-clients.js';
import { runJsonClient } from '../helpers/json-client.js';

const CT = 'application/vnd.schemaregistry.v1+json';
const TOKEN = 'sr-basic-token';
const SCHEMA = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }] });

const broker = brokerForFile({
  overrides: ['kafkite.schema.registry.enable=true', 'kafkite.schema.registry.basic.auth.enable=true', `kafkite.admin.token=${TOKEN}`, 'connection.failed.authentication.delay.ms=0'],
});

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const bearer = { authorization: `Bearer ${TOKEN}` };

async function sr(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any; challenge: string | null }> {
  const res = await fetch(adminAddress(broker()) + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': CT }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text), challenge: res.headers.get('www-authenticate') };
}

/** What is stored, as the admin token's holder sees it. */
const subjects = async () => (await sr('GET', '/subjects', bearer)).body as string[];

async function scram(fn: (client: WireClient) => Promise<{ errorCode: number }>): Promise<void> {
  const client = await WireClient.connect(broker().port);
  try {
    expect((await fn(client)).errorCode).toBe(0);
  } finally {
    client.close();
  }
}

it('takes the SCRAM users\' passwords as basic auth on the registry routes, and nothing else', async () => {
  await scram((c) => upsertScramUser(c, 'SCRAM-SHA-512', 'alice', 'alice-secret'));
  await scram((c) => upsertScramUser(c, 'SCRAM-SHA-256', 'bob', 'bob-secret', 8192));

  // Refused: no credentials, a wrong password, an unknown user, a malformed header; nothing is registered.
  const register = (headers: Record<string, string>) => sr('POST', '/subjects/orders-value/versions', headers, { schema: SCHEMA });
  const none = await register({});
  expect(none).toMatchObject({ status: 401, body: { error_code: 401, message: 'Unauthorized' }, challenge: 'Basic realm="kafkite schema registry"' });
  expect((await register(basic('alice', 'bob-secret'))).status).toBe(401);
  expect((await register(basic('mallory', 'alice-secret'))).status).toBe(401);
  expect((await register({ authorization: 'Basic not base64!' })).status).toBe(401);
  expect((await register({ authorization: `Basic ${Buffer.from('alice').toString('base64')}` })).status).toBe(401);
  expect(await subjects()).toEqual([]);

  // Accepted: alice (SCRAM-SHA-512) registers, bob (SCRAM-SHA-256, 8,192 iterations) reads it back by id.
  const registered = await register(basic('alice', 'alice-secret'));
  expect(registered).toMatchObject({ status: 200, body: { id: 1 } });
  expect(await sr('GET', '/schemas/ids/1', basic('bob', 'bob-secret'))).toMatchObject({ status: 200, body: { schema: SCHEMA } });
  expect(await subjects()).toEqual(['orders-value']);
  // Unknown registry paths ask for credentials before answering 404.
  expect((await sr('GET', '/subjects/orders-value/nothing', {})).status).toBe(401);
  expect((await sr('GET', '/subjects/orders-value/nothing', basic('bob', 'bob-secret'))).status).toBe(404);

  // Basic auth opens the registry only: the other admin routes still want the bearer token.
  expect((await sr('GET', '/v1/topics', basic('alice', 'alice-secret'))).status).toBe(401);
  expect((await sr('GET', '/v1/topics', bearer)).status).toBe(200);

  // A new password replaces the old one at once (a recently checked password is not kept past its credential),
  // and a deleted user is refused.
  await scram((c) => upsertScramUser(c, 'SCRAM-SHA-512', 'alice', 'alice-new'));
  expect((await sr('GET', '/subjects', basic('alice', 'alice-secret'))).status).toBe(401);
  expect(await sr('GET', '/subjects', basic('alice', 'alice-new'))).toMatchObject({ status: 200, body: ['orders-value'] });
  await scram((c) => deleteScramUser(c, 'SCRAM-SHA-256', 'bob'));
  expect((await sr('GET', '/schemas/ids/1', basic('bob', 'bob-secret'))).status).toBe(401);

  // Each refusal that carried credentials is counted with the admin listener's failures (7 above).
  const metrics = await (await fetch(`${adminAddress(broker())}/metrics`, { headers: bearer })).text();
  expect(metrics).toMatch(/^kafkite_admin_authentication_failures_total 7$/m);
});

it('confluent-kafka-python registers, serializes and deserializes with a SCRAM user in the registry URL', async () => {
  await scram((c) => upsertScramUser(c, 'SCRAM-SHA-256', 'carol', 'carol secret/1'));
  const url = new URL(adminAddress(broker()));
  url.username = 'carol';
  url.password = encodeURIComponent('carol secret/1');
  const script = join(import.meta.dirname, 'schema_registry_python.py');
  const out = await runJsonClient(join(CLIENTS_VENV, 'bin', 'python'), [script, broker().bootstrap, url.href.replace(/\/$/, ''), 'payments']);
  expect(out.consumed).toHaveLength(21);
  expect(out.incompatible).toEqual({ status: 409, code: 409 });
  expect((await sr('GET', '/subjects/payments-value/versions', bearer)).body).toEqual([1, 2]);
  // Without the credentials the same client is refused.
  const refused = await runJsonClient(join(CLIENTS_VENV, 'bin', 'python'), [script, broker().bootstrap, adminAddress(broker()), 'payments-anonymous'], { allowError: true });
  expect(String(refused.error)).toContain('401');
  expect(await subjects()).not.toContain('payments-anonymous-value');
}, 120_000);

it('answers a wrong password after connection.failed.authentication.delay.ms', async () => {
  const slow = await startBroker({ overrides: ['kafkite.schema.registry.enable=true', 'kafkite.schema.registry.basic.auth.enable=true', 'connection.failed.authentication.delay.ms=600'] });
  try {
    const client = await WireClient.connect(slow.port);
    try {
      expect((await upsertScramUser(client, 'SCRAM-SHA-512', 'dave', 'dave-secret')).errorCode).toBe(0);
    } finally {
      client.close();
    }
    const timed = async (password: string) => {
      const t = performance.now();
      const res = await fetch(`${adminAddress(slow)}/subjects`, { headers: basic('dave', password) });
      return { status: res.status, ms: performance.now() - t };
    };
    const wrong = await timed('guess');
    expect(wrong.status).toBe(401);
    expect(wrong.ms).toBeGreaterThanOrEqual(590);
    expect((await timed('dave-secret')).status).toBe(200);
  } finally {
    expect(await slow.stop()).toBe(0);
    slow.cleanup();
  }
}, 60_000);
