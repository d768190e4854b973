// A broker with every kind of listener, for the security tests: PLAINTEXT, SSL, SSL with required client
// certificates (MTLS), SASL_PLAINTEXT and SASL_SSL, each on its own free port.
import { readFileSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from './broker-process.js';
import type { TestCertificates } from './certs.js';

export const PLAIN_USERS = { admin: 'admin-secret', alice: 'alice-secret' };

export type ListenerName = 'PLAINTEXT' | 'SSL' | 'MTLS' | 'SASL_PLAINTEXT' | 'SASL_SSL';

export interface SecureBroker {
  broker: BrokerProcess;
  ports: Record<ListenerName, number>;
}

export function secureBrokerOverrides(certs: TestCertificates, keystore: 'PKCS12' | 'JKS' = 'PKCS12'): string[] {
  const jaas = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" ${Object.entries(PLAIN_USERS)
    .map(([u, p]) => `user_${u}="${p}"`)
    .join(' ')};`;
  return [
    'listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    // The broker-wide keystore is PKCS12 (or JKS); the MTLS listener overrides it with PEM and a truststore.
    `ssl.keystore.type=${keystore}`,
    `ssl.keystore.location=${keystore === 'JKS' ? certs.serverJks : certs.serverP12}`,
    'ssl.keystore.password=password',
    'listener.name.mtls.ssl.keystore.type=PEM',
    `listener.name.mtls.ssl.keystore.location=${certs.serverPem}`,
    'listener.name.mtls.ssl.client.auth=required',
    'listener.name.mtls.ssl.truststore.type=PEM',
    `listener.name.mtls.ssl.truststore.location=${certs.caPem}`,
    'listener.name.mtls.ssl.principal.mapping.rules=RULE:^CN=([a-z]+),OU=clients.*$/$1/U,DEFAULT',
    'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=${jaas}`,
    `listener.name.sasl_ssl.plain.sasl.jaas.config=${jaas}`,
    'connection.failed.authentication.delay.ms=50',
    'sasl.server.max.receive.size=4096',
  ];
}

/** Every listener's bound port, from the 'kafkite started' line. */
export function listenerPorts(broker: BrokerProcess): Record<ListenerName, number> {
  const started = broker.logs.find((l) => l.msg === 'kafkite started')!;
  const ports: Record<string, number> = {};
  for (const l of started.listeners as string[]) ports[l.slice(0, l.indexOf(':'))] = Number(l.slice(l.lastIndexOf(':') + 1));
  return ports as Record<ListenerName, number>;
}

export async function startSecureBroker(certs: TestCertificates, extra: string[] = [], dataDir?: string): Promise<SecureBroker> {
  const broker = await startBroker({ overrides: [...secureBrokerOverrides(certs), ...extra], ...(dataDir ? { dataDir } : {}) });
  return { broker, ports: listenerPorts(broker) };
}

/** A wire client over TLS, trusting the test CA; with a client certificate when given. */
export function tlsWireClient(port: number, certs: TestCertificates, client?: { cert: string; key: string }): Promise<WireClient> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      {
        port,
        host: '127.0.0.1',
        ca: readFileSync(certs.caPem),
        servername: 'localhost',
        ...(client ? { cert: readFileSync(client.cert), key: readFileSync(client.key) } : {}),
      },
      () => resolve(WireClient.over(socket)),
    );
    socket.once('error', reject);
  });
}

/** Resolves when the peer closes the socket (or after `ms`, with false). */
export function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** A raw TCP socket for hand-made bytes. */
export function rawSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.once('error', reject);
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
  });
}

/** Size-prefixed frames off a raw socket, whatever they hold (raw SASL tokens included). */
export class FrameReader {
  private buffered = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        this.frames.push(this.buffered.subarray(4, 4 + size));
        this.buffered = this.buffered.subarray(4 + size);
      }
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  /** The next frame; null once the peer closed (or after `ms` without one). */
  async next(ms = 10_000): Promise<Buffer | null> {
    const deadline = Date.now() + ms;
    while (this.frames.length === 0 && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      this.wake = null;
    }
    return this.frames.shift() ?? null;
  }
}
