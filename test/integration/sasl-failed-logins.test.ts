// Failed SASL logins do not fill the log: a client guessing passwords gets its first failure per user and host
// logged, the rest counted on one line per interval, while kafkite_authentications_total counts every one.
import { expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { SaslFailure, saslAuthenticate } from '../../bench/lib/scram-client.js';
import { brokerForFile, adminAddress } from '../helpers/broker-process.js';
import { listenerPorts } from '../helpers/secure-broker.js';

const broker = brokerForFile({
  overrides: [
    'listeners=SASL_PLAINTEXT://127.0.0.1:0',
    'listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT',
    'sasl.enabled.mechanisms=PLAIN',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";',
    'connection.failed.authentication.delay.ms=0',
    'kafkite.failed.authentication.log.interval.ms=2000',
    'admin.listener=http://127.0.0.1:0',
  ],
});

async function failLogin(port: number, user: string, attempt: number): Promise<void> {
  const client = await WireClient.connect(port);
  try {
    await expect(saslAuthenticate(client, 'PLAIN', user, `guess-${attempt}`)).rejects.toBeInstanceOf(SaslFailure);
  } finally {
    client.close();
  }
}

it('logs 200 failed logins in a handful of lines that count them all', async () => {
  const port = listenerPorts(broker()).SASL_PLAINTEXT;
  for (let batch = 0; batch < 10; batch++) {
    await Promise.all(Array.from({ length: 20 }, (_, i) => failLogin(port, i % 4 === 0 ? 'mallory' : 'alice', batch * 20 + i)));
  }
  const lines = () => broker().logs.filter((l) => l.msg === 'failed authentication' || l.msg === 'failed authentications not logged one by one');
  // Every failure is either logged or counted once its interval has ended.
  const counted = () => lines().reduce((n, l) => n + (l.msg === 'failed authentication' ? 1 : (l.suppressed as number)), 0);
  const deadline = Date.now() + 15_000;
  while (counted() < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(counted()).toBe(200);
  const detailed = lines().filter((l) => l.msg === 'failed authentication');
  const summaries = lines().filter((l) => l.msg !== 'failed authentication');
  // The first of each user and host per 2 s interval; 200 logins take a few intervals at most.
  expect(detailed.length).toBeLessThanOrEqual(6);
  expect(summaries.length).toBeLessThanOrEqual(3);
  expect(new Set(detailed.map((l) => l.user))).toEqual(new Set(['alice', 'mallory']));
  expect(detailed[0]).toMatchObject({ level: 30, listener: 'SASL_PLAINTEXT', mechanism: 'PLAIN' });
  const byUser = new Map<string, number>();
  for (const s of summaries) for (const f of s.failures as Array<{ user: string; host: string; count: number }>) {
    expect(f.host).toBe('127.0.0.1');
    byUser.set(f.user, (byUser.get(f.user) ?? 0) + f.count);
  }
  expect((byUser.get('alice') ?? 0) + detailed.filter((l) => l.user === 'alice').length).toBe(150);
  expect((byUser.get('mallory') ?? 0) + detailed.filter((l) => l.user === 'mallory').length).toBe(50);

  const address = adminAddress(broker());
  const metrics = await (await fetch(`${address}/metrics`)).text();
  expect(metrics).toContain('kafkite_authentications_total{listener="SASL_PLAINTEXT",mechanism="PLAIN",result="failure"} 200');
});
