// Log side of transactions: transactional batches, markers, the LSO, .txnindex and read_committed reads.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch, type KafkaRecord } from '../../protocol/records/record-batch.js';
import { InvalidProducerEpochError, InvalidRecordError, InvalidTxnStateError, TransactionCoordinatorFencedError } from '../../storage/errors.js';
import { OffsetCheckpointFile } from '../../storage/checkpoint-file.js';
import { LogCleaner } from '../../storage/log-cleaner.js';
import { TransactionIndex } from '../../storage/transaction-index.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { config, openLog, readSlice, silentLogger, tempDir } from './helpers.js';

let dir: string;
let log: UnifiedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const sequences = new Map<number, number>();

/** A transactional (or plain idempotent) batch of `count` records from `producerId`, with the next sequence. */
function txnBatch(producerId: number, count: number, opts: { epoch?: number; transactional?: boolean; valueSize?: number } = {}): Buffer {
  const seq = sequences.get(producerId) ?? 0;
  sequences.set(producerId, seq + count);
  const records: KafkaRecord[] = [];
  for (let i = 0; i < count; i++) {
    records.push({ offset: i, timestamp: 1_700_000_000_000 + i, key: Buffer.from(`k${i}`), value: Buffer.alloc(opts.valueSize ?? 20, 7), headers: [] });
  }
  return encodeBatch({
    baseOffset: 0,
    records,
    producerId,
    producerEpoch: opts.epoch ?? 0,
    baseSequence: seq,
    isTransactional: opts.transactional ?? true,
  });
}

function partitionDir(): string {
  return path.join(dir, 'topic-0');
}

function txnIndexFiles(): string[] {
  return fs.readdirSync(partitionDir()).filter((f) => f.endsWith('.txnindex')).sort();
}

function txnIndexBytes(baseOffset = 0): Buffer {
  return fs.readFileSync(path.join(partitionDir(), `${String(baseOffset).padStart(20, '0')}.txnindex`));
}

/** The 34-byte entry Kafka's TransactionIndex writes, built independently of the code under test. */
function expectedEntry(producerId: number, firstOffset: number, lastOffset: number, lso: number): Buffer {
  const b = Buffer.alloc(34);
  b.writeInt16BE(0, 0);
  b.writeBigInt64BE(BigInt(producerId), 2);
  b.writeBigInt64BE(BigInt(firstOffset), 10);
  b.writeBigInt64BE(BigInt(lastOffset), 18);
  b.writeBigInt64BE(BigInt(lso), 26);
  return b;
}

function allBatches(l: UnifiedLog): ReturnType<typeof decodeBatch>[] {
  const out: ReturnType<typeof decodeBatch>[] = [];
  for (const seg of l.segments.values()) {
    const buf = seg.log.read(0, seg.size);
    for (const h of batchesIn(buf)) out.push(decodeBatch(buf.subarray(h.pos, h.pos + h.sizeInBytes)));
  }
  return out;
}

describe('transactional appends and markers', () => {
  it('holds the LSO at the first offset of the oldest open transaction until its marker', () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(1, 2, { transactional: false }), 0); // 0-1 idempotent, not in a txn
    expect(log.lastStableOffset).toBe(2);
    log.appendAsLeader(txnBatch(7, 3), 0); // 2-4, txn of producer 7
    expect(log.hasOngoingTransaction(7n)).toBe(true);
    expect(log.hasOngoingTransaction(8)).toBe(false);
    expect(log.lastStableOffset).toBe(2);
    log.appendAsLeader(txnBatch(8, 2), 0); // 5-6, txn of producer 8
    log.appendAsLeader(txnBatch(7, 1), 0); // 7
    expect(log.highWatermark).toBe(8);
    expect(log.lastStableOffset).toBe(2);

    const commit = log.appendTransactionMarker(7n, 0, 3, true, 1234);
    expect([commit.firstOffset, commit.lastOffset]).toEqual([8, 8]);
    expect(log.hasOngoingTransaction(7n)).toBe(false);
    expect(log.lastStableOffset).toBe(5); // producer 8's txn still open
    log.appendTransactionMarker(8n, 0, 3, true, 1235);
    expect(log.lastStableOffset).toBe(10);
    expect(log.lastStableOffset).toBe(log.highWatermark);
    expect(log.producerStateManager.activeProducers.get(7)!.coordinatorEpoch).toBe(3);
    expect(txnIndexBytes().length).toBe(0); // commits add nothing to the .txnindex
  });

  it('keeps the LSO at or above the log start offset', () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(7, 2), 0); // 0-1, open
    log.appendAsLeader(txnBatch(8, 2, { transactional: false }), 0); // 2-3
    expect(log.lastStableOffset).toBe(0);
    log.deleteRecordsBefore(1);
    expect(log.lastStableOffset).toBe(1);
    expect(log.readCommitted(1, 1 << 20, true).bytes).toBe(0);
    log.appendTransactionMarker(7, 0, 0, true, 0);
    expect(log.lastStableOffset).toBe(5);
  });

  it('writes the marker as a control batch in Kafka layout', async () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(42, 2, { epoch: 5 }), 0);
    const r = log.appendTransactionMarker(42n, 5, 17, false, 1_700_000_000_999);
    await r.flushed;
    expect(log.recoveryPoint).toBe(3); // on disk, as acks=all would be
    const marker = allBatches(log)[1];
    const h = marker.header;
    expect([h.baseOffset, h.isControl, h.isTransactional, h.producerId, h.producerEpoch, h.baseSequence, h.recordsCount]).toEqual([2, true, true, 42, 5, -1, 1]);
    expect(h.attributes & 0x30).toBe(0x30);
    expect(marker.records[0].key).toEqual(Buffer.from([0, 0, 0, 0])); // version 0, type 0 = ABORT
    expect(marker.records[0].value).toEqual(Buffer.from([0, 0, 0, 0, 0, 17])); // version 0, coordinatorEpoch 17
    expect(marker.records[0].timestamp).toBe(1_700_000_000_999);
    const commit = log.appendTransactionMarker(42n, 5, 17, true, 0);
    expect(allBatches(log)[2].records[0].key).toEqual(Buffer.from([0, 0, 0, 1]));
    await commit.flushed;
  });

  it('indexes aborted transactions in .txnindex with Kafka\'s 34-byte entries', () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(7, 3), 0); // 0-2
    log.appendAsLeader(txnBatch(9, 2), 0); // 3-4
    log.appendTransactionMarker(7n, 0, 0, false, 0); // 5: abort 7; producer 9 still open from 3
    log.appendTransactionMarker(9n, 0, 0, false, 0); // 6: abort 9; nothing open: LSO 7
    log.appendTransactionMarker(9n, 0, 0, false, 0); // 7: abort without data here: no entry
    expect(txnIndexBytes()).toEqual(Buffer.concat([expectedEntry(7, 0, 5, 3), expectedEntry(9, 3, 6, 7)]));
  });

  it('rejects a control batch from a client and changes nothing', () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(7, 1), 0);
    const forged = encodeBatch({
      baseOffset: 0,
      records: [{ offset: 0, timestamp: 0, key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]), headers: [] }],
      producerId: 7,
      producerEpoch: 0,
      isTransactional: true,
      isControl: true,
    });
    let error: unknown;
    try {
      log.appendAsLeader(forged, 0);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidRecordError);
    expect((error as InvalidRecordError).code).toBe(87);
    expect(log.logEndOffset).toBe(1);
    expect(log.hasOngoingTransaction(7)).toBe(true);
    expect(log.lastStableOffset).toBe(0);
  });

  it('fences markers with an older producer or coordinator epoch, and plain writes inside a transaction', () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(7, 1, { epoch: 3 }), 0);
    log.appendTransactionMarker(7n, 3, 10, true, 0);
    log.appendAsLeader(txnBatch(7, 1, { epoch: 3 }), 0); // 2: next txn
    const end = log.logEndOffset;
    expect(() => log!.appendTransactionMarker(7n, 2, 10, false, 0)).toThrow(InvalidProducerEpochError);
    expect(() => log!.appendTransactionMarker(7n, 3, 9, false, 0)).toThrow(TransactionCoordinatorFencedError);
    expect(() => log!.appendAsLeader(txnBatch(7, 1, { epoch: 3, transactional: false }), 0)).toThrow(InvalidTxnStateError);
    expect(log.logEndOffset).toBe(end);
    expect(log.hasOngoingTransaction(7)).toBe(true);
    expect(log.lastStableOffset).toBe(2);
  });

  it('under transaction version 2 takes only a marker whose epoch is above the producer\'s (the coordinator bumps it at every end)', () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(7, 2, { epoch: 3 }), 0); // 0-1, open at epoch 3
    // A marker at the data's epoch is a late one of an earlier transaction: refused, nothing changes.
    expect(() => log!.appendTransactionMarker(7n, 3, 0, true, 0, 2)).toThrow(InvalidProducerEpochError);
    expect(() => log!.appendTransactionMarker(7n, 2, 0, true, 0, 2)).toThrow(InvalidProducerEpochError);
    expect(log.logEndOffset).toBe(2);
    expect(log.hasOngoingTransaction(7)).toBe(true);
    expect(log.lastStableOffset).toBe(0);
    log.appendTransactionMarker(7n, 4, 0, true, 0, 2); // 2
    expect(log.hasOngoingTransaction(7)).toBe(false);
    expect(log.lastStableOffset).toBe(3);
    // The same marker again (its Prepare* completed again after a restart) ends no transaction: taken (KAFKA-19999).
    log.appendTransactionMarker(7n, 4, 0, true, 0, 2); // 3
    sequences.set(7, 0);
    log.appendAsLeader(txnBatch(7, 1, { epoch: 4 }), 0); // 4, the next transaction
    expect(() => log!.appendTransactionMarker(7n, 4, 0, false, 0, 2)).toThrow(InvalidProducerEpochError);
    expect(log.logEndOffset).toBe(5);
    expect(log.hasOngoingTransaction(7)).toBe(true);
    // Version 0/1 markers (WriteTxnMarkers before v2 carries none) keep the old rule: the same epoch is fine.
    log.appendTransactionMarker(7n, 4, 0, false, 0); // 5
    expect(log.hasOngoingTransaction(7)).toBe(false);
    expect(allBatches(log).filter((b) => b.header.isControl).map((b) => b.header.producerEpoch)).toEqual([4, 4, 4]);
  });
});

describe('read_committed reads', () => {
  it('stop at the LSO and return the aborted transactions of the range', () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(7, 2), 0); // 0-1 aborted
    log.appendTransactionMarker(7n, 0, 0, false, 0); // 2
    log.appendAsLeader(txnBatch(8, 2), 0); // 3-4 committed
    log.appendTransactionMarker(8n, 0, 0, true, 0); // 5
    log.appendAsLeader(txnBatch(9, 2), 0); // 6-7 open
    expect(log.lastStableOffset).toBe(6);

    const committed = log.readCommitted(0, 1 << 20, true);
    const offsets = [...batchesIn(readSlice(committed.slices[0]))].map((h) => h.baseOffset);
    expect(offsets).toEqual([0, 2, 3, 5]);
    expect(committed.abortedTransactions).toEqual([{ producerId: 7, firstOffset: 0 }]);
    // read_uncommitted sees everything.
    expect([...batchesIn(readSlice(log.read(0, 1 << 20, true).slices[0]))].map((h) => h.baseOffset)).toEqual([0, 2, 3, 5, 6]);
    // At or past the LSO: nothing yet, no error.
    expect(log.readCommitted(6, 1 << 20, true)).toEqual({ slices: [], bytes: 0, abortedTransactions: [] });
    // From the committed data on: no aborted transaction overlaps.
    expect(log.readCommitted(3, 1 << 20, true).abortedTransactions).toEqual([]);
    log.appendTransactionMarker(9n, 0, 0, true, 0);
    expect([...batchesIn(readSlice(log.readCommitted(6, 1 << 20, true).slices[0]))].map((h) => h.baseOffset)).toEqual([6, 8]);
  });

  it('finds aborted transactions whose marker is in a later segment', () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config());
    log.appendAsLeader(txnBatch(7, 2), 0); // 0-1
    log.roll();
    log.appendAsLeader(txnBatch(8, 1, { transactional: false }), 0); // 2
    log.appendTransactionMarker(7n, 0, 0, false, 0); // 3, in segment 2
    expect(txnIndexFiles()).toEqual(['00000000000000000000.txnindex', '00000000000000000002.txnindex']);
    expect(txnIndexBytes(2)).toEqual(expectedEntry(7, 0, 3, 4));
    const r = log.readCommitted(0, 1 << 20, true);
    expect(r.bytes).toBeGreaterThan(0);
    expect(r.abortedTransactions).toEqual([{ producerId: 7, firstOffset: 0 }]);
  });
});

describe('.txnindex life cycle and recovery', () => {
  async function abortedLog(): Promise<Buffer[]> {
    dir = tempDir();
    sequences.clear();
    const l = openLog(dir, config());
    l.appendAsLeader(txnBatch(7, 2), 0); // 0-1
    l.appendAsLeader(txnBatch(8, 2), 0); // 2-3
    l.roll();
    l.appendTransactionMarker(7n, 0, 0, false, 0); // 4
    l.appendAsLeader(txnBatch(9, 2), 0); // 5-6
    l.roll();
    l.appendTransactionMarker(8n, 0, 0, false, 0); // 7
    l.appendTransactionMarker(9n, 0, 0, true, 0); // 8
    l.appendAsLeader(txnBatch(10, 1), 0); // 9, left open
    await l.close();
    return [txnIndexBytes(0), txnIndexBytes(4), txnIndexBytes(7)];
  }

  it('rebuilds a deleted .txnindex at start-up', async () => {
    const before = await abortedLog();
    expect(before[1]).toEqual(expectedEntry(7, 0, 4, 2));
    expect(before[2]).toEqual(expectedEntry(8, 2, 7, 5)); // producer 9 open from 5
    fs.rmSync(path.join(partitionDir(), '00000000000000000004.txnindex'));
    fs.rmSync(path.join(partitionDir(), '00000000000000000007.txnindex'));
    log = openLog(dir, config(), { recoveryPoint: 10, hadCleanShutdown: true });
    expect([txnIndexBytes(0), txnIndexBytes(4), txnIndexBytes(7)]).toEqual(before);
    expect(log.readCommitted(0, 1 << 20, true).abortedTransactions).toEqual([
      { producerId: 7, firstOffset: 0 },
      { producerId: 8, firstOffset: 2 },
    ]);
    expect(log.lastStableOffset).toBe(9);
  });

  it('rebuilds a damaged .txnindex and those of recovered segments', async () => {
    const before = await abortedLog();
    fs.appendFileSync(path.join(partitionDir(), '00000000000000000004.txnindex'), Buffer.from([1, 2, 3]));
    fs.writeFileSync(path.join(partitionDir(), '00000000000000000007.txnindex'), Buffer.alloc(0));
    // Unclean shutdown with nothing flushed: every segment is recovered.
    log = openLog(dir, config(), { recoveryPoint: 0, hadCleanShutdown: false });
    expect([txnIndexBytes(0), txnIndexBytes(4), txnIndexBytes(7)]).toEqual(before);
    expect(log.lastStableOffset).toBe(9);
  });

  it('producer snapshots carry open transactions and coordinator epochs across a restart', async () => {
    dir = tempDir();
    sequences.clear();
    let l = openLog(dir, config());
    l.appendAsLeader(txnBatch(7, 2, { epoch: 1 }), 0); // 0-1
    l.appendTransactionMarker(7n, 1, 4, true, 0); // 2
    l.appendAsLeader(txnBatch(7, 2, { epoch: 1 }), 0); // 3-4, open
    await l.close();
    const snapshots = fs.readdirSync(partitionDir()).filter((f) => f.endsWith('.snapshot'));
    expect(snapshots).toEqual(['00000000000000000005.snapshot']);
    // Kafka's v1 entry: coordinatorEpoch at 34, currentTxnFirstOffset at 38 (after a 10-byte header).
    const snap = fs.readFileSync(path.join(partitionDir(), snapshots[0]));
    expect(snap.readInt32BE(10 + 34)).toBe(4);
    expect(snap.readBigInt64BE(10 + 38)).toBe(3n);
    l = log = openLog(dir, config(), { recoveryPoint: 5, hadCleanShutdown: true });
    expect(l.lastStableOffset).toBe(3);
    expect(l.hasOngoingTransaction(7)).toBe(true);
    expect(() => l.appendTransactionMarker(7n, 1, 3, true, 0)).toThrow(TransactionCoordinatorFencedError);
    l.appendTransactionMarker(7n, 1, 4, false, 0);
    expect(txnIndexBytes()).toEqual(expectedEntry(7, 3, 5, 6));
  });

  it('rebuilds open transactions from the log after a crash (no snapshot)', () => {
    dir = tempDir();
    sequences.clear();
    const crashed = openLog(dir, config());
    crashed.appendAsLeader(txnBatch(7, 2), 0); // 0-1
    crashed.appendAsLeader(txnBatch(8, 1), 0); // 2
    crashed.appendTransactionMarker(7, 0, 2, false, 0); // 3
    // No close: as after kill -9, only what reached the files is there, and no snapshot was written.
    expect(fs.readdirSync(partitionDir()).filter((f) => f.endsWith('.snapshot'))).toEqual([]);
    log = openLog(dir, config(), { recoveryPoint: 0, hadCleanShutdown: false });
    expect(log.hasOngoingTransaction(8)).toBe(true);
    expect(log.hasOngoingTransaction(7)).toBe(false);
    expect(log.lastStableOffset).toBe(2);
    expect(log.producerStateManager.activeProducers.get(7)!.coordinatorEpoch).toBe(2);
    expect(txnIndexBytes()).toEqual(expectedEntry(7, 0, 3, 2));
    for (const seg of crashed.segments.values()) seg.close();
  });

  it('a .txnindex whose flush failed is flushed again by the next one', async () => {
    dir = tempDir();
    const file = path.join(dir, '00000000000000000000.txnindex');
    const index = TransactionIndex.create(file, 0);
    index.append({ producerId: 7, firstOffset: 0, lastOffset: 3, lastStableOffset: 4 });
    const failing = index.beginFlush()!;
    // Its fdatasync cannot open the file (moved away here; EMFILE at the descriptor limit, which leaves the
    // log online), so the entry is not known to be on disk.
    fs.renameSync(file, `${file}.away`);
    await expect(failing()).rejects.toThrow(/ENOENT/);
    fs.renameSync(`${file}.away`, file);
    const retry = index.beginFlush();
    expect(retry).not.toBeNull();
    await retry!();
    expect(index.beginFlush()).toBeNull();
    index.close();
  });

  it('deletes a segment\'s .txnindex with the segment', async () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config({ fileDeleteDelayMs: 0 }));
    log.appendAsLeader(txnBatch(7, 2), 0);
    log.appendTransactionMarker(7n, 0, 0, false, 0);
    log.roll();
    log.appendAsLeader(txnBatch(8, 1, { transactional: false }), 0);
    expect(txnIndexFiles()).toEqual(['00000000000000000000.txnindex', '00000000000000000003.txnindex']);
    log.deleteRecordsBefore(3);
    await new Promise((r) => setTimeout(r, 20));
    expect(txnIndexFiles()).toEqual(['00000000000000000003.txnindex']);
    expect(fs.readdirSync(partitionDir()).filter((f) => f.startsWith('00000000000000000000'))).toEqual([]);
  });
});

describe('compaction of transactional data', () => {
  function keyed(producerId: number, entries: Array<[string, string]>, transactional = true): Buffer {
    const seq = sequences.get(producerId) ?? 0;
    if (producerId >= 0) sequences.set(producerId, seq + entries.length);
    return encodeBatch({
      baseOffset: 0,
      records: entries.map(([k, v], i) => ({ offset: i, timestamp: 1_700_000_000_000, key: Buffer.from(k), value: Buffer.from(v), headers: [] })),
      producerId: producerId >= 0 ? producerId : undefined,
      producerEpoch: producerId >= 0 ? 0 : undefined,
      baseSequence: producerId >= 0 ? seq : undefined,
      isTransactional: producerId >= 0 && transactional,
    });
  }

  function cleaner(l: UnifiedLog): LogCleaner {
    return new LogCleaner({ logger: silentLogger, backoffMs: 1000, checkpointFor: () => new OffsetCheckpointFile(path.join(dir, 'cleaner-offset-checkpoint')), logsIn: () => [l] });
  }

  /** Every batch: [baseOffset, kind, key=value...]. */
  function layout(l: UnifiedLog): string[] {
    return allBatches(l).map(({ header, records }) => {
      const kind = header.isControl ? (records.length === 0 ? 'empty-marker' : records[0].key![3] === 1 ? 'COMMIT' : 'ABORT') : header.isTransactional ? 'txn' : 'plain';
      return `${header.baseOffset} ${kind}${header.isControl ? '' : ' ' + records.map((r) => `${r.key}=${r.value}`).join(',')}`;
    });
  }

  it('drops aborted records, keeps markers while their data remains, then drops them after delete.retention.ms', async () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config({ cleanupPolicy: 'compact', deleteRetentionMs: 1000, minCompactionLagMs: 0 }));
    log.appendAsLeader(keyed(-1, [['a', 'v1']]), 0); // 0
    log.appendAsLeader(keyed(7, [['a', 'aborted'], ['b', 'aborted']]), 0); // 1-2
    log.appendTransactionMarker(7, 0, 0, false, 0); // 3
    log.appendAsLeader(keyed(8, [['c', 'c1']]), 0); // 4
    log.appendTransactionMarker(8, 0, 0, true, 0); // 5
    log.roll();
    log.appendAsLeader(keyed(7, [['d', 'd1']]), 0); // 6
    log.appendTransactionMarker(7, 0, 0, true, 0); // 7
    log.roll();
    log.appendAsLeader(keyed(-1, [['z', '1']]), 0); // 8
    expect(txnIndexBytes()).toEqual(expectedEntry(7, 1, 3, 4));

    const t = 1_800_000_000_000;
    const c = cleaner(log);
    expect(await c.cleanLog(log, t)).not.toBeNull();
    // a=v1 survives: the aborted a never shadowed it. Both markers stay: their transactions' batches were seen.
    expect(layout(log)).toEqual(['0 plain a=v1', '3 ABORT', '4 txn c=c1', '5 COMMIT', '6 txn d=d1', '7 COMMIT', '8 plain z=1']);
    expect(txnIndexBytes()).toEqual(expectedEntry(7, 1, 3, 4));
    expect(log.readCommitted(0, 1 << 20, true).abortedTransactions).toEqual([{ producerId: 7, firstOffset: 1 }]);

    // Second pass: the ABORT marker has no data left, so it gets a delete horizon; the COMMIT markers keep their data.
    log.roll();
    log.appendAsLeader(keyed(-1, [['z', '2']]), 0); // 9
    log.roll();
    expect(await c.cleanLog(log, t + 10)).not.toBeNull();
    const abortMarker = allBatches(log).find((b) => b.header.baseOffset === 3)!.header;
    expect(abortMarker.hasDeleteHorizon).toBe(true);
    expect(abortMarker.baseTimestamp).toBe(t + 10 + 1000);
    expect(layout(log)).toEqual(['0 plain a=v1', '3 ABORT', '4 txn c=c1', '5 COMMIT', '6 txn d=d1', '7 COMMIT', '9 plain z=2']);

    // Past the horizon the marker and its .txnindex entry go.
    log.appendAsLeader(keyed(-1, [['y', '1']]), 0); // 10
    log.roll();
    expect(await c.cleanLog(log, t + 2000)).not.toBeNull();
    expect(layout(log)).toEqual(['0 plain a=v1', '4 txn c=c1', '5 COMMIT', '6 txn d=d1', '7 COMMIT', '9 plain z=2', '10 plain y=1']);
    expect(txnIndexBytes().length).toBe(0);
    expect(log.readCommitted(0, 1 << 20, true).abortedTransactions).toEqual([]);
  });

  it('keeps the last batch of an active producer, emptied, and never cleans past an open transaction', async () => {
    dir = tempDir();
    sequences.clear();
    log = openLog(dir, config({ cleanupPolicy: 'compact', deleteRetentionMs: 1000, minCompactionLagMs: 0 }));
    log.appendAsLeader(keyed(7, [['a', 'x']]), 0); // 0
    log.appendTransactionMarker(7, 0, 0, false, 0); // 1: producer 7's last data batch is aborted
    log.roll();
    log.appendAsLeader(keyed(9, [['k', 'open']]), 0); // 2: open transaction
    log.appendAsLeader(keyed(-1, [['k', 'plain']]), 0); // 3
    log.roll();
    log.appendAsLeader(keyed(-1, [['z', '1']]), 0); // 4
    await cleaner(log).cleanLog(log, 1_800_000_000_000);
    const batches = allBatches(log);
    expect(batches[0].header.baseOffset).toBe(0);
    expect(batches[0].records).toEqual([]); // emptied, kept for producer 7's sequence
    expect(batches[0].header.producerId).toBe(7);
    // The segment with the open transaction was not cleaned: k=open is not shadowed away.
    expect(layout(log).slice(1)).toEqual(['1 ABORT', '2 txn k=open', '3 plain k=plain', '4 plain z=1']);
  });
});
