// The console end to end in Debian's chromium: pages against a real broker fed by kcat, writes checked with
// a second client (kafkajs), the lookup trace against `kafkite dump-log`, read-only mode, keyboard and labels.
// Screenshots go to test-results/console/ (artifacts); the README's four go to docs/ only with
// KAFKITE_UPDATE_DOCS=1, so that a test run leaves the checkout as it was.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Browser } from '../../bench/lib/browser.js';
import { adminAddress, REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { consoleForBlock } from '../helpers/console-browser.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ApiKey } from '../../protocol/generated/index.js';
import { kcat } from '../helpers/kcat.js';

const ARTIFACTS = join(REPO_ROOT, 'test-results', 'console');
const DOCS = join(REPO_ROOT, 'docs');

async function shot(page: Page, name: string, readme = false): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  if (readme && process.env.KAFKITE_UPDATE_DOCS === '1') {
    mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: join(DOCS, `console-${name}.png`) });
  }
}

function dumpLog(files: string[]): string {
  const res = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/kafkite.js'), 'dump-log', '--files', files.join(',')], { encoding: 'utf8', timeout: 30_000 });
  expect(res.status).toBe(0);
  return res.stdout;
}

describe('console', () => {
  let broker: BrokerProcess;
  let browser: Browser;
  let page: Page;
  let base: string;
  const kafka = () => new Kafka({ brokers: [broker.bootstrap], clientId: 'console-test', logLevel: logLevel.NOTHING });

  beforeAll(async () => {
    // Each share group's second member is assigned at its join (no KIP-1263 assignment interval): the share group
    // pages are checked after one heartbeat per member.
    broker = await startBroker({ overrides: ['num.partitions=1', 'group.initial.rebalance.delay.ms=0', 'group.share.assignment.interval.ms=0'] });
    base = adminAddress(broker);
    browser = await launchBrowser();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await broker?.stop();
    broker?.cleanup();
  });

  it('loads the overview with cluster facts and traffic charts', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('Cluster id').waitFor();
    await page.locator('.chart[data-ready="true"] canvas').first().waitFor();
    expect(await page.locator('.chart canvas').count()).toBe(2);
    await expect.poll(() => page.locator('dd').first().textContent()).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('lists a topic made with kcat and browses its records with keys, values and headers', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `k${i}:{"n":${i},"word":"value-${i}"}`).join('\n');
    const produced = await kcat(['-b', broker.bootstrap, '-P', '-t', 'kc-topic', '-K:', '-H', 'trace=yes'], `${lines}\n`);
    expect(produced.code, produced.stderr).toBe(0);

    await page.goto(`${base}/#/topics`);
    await page.getByRole('link', { name: 'kc-topic' }).waitFor();
    await page.getByLabel('Search topics').fill('kc-');
    await expect.poll(() => page.getByRole('link', { name: 'kc-topic' }).count()).toBe(1);

    await page.goto(`${base}/#/topics/kc-topic/0/messages`);
    await page.getByRole('cell', { name: 'k7', exact: true }).waitFor();
    const rows = page.locator('table.records tbody tr');
    expect(await rows.count()).toBe(10);
    const row = rows.nth(3);
    await expect.poll(() => row.innerText()).toContain('value-3');
    expect(await row.innerText()).toContain('trace: yes');
    expect(await row.locator('td').first().innerText()).toBe('3');
    await page.getByLabel('Show as').selectOption('json');
    await expect.poll(() => rows.nth(3).locator('pre').nth(1).innerText()).toBe('{\n  "n": 3,\n  "word": "value-3"\n}');
    await page.getByLabel('Show as').selectOption('hex');
    expect(await rows.nth(0).locator('pre').first().innerText()).toBe('6b 30');
    await page.getByLabel('Show as').selectOption('text');
    await page.getByLabel('Key contains').fill('k5');
    await page.getByRole('button', { name: 'Show messages' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByLabel('Key contains').fill('');
    await page.getByRole('button', { name: 'Show messages' }).click();
    await expect.poll(() => rows.count()).toBe(10);
    await shot(page, 'messages', true);
  });

  it('shows the lag of a kcat -G group', async () => {
    const consumed = await kcat(['-b', broker.bootstrap, '-G', 'kc-group', '-X', 'auto.offset.reset=earliest', '-c', '4', '-q', 'kc-topic']);
    expect(consumed.code, consumed.stderr).toBe(0);
    const admin = kafka().admin();
    await admin.connect();
    let committed = -1;
    try {
      const [topic] = await admin.fetchOffsets({ groupId: 'kc-group', topics: ['kc-topic'] });
      committed = Number(topic.partitions[0].offset);
    } finally {
      await admin.disconnect();
    }
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(10);
    await page.goto(`${base}/#/groups`);
    await page.getByRole('link', { name: 'kc-group' }).click();
    await expect.poll(() => page.getByTestId('total-lag').textContent(), { timeout: 20_000 }).toBe(String(10 - committed));
    expect(await page.getByTestId('group-state').textContent()).toBe('Empty');
    await page.locator('.chart[data-ready="true"]').waitFor();
  });

  it('shows a streams group (KIP-1071) with its members\' processes and tasks', async () => {
    const wire = await WireClient.connect(broker.port);
    try {
      await wire.send(ApiKey.CreateTopics, 7, { topics: [{ name: 'st-in', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
      const topology = { epoch: 0, subtopologies: [{ subtopologyId: '0', sourceTopics: ['st-in'], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [] }] };
      const heartbeat = (memberEpoch: number) => wire.send(ApiKey.StreamsGroupHeartbeat, 1, {
        groupId: 'st-app', memberId: 'st-member', memberEpoch, endpointInformationEpoch: 0, instanceId: null, rackId: null,
        rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1, topology: memberEpoch === 0 ? topology : null, activeTasks: memberEpoch === 0 ? [] : null,
        standbyTasks: memberEpoch === 0 ? [] : null, warmupTasks: memberEpoch === 0 ? [] : null, processId: memberEpoch === 0 ? 'st-process' : null,
        userEndpoint: null, clientTags: memberEpoch === 0 ? [] : null, taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
      });
      let res = await heartbeat(0);
      // The group's initial delay (3 s by default) holds its first tasks back.
      await expect.poll(async () => (res = await heartbeat(res.memberEpoch)).activeTasks?.length ?? -1, { timeout: 10_000, interval: 500 }).toBe(1);
    } finally {
      wire.close();
    }
    await page.goto(`${base}/#/groups`);
    await page.getByRole('link', { name: 'st-app' }).click();
    await expect.poll(() => page.getByTestId('member-tasks').textContent(), { timeout: 20_000 }).toBe('ACTIVE: 0:[0,1]');
    expect(await page.getByTestId('group-state').textContent()).toBe('Stable');
    await page.getByText('streams (KIP-1071) streams sticky').waitFor();
    await page.getByRole('cell', { name: 'st-process' }).waitFor();
    await shot(page, 'streams-group');
  });

  /** The cells of a share partition's row on a share group's page, by their test ids. */
  async function sharePartitionRow(partition: string): Promise<Record<string, string | null>> {
    const row = page.getByTestId(`share-partition-${partition}`);
    const cells = ['source', 'start', 'end', 'available', 'acquired', 'acknowledged', 'archived', 'deliveries'];
    return Object.fromEntries(await Promise.all(cells.map(async (c) => [c, await row.getByTestId(`share-${c}`).textContent()])));
  }

  it('shows a share group (KIP-932): its members sharing a partition and the share partitions\' in-flight records', async () => {
    const wire = await WireClient.connect(broker.port);
    try {
      const created = await wire.send(ApiKey.CreateTopics, 7, { topics: [{ name: 'sh-in', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
      const topicId: string = created.topics[0].topicId;
      const heartbeat = (memberId: string) => wire.send(ApiKey.ShareGroupHeartbeat, 1, { groupId: 'sh-app', memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['sh-in'] });
      expect((await heartbeat('sh-member-a')).errorCode).toBe(0);
      expect((await heartbeat('sh-member-b')).errorCode).toBe(0);
      // The share coordinator's state (as a broker's share partition writes it): 10-14 acknowledged, 15-16
      // archived after 5 deliveries, 17-19 available again after 2.
      const [summary] = (await wire.send(ApiKey.ReadShareGroupStateSummary, 1, { groupId: 'sh-app', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] })).results[0].partitions;
      const written = await wire.send(ApiKey.WriteShareGroupState, 1, {
        groupId: 'sh-app',
        topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: summary.stateEpoch, leaderEpoch: 0, startOffset: 10, deliveryCompleteCount: 7, stateBatches: [
          { firstOffset: 10, lastOffset: 14, deliveryState: 2, deliveryCount: 1 },
          { firstOffset: 15, lastOffset: 16, deliveryState: 4, deliveryCount: 5 },
          { firstOffset: 17, lastOffset: 19, deliveryState: 0, deliveryCount: 2 },
        ] }] }],
      });
      expect(written.results[0].partitions[0].errorCode).toBe(0);
    } finally {
      wire.close();
    }
    await page.goto(`${base}/#/groups`);
    const listed = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'sh-app' }) });
    await expect.poll(() => listed.getByTestId('group-type').textContent()).toBe('share');
    expect(await listed.innerText()).toContain('Stable');
    await page.getByRole('link', { name: 'sh-app' }).click();
    await expect.poll(() => page.getByTestId('group-state').textContent(), { timeout: 20_000 }).toBe('Stable');
    await page.getByText('share (KIP-932) share simple').waitFor();
    expect(Number(await page.getByTestId('group-epoch').textContent())).toBeGreaterThanOrEqual(4);
    // Both members hold the topic's one partition.
    for (const member of ['sh-member-a', 'sh-member-b']) {
      const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: member, exact: true }) });
      expect(await row.getByTestId('member-assignment').textContent()).toBe('sh-in: 0');
    }
    expect(await sharePartitionRow('sh-in-0')).toEqual({
      source: 'persisted', start: '10', end: '19', available: '3', acquired: '0', acknowledged: '5', archived: '2', deliveries: '1×: 5, 2×: 3, 5×: 2',
    });
    await shot(page, 'share-group');
  });

  it('shows a share group\'s live share partition: records acquired by two members, accepted and rejected', async () => {
    const members = await Promise.all(['lv-a', 'lv-b'].map(() => WireClient.connect(broker.port)));
    try {
      const [a, b] = members as [WireClient, WireClient];
      const created = await a.send(ApiKey.CreateTopics, 7, { topics: [{ name: 'lv-in', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
      const topicId: string = created.topics[0].topicId;
      const epochs = new Map<WireClient, number>();
      const fetch = async (c: WireClient, memberId: string, maxRecords: number) => {
        const epoch = epochs.get(c) ?? 0;
        const res = await c.send(ApiKey.ShareFetch, 2, {
          groupId: 'lv-app', memberId, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords, batchSize: maxRecords, shareAcquireMode: 0, isRenewAck: false,
          topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [],
        });
        expect(res.errorCode).toBe(0);
        epochs.set(c, epoch + 1);
        return res.responses[0]?.partitions[0]?.acquiredRecords ?? [];
      };
      for (const [c, memberId] of [[a, 'lv-a'], [b, 'lv-b']] as const) {
        expect((await c.send(ApiKey.ShareGroupHeartbeat, 1, { groupId: 'lv-app', memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['lv-in'] })).errorCode).toBe(0);
        // Opening the session initializes the share partition at the end of the empty log.
        expect(await fetch(c, memberId, 10)).toEqual([]);
      }
      const producer = kafka().producer();
      await producer.connect();
      // One batch per record: a share fetch acquires whole batches, as Kafka's does.
      for (let i = 0; i < 10; i++) await producer.send({ topic: 'lv-in', messages: [{ value: `v${i}` }] });
      await producer.disconnect();
      expect(await fetch(a, 'lv-a', 4)).toEqual([{ firstOffset: 0, lastOffset: 3, deliveryCount: 1 }]);
      expect(await fetch(b, 'lv-b', 3)).toEqual([{ firstOffset: 4, lastOffset: 6, deliveryCount: 1 }]);
      const acked = await b.send(ApiKey.ShareAcknowledge, 2, {
        groupId: 'lv-app', memberId: 'lv-b', shareSessionEpoch: epochs.get(b), isRenewAck: false,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [
          { firstOffset: 4, lastOffset: 5, acknowledgeTypes: [1] }, { firstOffset: 6, lastOffset: 6, acknowledgeTypes: [3] },
        ] }] }],
      });
      expect(acked.responses[0].partitions[0].errorCode).toBe(0);
      // a's records stay acquired while its connection (and so its share session) is open.
      await page.goto(`${base}/#/groups/lv-app`);
      await expect.poll(() => sharePartitionRow('lv-in-0'), { timeout: 20_000 }).toEqual({
        source: 'live', start: '0', end: '6', available: '0', acquired: '4', acknowledged: '2', archived: '1', deliveries: '1×: 7',
      });
      expect(await page.getByTestId('member-assignment').allTextContents()).toEqual(['lv-in: 0', 'lv-in: 0']);
      await shot(page, 'share-group-live');
    } finally {
      for (const c of members) c.close();
    }
  });

  it('edits a topic config, seen by DescribeConfigs', async () => {
    await page.goto(`${base}/#/topics/kc-topic`);
    await page.getByRole('cell', { name: 'retention.ms', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Config to change' }).selectOption('retention.ms');
    await page.getByLabel('New value (empty resets to default)').fill('123456789');
    await page.getByRole('button', { name: 'Save config' }).click();
    await page.getByRole('status').filter({ hasText: 'Set retention.ms' }).waitFor();
    const admin = kafka().admin();
    await admin.connect();
    try {
      const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: 'kc-topic', configNames: ['retention.ms'] }] });
      expect(described.resources[0].configEntries[0]).toMatchObject({ configName: 'retention.ms', configValue: '123456789', configSource: 1 });
    } finally {
      await admin.disconnect();
    }
  });

  it("draws the lookup trace with dump-log's segment, index entry, position and byte range", async () => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      await admin.createTopics({
        topics: [{ topic: 'traced', numPartitions: 1, configEntries: [{ name: 'segment.bytes', value: '1048576' }, { name: 'index.interval.bytes', value: '4096' }] }],
      });
    } finally {
      await admin.disconnect();
    }
    const value = 'x'.repeat(900);
    const lines = Array.from({ length: 3000 }, (_, i) => `${i}:${value}`).join('\n');
    const produced = await kcat(['-b', broker.bootstrap, '-P', '-t', 'traced', '-K:', '-X', 'linger.ms=5', '-X', 'batch.size=20000'], `${lines}\n`, 60_000);
    expect(produced.code, produced.stderr).toBe(0);

    const dir = join(broker.dataDir, 'traced-0');
    const bases = readdirSync(dir).filter((f) => f.endsWith('.log')).map((f) => f.slice(0, 20)).sort();
    expect(bases.length).toBeGreaterThanOrEqual(2);
    const dumped = dumpLog(bases.flatMap((b) => [join(dir, `${b}.log`), join(dir, `${b}.index`)]));
    const segments = new Map<number, { batches: Array<{ base: number; last: number; position: number; size: number }>; entries: Array<{ offset: number; position: number }> }>();
    let current = segments;
    let seg: { batches: Array<{ base: number; last: number; position: number; size: number }>; entries: Array<{ offset: number; position: number }> } | undefined;
    for (const line of dumped.split('\n')) {
      const file = /^Dumping .*\/(\d{20})\.(log|index)$/.exec(line);
      if (file) {
        const b = Number(file[1]);
        if (!current.has(b)) current.set(b, { batches: [], entries: [] });
        seg = current.get(b);
      }
      const batch = /^baseOffset: (\d+) lastOffset: (\d+) .* position: (\d+) CreateTime: \d+ size: (\d+)/.exec(line);
      if (batch) seg!.batches.push({ base: +batch[1], last: +batch[2], position: +batch[3], size: +batch[4] });
      const entry = /^offset: (\d+) position: (\d+)$/.exec(line);
      if (entry) seg!.entries.push({ offset: +entry[1], position: +entry[2] });
    }
    current = segments;

    await page.goto(`${base}/#/topics/traced/0`);
    await page.getByRole('heading', { name: 'Segments' }).waitFor();
    await page.locator('table tbody tr').nth(bases.length - 1).waitFor();
    await shot(page, 'segments', true);

    const baseOffsets = bases.map(Number);
    const last = segments.get(baseOffsets[baseOffsets.length - 1])!.batches.at(-1)!.last;
    for (const offset of [0, 1234, baseOffsets[1], baseOffsets[1] + 77, last]) {
      await page.getByLabel('Look up by').selectOption('offset');
      await page.getByLabel('Value', { exact: true }).fill(String(offset));
      await page.getByRole('button', { name: 'Trace lookup' }).click();
      const segmentBase = baseOffsets.filter((b) => b <= offset).at(-1)!;
      const { batches, entries } = segments.get(segmentBase)!;
      const entry = entries.filter((e) => e.offset <= offset).at(-1) ?? { offset: segmentBase, position: 0 };
      const target = batches.find((b) => b.last >= offset)!;
      const limit = target.position + Math.max(1048576, target.size);
      const end = Math.max(...batches.map((b) => b.position + b.size).filter((e) => e <= limit));
      const file = `${String(segmentBase).padStart(20, '0')}.log`;
      await expect.poll(() => page.getByTestId('range').textContent()).toBe(`${file} position ${target.position} length ${end - target.position}`);
      expect(await page.getByTestId('index-entry').textContent()).toMatch(new RegExp(`offset ${entry.offset} position ${entry.position}$`));
      expect(await page.getByTestId('target-batch').textContent()).toContain(`batch ${target.base}–${target.last} at position ${target.position}, ${target.size} bytes`);
      expect(await page.locator('.trace').innerText()).toContain(`segment ${segmentBase}`);
    }
    await page.getByLabel('Value', { exact: true }).fill(String(baseOffsets[1] + 77));
    await page.getByRole('button', { name: 'Trace lookup' }).click();
    await page.getByTestId('range').waitFor();
    await page.getByRole('heading', { name: 'Lookup trace' }).scrollIntoViewIfNeeded();
    await shot(page, 'lookup', true);
  });

  it('is usable by keyboard, labels every control, and fits 390 px', async () => {
    await page.goto(`${base}/#/topics`);
    await page.getByRole('link', { name: 'kc-topic' }).waitFor();
    // Every form control has an accessible name.
    const snapshot = await page.locator('body').ariaSnapshot();
    const controls = snapshot.split('\n').filter((l) => /- (textbox|combobox|spinbutton|searchbox|button)\b/.test(l));
    expect(controls.length).toBeGreaterThan(3);
    for (const c of controls) expect(c, c).toMatch(/- (textbox|combobox|spinbutton|searchbox|button) "[^"]+"/);
    expect(snapshot).toMatch(/navigation "Main"/);
    // Tab reaches the skip link, then the navigation; Enter follows a link.
    await page.reload();
    await page.getByRole('link', { name: 'kc-topic' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Groups');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Groups', exact: true }).waitFor();
    expect(await page.evaluate(() => location.hash)).toBe('#/groups');

    await page.setViewportSize({ width: 390, height: 800 });
    for (const hash of ['#/', '#/topics', '#/topics/kc-topic/0/messages', '#/topics/traced/0']) {
      await page.goto(`${base}/${hash}`);
      await page.locator('main h1').waitFor();
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), hash).toBeLessThanOrEqual(390);
      await shot(page, `narrow-${hash.replace(/[#/]/g, '') || 'overview'}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${base}/`);
    await page.locator('.chart[data-ready="true"]').first().waitFor();
    await shot(page, 'overview', true);
  });
});

describe('console in read-only mode', () => {
  const setup = consoleForBlock({ overrides: ['kafkite.console.read.only=true'] });

  it('hides writing actions and refuses them', async () => {
    const { broker, browser, base } = setup();
    const produced = await kcat(['-b', broker.bootstrap, '-P', '-t', 'ro-topic', '-K:'], 'a:1\n');
    expect(produced.code, produced.stderr).toBe(0);
    const page = await browser.context.newPage();
    await page.goto(`${base}/#/topics`);
    await page.getByRole('link', { name: 'ro-topic' }).waitFor();
    await page.getByText('read-only').first().waitFor();
    expect(await page.getByRole('button', { name: /Create topic|Delete/ }).count()).toBe(0);
    await page.goto(`${base}/#/topics/ro-topic`);
    await page.getByRole('heading', { name: 'Configs' }).waitFor();
    expect(await page.getByRole('button', { name: /Save config|Add partitions|Delete records/ }).count()).toBe(0);
    await page.goto(`${base}/#/topics/ro-topic/0/messages`);
    await page.getByRole('cell', { name: 'a', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Produce' }).count()).toBe(0);

    const post = (path: string, body: unknown, method = 'POST') =>
      fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/v1/topics', { name: 'not-made', partitions: 1 })).status).toBe(403);
    expect((await post('/v1/topics/ro-topic/partitions/0/records', { value: 'x' })).status).toBe(403);
    expect((await post('/v1/topics/ro-topic/configs', { set: { 'retention.ms': '1' } }, 'PATCH')).status).toBe(403);
    expect((await fetch(`${base}/v1/topics/ro-topic`, { method: 'DELETE' })).status).toBe(403);
    const topics = (await (await fetch(`${base}/v1/topics`)).json()) as { topics: Array<{ name: string; configs: Record<string, string> }> };
    expect(topics.topics.map((t) => t.name)).toContain('ro-topic');
    expect(topics.topics.map((t) => t.name)).not.toContain('not-made');
    expect(topics.topics.find((t) => t.name === 'ro-topic')!.configs).toEqual({});
    const records = (await (await fetch(`${base}/v1/topics/ro-topic/partitions/0/records?offset=0`)).json()) as { records: unknown[] };
    expect(records.records).toHaveLength(1);
  });
});

describe('console on a non-loopback admin listener', () => {
  const setup = consoleForBlock({ overrides: ['admin.listener=http://0.0.0.0:0', 'kafkite.admin.token=console-s3cret'] });

  it('requires the bearer token for its data and asks for it', async () => {
    const { browser, base } = setup();
    expect((await fetch(`${base}/v1/overview`)).status).toBe(401);
    expect((await fetch(`${base}/v1/topics/x/partitions/0/lookup?offset=0`)).status).toBe(401);
    expect((await fetch(`${base}/v1/topics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"sneaky"}' })).status).toBe(401);
    expect((await fetch(`${base}/v1/overview`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${base}/v1/overview`, { headers: { authorization: 'Bearer console-s3cret' } })).status).toBe(200);

    const page = await browser.context.newPage();
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Admin token required' }).waitFor();
    expect(await page.getByText('Cluster id').count()).toBe(0);
    await page.getByLabel('Token').fill('console-s3cret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Cluster id').waitFor();
    await page.locator('.chart[data-ready="true"]').first().waitFor();
  });
});
