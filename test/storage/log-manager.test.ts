import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { LogManager } from '../../storage/log-manager.js';
import type { LogConfig } from '../../storage/log-config.js';
import { REPO_ROOT } from '../helpers/broker-process.js';
import { batch, config, readSlice, silentLogger, tempDir } from './helpers.js';

let root: string;
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const TOPIC_ID = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';

function open(logDirs: string[], cfg: LogConfig = config(), unloadIdleMs?: number): Promise<LogManager> {
  return LogManager.open({ logDirs, logger: silentLogger, clusterId: 'q1Sh-9_ISia_zwGINzRvyQ', nodeId: 1, configFor: () => cfg, retentionCheckIntervalMs: 300_000, unloadIdleMs });
}

/** An idempotent (or transactional) batch of producer 7 at `baseSequence`, of `count` 10-byte records. */
function producerBatch(baseSequence: number, count: number, isTransactional = false): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(`v${baseSequence + i}`), headers: [] }));
  return encodeBatch({ baseOffset: 0, records, producerId: 7, producerEpoch: 0, baseSequence, isTransactional });
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
    // Written in the background: the event loop never waits for the checkpoint's fsyncs.
    await manager.checkpointsWritten();
    expect(fs.readFileSync(path.join(root, 'a', 'log-start-offset-checkpoint'), 'utf8')).toBe('0\n1\nt 0 2\n');
    await manager.shutdown();
  });

  describe('unloading idle logs (kafkite.log.unload.idle.ms)', () => {
    it('creates partitions unloaded and reloads an idle log with the same offsets, producer state and data', async () => {
      root = tempDir();
      const dirs = [path.join(root, 'a')];
      const manager = await open(dirs, config(), 0);
      manager.createPartition('t', 0, TOPIC_ID, config());
      manager.createPartition('t', 1, TOPIC_ID, config());
      expect(manager.logCounts).toEqual({ loaded: 0, unloaded: 2 });
      expect(manager.hasLog('t', 1)).toBe(true);

      const log = manager.getLog('t', 0)!;
      expect(log.appendAsLeader(producerBatch(0, 3), 0).firstOffset).toBe(0);
      expect(log.appendAsLeader(producerBatch(3, 2), 0).firstOffset).toBe(3);
      log.appendAsLeader(producerBatch(5, 2, true), 0); // a transaction, still open
      expect(log.deleteRecordsBefore(1)).toBe(1);
      await log.flush();
      const before = { hw: log.highWatermark, lso: log.lastStableOffset, start: log.logStartOffset };
      expect(before).toEqual({ hw: 7, lso: 5, start: 1 });
      // An open transaction keeps it loaded (its LSO lives in the producer state).
      expect(manager.unloadIdleLogs(Date.now() + 1)).toBe(0);
      const marker = log.appendTransactionMarker(7, 0, 0, true, Date.now());
      await marker.flushed;
      expect(manager.unloadIdleLogs(Date.now() + 1)).toBe(1);
      expect(manager.logCounts).toEqual({ loaded: 0, unloaded: 2 });
      expect(manager.loadedLog('t', 0)).toBeUndefined();

      const reloaded = manager.getLog('t', 0)!;
      expect(reloaded).not.toBe(log);
      expect({ hw: reloaded.highWatermark, lso: reloaded.lastStableOffset, start: reloaded.logStartOffset }).toEqual({ hw: 8, lso: 8, start: 1 });
      expect(reloaded.recoveryPoint).toBe(8);
      // Producer state came back: the last batch retried is a duplicate with its first offsets, a gap is refused.
      expect(reloaded.appendAsLeader(producerBatch(7, 1), 0).firstOffset).toBe(8);
      expect(reloaded.appendAsLeader(producerBatch(7, 1), 0)).toMatchObject({ firstOffset: 8, lastOffset: 8 });
      expect(() => reloaded.appendAsLeader(producerBatch(20, 1), 0)).toThrow(/sequence/i);
      expect(reloaded.logEndOffset).toBe(9);
      const values: string[] = [];
      for (const slice of reloaded.read(1, 1 << 20, true).slices) {
        const bytes = readSlice(slice);
        for (const h of batchesIn(bytes)) for (const r of decodeBatch(bytes.subarray(h.pos, h.pos + h.sizeInBytes)).records) if (r.value) values.push(r.value.toString());
      }
      // From the batch holding offset 1 (the log start offset) on; the commit marker's control record is left out.
      expect(values.filter((v) => v.startsWith('v'))).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7']);
      await manager.shutdown();

      // The unloaded partition is in the checkpoints, and the clean-shutdown marker is written.
      expect(fs.readFileSync(path.join(dirs[0], 'recovery-point-offset-checkpoint'), 'utf8').split('\n')).toEqual(expect.arrayContaining(['t 0 9', 't 1 0']));
      expect(fs.existsSync(path.join(dirs[0], '.kafka_cleanshutdown'))).toBe(true);
    });

    it('flushes a dirty idle log before unloading it, so a crash after the unload loses nothing', async () => {
      root = tempDir();
      const dirs = [path.join(root, 'a')];
      const manager = await open(dirs, config(), 0);
      manager.createPartition('t', 0, TOPIC_ID, config());
      const log = manager.getLog('t', 0)!;
      for (let i = 0; i < 4; i++) log.appendAsLeader(batch(5), 0);
      expect(log.hasUnflushedData).toBe(true);
      // Not unloaded while dirty: a flush starts instead, and the next pass unloads it.
      expect(manager.unloadIdleLogs(Date.now() + 1)).toBe(0);
      await log.flush();
      expect(log.recoveryPoint).toBe(20);
      expect(manager.unloadIdleLogs(Date.now() + 1)).toBe(1);
      // Crash (no shutdown): the next start recovers from the files.
      const after = await open(dirs, config(), 0);
      const recovered = after.getLog('t', 0)!;
      expect(recovered.logEndOffset).toBe(20);
      expect(recovered.read(0, 1 << 20, true).bytes).toBe(recovered.size);
      await after.shutdown();
    });

    it('unloads what the background load recovers, and loads an unloaded log again only when retention has work', async () => {
      root = tempDir();
      const dirs = [path.join(root, 'a')];
      const cfg = config({ retentionMs: 60_000, fileDeleteDelayMs: 0, segmentBytes: 200 });
      const first = await open(dirs, cfg);
      const log = first.createLog('t', 0, TOPIC_ID, cfg);
      for (let i = 0; i < 6; i++) log.appendAsLeader(batch(2, { timestamp: 1_000_000 + i, valueSize: 40 }), 0);
      first.createLog('t', 1, TOPIC_ID, cfg);
      expect(log.segments.size).toBeGreaterThan(2);
      await first.shutdown();

      const manager = await open(dirs, cfg, 60_000);
      manager.startup();
      expect(manager.backgroundLoading).toBe(true);
      for (let i = 0; i < 500 && manager.backgroundLoading; i++) await new Promise((r) => setTimeout(r, 10));
      // Both were loaded (and recovered, were it needed) in the background, then unloaded at once.
      expect(manager.logCounts).toEqual({ loaded: 0, unloaded: 2 });
      // Nothing expired yet: the retention task loads nothing.
      expect(manager.cleanupLogs(1_000_000 + 1000)).toBe(0);
      expect(manager.logCounts.loaded).toBe(0);
      // Expired: only the log with segments to delete is loaded.
      const deleted = manager.cleanupLogs(1_000_000 + 120_000);
      expect(deleted).toBeGreaterThan(1);
      expect(manager.loadedLog('t', 0)?.logStartOffset).toBe(12);
      expect(manager.loadedLog('t', 1)).toBeUndefined();
      await manager.shutdown();
    });
  });
  it('rolls back a creation that ran out of descriptors with none left, on its spare one', () => {
    root = tempDir();
    // In a child under a low RLIMIT_NOFILE (the compiled module, as npm test builds it): partitions 0 and 1
    // are made, every descriptor is taken, partition 2 fails, and 0 and 1 are abandoned as Broker's rollback
    // does. Removing a dir opens it (fs.rmSync: from Node 24 even an empty one), so only the spare does it.
    const script = `
      import fs from 'node:fs';
      import pino from 'pino';
      import { LogManager } from './dist/storage/log-manager.js';
      import { DEFAULT_LOG_CONFIG } from './dist/storage/log-config.js';
      const [dir, id] = process.argv.slice(1);
      const manager = await LogManager.open({ logDirs: [dir], logger: pino({ level: 'silent' }), clusterId: 'q1Sh-9_ISia_zwGINzRvyQ', nodeId: 1, configFor: () => DEFAULT_LOG_CONFIG, retentionCheckIntervalMs: 300_000 });
      for (const p of [0, 1]) manager.createPartition('t', p, id, DEFAULT_LOG_CONFIG);
      const made = fs.readdirSync(dir).filter((n) => n.startsWith('t-')).sort();
      const held = [];
      try { for (;;) held.push(fs.openSync('/dev/null', 'r')); } catch {}
      let failed = null;
      try { manager.createPartition('t', 2, id, DEFAULT_LOG_CONFIG); } catch (err) { failed = err.message; }
      for (const p of [0, 1, 2]) manager.abandonLog('t', p);
      for (const fd of held) fs.closeSync(fd);
      console.log(JSON.stringify({ made, held: held.length, failed, left: fs.readdirSync(dir).filter((n) => n.startsWith('t-')) }));
    `;
    const child = spawnSync('bash', ['-c', 'ulimit -n 64 && exec "$0" --input-type=module -e "$1" "$2" "$3"', process.execPath, script, root, TOPIC_ID], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(child.status, child.stderr).toBe(0);
    const result = JSON.parse(child.stdout) as { made: string[]; held: number; failed: string | null; left: string[] };
    expect(result.made).toEqual(['t-0', 't-1']);
    expect(result.held).toBeGreaterThan(0);
    expect(result.failed).toMatch(/EMFILE|too many open files/i);
    expect(result.left).toEqual([]);
  });
});
