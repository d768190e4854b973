// Several log.dirs: partitions are spread over them, and a restart finds every partition where it is.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBroker } from '../helpers/broker-process.js';
import { kcat } from '../helpers/kcat.js';

const dirs = [mkdtempSync(join(tmpdir(), 'kafkite-dir-a-')), mkdtempSync(join(tmpdir(), 'kafkite-dir-b-'))];
const overrides = [`log.dirs=${dirs.join(',')}`, 'num.partitions=4'];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const partitionDirs = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('spread-'));

describe('several log dirs', () => {
  it('spreads partitions across the dirs and serves them all after a restart', async () => {
    let broker = await startBroker({ dataDir: dirs[0], overrides });
    const lines = Array.from({ length: 40 }, (_, i) => `${i % 4}:${i}`);
    for (const line of lines) {
      const [partition, value] = line.split(':');
      const res = await kcat(['-b', broker.bootstrap, '-P', '-t', 'spread', '-p', partition!], `${value}\n`);
      expect(res.code, res.stderr).toBe(0);
    }
    expect(partitionDirs(dirs[0]!)).toHaveLength(2);
    expect(partitionDirs(dirs[1]!)).toHaveLength(2);
    expect(await broker.stop()).toBe(0);

    broker = await startBroker({ dataDir: dirs[0], overrides });
    try {
      const res = await kcat(['-b', broker.bootstrap, '-C', '-t', 'spread', '-e', '-q', '-f', '%p:%s\\n']);
      expect(res.stdout.trim().split('\n').sort()).toEqual([...lines].sort());
    } finally {
      expect(await broker.stop()).toBe(0);
    }
  });
});
