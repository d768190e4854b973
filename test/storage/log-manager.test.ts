import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogManager } from '../../storage/log-manager.js';
import type { LogConfig } from '../../storage/log-config.js';
import { batch, config, silentLogger, tempDir } from './helpers.js';

let root: string;
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const TOPIC_ID = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';

function open(logDirs: string[], cfg: LogConfig = config()): Promise<LogManager> {
  return LogManager.open({ logDirs, logger: silentLogger, clusterId: 'q1Sh-9_ISia_zwGINzRvyQ', nodeId: 1, configFor: () => cfg, retentionCheckIntervalMs: 300_000 });
}

describe('LogManager', () => {
  it('lays out log dirs like KRaft-mode Kafka and restarts cleanly', async () => {
    root = tempDir();
    const dirs = [path.join(root, 'a'), path.join(root, 'b')];
    const manager = await open(dirs);
    const p0 = manager.createLog('orders', 0, TOPIC_ID, config());
    const p1 = manager.createLog('orders', 1, TOPIC_ID, config());
    expect(new Set([path.dirname(p0.dir), path.dirname(p1.dir)])).toEqual(new Set(dirs));
    p0.appendAsLeader(batch(3), 0);
    p0.deleteRecordsBefore(1);

    const meta = fs.readFileSync(path.join(dirs[0], 'meta.properties'), 'utf8');
    expect(meta).toMatch(/^node\.id=1$/m);
    expect(meta).toMatch(/^version=1$/m);
    expect(meta).toMatch(/^cluster\.id=q1Sh-9_ISia_zwGINzRvyQ$/m);
    expect(meta).toMatch(/^directory\.id=[A-Za-z0-9_-]{22}$/m);
    expect(fs.readFileSync(path.join(p0.dir, 'partition.metadata'), 'utf8')).toBe(`version: 0\ntopic_id: Dx4tPEtaaXiHlqW0w9Lh8A\n`);
    expect(fs.readFileSync(path.join(p0.dir, 'leader-epoch-checkpoint'), 'utf8')).toBe('0\n1\n0 1\n');
    expect(fs.readdirSync(p0.dir).sort()).toEqual([
      '00000000000000000000.index',
      '00000000000000000000.log',
      '00000000000000000000.timeindex',
      // Created empty with its segment (Kafka creates it at the first abort) so that a lost one is noticed and rebuilt.
      '00000000000000000000.txnindex',
      'leader-epoch-checkpoint',
      'partition.metadata',
    ]);

    await manager.shutdown();
    const p0LogDir = path.dirname(p0.dir);
    expect(fs.existsSync(path.join(p0LogDir, '.kafka_cleanshutdown'))).toBe(true);
    expect(fs.readFileSync(path.join(p0LogDir, 'recovery-point-offset-checkpoint'), 'utf8')).toBe('0\n1\norders 0 3\n');
    expect(fs.readFileSync(path.join(p0LogDir, 'log-start-offset-checkpoint'), 'utf8')).toBe('0\n1\norders 0 1\n');

    const again = await open(dirs);
    expect(fs.existsSync(path.join(p0LogDir, '.kafka_cleanshutdown'))).toBe(false);
    const reopened = again.getLog('orders', 0)!;
    expect(reopened.topicId).toBe(TOPIC_ID);
    expect([reopened.logStartOffset, reopened.logEndOffset]).toEqual([1, 3]);
    expect(again.getLog('orders', 1)!.logEndOffset).toBe(0);
    expect([...again.allLogs()]).toHaveLength(2);

    await again.deleteLog('orders', 0);
    expect(again.getLog('orders', 0)).toBeUndefined();
    // Renamed now, removed after file.delete.delay.ms (or at shutdown).
    expect(fs.readdirSync(p0LogDir).filter((f) => f.startsWith('orders-0'))).toEqual([expect.stringMatching(/^orders-0\.[0-9a-f]{32}-delete$/)]);
    await again.shutdown();
    expect(fs.readdirSync(p0LogDir).filter((f) => f.startsWith('orders-0'))).toEqual([]);
  });

  it('recovers after a crash (no clean-shutdown marker) and refuses another cluster’s dir', async () => {
    root = tempDir();
    const dirs = [path.join(root, 'a')];
    const manager = await open(dirs);
    const log = manager.createLog('t', 0, TOPIC_ID, config());
    for (let i = 0; i < 5; i++) log.appendAsLeader(batch(2), 0);
    await log.flush();
    // Crash: no shutdown. A torn write at the end of the active segment.
    fs.appendFileSync(path.join(log.dir, '00000000000000000000.log'), Buffer.from([0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1]));
    const after = await open(dirs);
    expect(after.getLog('t', 0)!.logEndOffset).toBe(10);
    expect(fs.statSync(path.join(log.dir, '00000000000000000000.log')).size).toBe(log.segments.activeSegment.size);
    await after.shutdown();
    await expect(LogManager.open({ logDirs: dirs, logger: silentLogger, clusterId: 'other', nodeId: 1, configFor: () => config(), retentionCheckIntervalMs: 1000 })).rejects.toThrow(/cluster.id/);
  });

  it('starts despite damaged checkpoints and a garbage tail after a clean shutdown', async () => {
    root = tempDir();
    const dirs = [path.join(root, 'a')];
    const manager = await open(dirs);
    const log = manager.createLog('t', 0, TOPIC_ID, config());
    for (let i = 0; i < 3; i++) log.appendAsLeader(batch(2), 0);
    await manager.shutdown();
    fs.writeFileSync(path.join(dirs[0], 'recovery-point-offset-checkpoint'), 'garbage');
    fs.writeFileSync(path.join(log.dir, 'leader-epoch-checkpoint'), '7\nnonsense');
    fs.appendFileSync(path.join(log.dir, '00000000000000000000.log'), Buffer.alloc(100, 7));
    const after = await open(dirs);
    const reopened = after.getLog('t', 0)!;
    expect(reopened.logEndOffset).toBe(6);
    expect(reopened.appendAsLeader(batch(1), 0).firstOffset).toBe(6);
    expect(fs.readFileSync(path.join(log.dir, 'leader-epoch-checkpoint'), 'utf8')).toBe('0\n1\n0 0\n');
    await after.shutdown();
  });

  it('applies retention across logs', async () => {
    root = tempDir();
    const cfg = config({ retentionMs: 1000, fileDeleteDelayMs: 0 });
    const manager = await open([path.join(root, 'a')], cfg);
    const log = manager.createLog('t', 0, TOPIC_ID, cfg);
    log.appendAsLeader(batch(2, { timestamp: 1000 }), 0);
    expect(manager.cleanupLogs(10_000)).toBe(1);
    expect(log.logStartOffset).toBe(2);
    expect(fs.readFileSync(path.join(root, 'a', 'log-start-offset-checkpoint'), 'utf8')).toBe('0\n1\nt 0 2\n');
    await manager.shutdown();
  });
});
