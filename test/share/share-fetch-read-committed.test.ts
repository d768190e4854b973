// A share partition reading a real log (storage/UnifiedLog) under share.isolation.level=read_committed: records of
// an aborted transaction are archived, never handed out, and nothing at or past the last stable offset is acquired.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { batchesIn } from '../../protocol/records/batch-header.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { RecordState } from '../../src/share/in-flight-batch.js';
import { readAndAcquire, type ShareReadRequest } from '../../src/share/share-fetch.js';
import { SharePartition } from '../../src/share/share-partition.js';
import { batch, config, openLog, tempDir } from '../storage/helpers.js';
import { MemoryPersister } from '../helpers/memory-persister.js';

let dir: string;
let log: UnifiedLog;
const partitions: SharePartition[] = [];

afterEach(async () => {
  for (const sp of partitions.splice(0)) sp.close();
  await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function sharePartition(): Promise<SharePartition> {
  const persister = new MemoryPersister();
  persister.initializeOnRead = true;
  const sp = new SharePartition({ groupId: 'g', topicId: 't', partition: 0 }, persister, {
    lockDurationMs: () => 30_000, deliveryCountLimit: () => 5, maxInFlightRecords: () => 200, autoOffsetReset: () => 'earliest',
  });
  partitions.push(sp);
  await sp.initialize({ logStartOffset: 0, highWatermark: log.highWatermark, offsetForTimestamp: () => undefined });
  return sp;
}

const request = (readCommitted: boolean): ShareReadRequest => ({
  memberId: 'm', maxBytes: 1 << 20, minOneBatch: true, maxRecords: 500, batchSize: 500, recordLimit: false, readCommitted,
});

describe('share fetch under read_committed', () => {
  it('archives an aborted transaction\'s records and stops at the last stable offset', async () => {
    dir = tempDir();
    log = openLog(dir, config());
    log.appendAsLeader(batch(2), 0); // 0-1, not transactional
    log.appendAsLeader(batch(3, { producerId: 7, producerEpoch: 0, baseSequence: 0, isTransactional: true }), 0); // 2-4
    await log.appendTransactionMarker(7, 0, 0, false, Date.now()).flushed; // 5: abort
    log.appendAsLeader(batch(2, { producerId: 8, producerEpoch: 0, baseSequence: 0, isTransactional: true }), 0); // 6-7, open
    expect(log.lastStableOffset).toBe(6);

    const committed = await sharePartition();
    const first = await readAndAcquire(committed, log, request(true));
    expect(first.acquired).toEqual([{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }]);
    expect([2, 3, 4].map((o) => committed.stateOf(o)?.state)).toEqual([RecordState.Archived, RecordState.Archived, RecordState.Archived]);
    expect([...batchesIn(first.records!)].map((h) => [h.baseOffset, h.lastOffset])).toEqual([[0, 1]]);
    // The abort marker at 5 comes next (the client acknowledges it as a gap); the aborted records never do.
    expect((await readAndAcquire(committed, log, request(true))).acquired).toEqual([{ firstOffset: 5, lastOffset: 5, deliveryCount: 1 }]);
    // Nothing from the open transaction until it commits; then it comes.
    expect((await readAndAcquire(committed, log, request(true))).acquired).toEqual([]);
    await log.appendTransactionMarker(8, 0, 0, true, Date.now()).flushed; // 8: commit
    const rest = [];
    for (let r = await readAndAcquire(committed, log, request(true)); r.count > 0; r = await readAndAcquire(committed, log, request(true))) rest.push(...r.acquired);
    expect(rest).toEqual([{ firstOffset: 6, lastOffset: 8, deliveryCount: 1 }]);

    // read_uncommitted hands out everything up to the high watermark, the aborted records included.
    const uncommitted = await sharePartition();
    const all = [];
    for (let r = await readAndAcquire(uncommitted, log, request(false)); r.count > 0; r = await readAndAcquire(uncommitted, log, request(false))) all.push(...r.acquired);
    expect(all.flatMap((r) => Array.from({ length: r.lastOffset - r.firstOffset + 1 }, (_, i) => r.firstOffset + i))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
