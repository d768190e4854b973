// Start-up with security configs: unusable keystores stop it with one line naming the key and the file; JKS,
// inline PEM and openssl-made PKCS12 keystores serve; the admin HTTP wants a bearer token when it is reachable from elsewhere.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { REPO_ROOT, startBroker } from '../helpers/broker-process.js';
import { hasKeytool, makeTestCertificates, type TestCertificates } from '../helpers/certs.js';
import { kcat } from '../helpers/kcat.js';
import { listenerPorts, tlsWireClient } from '../helpers/secure-broker.js';

let certs: TestCertificates;
beforeAll(() => {
  certs = makeTestCertificates();
});
afterAll(() => certs.cleanup());

function runStart(overrides: string[]) {
  const args = [join(REPO_ROOT, 'bin/kafkite.js'), 'start', '--override', `log.dirs=${join(certs.dir, 'never')}`, '--override', 'admin.listener=http://127.0.0.1:0', '--override', 'advertised.listeners='];
  for (const o of overrides) args.push('--override', o);
  return spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
}

const SSL_LISTENER = ['listeners=SSL://127.0.0.1:0', 'listener.security.protocol.map=SSL:SSL'];

describe('keystores that cannot be used', () => {
  it('names ssl.keystore.password and the file for a wrong PKCS12 password', () => {
    const res = runStart([...SSL_LISTENER, 'ssl.keystore.type=PKCS12', `ssl.keystore.location=${certs.serverP12}`, 'ssl.keystore.password=wrong']);
    expect(res.status).toBe(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ssl.keystore.password');
    expect(lines[0]).toContain(certs.serverP12);
  });

  it('names ssl.keystore.location and the file when it cannot be read', () => {
    const res = runStart([...SSL_LISTENER, 'ssl.keystore.type=PKCS12', 'ssl.keystore.location=/nonexistent/ks.p12', 'ssl.keystore.password=x']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/ssl\.keystore\.location: cannot read \/nonexistent\/ks\.p12: ENOENT/);
  });

  it('names the per-listener key when the listener override is wrong, and refuses GSSAPI-only SASL', () => {
    const res = runStart([...SSL_LISTENER, 'listener.name.ssl.ssl.keystore.type=PEM', `listener.name.ssl.ssl.keystore.location=${certs.caPem}`]);
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/listener SSL: ssl\.keystore\.location: .*holds no private key/);
    const sasl = runStart(['listeners=SASL_PLAINTEXT://127.0.0.1:0', 'listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT']);
    expect(sasl.status).toBe(1);
    expect(sasl.stderr).toMatch(/sasl\.enabled\.mechanisms: GSSAPI not supported/);
  });
});

describe('keystore formats', () => {
  it.skipIf(!hasKeytool())('serves TLS from a JKS keystore (Kafka default type)', async () => {
    const broker = await startBroker({ overrides: [...SSL_LISTENER, `ssl.keystore.location=${certs.serverJks}`, 'ssl.keystore.password=password'] });
    try {
      const res = await kcat(['-b', `127.0.0.1:${listenerPorts(broker).SSL}`, '-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${certs.caPem}`, '-L']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('1 brokers');
    } finally {
      await broker.stop();
      broker.cleanup();
    }
  });

  it('serves TLS from inline PEM (ssl.keystore.key / ssl.keystore.certificate.chain)', async () => {
    const broker = await startBroker({
      overrides: [
        ...SSL_LISTENER,
        'ssl.keystore.type=PEM',
        `ssl.keystore.key=${readFileSync(certs.serverKey, 'utf8')}`,
        `ssl.keystore.certificate.chain=${readFileSync(certs.serverCert, 'utf8')}`,
        'ssl.enabled.protocols=TLSv1.2',
        'ssl.cipher.suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
      ],
    });
    try {
      const res = await kcat(['-b', `127.0.0.1:${listenerPorts(broker).SSL}`, '-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${certs.caPem}`, '-L']);
      expect(res.code, res.stderr).toBe(0);
    } finally {
      await broker.stop();
      broker.cleanup();
    }
  });
});

describe('PKCS12 keystores made with openssl pkcs12 -export', () => {
  // As Kafka's docs make them: with the CA behind -certfile, with and without a friendly name (-name), in
  // OpenSSL 3's default algorithms (AES-256, PBKDF2) and -legacy's (RC2-40, 3DES). Kafka 4.4's JVM loads each.
  const VARIANTS: Record<string, string[]> = {
    'certfile-named': ['-certfile', 'ca.pem', '-name', 'broker'],
    'certfile-unnamed': ['-certfile', 'ca.pem'],
    unnamed: [],
    'legacy-certfile-named': ['-legacy', '-certfile', 'ca.pem', '-name', 'broker'],
    'legacy-unnamed': ['-legacy'],
  };
  const keystore = (variant: string) => join(certs.dir, `${variant}.p12`);
  beforeAll(() => {
    for (const [variant, args] of Object.entries(VARIANTS)) {
      const made = spawnSync('openssl', ['pkcs12', '-export', '-in', 'server.pem', '-inkey', 'server.key', ...args, '-passout', 'pass:store-secret', '-out', keystore(variant)], { cwd: certs.dir });
      expect(made.status, String(made.stderr)).toBe(0);
    }
  });

  it.each(Object.keys(VARIANTS))('serves TLS from %s, presenting the key\'s certificate first', async (variant) => {
    const broker = await startBroker({ overrides: [...SSL_LISTENER, 'ssl.keystore.type=PKCS12', `ssl.keystore.location=${keystore(variant)}`, 'ssl.keystore.password=store-secret'] });
    try {
      const client = await tlsWireClient(listenerPorts(broker).SSL, certs);
      try {
        const peer = (client.socket as TLSSocket).getPeerCertificate(true);
        expect(peer.subject.CN).toBe('localhost');
        expect(peer.issuerCertificate.subject.CN).toBe('kafkite-test-ca');
        const metadata = await client.send(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
        expect(metadata.brokers).toHaveLength(1);
      } finally {
        client.close();
      }
    } finally {
      await broker.stop();
      broker.cleanup();
    }
  });

  it.each(Object.keys(VARIANTS))('names ssl.keystore.password and the file for a wrong password to %s', (variant) => {
    const res = runStart([...SSL_LISTENER, 'ssl.keystore.type=PKCS12', `ssl.keystore.location=${keystore(variant)}`, 'ssl.keystore.password=wrong']);
    expect(res.status).toBe(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`ssl.keystore.password: cannot load ${keystore(variant)} (wrong password or not a keystore)`);
  });

  it('verifies client certificates against an openssl-made PKCS12 truststore without a friendly name', async () => {
    const truststore = join(certs.dir, 'trust-unnamed.p12');
    const made = spawnSync('openssl', ['pkcs12', '-export', '-nokeys', '-in', 'ca.pem', '-passout', 'pass:trust-secret', '-out', truststore], { cwd: certs.dir });
    expect(made.status, String(made.stderr)).toBe(0);
    const broker = await startBroker({
      overrides: [...SSL_LISTENER, 'ssl.keystore.type=PKCS12', `ssl.keystore.location=${keystore('unnamed')}`, 'ssl.keystore.password=store-secret',
        'ssl.client.auth=required', 'ssl.truststore.type=PKCS12', `ssl.truststore.location=${truststore}`, 'ssl.truststore.password=trust-secret'],
    });
    try {
      const port = listenerPorts(broker).SSL;
      const trusted = await tlsWireClient(port, certs, { cert: certs.clientCert, key: certs.clientKey });
      try {
        expect((await trusted.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' })).errorCode).toBe(0);
      } finally {
        trusted.close();
      }
      await expect(tlsWireClient(port, certs, { cert: certs.rogueCert, key: certs.rogueKey }).then((c) => c.send(ApiKey.ApiVersions, 3, {
        clientSoftwareName: 'test', clientSoftwareVersion: '1',
      }))).rejects.toThrow();
    } finally {
      await broker.stop();
      broker.cleanup();
    }
  });

  it('does not trust the keystore\'s -certfile CA for client certificates: only the truststore does, as in Kafka', async () => {
    const broker = await startBroker({
      overrides: [...SSL_LISTENER, 'ssl.keystore.type=PKCS12', `ssl.keystore.location=${keystore('certfile-named')}`, 'ssl.keystore.password=store-secret',
        'ssl.client.auth=required', 'ssl.truststore.type=PEM', `ssl.truststore.location=${join(certs.dir, 'rogue-ca.pem')}`],
    });
    try {
      const port = listenerPorts(broker).SSL;
      // Signed by the keystore's CA, which is not in the truststore: refused.
      await expect(tlsWireClient(port, certs, { cert: certs.clientCert, key: certs.clientKey }).then((c) => c.send(ApiKey.ApiVersions, 3, {
        clientSoftwareName: 'test', clientSoftwareVersion: '1',
      }))).rejects.toThrow();
      const trusted = await tlsWireClient(port, certs, { cert: certs.rogueCert, key: certs.rogueKey });
      try {
        expect((await trusted.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' })).errorCode).toBe(0);
      } finally {
        trusted.close();
      }
    } finally {
      await broker.stop();
      broker.cleanup();
    }
  });
});

describe('admin HTTP token', () => {
  it('refuses to start on a non-loopback admin.listener without a token', () => {
    const res = runStart(['admin.listener=http://0.0.0.0:0']);
    expect(res.status).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/kafkite\.admin\.token/);
  });

  it('requires the bearer token on every route but /health', async () => {
    const tokenFile = join(certs.dir, 'admin-token');
    writeFileSync(tokenFile, 's3cret-token\n');
    const broker = await startBroker({ overrides: ['admin.listener=http://0.0.0.0:0', `kafkite.admin.token.file=${tokenFile}`] });
    try {
      const address = String(broker.logs.find((l) => l.msg === 'admin http started')!.address).replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${address}/health`)).status).toBe(200);
      for (const route of ['/ready', '/metrics', '/v1/topics', '/v1/groups']) {
        expect((await fetch(`${address}${route}`)).status, route).toBe(401);
        expect((await fetch(`${address}${route}`, { headers: { authorization: 'Bearer wrong' } })).status, route).toBe(401);
      }
      const ok = await fetch(`${address}/v1/topics`, { headers: { authorization: 'Bearer s3cret-token' } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toHaveProperty('topics');
      const metrics = await fetch(`${address}/metrics`, { headers: { authorization: 'Bearer s3cret-token' } });
      expect(await metrics.text()).toContain('kafkite_authentications_total');
      expect(JSON.stringify(broker.logs)).not.toContain('s3cret-token');
    } finally {
      await broker.stop();
      broker.cleanup();
    }
  });
});
