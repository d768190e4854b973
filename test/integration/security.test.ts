// Listeners, TLS and SASL with stock clients: kcat (librdkafka), kafkajs and @platformatic/kafka produce and
// consume on every listener type; mTLS, wrong passwords, SCRAM users added and removed live, restarts.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteScramUser, saslAuthenticate, SaslFailure, upsertScramUser } from '../../bench/lib/scram-client.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { createTopic } from '../../bench/loadgen.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/certs.js';
import { kcat } from '../helpers/kcat.js';
import { listenerPorts, startSecureBroker, tlsWireClient, type SecureBroker } from '../helpers/secure-broker.js';
import { startBroker } from '../helpers/broker-process.js';

let certs: TestCertificates;
let sb: SecureBroker;

beforeAll(async () => {
  certs = makeTestCertificates();
  sb = await startSecureBroker(certs);
  const admin = await WireClient.connect(sb.ports.PLAINTEXT);
  for (const m of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) expect((await upsertScramUser(admin, m, 'bob', 'bob-secret')).errorCode).toBe(0);
  admin.close();
});

afterAll(async () => {
  expect(await sb.broker.stop()).toBe(0);
  sb.broker.cleanup();
  certs.cleanup();
});

/** The broker's first log line matching, waiting for it to be printed. */
async function logLine(match: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const line = sb.broker.logs.find(match);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('log line never printed');
}

function kcatArgs(listener: keyof SecureBroker['ports'], extra: Record<string, string> = {}): string[] {
  const security: Record<string, Record<string, string>> = {
    PLAINTEXT: {},
    SSL: { 'security.protocol': 'ssl', 'ssl.ca.location': certs.caPem },
    MTLS: { 'security.protocol': 'ssl', 'ssl.ca.location': certs.caPem, 'ssl.certificate.location': certs.clientCert, 'ssl.key.location': certs.clientKey },
    SASL_PLAINTEXT: { 'security.protocol': 'sasl_plaintext', 'sasl.mechanisms': 'PLAIN', 'sasl.username': 'alice', 'sasl.password': 'alice-secret' },
    SASL_SSL: { 'security.protocol': 'sasl_ssl', 'ssl.ca.location': certs.caPem, 'sasl.mechanisms': 'SCRAM-SHA-512', 'sasl.username': 'bob', 'sasl.password': 'bob-secret' },
  };
  const props = { ...security[listener], ...extra };
  return ['-b', `127.0.0.1:${sb.ports[listener]}`, ...Object.entries(props).flatMap(([k, v]) => ['-X', `${k}=${v}`])];
}

describe('kcat on every listener type', () => {
  it('produces on each listener and reads everything back on another', async () => {
    const topic = 'kcat-listeners';
    const listeners = ['PLAINTEXT', 'SSL', 'MTLS', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
    for (const l of listeners) {
      const res = await kcat([...kcatArgs(l), '-P', '-t', topic, '-p', '0'], `from-${l}\n`);
      expect(res.code, res.stderr).toBe(0);
    }
    for (const l of [...listeners].reverse()) {
      const res = await kcat([...kcatArgs(l), '-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout.trim().split('\n')).toEqual(listeners.map((x) => `from-${x}`));
    }
  });

  it('answers Metadata with the endpoint of the listener the client came in on', async () => {
    for (const l of ['PLAINTEXT', 'SSL', 'SASL_SSL'] as const) {
      const res = await kcat([...kcatArgs(l), '-L', '-J']);
      expect(res.code, res.stderr).toBe(0);
      const metadata = JSON.parse(res.stdout);
      expect(metadata.brokers).toEqual([{ id: 1, name: `127.0.0.1:${sb.ports[l]}` }]);
    }
  });

  it('authenticates with SCRAM-SHA-256 and SCRAM-SHA-512 over SASL_PLAINTEXT', async () => {
    for (const m of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) {
      const res = await kcat([...kcatArgs('SASL_PLAINTEXT', { 'sasl.mechanisms': m, 'sasl.username': 'bob', 'sasl.password': 'bob-secret' }), '-L']);
      expect(res.code, res.stderr).toBe(0);
    }
  });

  it('refuses wrong passwords with Kafka messages', async () => {
    const plain = await kcat([...kcatArgs('SASL_PLAINTEXT', { 'sasl.password': 'wrong' }), '-L', '-m', '2']);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('Authentication failed: Invalid username or password');
    const scram = await kcat([...kcatArgs('SASL_SSL', { 'sasl.password': 'wrong' }), '-L', '-m', '2']);
    expect(scram.code).not.toBe(0);
    expect(scram.stderr).toContain('Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512');
    const unknownUser = await kcat([...kcatArgs('SASL_SSL', { 'sasl.username': 'nobody' }), '-L', '-m', '2']);
    expect(unknownUser.code).not.toBe(0);
    expect(unknownUser.stderr).toContain('invalid credentials with SASL mechanism SCRAM-SHA-512');
  });

  it('requires a client certificate the truststore verifies on the mTLS listener', async () => {
    const none = await kcat([...kcatArgs('SSL'), '-b', `127.0.0.1:${sb.ports.MTLS}`, '-L', '-m', '2']);
    expect(none.code).not.toBe(0);
    const rogue = await kcat([...kcatArgs('MTLS', { 'ssl.certificate.location': certs.rogueCert, 'ssl.key.location': certs.rogueKey }), '-L', '-m', '2']);
    expect(rogue.code).not.toBe(0);
    expect(rogue.stdout).not.toContain('brokers');
  });
});

describe('principals', () => {
  it('maps the client certificate DN through ssl.principal.mapping.rules', async () => {
    const client = await tlsWireClient(sb.ports.MTLS, certs, { cert: certs.clientCert, key: certs.clientKey });
    expect((await upsertScramUser(client, 'SCRAM-SHA-256', 'carol', 'carol-secret')).errorCode).toBe(0);
    client.close();
    // CN=alice,OU=clients,O=kafkite with RULE:^CN=([a-z]+),OU=clients.*$/$1/U
    expect((await logLine((l) => l.msg === 'SCRAM credentials altered' && l.user === 'carol')).principal).toBe('User:ALICE');
  });

  it('acts as the SASL user after authentication', async () => {
    const client = await tlsWireClient(sb.ports.SASL_SSL, certs);
    await saslAuthenticate(client, 'PLAIN', 'alice', 'alice-secret');
    expect((await upsertScramUser(client, 'SCRAM-SHA-256', 'dave', 'dave-secret')).errorCode).toBe(0);
    client.close();
    expect((await logLine((l) => l.msg === 'SCRAM credentials altered' && l.user === 'dave')).principal).toBe('User:alice');
  });
});

describe('kafkajs', () => {
  const variants: Array<[string, 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL', SASLOptions | undefined]> = [
    ['ssl', 'SSL', undefined],
    ['sasl plain', 'SASL_PLAINTEXT', { mechanism: 'plain', username: 'alice', password: 'alice-secret' }],
    ['sasl scram-sha-256 over ssl', 'SASL_SSL', { mechanism: 'scram-sha-256', username: 'bob', password: 'bob-secret' }],
    ['sasl scram-sha-512', 'SASL_PLAINTEXT', { mechanism: 'scram-sha-512', username: 'bob', password: 'bob-secret' }],
  ];
  for (const [name, listener, sasl] of variants) {
    it(`produces and consumes with ${name}`, async () => {
      const tls = listener !== 'SASL_PLAINTEXT';
      const kafka = new Kafka({
        clientId: 'kafkite-security',
        brokers: [`127.0.0.1:${sb.ports[listener]}`],
        logLevel: logLevel.NOTHING,
        ...(tls ? { ssl: { ca: [readFileSync(certs.caPem, 'utf8')], servername: 'localhost' } } : {}),
        ...(sasl ? { sasl } : {}),
      });
      const topic = `kafkajs-${name.replace(/[^a-z0-9]/g, '-')}`;
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] });
      await producer.disconnect();
      const consumer = kafka.consumer({ groupId: `g-${topic}`, maxWaitTimeInMs: 100 });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const values: string[] = [];
      await new Promise<void>((resolve, reject) => {
        consumer.run({ eachMessage: async ({ message }) => { values.push(message.value!.toString()); if (values.length === 2) resolve(); } }).catch(reject);
      });
      await consumer.disconnect();
      expect(values).toEqual(['a', 'b']);
      // What a second client on the plain listener sees: the same records.
      const check = await kcat(['-b', `127.0.0.1:${sb.ports.PLAINTEXT}`, '-C', '-t', topic, '-o', 'beginning', '-e', '-q']);
      expect(check.stdout.trim().split('\n')).toEqual(['a', 'b']);
    });
  }

  it('gets SASL_AUTHENTICATION_FAILED for a wrong SCRAM password', async () => {
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${sb.ports.SASL_PLAINTEXT}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      sasl: { mechanism: 'scram-sha-256', username: 'bob', password: 'nope' },
    });
    const admin = kafka.admin();
    await expect(admin.connect()).rejects.toThrow(/invalid credentials with SASL mechanism SCRAM-SHA-256/);
    await admin.disconnect();
  });
});

describe('@platformatic/kafka', () => {
  it('produces and consumes over SASL_SSL with SCRAM-SHA-512', async () => {
    const common = {
      clientId: 'platformatic-security',
      bootstrapBrokers: [`127.0.0.1:${sb.ports.SASL_SSL}`],
      tls: { ca: readFileSync(certs.caPem, 'utf8'), servername: 'localhost' },
      sasl: { mechanism: 'SCRAM-SHA-512' as const, username: 'bob', password: 'bob-secret' },
    };
    const topic = 'platformatic-sasl-ssl';
    const producer = new Producer({ ...common, serializers: stringSerializers, autocreateTopics: true });
    await producer.send({ messages: [{ topic, value: 'one' }, { topic, value: 'two' }] });
    await producer.close();
    const consumer = new Consumer({ ...common, groupId: 'g-platformatic-sasl', deserializers: stringDeserializers, maxWaitTime: 100 });
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
    const values: string[] = [];
    for await (const message of stream) {
      values.push(message.value as string);
      if (values.length === 2) break;
    }
    await stream.close().catch(() => undefined);
    await consumer.close(true).catch(() => undefined);
    expect(values).toEqual(['one', 'two']);
  });
});

describe('SCRAM users managed live', () => {
  it('adds a user that can log in at once, and removes it so the next login fails', async () => {
    const admin = await WireClient.connect(sb.ports.PLAINTEXT);
    expect((await upsertScramUser(admin, 'SCRAM-SHA-512', 'erin', 'erin-secret', 8192)).errorCode).toBe(0);
    const described = await admin.send(50, 0, { users: [{ name: 'erin' }, { name: 'nobody' }] });
    expect(described.results).toEqual([
      { user: 'erin', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: 2, iterations: 8192 }] },
      { user: 'nobody', errorCode: 91, errorMessage: 'Attempt to describe a user credential that does not exist', credentialInfos: [] },
    ]);
    const ok = await kcat([...kcatArgs('SASL_SSL', { 'sasl.username': 'erin', 'sasl.password': 'erin-secret' }), '-L']);
    expect(ok.code, ok.stderr).toBe(0);

    expect((await deleteScramUser(admin, 'SCRAM-SHA-512', 'erin')).errorCode).toBe(0);
    expect((await deleteScramUser(admin, 'SCRAM-SHA-512', 'erin')).errorCode).toBe(91);
    const refused = await kcat([...kcatArgs('SASL_SSL', { 'sasl.username': 'erin', 'sasl.password': 'erin-secret' }), '-L', '-m', '2']);
    expect(refused.code).not.toBe(0);
    const tooFew = await upsertScramUser(admin, 'SCRAM-SHA-256', 'frank', 'x', 1000);
    expect(tooFew).toMatchObject({ errorCode: 93, errorMessage: 'Too few iterations' });
    admin.close();
  });

  it('keeps credentials across a restart as salted hashes, never the password', async () => {
    const admin = await WireClient.connect(sb.ports.PLAINTEXT);
    expect((await upsertScramUser(admin, 'SCRAM-SHA-256', 'grace', 'grace-very-secret-password')).errorCode).toBe(0);
    admin.close();
    const dataDir = sb.broker.dataDir;
    expect(await sb.broker.stop()).toBe(0);
    const metadataDir = join(dataDir, '__cluster_metadata-0');
    const segment = readdirSync(metadataDir).find((f) => f.endsWith('.log'))!;
    const bytes = readFileSync(join(metadataDir, segment));
    expect(bytes.includes(Buffer.from('grace'))).toBe(true);
    expect(bytes.includes(Buffer.from('grace-very-secret-password'))).toBe(false);

    const restarted = await startBroker({ dataDir, overrides: (await import('../helpers/secure-broker.js')).secureBrokerOverrides(certs) });
    sb = { broker: restarted, ports: listenerPorts(restarted) };
    const client = await WireClient.connect(sb.ports.SASL_PLAINTEXT);
    await saslAuthenticate(client, 'SCRAM-SHA-256', 'grace', 'grace-very-secret-password');
    client.close();
    const wrong = await WireClient.connect(sb.ports.SASL_PLAINTEXT);
    await expect(saslAuthenticate(wrong, 'SCRAM-SHA-256', 'grace', 'guess')).rejects.toBeInstanceOf(SaslFailure);
    wrong.close();
  });
});

describe('a parked request over TLS', () => {
  /** The client socket's segments the broker's kernel has not acknowledged yet (`ss -ti`'s unacked). */
  function unackedSegments(client: WireClient): number {
    const out = execFileSync('ss', ['-tinH', 'state', 'established', `( sport = :${client.socket.localPort} )`], { encoding: 'utf8' });
    return Number(/unacked:(\d+)/.exec(out)?.[1] ?? 0);
  }

  // A client with Nagle's algorithm on (librdkafka before 2.10; Node's default) holds its next small request
  // until the last one is acknowledged. The broker acknowledges a request whose answer waits at once
  // (TCP_QUICKACK, on the TCP socket under the TLS one), not with the answer.
  beforeAll(() => createTopic(`127.0.0.1:${sb.ports.PLAINTEXT}`, 'parked-fetch', 1));

  it.each(['PLAINTEXT', 'SSL'] as const)('is acknowledged at once on %s, before its answer', async (listener) => {
    const client = listener === 'SSL' ? await tlsWireClient(sb.ports.SSL, certs) : await WireClient.connect(sb.ports.PLAINTEXT);
    const unacked: number[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        // Quick round trips first, as a busy client's: they put the broker's side in delayed-ACK mode.
        for (let j = 0; j < 3; j++) await client.send(18, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
        const started = performance.now();
        const parked = client.send(1, 12, {
          clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 300, minBytes: 1, maxBytes: 1 << 20,
          isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
          topics: [{ topic: 'parked-fetch', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
        });
        await new Promise((r) => setTimeout(r, 25));
        unacked.push(unackedSegments(client));
        await parked;
        expect(performance.now() - started).toBeGreaterThanOrEqual(250); // it did wait for data
      }
    } finally {
      client.close();
    }
    // Without the quick ACK every probe finds the request unacknowledged (the delayed ACK rides on the answer).
    expect(unacked.filter((n) => n > 0).length, `unacked per probe: ${unacked.join(',')}`).toBeLessThanOrEqual(1);
  });
});
