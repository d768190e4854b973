// The leader epoch cache (Kafka's LeaderEpochFileCache) and a log whose partition's leader epoch rises. The
// OffsetForLeaderEpoch answers are the ones a Kafka 4.4 node gave for the same entries (one partition, epochs 0, 2
// and 4 from two restarts, four records each): see test/integration/kafka-epochs-to-kafkite.test.ts for the move.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { LeaderEpochCheckpointFile } from '../../storage/checkpoint-file.js';
import { LeaderEpochFileCache } from '../../storage/leader-epoch-file-cache.js';
import { UnifiedLog } from '../../storage/unified-log.js';
import { batch, config, silentLogger, tempDir } from './helpers.js';

let dir: string;
let log: UnifiedLog | undefined;

/** A new temporary dir for the test, removed (its log closed first) when the test ends. */
function freshDir(): void {
  dir = tempDir();
  const own = dir;
  onTestFinished(async () => {
    await log?.close();
    log = undefined;
    fs.rmSync(own, { recursive: true, force: true });
  });
}

function cacheIn(file: string): LeaderEpochFileCache {
  return new LeaderEpochFileCache(new LeaderEpochCheckpointFile(file));
}

function openLog(leaderEpoch?: number, cfg = config()): UnifiedLog {
  return UnifiedLog.load({
    dir: path.join(dir, 'topic-0'), topic: 'topic', partition: 0, topicId: '00112233445566778899aabbccddeeff', config: cfg, logger: silentLogger,
    recoveryPoint: 0, logStartOffset: 0, hadCleanShutdown: false, leaderEpoch,
  });
}

const checkpoint = (): string => fs.readFileSync(path.join(dir, 'topic-0', 'leader-epoch-checkpoint'), 'utf8');
const epochsOnDisk = (): number[] => [...batchesIn(fs.readFileSync(path.join(dir, 'topic-0', '00000000000000000000.log')))].map((b) => b.partitionLeaderEpoch);

describe('LeaderEpochFileCache', () => {
  it("answers endOffsetFor as Kafka 4.4 did for epochs 0, 2 and 4 starting at 0, 4 and 8 (log end 12)", () => {
    freshDir();
    const file = path.join(dir, 'leader-epoch-checkpoint');
    const cache = cacheIn(file);
    cache.assign(0, 0);
    cache.assign(2, 4);
    cache.assign(4, 8);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n3\n0 0\n2 4\n4 8\n');
    const answers = [-1, 0, 1, 2, 3, 4, 5].map((e) => [e, cache.endOffsetFor(e, 12)]);
    expect(answers).toEqual([
      [-1, { epoch: -1, endOffset: -1 }],
      [0, { epoch: 0, endOffset: 4 }],
      [1, { epoch: 0, endOffset: 4 }],
      [2, { epoch: 2, endOffset: 8 }],
      [3, { epoch: 2, endOffset: 8 }],
      [4, { epoch: 4, endOffset: 12 }],
      [5, { epoch: -1, endOffset: -1 }],
    ]);
    // Read back from the file as a restarted broker would.
    expect(cacheIn(file).epochEntries).toEqual([{ epoch: 0, startOffset: 0 }, { epoch: 2, startOffset: 4 }, { epoch: 4, startOffset: 8 }]);
  });

  it('assigns as Kafka does: the latest epoch again is nothing, a conflicting tail gives way', () => {
    freshDir();
    const cache = cacheIn(path.join(dir, 'leader-epoch-checkpoint'));
    cache.assign(0, 0);
    cache.assign(0, 5);
    cache.assign(3, 5);
    cache.assign(5, 5);
    expect(cache.epochEntries).toEqual([{ epoch: 0, startOffset: 0 }, { epoch: 5, startOffset: 5 }]);
    // An older epoch assigned later (a truncated leader's) drops every entry of this or a later epoch.
    cache.assign(4, 7);
    expect(cache.epochEntries).toEqual([{ epoch: 0, startOffset: 0 }, { epoch: 4, startOffset: 7 }]);
    expect(cache.latestEpoch).toBe(4);
  });

  it('truncates from the start (DeleteRecords, retention): the epoch holding the new start begins there', () => {
    freshDir();
    const file = path.join(dir, 'leader-epoch-checkpoint');
    const cache = cacheIn(file);
    for (const [epoch, start] of [[0, 0], [2, 4], [4, 8]]) cache.assign(epoch!, start!);
    cache.truncateFromStart(6);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n2\n2 6\n4 8\n');
    expect(cache.earliestEpochAt(6)).toBe(2);
    // An epoch before the first kept: its own number, ending where the first starts (Kafka's endOffsetFor).
    expect(cache.endOffsetFor(1, 12)).toEqual({ epoch: 1, endOffset: 6 });
    cache.truncateFromStart(8);
    expect(cache.epochEntries).toEqual([{ epoch: 4, startOffset: 8 }]);
    cache.truncateFromEnd(8);
    expect(cache.epochEntries).toEqual([{ epoch: 4, startOffset: 8 }]);
  });
});

describe('a log whose leader epoch rises', () => {
  it('stamps later batches with the new epoch, which starts at the log end in the cache and its file', async () => {
    freshDir();
    log = openLog();
    log.appendAsLeader(batch(3), 0);
    expect(checkpoint()).toBe('0\n1\n0 0\n');
    log.becomeLeader(3);
    log.becomeLeader(2); // an older epoch changes nothing
    log.appendAsLeader(batch(2), 0);
    expect(log.leaderEpoch).toBe(3);
    expect(epochsOnDisk()).toEqual([0, 3]);
    expect(checkpoint()).toBe('0\n2\n0 0\n3 3\n');
    expect(log.endOffsetForEpoch(0)).toEqual({ epoch: 0, endOffset: 3 });
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 0, endOffset: 3 });
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, endOffset: 5 });
    expect(log.fetchOffsetByTimestamp(-1)).toEqual({ offset: 5, timestamp: -1, leaderEpoch: 3 });
    expect(log.fetchOffsetByTimestamp(-2)).toEqual({ offset: 0, timestamp: -1, leaderEpoch: 0 });
    await log.close();
    // Loaded again at a later epoch (the metadata image's after another election): it starts at the log end.
    log = openLog(5);
    expect(checkpoint()).toBe('0\n3\n0 0\n3 3\n5 5\n');
    log.appendAsLeader(batch(1), 0);
    expect(epochsOnDisk()).toEqual([0, 3, 5]);
  });

  it('drops the epochs DeleteRecords and retention delete', () => {
    freshDir();
    log = openLog(0, config({ retentionMs: 1000, fileDeleteDelayMs: 60_000 }));
    log.appendAsLeader(batch(2, { timestamp: 1000 }), 0);
    log.becomeLeader(1);
    log.appendAsLeader(batch(2, { timestamp: 1000 }), 0);
    log.becomeLeader(2);
    log.appendAsLeader(batch(2, { timestamp: 5000 }), 0);
    expect(log.deleteRecordsBefore(3)).toBe(3);
    expect(checkpoint()).toBe('0\n2\n1 3\n2 4\n');
    expect(log.fetchOffsetByTimestamp(-2)).toEqual({ offset: 3, timestamp: -1, leaderEpoch: 1 });
    // Retention: the expired segment (offsets 0-5, rolled as it expires) goes, and with it every epoch but the last.
    log.roll();
    expect(log.deleteOldSegments(6500)).toBe(1);
    expect(log.logStartOffset).toBe(6);
    expect(checkpoint()).toBe('0\n1\n2 6\n');
  });
});
