// The syncfs binding (native/storage.cc) on real files, and the log dir's commit round over real
// partition logs: one syncfs for many dirty logs, late appends in the next round, errors surfaced.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit, type Flushable, type SyncfsFn } from '../../storage/group-commit.js';
import { KafkaStorageError } from '../../storage/errors.js';
import { LogManager } from '../../storage/log-manager.js';
import { probeStorageAddon } from '../../storage/native-storage.js';
import { UnifiedLog } from '../../storage/unified-log.js';
import { batch, config, silentLogger, tempDir } from './helpers.js';

let root: string;
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  fs.rmSync(root, { recursive: true, force: true });
});

const addon = probeStorageAddon().addon;
const TOPIC_ID = '00112233445566778899aabbccddeeff';

function syncfsAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => addon!.syncfs(fd, (err) => (err ? reject(err) : resolve())));
}

describe.skipIf(addon === null)('syncfs addon', () => {
  it('syncfs(fd) of a freshly written file resolves on the thread pool; syncfsSync(path) returns', async () => {
    root = tempDir();
    const file = path.join(root, 'data');
    const fd = fs.openSync(file, 'w');
    try {
      fs.writeSync(fd, Buffer.alloc(64 * 1024, 7));
      let settled = false;
      const done = syncfsAsync(fd).then(() => (settled = true));
      // Asynchronous: the call returned before the sync finished.
      expect(settled).toBe(false);
      await done;
      expect(settled).toBe(true);
    } finally {
      fs.closeSync(fd);
    }
    expect(() => addon!.syncfsSync(root)).not.toThrow();
    expect(fs.readFileSync(file)).toEqual(Buffer.alloc(64 * 1024, 7));
  });

  it('surfaces errors: a bad fd (EBADF), a missing path (ENOENT), wrong arguments (TypeError)', async () => {
    root = tempDir();
    const fd = fs.openSync(path.join(root, 'closed'), 'w');
    fs.closeSync(fd);
    await expect(syncfsAsync(fd)).rejects.toMatchObject({ code: 'EBADF', syscall: 'syncfs' });
    expect(() => addon!.syncfsSync(path.join(root, 'missing', 'dir'))).toThrow(expect.objectContaining({ code: 'ENOENT', syscall: 'syncfs' }));
    expect(() => (addon!.syncfs as unknown as (x: string) => void)('nope')).toThrow(TypeError);
    expect(() => (addon!.syncfsSync as unknown as (x: number) => void)(3)).toThrow(TypeError);
  });
});

/** Partition logs in `logDir`, flushing through `commit`; `errors` collects what each reported as a disk failure. */
function logsIn(logDir: string, count: number, commit: GroupCommit, errors: KafkaStorageError[] = []): UnifiedLog[] {
  return Array.from({ length: count }, (_, p) => {
    const log = UnifiedLog.load({
      dir: path.join(logDir, `t-${p}`),
      topic: 't',
      partition: p,
      topicId: TOPIC_ID,
      config: config(),
      logger: silentLogger,
      recoveryPoint: 0,
      logStartOffset: 0,
      hadCleanShutdown: true,
      onStorageError: (err) => errors.push(err),
      commitRound: (l) => commit.flush(l),
    });
    cleanups.push(() => log.closeAndDelete());
    return log;
  });
}

/** The real syncfs, counting its calls. */
function countingSyncfs(): { fn: SyncfsFn; calls: number } {
  const counter = {
    calls: 0,
    fn: ((fd, cb) => {
      counter.calls++;
      addon!.syncfs(fd, cb);
    }) as SyncfsFn,
  };
  return counter;
}

/**
 * `log` flushed through a wrapper whose flushes, once their real fdatasyncs are done, wait for
 * release(i) of the i-th flush (a slow disk, on demand); release(i, err) makes it fail with err instead.
 */
function heldFdatasyncs(log: UnifiedLog): { log: Flushable; synced(n: number): Promise<void>; release(i: number, err?: Error): void } {
  const held: Array<(err?: Error) => void> = [];
  return {
    log: {
      beginFlush() {
        const pending = log.beginFlush();
        if (pending === null) return null;
        return {
          ...pending,
          fdatasyncEach: async () => {
            await pending.fdatasyncEach();
            await new Promise<void>((resolve, reject) => held.push((err) => (err ? reject(err) : resolve())));
          },
        };
      },
    },
    /** Until the first n flushes' fdatasyncs are done (and held). */
    async synced(n) {
      while (held.length < n) await new Promise((r) => setTimeout(r, 1));
    },
    release(i, err) {
      held[i]!(err);
    },
  };
}

/** Whether `p` has settled, asked later. */
function track(p: Promise<unknown>): () => boolean {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  return () => done;
}

describe.skipIf(addon === null)('GroupCommit', () => {
  it('makes 8 partitions durable with one syncfs per round and advances every recovery point', async () => {
    root = tempDir();
    const syncfs = countingSyncfs();
    const commit = new GroupCommit(root, syncfs.fn, silentLogger);
    cleanups.push(() => commit.close());
    const logs = logsIn(root, 8, commit);
    for (const log of logs) log.appendAsLeader(batch(5), 0);
    await Promise.all(logs.map((l) => l.flush()));
    expect(logs.map((l) => l.recoveryPoint)).toEqual(Array(8).fill(5));
    expect(syncfs.calls).toBe(1);
    expect(commit.stats).toMatchObject({ rounds: 1, syncfsCalls: 1, fileFlushes: 0 });
    // Nothing new: no round.
    await Promise.all(logs.map((l) => l.flush()));
    expect(commit.stats.rounds).toBe(1);
  });

  it('a syncfs round runs alone: appends made meanwhile join the next round; the earlier flush does not cover them', async () => {
    root = tempDir();
    const commit = new GroupCommit(root, countingSyncfs().fn, silentLogger);
    cleanups.push(() => commit.close());
    const logs = logsIn(root, 4, commit);
    for (const log of logs) log.appendAsLeader(batch(2), 0);
    const first = logs.map((l) => l.flush());
    // Same log, nothing new: the same promise (joins the pending round).
    expect(logs[0]!.flush()).toBe(first[0]);
    await new Promise((r) => setImmediate(r));
    // The round has begun (its syncfs is on the pool): a new append on log 0 needs another round.
    logs[0]!.appendAsLeader(batch(3), 0);
    const second = logs[0]!.flush();
    expect(second).not.toBe(first[0]);
    expect(logs[1]!.flush()).toBe(first[1]);
    await Promise.all(first);
    expect(logs[0]!.recoveryPoint).toBe(2);
    await second;
    expect(logs[0]!.recoveryPoint).toBe(5);
    expect(commit.stats.rounds).toBe(2);
    // The second round had one log with one dirty file: fdatasync, not syncfs.
    expect(commit.stats).toMatchObject({ syncfsCalls: 1, fileFlushes: 1 });
  });

  it("a log's next fdatasync begins while the one before waits for the disk; its flushes complete in order", async () => {
    root = tempDir();
    const commit = new GroupCommit(root, countingSyncfs().fn, silentLogger);
    commit.close(); // fdatasync file by file
    const [log] = logsIn(root, 1, commit);
    const held = heldFdatasyncs(log!);
    log!.appendAsLeader(batch(2), 0);
    const first = commit.flush(held.log);
    await held.synced(1);
    // The first flush's files are synced but held (a slow disk): the next append's flush begins at once.
    log!.appendAsLeader(batch(3), 0);
    const second = commit.flush(held.log);
    expect(second).not.toBe(first);
    await held.synced(2);
    expect(commit.stats).toMatchObject({ rounds: 2, syncfsCalls: 0 });
    // The second is done first, yet completes only after the first.
    held.release(1);
    const secondSettled = track(second);
    await new Promise((r) => setTimeout(r, 20));
    expect(secondSettled()).toBe(false);
    expect(log!.recoveryPoint).toBe(0);
    held.release(0);
    await first;
    await second;
    expect(log!.recoveryPoint).toBe(5);
  });

  it('keeps at most two flushes of a log in flight; the next begins when the oldest completes', async () => {
    root = tempDir();
    const commit = new GroupCommit(root, countingSyncfs().fn, silentLogger);
    commit.close();
    const [log] = logsIn(root, 1, commit);
    const held = heldFdatasyncs(log!);
    const flushed: Array<Promise<void>> = [];
    for (let i = 0; i < 2; i++) {
      log!.appendAsLeader(batch(1), 0);
      flushed.push(commit.flush(held.log));
      await held.synced(i + 1);
    }
    log!.appendAsLeader(batch(1), 0);
    flushed.push(commit.flush(held.log));
    await new Promise((r) => setTimeout(r, 20));
    expect(commit.stats.rounds).toBe(2);
    held.release(0);
    await flushed[0];
    await held.synced(3);
    expect(commit.stats.rounds).toBe(3);
    held.release(1);
    held.release(2);
    await Promise.all(flushed);
    expect(log!.recoveryPoint).toBe(3);
  });

  it('measures both ways and keeps fdatasync per file while syncfs costs more (a filesystem busy with others)', async () => {
    root = tempDir();
    // The real syncfs, slowed down as on a filesystem where neighbours keep lots of dirty data.
    const slow: SyncfsFn = (fd, cb) => addon!.syncfs(fd, (err) => setTimeout(() => cb(err), 400));
    const commit = new GroupCommit(root, slow, silentLogger);
    cleanups.push(() => commit.close());
    const logs = logsIn(root, 8, commit);
    for (let round = 1; round <= 4; round++) {
      for (const log of logs) log.appendAsLeader(batch(1), 0);
      await Promise.all(logs.map((l) => l.flush()));
      expect(logs.map((l) => l.recoveryPoint)).toEqual(Array(8).fill(round));
    }
    // Round 1 measured syncfs, round 2 fdatasync; rounds 3 and 4 took the cheaper one.
    expect(commit.stats).toMatchObject({ rounds: 4, syncfsCalls: 1, fileFlushes: 24 });
    expect(commit.stats.syncfsMs).toBeGreaterThanOrEqual(400);
  });

  it('a syncfs error fails every flush of the round with KAFKA_STORAGE_ERROR; nothing counts as durable', async () => {
    root = tempDir();
    // A disk that fails cannot be made on demand here: this syncfs reports EIO as the kernel would.
    const failing: SyncfsFn = (_fd, cb) => setImmediate(() => cb(Object.assign(new Error('EIO: i/o error, syncfs'), { code: 'EIO', syscall: 'syncfs' })));
    const commit = new GroupCommit(root, failing, silentLogger);
    cleanups.push(() => commit.close());
    const errors: KafkaStorageError[] = [];
    const logs = logsIn(root, 4, commit, errors);
    for (const log of logs) log.appendAsLeader(batch(2), 0);
    const results = await Promise.allSettled(logs.map((l) => l.flush()));
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(KafkaStorageError);
      expect(String((r as PromiseRejectedResult).reason.message)).toMatch(/EIO/);
    }
    expect(errors).toHaveLength(4);
    expect(logs.map((l) => l.recoveryPoint)).toEqual([0, 0, 0, 0]);
  });
  it('a failed flush fails the later flushes of its log begun meanwhile, though their own fdatasync succeeded', async () => {
    root = tempDir();
    const commit = new GroupCommit(root, countingSyncfs().fn, silentLogger);
    commit.close();
    const errors: KafkaStorageError[] = [];
    const [log] = logsIn(root, 1, commit, errors);
    const held = heldFdatasyncs(log!);
    log!.appendAsLeader(batch(2), 0);
    const first = commit.flush(held.log);
    await held.synced(1);
    log!.appendAsLeader(batch(3), 0);
    const second = commit.flush(held.log);
    await held.synced(2);
    held.release(1);
    // A failing disk cannot be made on demand: the first flush reports EIO as the kernel would.
    held.release(0, Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', syscall: 'fdatasync' }));
    const results = await Promise.allSettled([first, second]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(KafkaStorageError);
      expect(String((r as PromiseRejectedResult).reason.message)).toMatch(/EIO/);
    }
    expect(log!.recoveryPoint).toBe(0);
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('LogManager flushes', () => {
  const open = (logDirs: string[], syncfs: boolean) =>
    LogManager.open({ logDirs, logger: silentLogger, clusterId: 'q1Sh-9_ISia_zwGINzRvyQ', nodeId: 1, configFor: () => config(), retentionCheckIntervalMs: 300_000, syncfs });

  it.each([true, false])('with kafkite.log.flush.syncfs.enable=%s: flushes advance the recovery points that shutdown checkpoints', async (syncfs) => {
    root = tempDir();
    const dirs = [path.join(root, 'a'), path.join(root, 'b')];
    const manager = await open(dirs, syncfs);
    const logs = Array.from({ length: 6 }, (_, p) => manager.createLog('t', p, TOPIC_ID, config()));
    for (const [i, log] of logs.entries()) log.appendAsLeader(batch(i + 1), 0);
    await Promise.all(logs.map((l) => l.flush()));
    expect(logs.map((l) => l.recoveryPoint)).toEqual([1, 2, 3, 4, 5, 6]);
    // A rolled segment (a new file in the directory) is flushed too.
    logs[0]!.roll();
    logs[0]!.appendAsLeader(batch(2), 0);
    expect(logs[0]!.hasUnflushedData).toBe(true);
    await logs[0]!.flush();
    expect(logs[0]!.hasUnflushedData).toBe(false);
    expect(logs[0]!.recoveryPoint).toBe(3);
    await manager.shutdown();
    const checkpointed = dirs.flatMap((d) => fs.readFileSync(path.join(d, 'recovery-point-offset-checkpoint'), 'utf8').split('\n').slice(2, -1)).sort();
    expect(checkpointed).toEqual(['t 0 3', 't 1 2', 't 2 3', 't 3 4', 't 4 5', 't 5 6']);
  });
});
