import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crc32c } from '@node-rs/crc32';
import fc from 'fast-check';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import {
  CorruptRecordError,
  InvalidProducerEpochError,
  InvalidRecordError,
  RecordValidationError,
  OffsetOutOfRangeError,
  OutOfOrderSequenceError,
  RecordTooLargeError,
} from '../../storage/errors.js';
import { scanCounters } from '../../storage/file-records.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { batch, config, openLog, readSlice, tempDir } from './helpers.js';

let dir: string;
let log: UnifiedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

function segmentFiles(): string[] {
  return fs.readdirSync(path.join(dir, 'topic-0')).filter((f) => f.endsWith('.log')).sort();
}

describe('UnifiedLog appends and reads', () => {
  it('assigns offsets and reads whole batches as file slices', () => {
    dir = tempDir();
    log = openLog(dir, config());
    const r1 = log.appendAsLeader(batch(5), 1);
    const r2 = log.appendAsLeader(batch(3), 2);
    expect([r1.firstOffset, r1.lastOffset, r1.recordCount, r1.logAppendTime]).toEqual([0, 4, 5, -1]);
    expect([r2.firstOffset, r2.lastOffset]).toEqual([5, 7]);
    expect(log.logEndOffset).toBe(8);
    expect(log.highWatermark).toBe(8);

    const all = log.read(0, 1 << 20, true);
    expect(all.slices).toHaveLength(1);
    const bytes = readSlice(all.slices[0]);
    const first = decodeBatch(bytes.subarray(0, bytes.readInt32BE(8) + 12));
    expect(first.header.baseOffset).toBe(0);
    expect(first.header.partitionLeaderEpoch).toBe(0);
    expect(first.records.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);

    // A fetch inside a batch gets the whole batch.
    const middle = log.read(6, 1 << 20, true);
    expect(decodeBatch(readSlice(middle.slices[0])).header.baseOffset).toBe(5);
    // At the log end: empty. Beyond: out of range.
    expect(log.read(8, 100, true)).toEqual({ slices: [], bytes: 0 });
    expect(() => log!.read(9, 100, true)).toThrow(OffsetOutOfRangeError);
  });

  it('honours maxBytes with whole batches, and minOneBatch', () => {
    dir = tempDir();
    log = openLog(dir, config());
    for (let i = 0; i < 10; i++) log.appendAsLeader(batch(2, { valueSize: 100 }), 0);
    const size = log.size / 10;
    expect(log.read(0, size * 3 + 5, true).bytes).toBe(size * 3);
    expect(log.read(0, 10, true).bytes).toBe(size);
    expect(log.read(0, 10, false).bytes).toBe(0);
  });

  it('rejects bad batches', () => {
    dir = tempDir();
    log = openLog(dir, config({ maxMessageBytes: 500 }));
    const corrupt = batch(2);
    corrupt[corrupt.length - 1] ^= 0xff;
    expect(() => log!.appendAsLeader(corrupt, 0)).toThrow(CorruptRecordError);
    expect(() => log!.appendAsLeader(batch(20, { valueSize: 50 }), 0)).toThrow(RecordTooLargeError);
    expect(() => log!.appendAsLeader(Buffer.concat([batch(1), Buffer.alloc(5)]), 0)).toThrow(CorruptRecordError);
    const badCount = batch(2);
    badCount.writeInt32BE(3, 57);
    expect(() => log!.appendAsLeader(fixCrc(badCount), 0)).toThrow(InvalidRecordError);
    expect(log.logEndOffset).toBe(0);
  });

  it('requires keys on compacted topics', () => {
    dir = tempDir();
    log = openLog(dir, config({ cleanupPolicy: ['compact'] }));
    expect(() => log!.appendAsLeader(batch(2), 0)).toThrow(RecordValidationError);
    try {
      log.appendAsLeader(batch(2), 0);
    } catch (err) {
      expect((err as RecordValidationError).code).toBe(87);
      expect((err as RecordValidationError).recordErrors.map((e) => e.batchIndex)).toEqual([0, 1]);
    }
    log.appendAsLeader(batch(2, { key: (i) => Buffer.from(`k${i}`) }), 0);
    expect(log.logEndOffset).toBe(2);
  });

  it('refuses CreateTime timestamps outside message.timestamp.before/after.max.ms, listing the records', () => {
    dir = tempDir();
    log = openLog(dir, config({ messageTimestampBeforeMaxMs: 1000, messageTimestampAfterMaxMs: 1000 }));
    const now = 1_000_000;
    try {
      log.appendAsLeader(batch(3, { timestamp: now - 5000 }), now);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(RecordValidationError);
      expect((err as RecordValidationError).code).toBe(32);
      expect((err as RecordValidationError).recordErrors.map((e) => e.batchIndex)).toEqual([0, 1, 2]);
    }
    expect(log.logEndOffset).toBe(0);
    log.appendAsLeader(batch(3, { timestamp: now - 500 }), now);
    expect(log.logEndOffset).toBe(3);
  });

  it('applies LogAppendTime', () => {
    dir = tempDir();
    log = openLog(dir, config({ messageTimestampType: 'LogAppendTime' }));
    const r = log.appendAsLeader(batch(3, { timestamp: 5 }), 123456);
    expect(r.logAppendTime).toBe(123456);
    const decoded = decodeBatch(readSlice(log.read(0, 1 << 20, true).slices[0]));
    expect(decoded.header.isLogAppendTime).toBe(true);
    expect(decoded.records.map((x) => x.timestamp)).toEqual([123456, 123456, 123456]);
  });
});

describe('rolling', () => {
  it('rolls on segment.bytes', () => {
    dir = tempDir();
    log = openLog(dir, config({ segmentBytes: 1000 }));
    for (let i = 0; i < 10; i++) log.appendAsLeader(batch(1, { valueSize: 300 }), 0);
    expect(segmentFiles().length).toBeGreaterThanOrEqual(4);
    for (const s of log.segments.values()) expect(s.size).toBeLessThanOrEqual(1000);
    // Every offset is still readable across segments.
    for (let o = 0; o < 10; o++) expect(decodeBatch(readSlice(log.read(o, 1, true).slices[0])).header.baseOffset).toBe(o);
  });

  it('rolls on segment.ms by record timestamps, and on a full index', async () => {
    dir = tempDir();
    log = openLog(dir, config({ segmentMs: 1000 }));
    log.appendAsLeader(batch(1, { timestamp: 10_000 }), 0);
    log.appendAsLeader(batch(1, { timestamp: 10_500 }), 0);
    expect(segmentFiles()).toHaveLength(1);
    log.appendAsLeader(batch(1, { timestamp: 11_001 }), 0);
    expect(segmentFiles()).toEqual(['00000000000000000000.log', '00000000000000000002.log']);
    await log.close();

    const dir2 = path.join(dir, 'other');
    fs.mkdirSync(dir2);
    log = openLog(dir2, config({ segmentIndexBytes: 48, indexIntervalBytes: 0 }));
    for (let i = 0; i < 10; i++) log.appendAsLeader(batch(1, { timestamp: 5000 }), 0);
    // Six 8-byte entries fill the offset index (the first batch of a segment never gets one).
    const first = log.segments.values()[0];
    expect(first.offsetIndex.entries).toBe(6);
    expect(log.segments.values()[1].baseOffset).toBe(7);
  });

  it('rolls when offsets would overflow the relative int32', () => {
    dir = tempDir();
    log = openLog(dir, config());
    log.appendAsLeader(batch(1), 0);
    expect(
      log.segments.activeSegment.shouldRoll({ maxSegmentBytes: 1 << 30, maxSegmentMs: 1e12, messagesSize: 10, maxTimestampInMessages: 0, maxOffsetInMessages: 2 ** 31, now: 0 }),
    ).toBe(true);
  });
});

describe('lookups', () => {
  it('finds offsets by timestamp through the time index', () => {
    dir = tempDir();
    log = openLog(dir, config({ indexIntervalBytes: 100, segmentBytes: 2000 }));
    for (let i = 0; i < 50; i++) log.appendAsLeader(batch(4, { timestamp: 1000 + i * 10 }), 0);
    // Records of batch i have timestamps 1000+10i .. 1000+10i+3, offsets 4i .. 4i+3.
    expect(log.fetchOffsetByTimestamp(1000)).toEqual({ offset: 0, timestamp: 1000, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(1252)).toEqual({ offset: 102, timestamp: 1252, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(1255)).toEqual({ offset: 104, timestamp: 1260, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(999_999)).toBeNull();
    expect(log.fetchOffsetByTimestamp(-2)).toEqual({ offset: 0, timestamp: -1, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(-1)).toEqual({ offset: 200, timestamp: -1, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(-3)).toEqual({ offset: 199, timestamp: 1493, leaderEpoch: 0 });
  });

  it('reads any offset via index lookup in a multi-segment log', () => {
    dir = tempDir();
    log = openLog(dir, config({ indexIntervalBytes: 256, segmentBytes: 8192 }));
    for (let i = 0; i < 300; i++) log.appendAsLeader(batch(1 + (i % 3), { valueSize: 20 }), 0);
    for (let o = 0; o < log.logEndOffset; o += 7) {
      const h = decodeBatch(readSlice(log.read(o, 1, true).slices[0])).header;
      expect(h.baseOffset).toBeLessThanOrEqual(o);
      expect(h.lastOffset).toBeGreaterThanOrEqual(o);
    }
  });
});

describe('read boundaries', () => {
  it('returns the most whole batches of one segment that fit in maxBytes', () => {
    dir = tempDir();
    log = openLog(dir, config({ indexIntervalBytes: 200, segmentBytes: 20_000 }));
    for (let i = 0; i < 400; i++) log.appendAsLeader(batch(1 + (i % 4), { valueSize: 10 + ((i * 37) % 90) }), 0);
    const l = log;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: l.logEndOffset - 1 }), fc.integer({ min: 0, max: 30_000 }), fc.boolean(), (offset, maxBytes, minOne) => {
        const { slices, bytes } = l.read(offset, maxBytes, minOne);
        if (bytes === 0) {
          expect(minOne).toBe(false);
          return;
        }
        const buf = readSlice(slices[0]);
        const headers = [...batchesIn(buf)];
        const consumed = headers.reduce((n, h) => n + h.sizeInBytes, 0);
        expect(consumed).toBe(buf.length);
        expect(headers[0].baseOffset).toBeLessThanOrEqual(offset);
        expect(headers[0].lastOffset).toBeGreaterThanOrEqual(offset);
        if (headers.length > 1) expect(bytes).toBeLessThanOrEqual(maxBytes);
        // Maximal: the next batch in the same segment would not have fitted.
        const segment = l.segments.floorSegment(offset)!;
        const end = slices[0].position + bytes;
        const next = segment.log.readHeader(end);
        if (next) expect(bytes + next.sizeInBytes).toBeGreaterThan(Math.max(maxBytes, headers[0].sizeInBytes));
      }),
      { numRuns: 300 },
    );
  });
});

describe('idempotent producers', () => {
  it('returns the original offsets for a duplicate, rejects gaps and fenced epochs', () => {
    dir = tempDir();
    log = openLog(dir, config());
    const p = { producerId: 7, producerEpoch: 0 };
    expect(log.appendAsLeader(batch(3, { ...p, baseSequence: 0 }), 0).firstOffset).toBe(0);
    expect(log.appendAsLeader(batch(2, { ...p, baseSequence: 3 }), 0).firstOffset).toBe(3);
    const dup = log.appendAsLeader(batch(3, { ...p, baseSequence: 0 }), 0);
    expect([dup.firstOffset, dup.lastOffset]).toEqual([0, 2]);
    expect(log.logEndOffset).toBe(5);
    expect(() => log!.appendAsLeader(batch(1, { ...p, baseSequence: 9 }), 0)).toThrow(OutOfOrderSequenceError);
    // New epoch must start at 0; then the old epoch is fenced.
    expect(() => log!.appendAsLeader(batch(1, { producerId: 7, producerEpoch: 1, baseSequence: 5 }), 0)).toThrow(OutOfOrderSequenceError);
    log.appendAsLeader(batch(1, { producerId: 7, producerEpoch: 1, baseSequence: 0 }), 0);
    expect(() => log!.appendAsLeader(batch(1, { ...p, baseSequence: 5 }), 0)).toThrow(InvalidProducerEpochError);
    // An unknown producer starting mid-stream (its state expired, or its records were deleted) is
    // accepted, as Kafka does, and is then held to its sequence.
    expect(log.appendAsLeader(batch(1, { producerId: 8, producerEpoch: 0, baseSequence: 4 }), 0).firstOffset).toBe(6);
    expect(() => log!.appendAsLeader(batch(1, { producerId: 8, producerEpoch: 0, baseSequence: 7 }), 0)).toThrow(OutOfOrderSequenceError);
  });

  it('producer.id.expiration.ms forgets idle producer ids, never one with an open transaction', () => {
    dir = tempDir();
    log = openLog(dir, config());
    log.appendAsLeader(batch(1, { producerId: 7, producerEpoch: 0, baseSequence: 0, timestamp: 1_000 }), 0);
    log.appendAsLeader(batch(1, { producerId: 9, producerEpoch: 0, baseSequence: 0, timestamp: 1_000, isTransactional: true }), 0);
    log.appendAsLeader(batch(1, { producerId: 11, producerEpoch: 0, baseSequence: 0, timestamp: 5_000 }), 0);
    // Kafka's isProducerExpired: now - lastTimestamp >= producer.id.expiration.ms, and no open transaction.
    expect(log.removeExpiredProducers(10_000, 9_001)).toBe(0);
    expect(log.removeExpiredProducers(10_000, 9_000)).toBe(1);
    expect([...log.producerStateManager.activeProducers.keys()].sort()).toEqual([11, 9]);
    expect(log.removeExpiredProducers(100_000, 1)).toBe(1);
    expect([...log.producerStateManager.activeProducers.keys()]).toEqual([9]);
    // Forgotten, producer 7 is a new producer: a retry of its old batch is no longer recognised as a duplicate.
    expect(log.appendAsLeader(batch(1, { producerId: 7, producerEpoch: 0, baseSequence: 0 }), 0).firstOffset).toBe(3);
  });

  it('rebuilds producer state at start-up', async () => {
    dir = tempDir();
    log = openLog(dir, config());
    log.appendAsLeader(batch(3, { producerId: 7, producerEpoch: 0, baseSequence: 0 }), 0);
    await log.close();
    log = openLog(dir, config(), { hadCleanShutdown: true });
    expect(log.appendAsLeader(batch(3, { producerId: 7, producerEpoch: 0, baseSequence: 0 }), 0).firstOffset).toBe(0);
    expect(log.appendAsLeader(batch(1, { producerId: 7, producerEpoch: 0, baseSequence: 3 }), 0).firstOffset).toBe(3);
  });
});

describe('producer snapshots', () => {
  it('writes Kafka-format snapshots on roll and replays the log after the latest one', async () => {
    dir = tempDir();
    const cfg = config({ segmentBytes: 300 });
    log = openLog(dir, cfg);
    for (let seq = 0; seq < 12; seq += 2) log.appendAsLeader(batch(2, { producerId: 3, producerEpoch: 1, baseSequence: seq, valueSize: 40 }), 0);
    const snapshots = fs.readdirSync(log.dir).filter((f) => f.endsWith('.snapshot'));
    expect(snapshots.length).toBeGreaterThan(0);
    expect(snapshots.length).toBeLessThanOrEqual(2);
    const snapshot = fs.readFileSync(path.join(log.dir, snapshots[snapshots.length - 1]));
    expect(snapshot.readInt16BE(0)).toBe(1);
    expect(snapshot.readInt32BE(6)).toBe(1);
    expect(snapshot.length).toBe(10 + 46);
    // Crash: files closed without a snapshot at the end.
    log.segments.values().forEach((s) => s.close());
    log = openLog(dir, cfg, { hadCleanShutdown: false });
    const dup = log.appendAsLeader(batch(2, { producerId: 3, producerEpoch: 1, baseSequence: 10, valueSize: 40 }), 0);
    expect(dup.firstOffset).toBe(10);
    expect(() => log!.appendAsLeader(batch(1, { producerId: 3, producerEpoch: 1, baseSequence: 13 }), 0)).toThrow(OutOfOrderSequenceError);
    expect(log.appendAsLeader(batch(1, { producerId: 3, producerEpoch: 1, baseSequence: 12 }), 0).firstOffset).toBe(12);
  });
});

describe('loading after a clean close', () => {
  it('replays nothing past a producer snapshot at the log end: a few header reads, not one per batch', async () => {
    dir = tempDir();
    log = openLog(dir, config());
    for (let i = 0; i < 2000; i++) log.appendAsLeader(batch(1, { valueSize: 400 }), 0);
    for (let seq = 0; seq < 4; seq++) log.appendAsLeader(batch(1, { producerId: 9, producerEpoch: 0, baseSequence: seq }), 0);
    expect(log.segments.size).toBe(1);
    const end = log.logEndOffset;
    const logDir = log.dir;
    await log.close();
    expect(fs.readdirSync(logDir).filter((f) => f.endsWith('.snapshot'))).toEqual([`${String(end).padStart(20, '0')}.snapshot`]);
    const before = scanCounters.headerReads;
    log = openLog(dir, config(), { recoveryPoint: end, hadCleanShutdown: true });
    // The index tail check walks at most about index.interval.bytes of batches; the replay walks none.
    expect(scanCounters.headerReads - before).toBeLessThan(20);
    // The producer state came from the snapshot: the next sequence is accepted, a duplicate is answered as one.
    expect(log.appendAsLeader(batch(1, { producerId: 9, producerEpoch: 0, baseSequence: 3 }), 0).firstOffset).toBe(end - 1);
    expect(log.appendAsLeader(batch(1, { producerId: 9, producerEpoch: 0, baseSequence: 4 }), 0).firstOffset).toBe(end);
  });
});

describe('retention and log start offset', () => {
  it('deleteRecordsBefore moves the log start offset and deletes whole segments below it', () => {
    dir = tempDir();
    log = openLog(dir, config({ segmentBytes: 500, fileDeleteDelayMs: 60_000 }));
    for (let i = 0; i < 10; i++) log.appendAsLeader(batch(1, { valueSize: 200 }), 0);
    const before = log.segments.size;
    expect(log.deleteRecordsBefore(5)).toBe(5);
    expect(log.logStartOffset).toBe(5);
    expect(log.segments.size).toBeLessThan(before);
    expect(log.segments.firstSegment!.baseOffset).toBeLessThanOrEqual(5);
    expect(() => log!.read(4, 100, true)).toThrow(OffsetOutOfRangeError);
    expect(log.read(5, 1, true).bytes).toBeGreaterThan(0);
    expect(() => log!.deleteRecordsBefore(11)).toThrow(OffsetOutOfRangeError);
    // Deleted segments are renamed, not yet unlinked.
    expect(fs.readdirSync(log.dir).some((f) => f.endsWith('.log.deleted'))).toBe(true);
    expect(fs.readFileSync(path.join(log.dir, 'leader-epoch-checkpoint'), 'utf8')).toBe('0\n1\n0 5\n');
  });

  it('closes a deleted segment\'s descriptor at once; a slice taken before still reads it by its new name', () => {
    dir = tempDir();
    log = openLog(dir, config({ segmentBytes: 500, fileDeleteDelayMs: 60_000 }));
    for (let i = 0; i < 10; i++) log.appendAsLeader(batch(1, { valueSize: 200 }), 0);
    const openUnderLog = (): string[] =>
      fs.readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
          return target.startsWith(log!.dir) ? [path.basename(target)] : [];
        } catch {
          return [];
        }
      });
    const early = log.read(0, 10_000, true).slices[0]!;
    const expected = readSlice(early);
    expect(openUnderLog()).toContain('00000000000000000000.log');
    log.deleteRecordsBefore(5);
    expect(fs.existsSync(path.join(log.dir, '00000000000000000000.log.deleted'))).toBe(true);
    expect(openUnderLog().filter((f) => f.includes('.deleted'))).toEqual([]);
    expect(readSlice(early)).toEqual(expected);
  });

  it('deletes by time, rolling an expired active segment, and unlinks after file.delete.delay.ms', async () => {
    dir = tempDir();
    log = openLog(dir, config({ retentionMs: 1000, fileDeleteDelayMs: 20 }));
    log.appendAsLeader(batch(2, { timestamp: 1000 }), 0);
    log.appendAsLeader(batch(2, { timestamp: 1500 }), 0);
    expect(log.deleteOldSegments(2200)).toBe(0);
    expect(log.deleteOldSegments(2600)).toBe(1);
    expect(log.logStartOffset).toBe(4);
    expect(log.segments.size).toBe(1);
    expect(log.segments.activeSegment.baseOffset).toBe(4);
    expect(log.deleteOldSegments(1e13)).toBe(0); // the empty active segment stays
    await new Promise((r) => setTimeout(r, 60));
    expect(fs.readdirSync(log.dir).filter((f) => f.includes('.deleted'))).toEqual([]);
  });

  it('deletes by size, oldest first, keeping at least retention.bytes', () => {
    dir = tempDir();
    log = openLog(dir, config({ retentionBytes: 1000, retentionMs: -1, segmentBytes: 400 }));
    for (let i = 0; i < 12; i++) log.appendAsLeader(batch(1, { valueSize: 100 }), 0);
    const deleted = log.deleteOldSegments(Date.now());
    expect(deleted).toBeGreaterThan(0);
    // Kafka keeps at least retention.bytes: one more deletion would go below it.
    expect(log.size).toBeGreaterThanOrEqual(1000);
    expect(log.size - log.segments.firstSegment!.size).toBeLessThan(1000);
    expect(log.logStartOffset).toBe(log.segments.firstSegment!.baseOffset);
  });
});

describe('flush', () => {
  it('group-commits: concurrent callers share fsyncs and the recovery point advances', async () => {
    dir = tempDir();
    log = openLog(dir, config());
    log.appendAsLeader(batch(1), 0);
    const a = log.flush();
    log.appendAsLeader(batch(1), 0);
    const b = log.flush();
    const c = log.flush();
    expect(b).toBe(c);
    await Promise.all([a, b, c]);
    expect(log.recoveryPoint).toBe(2);
    await log.flush();
  });
});

function fixCrc(buf: Buffer): Buffer {
  buf.writeUInt32BE(crc32c(buf.subarray(21)) >>> 0, 17);
  return buf;
}
