// Certificates for tests and benches, made with openssl at run time: a CA, a broker certificate for localhost/127.0.0.1 (as PEM,
// PKCS12 and, where Java's keytool exists, JKS), a client certificate the CA signed and one it did not.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  dir: string;
  /** CA certificate (PEM): the truststore of broker and clients. */
  caPem: string;
  /** Broker key + certificate in one PEM file (ssl.keystore.type=PEM). */
  serverPem: string;
  serverKey: string;
  serverCert: string;
  /** PKCS12 keystore, password `password`. */
  serverP12: string;
  /** JKS keystore and truststore, password `password`; null without keytool. */
  serverJks: string | null;
  trustJks: string | null;
  /** Client certificate (CN=alice,OU=clients,O=kafkite) signed by the CA, and its key. */
  clientCert: string;
  clientKey: string;
  /** Client certificate signed by another CA. */
  rogueCert: string;
  rogueKey: string;
  cleanup(): void;
}

const STORE_PASSWORD = 'password';

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function issue(dir: string, name: string, subject: string, ca: string, ext?: string): void {
  openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
  const extArgs = ext ? ['-extfile', `${name}.ext`] : [];
  if (ext) writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', ...extArgs);
}

export function hasKeytool(): boolean {
  return spawnSync('keytool', ['-help'], { stdio: 'ignore' }).status === 0;
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'kafkite-certs-'));
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=kafkite-test-ca');
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'rogue-ca.key', '-out', 'rogue-ca.pem', '-days', '2', '-subj', '/CN=rogue-ca');
  issue(dir, 'server', '/CN=localhost', 'ca', 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  issue(dir, 'client', '/O=kafkite/OU=clients/CN=alice', 'ca');
  issue(dir, 'rogue', '/O=kafkite/OU=clients/CN=mallory', 'rogue-ca');
  execFileSync('sh', ['-c', 'cat server.key server.pem > server-keystore.pem'], { cwd: dir });
  openssl(dir, 'pkcs12', '-export', '-in', 'server.pem', '-inkey', 'server.key', '-out', 'server.p12', '-passout', `pass:${STORE_PASSWORD}`, '-name', 'kafkite');
  let serverJks: string | null = null;
  let trustJks: string | null = null;
  if (hasKeytool()) {
    const keytool = (...args: string[]) => execFileSync('keytool', args, { cwd: dir, stdio: 'ignore' });
    keytool('-importkeystore', '-srckeystore', 'server.p12', '-srcstoretype', 'PKCS12', '-srcstorepass', STORE_PASSWORD,
      '-destkeystore', 'server.jks', '-deststoretype', 'JKS', '-deststorepass', STORE_PASSWORD, '-destkeypass', STORE_PASSWORD);
    keytool('-import', '-noprompt', '-alias', 'ca', '-file', 'ca.pem', '-keystore', 'trust.jks', '-storetype', 'JKS', '-storepass', STORE_PASSWORD);
    serverJks = join(dir, 'server.jks');
    trustJks = join(dir, 'trust.jks');
  }
  return {
    dir,
    caPem: join(dir, 'ca.pem'),
    serverPem: join(dir, 'server-keystore.pem'),
    serverKey: join(dir, 'server.key'),
    serverCert: join(dir, 'server.pem'),
    serverP12: join(dir, 'server.p12'),
    serverJks,
    trustJks,
    clientCert: join(dir, 'client.pem'),
    clientKey: join(dir, 'client.key'),
    rogueCert: join(dir, 'rogue.pem'),
    rogueKey: join(dir, 'rogue.key'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
