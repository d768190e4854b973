// Start-up with security configs: unusable keystores stop it with one line naming the key and the file; JKS
// and inline PEM keystores serve; the admin HTTP wants a bearer token when it is reachable from elsewhere.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startBroker } from '../helpers/broker-process.js';
import { hasKeytool, makeTestCertificates, type TestCertificates } from '../helpers/certs.js';
import { kcat } from '../helpers/kcat.js';
import { listenerPorts } from '../helpers/secure-broker.js';

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
