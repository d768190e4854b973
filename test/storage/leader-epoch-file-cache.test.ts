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

function openLog(leaderEpoch?: number, cfg = config(), state: { recoveryPoint?: number; hadCleanShutdown?: boolean } = {}): UnifiedLog {
  return UnifiedLog.load({
    dir: path.join(dir, 'topic-0'), topic: 'topic', partition: 0, topicId: '00112233445566778899aabbccddeeff', config: cfg, logger: silentLogger,
    recoveryPoint: 0, logStartOffset: 0, hadCleanShutdown: false, leaderEpoch, ...state,
  });
}

const checkpointFile = (): string => path.join(dir, 'topic-0', 'leader-epoch-checkpoint');
const checkpoint = (): string => fs.readFileSync(checkpointFile(), 'utf8');
const segmentFile = (base = 0): string => path.join(dir, 'topic-0', `${String(base).padStart(20, '0')}.log`);
const epochsOnDisk = (): number[] => [...batchesIn(fs.readFileSync(segmentFile()))].map((b) => b.partitionLeaderEpoch);

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
    // Read back from the file as a restarted broker would: the same answers.
    const reread = cacheIn(file);
    expect(answers.map(([e]) => [e, reread.endOffsetFor(e as number, 12)])).toEqual(answers);
  });

  it('assigns as Kafka does: the latest epoch again is nothing, a conflicting tail gives way', () => {
    freshDir();
    const file = path.join(dir, 'leader-epoch-checkpoint');
    const cache = cacheIn(file);
    cache.assign(0, 0);
    cache.assign(0, 5);
    cache.assign(3, 5);
    cache.assign(5, 5);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n2\n0 0\n5 5\n');
    // An older epoch assigned later (a truncated leader's) drops every entry of this or a later epoch.
    cache.assign(4, 7);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n2\n0 0\n4 7\n');
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
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n1\n4 8\n');
    // The first epoch stays even where the log ends at its start (an empty log keeps its file unchanged).
    cache.truncateFromEnd(8);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n1\n4 8\n');
    expect(cache.endOffsetFor(4, 8)).toEqual({ epoch: 4, endOffset: 8 });
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

/**
 * A log of epochs 0, 2 and 4 (offsets 0-2, 3-4 and 5-7), each batch stamped with its epoch, closed with
 * leader-epoch-checkpoint `0 0, 2 3, 4 5`; with `rollEach`, each epoch in a segment of its own (bases 0, 3, 5).
 */
async function writeEpochs(rollEach = false): Promise<void> {
  log = openLog(0);
  log.appendAsLeader(batch(3), 0);
  for (const [epoch, count] of [[2, 2], [4, 3]]) {
    if (rollEach) log.roll();
    log.becomeLeader(epoch!);
    log.appendAsLeader(batch(count!), 0);
  }
  await log.close();
  log = undefined;
  expect(checkpoint()).toBe(FULL_CHECKPOINT);
}

const FULL_CHECKPOINT = '0\n3\n0 0\n2 3\n4 5\n';

/** What clients see of the epochs: OffsetForLeaderEpoch for epochs -1 to 5, ListOffsets earliest and latest. */
function epochAnswers(l: UnifiedLog): unknown[] {
  return [
    ...[-1, 0, 1, 2, 3, 4, 5].map((e) => l.endOffsetForEpoch(e)),
    l.fetchOffsetByTimestamp(-2),
    l.fetchOffsetByTimestamp(-1),
  ];
}

const ANSWERS = [
  { epoch: -1, endOffset: -1 }, { epoch: 0, endOffset: 3 }, { epoch: 0, endOffset: 3 }, { epoch: 2, endOffset: 5 }, { epoch: 2, endOffset: 5 },
  { epoch: 4, endOffset: 8 }, { epoch: -1, endOffset: -1 },
  { offset: 0, timestamp: -1, leaderEpoch: 0 }, { offset: 8, timestamp: -1, leaderEpoch: 4 },
];

describe("recovery rebuilds the epochs from the batch headers (Kafka's LogSegment.recover and LogLoader)", () => {
  it.each([
    { lost: 'the whole file', rollEach: false, left: null, recoveryPoint: 0 },
    // The file of before the last two elections; the segments from offset 3 on were not flushed.
    { lost: 'the entries of the segments after the recovery point', rollEach: true, left: '0\n1\n0 0\n', recoveryPoint: 3 },
  ])('rebuilds $lost of leader-epoch-checkpoint from the recovered batches', async ({ rollEach, left, recoveryPoint }) => {
    freshDir();
    await writeEpochs(rollEach);
    if (left === null) fs.rmSync(checkpointFile());
    else fs.writeFileSync(checkpointFile(), left);
    log = openLog(4, config(), { recoveryPoint });
    expect(checkpoint()).toBe(FULL_CHECKPOINT);
    expect(epochAnswers(log)).toEqual(ANSWERS);
  });

  it('leaves the epochs below the recovery point, and after a clean shutdown the whole file, as they are', async () => {
    freshDir();
    await writeEpochs(true);
    // Epoch 2's entry was lost but its segment (3-4) is below the recovery point: nothing re-reads its batches.
    fs.writeFileSync(checkpointFile(), '0\n2\n0 0\n4 5\n');
    log = openLog(4, config(), { recoveryPoint: 5 });
    expect(checkpoint()).toBe('0\n2\n0 0\n4 5\n');
    await log.close();
    log = openLog(4, config(), { recoveryPoint: 0, hadCleanShutdown: true });
    expect(checkpoint()).toBe('0\n2\n0 0\n4 5\n');
  });

  it('drops the epochs of a corrupt tail that recovery truncates; the current epoch starts at the new log end', async () => {
    freshDir();
    await writeEpochs();
    // Epoch 2's batch torn: it and epoch 4's go, and with them their entries.
    const [, second] = [...batchesIn(fs.readFileSync(segmentFile()))];
    fs.truncateSync(segmentFile(), second!.pos + second!.sizeInBytes - 1);
    log = openLog(4);
    expect(log.logEndOffset).toBe(3);
    expect(checkpoint()).toBe('0\n2\n0 0\n4 3\n');
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 0, endOffset: 3 });
    // A lost file and a garbage tail: the epochs come from the valid batches only.
    await log.close();
    log = undefined;
    fs.rmSync(checkpointFile());
    fs.appendFileSync(segmentFile(), Buffer.alloc(100, 0xff));
    log = openLog(4, config(), { hadCleanShutdown: true });
    expect(log.logEndOffset).toBe(3);
    expect(checkpoint()).toBe('0\n2\n0 0\n4 3\n');
  });
});
