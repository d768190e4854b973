// A request's topic creation syncs its new files on the libuv pool: the event loop keeps serving
// meanwhile (a syncfs of a dirty filesystem took seconds on the JS thread), and the topic becomes
// visible only once its files are durable.
import fs, { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrokerConfig } from '../../config/broker-config.js';
import { Broker } from '../../src/broker.js';
import { ErrorCode } from '../../src/errors.js';
import { probeStorageAddon } from '../../storage/native-storage.js';

const addon = probeStorageAddon().addon;
const SYNC_MS = 400;
let dir: string;
let broker: Broker | null = null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkite-topic-sync-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await broker?.shutdown();
  broker = null;
  rmSync(dir, { recursive: true, force: true });
});

const options = { partitions: 4, replicationFactor: -1, configs: {}, validateOnly: false };

describe.skipIf(addon === null)('topic creation', () => {
  it('syncs the new partitions on the pool, serves meanwhile, and lists the topic only once they are durable', async () => {
    broker = await Broker.open(new BrokerConfig({ 'log.dirs': dir, listeners: 'PLAINTEXT://127.0.0.1:0' }), pino({ level: 'silent' }));
    // A filesystem slow to write back: each syncfs answers SYNC_MS after the real one.
    const real = addon!.syncfs.bind(addon);
    const syncfs = vi.spyOn(addon!, 'syncfs').mockImplementation((fd, callback) => real(fd, (err) => setTimeout(() => callback(err), SYNC_MS)));

    const started = performance.now();
    const created = broker.createTopic('slow', options);
    const again = broker.createTopic('slow', options);
    // The event loop runs while the files sync: timers fire on time, many times over.
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 10);
    await new Promise((resolve) => setTimeout(resolve, SYNC_MS / 2));
    expect(syncfs).toHaveBeenCalled();
    expect(existsSync(join(dir, 'slow-3'))).toBe(true);
    expect(broker.topics.get('slow')).toBeUndefined();

    const topic = await created;
    clearInterval(ticking);
    expect(performance.now() - started).toBeGreaterThanOrEqual(SYNC_MS - 5);
    expect(ticks).toBeGreaterThanOrEqual(SYNC_MS / 10 / 2);
    expect(topic.partitions).toBe(4);
    expect(broker.topics.get('slow')?.topicId).toBe(topic.topicId);
    // The second creation of the name waited for the first and found it there.
    await expect(again).rejects.toMatchObject({ code: ErrorCode.TOPIC_ALREADY_EXISTS });

    // Partitions added later take the same path.
    await broker.createPartitions('slow', 6, false);
    expect(broker.topics.get('slow')?.partitions).toBe(6);
    expect(existsSync(join(dir, 'slow-5'))).toBe(true);
    expect(syncfs.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('falls back to an fsync of each new file when syncfs fails, and still creates the topic', async () => {
    broker = await Broker.open(new BrokerConfig({ 'log.dirs': dir, listeners: 'PLAINTEXT://127.0.0.1:0' }), pino({ level: 'silent' }));
    const failing = vi.spyOn(addon!, 'syncfs').mockImplementation((_fd, callback) => {
      const err: NodeJS.ErrnoException = new Error('EIO: injected');
      err.code = 'EIO';
      setImmediate(() => callback(err));
    });
    const opened = vi.spyOn(fs.promises, 'open');
    const topic = await broker.createTopic('fallback', options);
    expect(failing).toHaveBeenCalled();
    // Each partition's partition.metadata was opened again to be fsynced.
    const fsynced = opened.mock.calls.map(([file]) => String(file)).filter((f) => f.endsWith('partition.metadata'));
    expect(fsynced).toHaveLength(4);
    expect(broker.topics.get('fallback')?.topicId).toBe(topic.topicId);
    expect(existsSync(join(dir, 'fallback-3', 'partition.metadata'))).toBe(true);
  });
});
