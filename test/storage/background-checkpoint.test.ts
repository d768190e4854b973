// Checkpoints written off the event loop (storage/checkpoint-file.ts BackgroundCheckpoint): writes never
// overlap, requests made during a write are served by one more write with the newest content, a failed
// write is reported and retried on the next request, and nothing is left behind but the file itself.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BackgroundCheckpoint, OffsetCheckpointFile } from '../../storage/checkpoint-file.js';

describe('BackgroundCheckpoint', () => {
  let dir: string;

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('coalesces the requests made during a write into one more write of the newest content', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkite-checkpoint-'));
    const file = path.join(dir, 'log-start-offset-checkpoint');
    let offset = 0;
    let reads = 0;
    const outcomes: unknown[] = [];
    const checkpoint: BackgroundCheckpoint = new BackgroundCheckpoint(file, () => {
      const text = OffsetCheckpointFile.format([{ topic: 't', partition: 0, offset }]);
      // Requests arriving while the first write runs (its content already taken).
      if (++reads === 1) for (offset = 1; offset <= 50; offset++) checkpoint.request();
      offset = 50;
      return text;
    }, (error) => outcomes.push(error));
    checkpoint.request();
    checkpoint.request();
    // Not written synchronously: the caller's event loop turn goes on.
    expect(fs.existsSync(file)).toBe(false);
    await checkpoint.idle();
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n1\nt 0 50\n');
    // The first write, then one for everything requested while it ran.
    expect(reads).toBe(2);
    expect(outcomes).toEqual([null, null]);
    expect(fs.readdirSync(dir)).toEqual(['log-start-offset-checkpoint']);
    expect(new OffsetCheckpointFile(file).read()).toEqual(new Map([['t-0', 50]]));
  });

  it('reports a failed write and writes again on the next request', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkite-checkpoint-'));
    const missing = path.join(dir, 'gone');
    const file = path.join(missing, 'recovery-point-offset-checkpoint');
    const outcomes: unknown[] = [];
    const checkpoint = new BackgroundCheckpoint(file, () => OffsetCheckpointFile.format([{ topic: 't', partition: 1, offset: 7 }]), (error) => outcomes.push(error));
    checkpoint.request();
    await checkpoint.idle();
    expect(outcomes).toHaveLength(1);
    expect((outcomes[0] as Error).message).toMatch(/cannot write .*recovery-point-offset-checkpoint/);
    fs.mkdirSync(missing);
    checkpoint.request();
    await checkpoint.idle();
    expect(outcomes[1]).toBeNull();
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n1\nt 1 7\n');
  });

  it('writes nothing while its content is null (an offline log dir)', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafkite-checkpoint-'));
    const outcomes: unknown[] = [];
    const checkpoint = new BackgroundCheckpoint(path.join(dir, 'c'), () => null, (error) => outcomes.push(error));
    checkpoint.request();
    await checkpoint.idle();
    expect(outcomes).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
