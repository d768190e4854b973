// The schema registry of a real broker over raw HTTP: Confluent's paths, bodies and error codes, each bad
// request checked to change nothing; the records it leaves in `_schemas`, read back by a Kafka client and
// compared with the JSON Confluent's registry writes (its storage classes' Jackson output: the format is
// checked as documented there, as Confluent's registry itself is not run here); and a restart, which
// rebuilds the state from `_schemas` and does not give an id again, behind the admin listener's token.
import { connect } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess, adminAddress } from '../helpers/broker-process.js';

const CT = 'application/vnd.schemaregistry.v1+json';
const TOKEN = 'sr-test-token';

let broker: BrokerProcess;
let admin: string;
let auth: Record<string, string> = {};

async function start(overrides: string[] = []): Promise<void> {
  broker = await startBroker({ dataDir: broker?.dataDir, overrides: ['kafkite.schema.registry.enable=true', ...overrides] });
  admin = adminAddress(broker);
}

beforeAll(() => start());
afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

async function sr(method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: any; type: string | null }> {
  const res = await fetch(admin + path, {
    method,
    headers: { ...(body !== undefined || raw !== undefined ? { 'content-type': CT } : {}), ...auth },
    ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // /schema endpoints answer the schema text itself
  }
  return { status: res.status, body: parsed, type: res.headers.get('content-type') };
}

/** Sends only the head and a few bytes of a body whose Content-Length is `length`; resolves with the raw response. */
function oversizedPost(path: string, length: number): Promise<string> {
  const { hostname, port } = new URL(admin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: ${CT}\r\nContent-Length: ${length}\r\n\r\n{"schema":"`);
    });
    let response = '';
    socket.on('data', (d) => (response += d));
    socket.on('close', () => resolve(response));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy());
  });
}

/** What the REST tests below append to _schemas, in order. */
const RECORDS_WRITTEN = 15;

const record = (name: string, fields: object[]) => JSON.stringify({ type: 'record', name, fields });
const V1 = record('Order', [{ name: 'id', type: 'string' }]);
const V2 = record('Order', [{ name: 'id', type: 'string' }, { name: 'qty', type: 'int', default: 1 }]);
const NO_DEFAULT = record('Order', [{ name: 'id', type: 'string' }, { name: 'price', type: 'double' }]);

/** Expects Confluent's error body and status. */
async function expectError(p: Promise<{ status: number; body: any }>, status: number, code: number, message?: RegExp): Promise<void> {
  const res = await p;
  expect({ status: res.status, code: res.body?.error_code }).toEqual({ status, code });
  if (message) expect(res.body.message).toMatch(message);
}

describe('REST API', () => {
  it('registers, finds and lists schemas with Confluent bodies and content type', async () => {
    expect((await sr('GET', '/schemas/types')).body).toEqual(['JSON', 'PROTOBUF', 'AVRO']);
    const first = await sr('POST', '/subjects/orders-value/versions', { schema: V1 });
    expect(first).toMatchObject({ status: 200, body: { id: 1 }, type: CT });
    // The same schema again is the same version; under another subject it keeps its id.
    expect((await sr('POST', '/subjects/orders-value/versions', { schema: V1 })).body).toEqual({ id: 1 });
    expect((await sr('POST', '/subjects/audit-value/versions', { schema: V1 })).body).toEqual({ id: 1 });
    expect((await sr('POST', '/subjects/orders-value/versions', { schema: V2 })).body).toEqual({ id: 2 });

    expect((await sr('GET', '/subjects')).body).toEqual(['audit-value', 'orders-value']);
    expect((await sr('GET', '/subjects?subjectPrefix=ord')).body).toEqual(['orders-value']);
    expect((await sr('GET', '/subjects/orders-value/versions')).body).toEqual([1, 2]);
    expect((await sr('GET', '/subjects/orders-value/versions/latest')).body).toEqual({ subject: 'orders-value', version: 2, id: 2, schema: V2 });
    expect((await sr('GET', '/subjects/orders-value/versions/1/schema')).body).toEqual(JSON.parse(V1));
    expect((await sr('POST', '/subjects/orders-value', { schema: V1 })).body).toEqual({ subject: 'orders-value', version: 1, id: 1, schema: V1 });
    expect((await sr('GET', '/schemas/ids/1')).body).toEqual({ schema: V1 });
    expect((await sr('GET', '/schemas/ids/1/subjects')).body).toEqual(['audit-value', 'orders-value']);
    expect((await sr('GET', '/schemas/ids/1/versions')).body).toEqual([{ subject: 'orders-value', version: 1 }, { subject: 'audit-value', version: 1 }]);
  });

  it('refuses an incompatible schema with 409 and changes nothing; the compatibility endpoint says why', async () => {
    await expectError(sr('POST', '/subjects/orders-value/versions', { schema: NO_DEFAULT }), 409, 409, /incompatible.*price/);
    expect((await sr('GET', '/subjects/orders-value/versions')).body).toEqual([1, 2]);
    const check = await sr('POST', '/compatibility/subjects/orders-value/versions/latest?verbose=true', { schema: NO_DEFAULT });
    expect(check.body.is_compatible).toBe(false);
    expect(check.body.messages.join()).toMatch(/price/);
    expect((await sr('POST', '/compatibility/subjects/orders-value/versions/1', { schema: V2 })).body).toEqual({ is_compatible: true });
    // NONE for the subject lets it through.
    expect((await sr('PUT', '/config/audit-value', { compatibility: 'NONE' })).body).toEqual({ compatibility: 'NONE' });
    expect((await sr('POST', '/subjects/audit-value/versions', { schema: NO_DEFAULT })).body).toEqual({ id: 3 });
  });

  it('answers each bad request with its error code, storing nothing', async () => {
    await expectError(sr('POST', '/subjects/bad/versions', { schema: '{"type":"recor"}' }), 422, 42201, /recor/);
    await expectError(sr('POST', '/subjects/bad/versions', { schema: '{not json' }), 422, 42201);
    await expectError(sr('POST', '/subjects/bad/versions', { schema: V1, schemaType: 'XML' }), 422, 42201);
    await expectError(sr('POST', '/subjects/bad/versions', { schema: V1, references: [{ name: 'x', subject: 'nowhere', version: 1 }] }), 422, 42201, /nowhere/);
    await expectError(sr('POST', '/subjects/bad/versions', undefined, '{"schema": '), 400, 400);
    await expectError(sr('POST', '/subjects/bad/versions', [V1]), 422, 422);
    await expectError(sr('POST', '/subjects/bad/versions', { schema: 42 }), 422, 42201);
    await expectError(sr('POST', '/subjects/bad/versions', { schema: V1, references: 'money' }), 422, 42201);
    await expectError(sr('POST', '/subjects/bad/versions', { schema: V1, references: [null] }), 422, 42201);
    await expectError(sr('POST', '/subjects/bad/versions', { schema: '['.repeat(100_000) }), 422, 42201);
    await expectError(sr('POST', '/subjects/bad/versions', { schema: V1, id: 7 }), 422, 42205);
    await expectError(sr('PUT', '/config/bad', null), 422, 42203);
    expect((await sr('GET', '/subjects?deleted=true')).body).not.toContain('bad');
    await expectError(sr('GET', '/subjects/bad/versions'), 404, 40401, /Subject 'bad' not found/);
    await expectError(sr('GET', '/subjects/orders-value/versions/9'), 404, 40402);
    await expectError(sr('GET', '/subjects/orders-value/versions/0'), 422, 42202);
    await expectError(sr('GET', '/subjects/orders-value/versions/two'), 422, 42202);
    await expectError(sr('POST', '/subjects/orders-value', { schema: NO_DEFAULT }), 404, 40403);
    await expectError(sr('POST', '/subjects/nobody', { schema: V1 }), 404, 40401);
    await expectError(sr('GET', '/schemas/ids/99'), 404, 40403, /Schema 99 not found/);
    await expectError(sr('GET', '/schemas/ids/abc'), 404, 404);
    await expectError(sr('PUT', '/config', { compatibility: 'SIDEWAYS' }), 422, 42203);
    await expectError(sr('GET', '/config/orders-value'), 404, 40408);
    await expectError(sr('GET', '/mode/orders-value'), 404, 40409);
    await expectError(sr('PUT', '/mode', { mode: 'SOMETIMES' }), 422, 42204);
    await expectError(sr('GET', '/subjects/a/b/c/d'), 404, 404);
    await expectError(sr('PATCH', '/subjects', {}), 405, 405);
    // The admin listener's guard applies to the registry's routes: what a web page could send is refused.
    const post = (headers: Record<string, string>) =>
      fetch(`${admin}/subjects/page/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: V1 }) });
    expect((await post({ 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post({ 'content-type': CT, origin: 'http://evil.example' })).status).toBe(403);
    // Over the 8 MiB limit: refused on its Content-Length, before it is read.
    const big = await oversizedPost('/subjects/big/versions', 9 * 1024 * 1024);
    expect(big).toMatch(/^HTTP\/1\.1 413 /);
    expect(big).toContain('"error_code":413');
    expect((await sr('GET', '/config')).body).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await sr('GET', '/subjects?deleted=true')).body).toEqual(['audit-value', 'orders-value']);
  });

  it('refuses writes in READONLY mode (42205) and takes them again after', async () => {
    expect((await sr('PUT', '/mode/orders-value', { mode: 'READONLY' })).body).toEqual({ mode: 'READONLY' });
    expect((await sr('GET', '/mode/orders-value')).body).toEqual({ mode: 'READONLY' });
    await expectError(sr('POST', '/subjects/orders-value/versions', { schema: record('Order', [{ name: 'id', type: 'string' }, { name: 'n', type: ['null', 'int'], default: null }]) }), 422, 42205);
    await expectError(sr('DELETE', '/subjects/orders-value'), 422, 42205);
    expect((await sr('GET', '/subjects/orders-value/versions')).body).toEqual([1, 2]);
    expect((await sr('DELETE', '/mode/orders-value')).body).toEqual({ mode: 'READONLY' });
    expect((await sr('GET', '/mode')).body).toEqual({ mode: 'READWRITE' });
  });

  it('resolves references, and refuses to delete a referenced version', async () => {
    const money = JSON.stringify({ type: 'record', name: 'Money', namespace: 'shop', fields: [{ name: 'cents', type: 'long' }] });
    expect((await sr('POST', '/subjects/money/versions', { schema: money })).body).toEqual({ id: 4 });
    const invoice = JSON.stringify({ type: 'record', name: 'Invoice', namespace: 'shop', fields: [{ name: 'total', type: 'shop.Money' }] });
    const references = [{ name: 'shop.Money', subject: 'money', version: 1 }];
    expect((await sr('POST', '/subjects/invoice/versions', { schema: invoice, references })).body).toEqual({ id: 5 });
    expect((await sr('GET', '/schemas/ids/5')).body).toEqual({ references, schema: invoice });
    expect((await sr('GET', '/subjects/money/versions/1/referencedby')).body).toEqual([5]);
    await expectError(sr('DELETE', '/subjects/money/versions/1'), 422, 42206);
  });

  it('registers JSON Schema and Protobuf, refusing their incompatible changes', async () => {
    const js = (type: string) => JSON.stringify({ type: 'object', properties: { n: { type } } });
    expect((await sr('POST', '/subjects/js/versions', { schemaType: 'JSON', schema: js('number') })).body).toEqual({ id: 6 });
    await expectError(sr('POST', '/subjects/js/versions', { schemaType: 'JSON', schema: js('string') }), 409, 409, /TYPE_CHANGED/);
    const pb = (t: string) => `syntax = "proto3";\npackage shop;\nmessage Item { string sku = 1; ${t} count = 2; }`;
    expect((await sr('POST', '/subjects/pb/versions', { schemaType: 'PROTOBUF', schema: pb('int32') })).body).toEqual({ id: 7 });
    await expectError(sr('POST', '/subjects/pb/versions', { schemaType: 'PROTOBUF', schema: pb('string') }), 409, 409, /FIELD_SCALAR_KIND_CHANGED/);
    expect((await sr('GET', '/subjects/pb/versions/1')).body).toMatchObject({ schemaType: 'PROTOBUF', id: 7 });
    await expectError(sr('POST', '/subjects/pb/versions', { schemaType: 'PROTOBUF', schema: 'message {' }), 422, 42201);
  });

  it('deletes softly, then permanently, in that order only', async () => {
    expect((await sr('POST', '/subjects/temp/versions', { schema: record('Temp', [{ name: 't', type: 'int' }]) })).body).toEqual({ id: 8 });
    await expectError(sr('DELETE', '/subjects/temp/versions/1?permanent=true'), 404, 40407);
    expect((await sr('DELETE', '/subjects/temp/versions/1')).body).toBe(1);
    await expectError(sr('GET', '/subjects/temp/versions/1'), 404, 40401);
    expect((await sr('GET', '/subjects/temp/versions/1?deleted=true')).body).toMatchObject({ id: 8 });
    expect((await sr('GET', '/subjects')).body).not.toContain('temp');
    expect((await sr('GET', '/subjects?deleted=true')).body).toContain('temp');
    expect((await sr('DELETE', '/subjects/temp/versions/latest?permanent=true')).body).toBe(1);
    expect((await sr('GET', '/subjects?deleted=true')).body).not.toContain('temp');
    await expectError(sr('GET', '/schemas/ids/8'), 404, 40403);

    expect((await sr('DELETE', '/subjects/audit-value')).body).toEqual([1, 2]);
    await expectError(sr('DELETE', '/subjects/audit-value'), 404, 40404);
    expect((await sr('GET', '/subjects')).body).not.toContain('audit-value');
  });

  it("leaves Confluent's records in _schemas, compacted and readable by any Kafka client", async () => {
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const [configs] = (await admin.describeConfigs({ resources: [{ type: 2, name: '_schemas', configNames: ['cleanup.policy'] }], includeSynonyms: false })).resources;
    expect(configs!.configEntries[0]).toMatchObject({ configName: 'cleanup.policy', configValue: 'compact' });
    await admin.disconnect();
    const consumer = kafka.consumer({ groupId: 'sr-reader' });
    await consumer.connect();
    await consumer.subscribe({ topic: '_schemas', fromBeginning: true });
    const seen: Array<[string, string | null]> = [];
    await new Promise<void>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => {
        seen.push([message.key!.toString(), message.value?.toString() ?? null]);
        if (seen.length === RECORDS_WRITTEN) resolve();
      } });
    });
    await consumer.disconnect();
    const key = (k: object) => JSON.stringify(k);
    expect(seen.slice(0, 5)).toEqual([
      [key({ keytype: 'SCHEMA', subject: 'orders-value', version: 1, magic: 1 }), JSON.stringify({ subject: 'orders-value', version: 1, id: 1, schema: V1, deleted: false })],
      [key({ keytype: 'SCHEMA', subject: 'audit-value', version: 1, magic: 1 }), JSON.stringify({ subject: 'audit-value', version: 1, id: 1, schema: V1, deleted: false })],
      [key({ keytype: 'SCHEMA', subject: 'orders-value', version: 2, magic: 1 }), JSON.stringify({ subject: 'orders-value', version: 2, id: 2, schema: V2, deleted: false })],
      [key({ keytype: 'CONFIG', subject: 'audit-value', magic: 0 }), JSON.stringify({ subject: 'audit-value', compatibilityLevel: 'NONE' })],
      [key({ keytype: 'SCHEMA', subject: 'audit-value', version: 2, magic: 1 }), JSON.stringify({ subject: 'audit-value', version: 2, id: 3, schema: NO_DEFAULT, deleted: false })],
    ]);
    expect(seen.slice(5, 7)).toEqual([
      [key({ keytype: 'MODE', subject: 'orders-value', magic: 0 }), JSON.stringify({ subject: 'orders-value', mode: 'READONLY' })],
      [key({ keytype: 'MODE', subject: 'orders-value', magic: 0 }), null],
    ]);
    expect(seen[8]![1]).toBe(JSON.stringify({
      subject: 'invoice', version: 1, id: 5, references: [{ name: 'shop.Money', subject: 'money', version: 1 }],
      schema: JSON.stringify({ type: 'record', name: 'Invoice', namespace: 'shop', fields: [{ name: 'total', type: 'shop.Money' }] }), deleted: false,
    }));
    expect(JSON.parse(seen[10]![1]!)).toMatchObject({ subject: 'pb', id: 7, schemaType: 'PROTOBUF' });
    // temp: registered, soft-deleted (deleted: true), tombstoned; then audit-value's DELETE_SUBJECT.
    expect(seen.slice(11).map(([k, v]) => [JSON.parse(k).keytype, v === null ? null : JSON.parse(v).deleted ?? JSON.parse(v).version])).toEqual([
      ['SCHEMA', false], ['SCHEMA', true], ['SCHEMA', null], ['DELETE_SUBJECT', 2],
    ]);
  });
});

describe('restart', () => {
  it('rebuilds subjects, versions, configs and deletions from _schemas, gives no id again, and sits behind the admin token', async () => {
    expect(await broker.stop()).toBe(0);
    await start([`kafkite.admin.token=${TOKEN}`]);
    expect(broker.logs.find((e) => e.msg === 'schema registry state rebuilt from _schemas')).toMatchObject({ maxId: 8 });
    expect((await sr('GET', '/subjects')).status).toBe(401);
    auth = { authorization: `Bearer ${TOKEN}` };
    expect((await sr('GET', '/subjects')).body).toEqual(['invoice', 'js', 'money', 'orders-value', 'pb']);
    expect((await sr('GET', '/subjects?deleted=true')).body).toEqual(['audit-value', 'invoice', 'js', 'money', 'orders-value', 'pb']);
    expect((await sr('GET', '/subjects/orders-value/versions/latest')).body).toEqual({ subject: 'orders-value', version: 2, id: 2, schema: V2 });
    expect((await sr('GET', '/config/audit-value')).body).toEqual({ compatibilityLevel: 'NONE' });
    // Id 8 was hard-deleted: the next schema gets 9, as Confluent's IncrementalIdGenerator gives it.
    expect((await sr('POST', '/subjects/after-restart/versions', { schema: record('After', [{ name: 'x', type: 'int' }]) })).body).toEqual({ id: 9 });
    expect((await sr('POST', '/subjects/orders-value/versions', { schema: NO_DEFAULT })).status).toBe(409);
    expect(broker.logs.find((e) => e.msg === 'schema registered')).toMatchObject({ subject: 'after-restart', version: 1, id: 9 });
  });

  it('normalize=true stores and matches the normalized form, so key order does not make a new version', async () => {
    const a = '{"type": "record", "name": "N", "fields": [{"type": "int", "name": "x"}]}';
    const b = '{"fields": [{"name": "x", "type": "int"}], "name": "N", "type": "record"}';
    expect((await sr('POST', '/subjects/norm/versions?normalize=true', { schema: a })).body).toEqual({ id: 10 });
    expect((await sr('POST', '/subjects/norm/versions?normalize=true', { schema: b })).body).toEqual({ id: 10 });
    expect((await sr('GET', '/subjects/norm/versions')).body).toEqual([1]);
    await expectError(sr('POST', '/subjects/norm', { schema: b }), 404, 40403);
    expect((await sr('POST', '/subjects/norm?normalize=true', { schema: b })).body).toMatchObject({ version: 1, id: 10 });
  });

  it('applies records another producer appends to _schemas, as Confluent registries sharing the topic do', async () => {
    const producer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const schema = record('External', [{ name: 'e', type: 'string' }]);
    await producer.send({ topic: '_schemas', acks: -1, messages: [
      { key: JSON.stringify({ keytype: 'SCHEMA', subject: 'external', version: 1, magic: 1 }), value: JSON.stringify({ subject: 'external', version: 1, id: 50, schema, deleted: false }) },
      { key: 'not json', value: 'ignored' },
      { key: JSON.stringify({ keytype: 'CONFIG', subject: 'external', magic: 0 }), value: JSON.stringify({ subject: 'external', compatibilityLevel: 'FORWARD' }) },
    ] });
    await producer.disconnect();
    expect((await sr('GET', '/subjects/external/versions/1')).body).toEqual({ subject: 'external', version: 1, id: 50, schema });
    expect((await sr('GET', '/config/external')).body).toEqual({ compatibilityLevel: 'FORWARD' });
    expect((await sr('POST', '/subjects/after-external/versions', { schema: '"bytes"' })).body).toEqual({ id: 51 });
    expect(broker.logs.some((e) => e.msg === 'skipping a record the schema registry does not know' && e.key === 'not json')).toBe(true);
  });

  it('IMPORT mode keeps the ids and versions it is given (a migration from another registry)', async () => {
    await expectError(sr('PUT', '/mode', { mode: 'IMPORT' }), 422, 42205, /existing subjects/);
    expect((await sr('PUT', '/mode/imported', { mode: 'IMPORT' })).body).toEqual({ mode: 'IMPORT' });
    const schema = record('Imported', [{ name: 'i', type: 'int' }]);
    expect((await sr('POST', '/subjects/imported/versions', { schema, id: 77, version: 3 })).body).toEqual({ id: 77 });
    // An id already holding another schema is refused.
    await expectError(sr('POST', '/subjects/imported/versions', { schema: '"int"', id: 77, version: 4 }), 422, 42207);
    expect((await sr('DELETE', '/mode/imported')).body).toEqual({ mode: 'IMPORT' });
    expect((await sr('GET', '/subjects/imported/versions/3')).body).toEqual({ subject: 'imported', version: 3, id: 77, schema });
    expect((await sr('POST', '/subjects/after-import/versions', { schema: '"float"' })).body).toEqual({ id: 78 });
  });
});
