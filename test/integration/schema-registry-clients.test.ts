// Real schema registry clients against kafkite's registry, records produced through kafkite and consumed
// back: @kafkajs/confluent-schema-registry (npm) with kafkajs, for Avro, JSON Schema and Protobuf; and
// confluent-kafka-python's SchemaRegistryClient with its Avro, JSON Schema and Protobuf serializers and deserializers (PyPI, in the
// current clients' venv that test/clients/install.sh builds). A fresh client for each read, so every schema comes
// from the registry by id; an incompatible change is refused to each. And franz-go's pkg/sr (Go module proxy;
// test/clients/install.sh downloads it) over the registry's API: registration, lookups, config, mode and deletes.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess, adminAddress } from '../helpers/broker-process.js';
import { CLIENTS_VENV } from '../helpers/current-clients.js';
import { runJsonClient } from '../helpers/json-client.js';

const SCRIPT = join(import.meta.dirname, 'schema_registry_python.py');
/** The current clients' venv (test/clients/install.sh), with confluent-kafka[avro,json,protobuf,schemaregistry]. */
const PYTHON = join(CLIENTS_VENV, 'bin', 'python');
const FRANZ_SOURCE = join(import.meta.dirname, 'franz-sr');

let broker: BrokerProcess;
let url: string;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['kafkite.schema.registry.enable=true', 'num.partitions=1'] });
  url = adminAddress(broker);
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

/** Produces the encoded values to `topic` and reads them back, decoded by a registry client that has seen none of them. */
async function roundTrip(topic: string, encoded: Buffer[]): Promise<unknown[]> {
  const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: encoded.map((value) => ({ value })) });
  await producer.disconnect();
  const fresh = new SchemaRegistry({ host: url });
  const consumer = kafka.consumer({ groupId: `${topic}-reader` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: unknown[] = [];
  await new Promise<void>((resolve, reject) => {
    void consumer.run({ eachMessage: async ({ message }) => {
      try {
        values.push(await fresh.decode(message.value!));
      } catch (err) {
        reject(err);
      }
      if (values.length === encoded.length) resolve();
    } });
  });
  await consumer.disconnect();
  return values;
}

describe('@kafkajs/confluent-schema-registry', () => {
  const registry = () => new SchemaRegistry({ host: url });

  it('Avro: registers, encodes, decodes through kafkite by id; an incompatible change is refused with 409', async () => {
    const schema = { type: 'record', name: 'User', namespace: 'app', fields: [{ name: 'name', type: 'string' }, { name: 'age', type: 'int' }] };
    const r = registry();
    const { id } = await r.register({ type: SchemaType.AVRO, schema: JSON.stringify(schema) }, { subject: 'users-value' });
    const users = [{ name: 'ada', age: 36 }, { name: 'alan', age: 41 }];
    const encoded = await Promise.all(users.map((u) => r.encode(id, u)));
    expect(encoded[0]!.readInt32BE(1)).toBe(id);
    expect(await roundTrip('users', encoded)).toEqual(users);
    expect(await registry().getLatestSchemaId('users-value')).toBe(id);
    const changed = { ...schema, fields: [{ name: 'name', type: 'int' }] };
    await expect(r.register({ type: SchemaType.AVRO, schema: JSON.stringify(changed) }, { subject: 'users-value' })).rejects.toMatchObject({ status: 409 });
  });

  it('JSON Schema: validated on encode, decoded by id', async () => {
    const schema = { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } }, required: ['sku'] };
    const r = registry();
    const { id } = await r.register({ type: SchemaType.JSON, schema: JSON.stringify(schema) }, { subject: 'items-value' });
    const items = [{ sku: 'a-1', qty: 2 }, { sku: 'b-2', qty: 5 }];
    expect(await roundTrip('items', await Promise.all(items.map((i) => r.encode(id, i))))).toEqual(items);
    const narrowed = { ...schema, properties: { ...schema.properties, qty: { type: 'string' } } };
    await expect(r.register({ type: SchemaType.JSON, schema: JSON.stringify(narrowed) }, { subject: 'items-value' })).rejects.toMatchObject({ status: 409 });
  });

  it('Protobuf: encoded and decoded by id; a field whose type changes kind is refused', async () => {
    const proto = (t: string) => `syntax = "proto3";\npackage app;\nmessage Click { string page = 1; ${t} ms = 2; }`;
    const r = registry();
    const { id } = await r.register({ type: SchemaType.PROTOBUF, schema: proto('int64') }, { subject: 'clicks-value' });
    const clicks = [{ page: '/home', ms: 12 }, { page: '/buy', ms: 340 }];
    const decoded = (await roundTrip('clicks', await Promise.all(clicks.map((c) => r.encode(id, c))))) as Array<{ page: string; ms: unknown }>;
    expect(decoded.map((c) => ({ page: c.page, ms: Number(c.ms) }))).toEqual(clicks);
    await expect(r.register({ type: SchemaType.PROTOBUF, schema: proto('string') }, { subject: 'clicks-value' })).rejects.toMatchObject({ status: 409 });
  });
});

describe('confluent-kafka-python', () => {
  it('AvroSerializer registers and produces, AvroDeserializer reads back by id, an incompatible change is refused', async () => {
    const out = await runJsonClient(PYTHON, [SCRIPT, broker.bootstrap, url, 'payments']);
    const subject = await (await fetch(`${url}/subjects/payments-value/versions/1`)).json();
    expect(out.schemaIdInRecord).toBe(subject.id);
    expect(out.consumed).toHaveLength(21);
    expect(out.consumed[3]).toEqual({ id: 'p3', amount: 4.5 });
    expect(out.consumed[20]).toEqual({ id: 'p-v2', amount: 9, currency: 'USD' });
    expect(out.versions).toEqual([1, 2]);
    expect(out.latest.version).toBe(2);
    expect(out.compatibleV2).toBe(true);
    expect(out.compatibleBad).toBe(false);
    expect(out.incompatible).toEqual({ status: 409, code: 409 });
    expect(out.missingId).toEqual({ status: 404, code: 40403 });
    // The refused schema left no version behind.
    expect(await (await fetch(`${url}/subjects/payments-value/versions`)).json()).toEqual([1, 2]);
  });

  it('JSONSerializer validates, registers and produces, JSONDeserializer reads back by id, a narrowed type is refused', async () => {
    const out = await runJsonClient(PYTHON, [SCRIPT, broker.bootstrap, url, 'stock', 'json']);
    const subject = await (await fetch(`${url}/subjects/stock-value/versions/1`)).json();
    expect(subject.schemaType).toBe('JSON');
    expect(JSON.parse(subject.schema).required).toEqual(['sku']);
    expect(out.schemaIdInRecord).toBe(subject.id);
    expect(out.invalid).toBe('SerializationError');
    expect(out.consumed).toHaveLength(20);
    expect(out.consumed[7]).toEqual({ sku: 's7', qty: 7 });
    expect(out.latest).toEqual({ version: 1, schemaId: subject.id });
    expect(out.compatibleBad).toBe(false);
    expect(out.incompatible).toEqual({ status: 409, code: 409 });
    expect(await (await fetch(`${url}/subjects/stock-value/versions`)).json()).toEqual([1]);
  });

  it('ProtobufSerializer registers a base64 descriptor kept as .proto text, ProtobufDeserializer reads back by id, a kind change is refused', async () => {
    const out = await runJsonClient(PYTHON, [SCRIPT, broker.bootstrap, url, 'clicks-py', 'protobuf']);
    const subject = await (await fetch(`${url}/subjects/clicks-py-value/versions/1`)).json();
    expect(subject.schemaType).toBe('PROTOBUF');
    expect(subject.schema).toBe('syntax = "proto3";\npackage shop;\nmessage Click {\n  string page = 1;\n  int64 ms = 2;\n}');
    expect(out.schemaIdInRecord).toBe(subject.id);
    // What the deserializer fetched: the descriptor again, printed back to the same text.
    const serialized = await (await fetch(`${url}/schemas/ids/${subject.id}?format=serialized`)).json();
    expect(serialized.schema).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(serialized.schema, 'base64').toString('latin1')).toContain('Click');
    expect(out.consumed).toHaveLength(20);
    expect(out.consumed[4]).toEqual({ page: '/p4', ms: 40 });
    expect(out.latest).toEqual({ version: 1, schemaId: subject.id });
    expect(out.compatibleBad).toBe(false);
    expect(out.incompatible).toEqual({ status: 409, code: 409 });
    expect(await (await fetch(`${url}/subjects/clicks-py-value/versions`)).json()).toEqual([1]);
  });
});

describe("franz-go's pkg/sr", () => {
  let buildDir: string;
  afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

  /** Builds the client from the module cache .ci/run filled (go.sum pins it), go.mod left as it is. */
  function build(): Promise<string> {
    buildDir = mkdtempSync(join(tmpdir(), 'kafkite-franz-sr-'));
    const binary = join(buildDir, 'franz-sr');
    return new Promise((resolve, reject) => {
      execFile('go', ['build', '-o', binary, '.'], { timeout: 300_000, cwd: FRANZ_SOURCE, env: { ...process.env, GOFLAGS: '-mod=readonly -buildvcs=false' } }, (err, _out, stderr) => {
        if (err) reject(new Error(`go build: ${err.message}\n${stderr}`));
        else resolve(binary);
      });
    });
  }

  it('registers, looks up, checks, configures and deletes through the Confluent API', async () => {
    const out = await runJsonClient(await build(), [url]);
    expect(out.types.sort()).toEqual(['AVRO', 'JSON', 'PROTOBUF']);
    const firstId = out.created[0].id;
    expect(out.created[1]).toEqual({ id: firstId + 1, version: 2 });
    expect(out.created[0].version).toBe(1);
    expect(JSON.parse(out.byId)).toEqual({ type: 'record', name: 'Event', fields: [{ name: 'a', type: 'string' }] });
    expect(JSON.parse(out.text).fields).toHaveLength(2);
    expect(out).toMatchObject({
      versions: [1, 2], latest: 2, lookup: 1, check: false,
      incompatible: { status: 409, code: 409 }, missingId: { status: 404, code: 40403 },
      compatibility: 'FULL_TRANSITIVE', readOnly: { status: 422, code: 42205 },
      softDeleted: [1, 2], hardDeleted: [1, 2], afterHardDelete: { status: 404, code: 40401 },
    });
    expect(out.subjectsAfterDelete).not.toContain('events-value');
    // What the client did is what a second reader sees: the subject is gone, deleted ones included.
    expect(await (await fetch(`${url}/subjects?deleted=true`)).json()).not.toContain('events-value');
  }, 360_000);
});
