// The admin HTTP of the real broker process: probes, Prometheus metrics matching what kcat produced and
// consumed, and the JSON views of topics and groups.
import { statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { kcat } from '../helpers/kcat.js';
import { WireClient } from '../../bench/lib/wire-client.js';

const TOPIC = 'admin-metrics';
const RECORDS = 250;

let broker: BrokerProcess;
let admin: string;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['admin.listener=http://127.0.0.1:0', 'num.partitions=1'] });
  const started = broker.logs.find((entry) => entry.msg === 'admin http started');
  expect(started, 'an "admin http started" log line').toBeDefined();
  admin = started!.address as string;
});

afterAll(async () => {
  expect(await broker.stop()).toBe(0);
  expect(broker.logs.some((entry) => entry.msg === 'admin http stopped')).toBe(true);
  broker.cleanup();
});

async function getJson(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(admin + path);
  return { status: res.status, body: await res.json() };
}

/** Prometheus text -> sample value by `name{labels}` exactly as exposed (label order as prom-client writes it). */
async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`${admin}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

const partitionLabels = (topic: string, partition: number) => `{topic="${topic}",partition="${partition}"}`;

function segmentFileSize(topic: string, partition: number): number {
  return statSync(join(broker.dataDir, `${topic}-${partition}`, '00000000000000000000.log')).size;
}

describe('admin http', () => {
  it('answers /health and /ready once the broker is up', async () => {
    expect(await getJson('/health')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await getJson('/ready')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('counts produced records and bytes, and exposes the log gauges', async () => {
    const values = Array.from({ length: RECORDS }, (_, i) => `value-${i}`).join('\n') + '\n';
    const produced = await kcat(['-b', broker.bootstrap, '-P', '-t', TOPIC, '-p', '0'], values);
    expect(produced.code, produced.stderr).toBe(0);

    const onDisk = segmentFileSize(TOPIC, 0);
    const m = await scrape();
    const labels = partitionLabels(TOPIC, 0);
    expect(m.get(`kafkite_topic_records_in_total${labels}`)).toBe(RECORDS);
    // Uncompressed batches are stored as sent: the appended bytes are the segment's bytes.
    expect(m.get(`kafkite_topic_bytes_in_total${labels}`)).toBe(onDisk);
    expect(m.get(`kafkite_log_end_offset${labels}`)).toBe(RECORDS);
    expect(m.get(`kafkite_log_start_offset${labels}`)).toBe(0);
    expect(m.get(`kafkite_log_size_bytes${labels}`)).toBe(onDisk);
    expect(m.get(`kafkite_log_segments${labels}`)).toBe(1);
    expect(m.get(`kafkite_last_stable_offset_lag${labels}`)).toBe(0);

    const produceRequests = m.get('kafkite_requests_total{api="Produce"}')!;
    expect(produceRequests).toBeGreaterThanOrEqual(1);
    expect(m.get('kafkite_request_duration_seconds_count{api="Produce"}')).toBe(produceRequests);
    expect(m.get('kafkite_request_duration_seconds_bucket{le="+Inf",api="Produce"}')).toBe(produceRequests);
    expect(m.get('kafkite_requests_total{api="Metadata"}')).toBeGreaterThanOrEqual(1);
    // kcat produces with acks=all, which kafkite answers after an fdatasync.
    expect(m.get('kafkite_log_flush_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(m.get('kafkite_connections')).toBeGreaterThanOrEqual(0);
    expect(m.get('kafkite_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts fetched bytes and shows consumer group lag', async () => {
    const consumed = await kcat([
      '-b', broker.bootstrap, '-G', 'admin-group', '-X', 'auto.offset.reset=earliest', '-e', '-q', '-f', '%s\\n', TOPIC,
    ]);
    expect(consumed.code, consumed.stderr).toBe(0);
    expect(consumed.stdout.split('\n').filter((l) => l !== '')).toHaveLength(RECORDS);
    const consumedBytes = segmentFileSize(TOPIC, 0);
    const more = await kcat(['-b', broker.bootstrap, '-P', '-t', TOPIC, '-p', '0'], 'late-1\nlate-2\nlate-3\n');
    expect(more.code, more.stderr).toBe(0);

    const m = await scrape();
    const labels = partitionLabels(TOPIC, 0);
    // Everything was fetched at least once (a consumer may refetch a batch after a rebalance).
    expect(m.get(`kafkite_topic_bytes_out_total${labels}`)).toBeGreaterThanOrEqual(consumedBytes);
    expect(m.get(`kafkite_consumer_group_lag{group="admin-group",topic="${TOPIC}",partition="0"}`)).toBe(3);

    const groups = await getJson('/v1/groups');
    expect(groups.status).toBe(200);
    const group = groups.body.groups.find((g: { groupId: string }) => g.groupId === 'admin-group');
    expect(group).toMatchObject({ state: 'Empty', protocolType: 'consumer', members: [] });
    expect(group.offsets).toEqual([
      { topic: TOPIC, partition: 0, committedOffset: RECORDS, logEndOffset: RECORDS + 3, lag: 3 },
    ]);
  });

  it("times fetches as Kafka's RequestMetrics split them: parked (remote), local, response queue, send, total", async () => {
    const phases = ['request_remote_time', 'request_local_time', 'response_queue_time', 'response_send_time', 'request_total_time'];
    const fetchSeries = (m: Map<string, number>) =>
      Object.fromEntries(phases.flatMap((p) => [[`${p}_sum`, m.get(`kafkite_${p}_seconds_sum{api="Fetch"}`) ?? 0], [`${p}_count`, m.get(`kafkite_${p}_seconds_count{api="Fetch"}`) ?? 0]]));
    const client = await WireClient.connect(broker.port);
    try {
      const end = (await scrape()).get(`kafkite_log_end_offset${partitionLabels(TOPIC, 0)}`)!;
      const fetchAt = (offset: number) =>
        client.send(1, 12, {
          clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 400, minBytes: 1, maxBytes: 1 << 20,
          isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
          topics: [{ topic: TOPIC, topicId: '0'.repeat(32), partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: '0'.repeat(32) }] }],
        });
      // At the log end: parked until max_wait_ms passes.
      const before = fetchSeries(await scrape());
      await fetchAt(end);
      const parked = fetchSeries(await scrape());
      for (const p of phases) expect(parked[`${p}_count`]! - before[`${p}_count`]!, p).toBe(1);
      expect(parked.request_remote_time_sum! - before.request_remote_time_sum!).toBeGreaterThanOrEqual(0.35);
      expect(parked.request_total_time_sum! - before.request_total_time_sum!).toBeGreaterThanOrEqual(parked.request_remote_time_sum! - before.request_remote_time_sum!);
      // From the start: records at once, nothing parked.
      await fetchAt(0);
      const immediate = fetchSeries(await scrape());
      expect(immediate.request_total_time_count! - parked.request_total_time_count!).toBe(1);
      expect(immediate.request_remote_time_sum! - parked.request_remote_time_sum!).toBe(0);
      expect(immediate.request_local_time_sum! - parked.request_local_time_sum!).toBeGreaterThan(0);
      // kcat's acks=all produce (first test) waited for its fdatasync: remote time, as Kafka's DelayedProduce.
      const m = await scrape();
      expect(m.get('kafkite_request_remote_time_seconds_count{api="Produce"}')).toBeGreaterThanOrEqual(1);
      expect(m.get('kafkite_request_remote_time_seconds_sum{api="Produce"}')).toBeGreaterThan(0);
    } finally {
      client.close();
    }
  });

  it('describes topics with their partitions and segments', async () => {
    const list = await getJson('/v1/topics');
    expect(list.status).toBe(200);
    const summary = list.body.topics.find((t: { name: string }) => t.name === TOPIC);
    expect(summary).toMatchObject({ name: TOPIC, partitions: 1, sizeBytes: segmentFileSize(TOPIC, 0), configs: {} });
    expect(summary.topicId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const { status, body } = await getJson(`/v1/topics/${TOPIC}`);
    expect(status).toBe(200);
    expect(body.partitions).toEqual([
      {
        partition: 0,
        logStartOffset: 0,
        logEndOffset: RECORDS + 3,
        highWatermark: RECORDS + 3,
        lastStableOffset: RECORDS + 3,
        sizeBytes: segmentFileSize(TOPIC, 0),
        segments: [
          {
            baseOffset: 0,
            sizeBytes: segmentFileSize(TOPIC, 0),
            offsetIndexEntries: expect.any(Number),
            timeIndexEntries: expect.any(Number),
          },
        ],
      },
    ]);
  });

  it('drops the series of a deleted topic', async () => {
    const produced = await kcat(['-b', broker.bootstrap, '-P', '-t', 'admin-doomed', '-p', '0'], 'x\n');
    expect(produced.code, produced.stderr).toBe(0);
    const labels = partitionLabels('admin-doomed', 0);
    expect((await scrape()).get(`kafkite_topic_records_in_total${labels}`)).toBe(1);

    const kafkaAdmin = new Kafka({ clientId: 'admin-http-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await kafkaAdmin.connect();
    try {
      await kafkaAdmin.deleteTopics({ topics: ['admin-doomed'] });
    } finally {
      await kafkaAdmin.disconnect();
    }
    const m = await scrape();
    for (const name of ['kafkite_topic_records_in_total', 'kafkite_topic_bytes_in_total', 'kafkite_log_end_offset', 'kafkite_log_size_bytes']) {
      expect(m.has(`${name}${labels}`), name).toBe(false);
    }
    expect(m.get(`kafkite_topic_records_in_total${partitionLabels(TOPIC, 0)}`)).toBe(RECORDS + 3);
    expect((await getJson('/v1/topics/admin-doomed')).status).toBe(404);
  });

  it('counts open file descriptors without walking every handle on the event loop', async () => {
    const before = (await scrape()).get('kafkite_process_open_fds')!;
    expect(before).toBeGreaterThan(0);
    const sockets = await Promise.all(Array.from({ length: 50 }, () => new Promise<Socket>((resolve, reject) => {
      const socket = connect({ port: broker.port, host: '127.0.0.1' }, () => resolve(socket));
      socket.once('error', reject);
    })));
    try {
      // The broker may not have accepted all of them yet when the client sees its connects complete.
      let m = await scrape();
      for (let i = 0; i < 50 && m.get('kafkite_connections')! < 50; i++) {
        await new Promise((r) => setTimeout(r, 100));
        m = await scrape();
      }
      expect(m.get('kafkite_connections')).toBeGreaterThanOrEqual(50);
      // Some slack: the broker may close a few files meanwhile (the segments of the topic deleted above).
      expect(m.get('kafkite_process_open_fds')).toBeGreaterThanOrEqual(before + 40);
      // The per-handle gauges (O(handles) at every scrape) are gone; the cheap total stays.
      expect([...m.keys()].some((k) => k.startsWith('kafkite_nodejs_active_handles'))).toBe(false);
      expect(m.get('kafkite_nodejs_active_resources_total')).toBeGreaterThanOrEqual(50);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  it('answers 404 for an unknown topic', async () => {
    const { status, body } = await getJson('/v1/topics/no-such-topic');
    expect(status).toBe(404);
    expect(body.error).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });
});
