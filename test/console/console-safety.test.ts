// The console in Debian's chromium against pages that should not be able to use it (issue 34): a page from
// another local origin tries fetch() writes, a form post and framing; a made-up name resolved to loopback stands
// for DNS rebinding. Nothing changes on the broker (checked with kafkajs), while the console itself, writes
// included, still works at 127.0.0.1 and at localhost under its Content-Security-Policy. With an authorizer, a
// console write is checked as kafkite.admin.principal: denied without the ACL, shown, and done once it is created.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } from 'kafkajs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerProcess } from '../helpers/broker-process.js';
import { consoleForBlock, type ConsoleSetup } from '../helpers/console-browser.js';

const kafkaOf = (broker: BrokerProcess) => new Kafka({ brokers: [broker.bootstrap], clientId: 'console-safety', logLevel: logLevel.NOTHING });

/** Topic names and partition 0's high watermark of each, as a Kafka client sees them. */
async function brokerState(broker: BrokerProcess): Promise<Record<string, string>> {
  const admin = kafkaOf(broker).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => !t.startsWith('__')).sort();
    const state: Record<string, string> = {};
    for (const topic of topics) {
      const offsets = await admin.fetchTopicOffsets(topic);
      const configs = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: topic, configNames: ['retention.ms'] }] });
      state[topic] = `${offsets.map((o) => `${o.partition}:${o.low}-${o.high}`).join(',')} retention.ms=${configs.resources[0]!.configEntries[0]!.configValue}`;
    }
    return state;
  } finally {
    await admin.disconnect();
  }
}

/** The other origin's page: fetch() writes of every kind a page may send, a text/plain form post, a frame. */
function attackerPage(target: string): string {
  const form = (id: string, action: string, enctype: string, name: string, value: string) =>
    `<form id="${id}" method="POST" action="${action}" enctype="${enctype}" target="sink-${id}"><input name='${name}' value='${value}'></form><iframe name="sink-${id}"></iframe>`;
  return `<!doctype html><html><body>
${form('json-form', `${target}/v1/topics`, 'text/plain', '{"name":"csrf-form","partitions":1,"x":"', '"}')}
${form('url-form', `${target}/v1/topics/kept/partitions/0/records`, 'application/x-www-form-urlencoded', 'value', 'csrf')}
<iframe id="framed" name="framed" src="${target}/"></iframe>
<script>
const target = ${JSON.stringify(target)};
const json = { 'content-type': 'application/json' };
const attempts = [
  ['POST', '/v1/topics', { name: 'csrf-cors', partitions: 1 }, 'cors', json],
  ['POST', '/v1/topics', { name: 'csrf-nocors', partitions: 1 }, 'no-cors', { 'content-type': 'text/plain' }],
  ['POST', '/v1/topics/kept/partitions/0/records', { value: 'csrf' }, 'no-cors', json],
  ['POST', '/v1/topics/kept/partitions/0/delete-records', { offset: 2 }, 'no-cors', { 'content-type': 'text/plain' }],
  ['PATCH', '/v1/topics/kept/configs', { set: { 'retention.ms': '1' } }, 'cors', json],
  ['POST', '/v1/topics/kept/partitions', { count: 4 }, 'cors', json],
  ['DELETE', '/v1/topics/kept', undefined, 'cors', {}],
];
window.results = [];
Promise.allSettled(attempts.map(([method, path, body, mode, headers]) =>
  fetch(target + path, { method, mode, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    .then((r) => window.results.push(method + ' ' + path + ' ' + mode + ' ' + r.type + ' ' + r.status), (e) => window.results.push(method + ' ' + path + ' ' + mode + ' ' + e.message))))
  .then(() => Promise.all(['json-form', 'url-form'].map((id) => new Promise((resolve) => {
    // The sink frame loads once the listener has answered the post.
    document.querySelector('iframe[name="sink-' + id + '"]').addEventListener('load', resolve, { once: true });
    document.getElementById(id).submit();
  }))))
  .then(() => { document.title = 'done'; });
</script></body></html>`;
}

describe('console against other origins', () => {
  // rebind.test resolves to loopback, as a DNS rebinding attacker's name does once rebound.
  const setup = consoleForBlock({ overrides: ['num.partitions=1'] }, ['--host-resolver-rules=MAP rebind.test 127.0.0.1']);
  let broker: BrokerProcess;
  let browser: ConsoleSetup['browser'];
  let base: string;
  let port: number;
  let attacker: Server;

  beforeAll(async () => {
    ({ broker, browser, base } = setup());
    port = Number(new URL(base).port);
    const kafka = kafkaOf(broker);
    const admin = kafka.admin();
    const producer = kafka.producer();
    await Promise.all([admin.connect(), producer.connect()]);
    try {
      await admin.createTopics({ topics: [{ topic: 'kept', numPartitions: 1 }] });
      await producer.send({ topic: 'kept', messages: [{ value: '1' }, { value: '2' }, { value: '3' }] });
    } finally {
      await Promise.all([admin.disconnect(), producer.disconnect()]);
    }
    attacker = createServer((req, res) => {
      const target = req.url === '/localhost' ? `http://localhost:${port}` : base;
      res.writeHead(200, { 'content-type': 'text/html' }).end(attackerPage(target));
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  }, 60_000);

  afterAll(async () => {
    // Runs before the browser closes: its keep-alive connections would hold close() open.
    attacker?.closeAllConnections();
    await new Promise((resolve) => attacker?.close(resolve));
  });

  for (const [name, path] of [
    ['127.0.0.1', '/'],
    ['localhost', '/localhost'],
  ] as const) {
    it(`a page from another local origin cannot write to or frame the console at ${name}`, async () => {
      const before = await brokerState(broker);
      expect(before.kept).toBe('0:0-3 retention.ms=604800000');
      const page = await browser.context.newPage();
      const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}${path}`;
      await page.goto(attackerUrl);
      await page.waitForFunction(() => document.title === 'done', undefined, { timeout: 30_000 });
      const results = (await page.evaluate(() => (window as unknown as { results: string[] }).results)).sort();
      // The CORS ones fail in the browser (no preflight answer); the no-cors ones reach the listener and get an opaque answer.
      expect(results.filter((r) => / cors /.test(r)).every((r) => r.endsWith('Failed to fetch')), results.join('\n')).toBe(true);
      expect(results.filter((r) => / no-cors /.test(r)).every((r) => r.endsWith('opaque 0')), results.join('\n')).toBe(true);
      const framed = page.frame({ name: 'framed' })!;
      expect(framed.url()).not.toContain(`:${port}`);
      expect(await framed.locator('#app').count()).toBe(0);
      await page.close();
      expect(await brokerState(broker)).toEqual(before);
    });
  }

  it('answers a rebound name with 421, /health aside', async () => {
    const page = await browser.context.newPage();
    for (const path of ['/', '/v1/topics']) {
      const res = await page.goto(`http://rebind.test:${port}${path}`);
      expect(res!.status(), path).toBe(421);
      expect(await res!.json()).toMatchObject({ error: 'HOST_NOT_ALLOWED' });
    }
    expect((await page.goto(`http://rebind.test:${port}/health`))!.status()).toBe(200);
    await page.close();
  });

  for (const host of ['127.0.0.1', 'localhost']) {
    it(`still works at http://${host}:<port>, writes included, without CSP violations`, async () => {
      const page: Page = await browser.context.newPage();
      const violations: string[] = [];
      page.on('console', (msg) => {
        if (/Content Security Policy|Refused to/.test(msg.text())) violations.push(msg.text());
      });
      const origin = `http://${host}:${port}`;
      await page.goto(`${origin}/`);
      await page.getByText('Cluster id').waitFor();
      await page.locator('.chart[data-ready="true"] canvas').first().waitFor();
      await page.goto(`${origin}/#/topics`);
      await page.getByLabel('Name').fill(`made-at-${host.replace(/\./g, '-')}`);
      await page.getByRole('button', { name: 'Create topic' }).click();
      await page.getByRole('status').filter({ hasText: `Created made-at-${host.replace(/\./g, '-')}` }).waitFor();
      await page.goto(`${origin}/#/topics/kept/0/messages`);
      await page.getByRole('cell', { name: '3', exact: true }).waitFor();
      await page.close();
      const state = await brokerState(broker);
      expect(Object.keys(state)).toContain(`made-at-${host.replace(/\./g, '-')}`);
      expect(violations).toEqual([]);
    });
  }
});

describe('console writes under an authorizer', () => {
  // The Kafka clients here are ANONYMOUS and super users; the console acts as User:console.
  const setup = consoleForBlock({
    overrides: [
      'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users=User:ANONYMOUS',
      'kafkite.admin.principal=User:console',
      'num.partitions=1',
    ],
  });
  let broker: BrokerProcess;
  let browser: ConsoleSetup['browser'];
  let base: string;

  beforeAll(async () => {
    ({ broker, browser, base } = setup());
    const admin = kafkaOf(broker).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'guarded', numPartitions: 1 }] });
    await admin.disconnect();
  });

  async function allow(resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes): Promise<void> {
    const admin = kafkaOf(broker).admin();
    await admin.connect();
    try {
      await admin.createAcls({
        acl: [{ resourceType, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:console', host: '*', operation, permissionType: AclPermissionTypes.ALLOW }],
      });
    } finally {
      await admin.disconnect();
    }
  }

  it('denies a topic creation without the ACL, shows why, and creates it once the ACL is there', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${base}/#/topics`);
    await page.getByRole('link', { name: 'guarded' }).waitFor();
    await page.getByLabel('Name').fill('by-console');
    await page.getByRole('button', { name: 'Create topic' }).click();
    await page.getByRole('alert').filter({ hasText: 'TOPIC_AUTHORIZATION_FAILED: User:console is not authorized to create topic by-console' }).waitFor();
    expect(Object.keys(await brokerState(broker))).not.toContain('by-console');

    await allow(AclResourceTypes.TOPIC, 'by-console', AclOperationTypes.CREATE);
    await page.getByRole('button', { name: 'Create topic' }).click();
    await page.getByRole('status').filter({ hasText: 'Created by-console' }).waitFor();
    expect(Object.keys(await brokerState(broker))).toContain('by-console');
    await page.close();
  });

  it('checks a produced test message, config edits and group deletion as Kafka does (WRITE, ALTER_CONFIGS, group DELETE)', async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(base + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { error?: string } };
    };
    const admin = kafkaOf(broker).admin();
    await admin.connect();
    await admin.setOffsets({ groupId: 'guarded-group', topic: 'guarded', partitions: [{ partition: 0, offset: '0' }] });
    await admin.disconnect();

    expect(await call('POST', '/v1/topics/guarded/partitions/0/records', { value: 'x' })).toMatchObject({ status: 403, body: { error: 'TOPIC_AUTHORIZATION_FAILED' } });
    expect(await call('PATCH', '/v1/topics/guarded/configs', { set: { 'retention.ms': '1000' } })).toMatchObject({ status: 403, body: { error: 'TOPIC_AUTHORIZATION_FAILED' } });
    expect(await call('DELETE', '/v1/groups/guarded-group')).toMatchObject({ status: 403, body: { error: 'GROUP_AUTHORIZATION_FAILED' } });
    expect(await call('GET', '/v1/topics/guarded/partitions/0/records?offset=0')).toMatchObject({ status: 403, body: { error: 'TOPIC_AUTHORIZATION_FAILED' } });
    expect((await brokerState(broker)).guarded).toBe('0:0-0 retention.ms=604800000');

    await allow(AclResourceTypes.TOPIC, 'guarded', AclOperationTypes.WRITE);
    await allow(AclResourceTypes.TOPIC, 'guarded', AclOperationTypes.ALTER_CONFIGS);
    await allow(AclResourceTypes.GROUP, 'guarded-group', AclOperationTypes.DELETE);
    expect((await call('POST', '/v1/topics/guarded/partitions/0/records', { value: 'x' })).status).toBe(201);
    expect((await call('PATCH', '/v1/topics/guarded/configs', { set: { 'retention.ms': '1000' } })).status).toBe(200);
    expect((await call('DELETE', '/v1/groups/guarded-group')).status).toBe(200);
    expect((await brokerState(broker)).guarded).toBe('0:0-1 retention.ms=1000');
    const check = kafkaOf(broker).admin();
    await check.connect();
    expect((await check.listGroups()).groups.map((g) => g.groupId)).not.toContain('guarded-group');
    await check.disconnect();
  });
});
