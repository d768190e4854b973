// One share partition's part of a ShareFetch (Kafka's DelayedShareFetch read and ShareFetchUtils): read the log
// from the partition's next fetch offset, acquire what can be, and answer the log's own batches that hold the
// acquired offsets. read_committed stops at the last stable offset and archives aborted transactions' records
// instead of handing them out (Kafka's SharePartition.filterAbortedTransactionalAcquiredRecords).
import { readSync } from 'node:fs';
import type { FileSlice } from '../../protocol/primitives.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import type { AcquiredRecords, FetchedBatch, SharePartition } from './share-partition.js';

export interface ShareRead {
  records: Buffer | null;
  acquired: AcquiredRecords[];
  /** Records acquired (offsets in the acquired ranges). */
  count: number;
  bytes: number;
}

export interface ShareReadRequest {
  memberId: string;
  maxBytes: number;
  /** At least one batch even past maxBytes (KIP-74), for the first partition of a response. */
  minOneBatch: boolean;
  maxRecords: number;
  batchSize: number;
  recordLimit: boolean;
  readCommitted: boolean;
}

const NOTHING: ShareRead = { records: null, acquired: [], count: 0, bytes: 0 };

interface LogBatch extends FetchedBatch {
  start: number;
  end: number;
  aborted: boolean;
}

/** The bytes of `slices` (`bytes` in all), read now. */
export function readSlices(slices: readonly FileSlice[], bytes: number): Buffer {
  const buf = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const s of slices) {
    const unpin = s.pin?.();
    try {
      let done = 0;
      while (done < s.length) {
        const n = readSync(s.fd, buf, at + done, s.length - done, s.position + done);
        if (n === 0) break;
        done += n;
      }
      at += done;
    } finally {
      unpin?.();
    }
  }
  return at === bytes ? buf : buf.subarray(0, at);
}

/**
 * Bytes the partition could hand out now, counted up to `upTo` without acquiring anything: what Kafka's
 * DelayedShareFetch weighs against MinBytes before it acquires.
 */
export function fetchableBytes(sp: SharePartition, log: UnifiedLog, readCommitted: boolean, upTo: number): number {
  const from = sp.nextFetchOffset();
  const limit = readCommitted ? log.lastStableOffset : log.highWatermark;
  if (from === undefined || from >= limit) return 0;
  if (from < log.logStartOffset) return upTo;
  // A read stops before the batch that would pass its limit: ask for more, so that reaching upTo shows.
  const limitBytes = Math.min(upTo * 2 + (1 << 20), 0x7fffffff);
  return (readCommitted ? log.readCommitted(from, limitBytes, true) : log.read(from, limitBytes, true)).bytes;
}

export async function readAndAcquire(sp: SharePartition, log: UnifiedLog, req: ShareReadRequest): Promise<ShareRead> {
  if (log.logStartOffset > sp.startOffset) sp.moveStartTo(log.logStartOffset);
  const from = sp.nextFetchOffset();
  const limit = req.readCommitted ? log.lastStableOffset : log.highWatermark;
  if (from === undefined || from >= limit || req.maxRecords <= 0) return NOTHING;
  const read = req.readCommitted ? log.readCommitted(from, req.maxBytes, req.minOneBatch) : log.read(from, req.maxBytes, req.minOneBatch);
  if (read.bytes === 0) return NOTHING;
  const buf = readSlices(read.slices, read.bytes);
  const aborted = req.readCommitted ? log.collectAbortedTransactions(from, limit) : [];
  const batches: LogBatch[] = [];
  for (const h of batchesIn(buf)) {
    if (h.lastOffset >= limit) break;
    const isAborted = h.isTransactional && !h.isControl
      && aborted.some((t) => t.producerId === h.producerId && t.firstOffset <= h.baseOffset && h.baseOffset <= t.lastOffset);
    batches.push({ baseOffset: h.baseOffset, lastOffset: h.lastOffset, start: h.pos, end: h.pos + h.sizeInBytes, aborted: isAborted });
  }
  let acquired = sp.acquire(req.memberId, batches, req.maxRecords, req.batchSize, req.recordLimit);
  const abortedBatches = batches.filter((b) => b.aborted);
  if (abortedBatches.length > 0 && acquired.length > 0) {
    for (const b of abortedBatches) sp.archiveAcquired(b.baseOffset, b.lastOffset);
    acquired = acquired.flatMap((r) => subtract(r, abortedBatches));
  }
  // Not written: Kafka persists acquisitions with the next acknowledgement, release or lock timeout (SharePartition.acquire).
  if (acquired.length === 0) return NOTHING;
  // The log batches overlapping the acquired ranges, as one contiguous piece of what was read.
  const first = acquired[0]!.firstOffset;
  const last = acquired[acquired.length - 1]!.lastOffset;
  const used = batches.filter((b) => b.lastOffset >= first && b.baseOffset <= last);
  const records = buf.subarray(used[0]!.start, used[used.length - 1]!.end);
  const count = acquired.reduce((n, r) => n + r.lastOffset - r.firstOffset + 1, 0);
  return { records, acquired, count, bytes: records.length };
}

/** The range minus the offsets of the given batches. */
function subtract(range: AcquiredRecords, batches: readonly FetchedBatch[]): AcquiredRecords[] {
  let parts = [range];
  for (const b of batches) {
    parts = parts.flatMap((p) => {
      if (b.lastOffset < p.firstOffset || b.baseOffset > p.lastOffset) return [p];
      const out: AcquiredRecords[] = [];
      if (b.baseOffset > p.firstOffset) out.push({ ...p, lastOffset: b.baseOffset - 1 });
      if (b.lastOffset < p.lastOffset) out.push({ ...p, firstOffset: b.lastOffset + 1 });
      return out;
    });
  }
  return parts;
}
