// A share partition with a dead-letter queue (KIP-1191, Kafka 4.4's SharePartition with ShareVersion.SV_2): a
// rejected record, or one released past the delivery count limit, is stored ARCHIVING first, handed to the DLQ only
// once that write is durable, and archived after the DLQ write, successful or not. A share partition loaded from an
// ARCHIVING state (the broker died in between) hands the records to the DLQ again: at least once, as Kafka.
import { afterEach, describe, expect, it } from 'vitest';
import { DlqCause, RecordState } from '../../src/share/in-flight-batch.js';
import { PersistedDeliveryState } from '../../src/share/persister.js';
import { SharePartition, type DeadLetterBatch, type SharePartitionConfig } from '../../src/share/share-partition.js';
import { MemoryPersister } from '../helpers/memory-persister.js';

const KEY = { groupId: 'g', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partition: 0 };
const STORED = 'g:AAAAAAAAAAAAAAAAAAAAAA:0';
const RELEASE = 2;
const REJECT = 3;
const open: SharePartition[] = [];
let clock = 1_000_000;

/** A DLQ whose writes the test completes (or fails) by hand, recording what it was given and what was stored then. */
class ManualDlq {
  readonly batches: DeadLetterBatch[] = [];
  readonly storedAtWrite: Array<PersistedDeliveryState[]> = [];
  private readonly pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  enabled = true;

  constructor(private readonly persister: MemoryPersister) {}

  write = (batch: DeadLetterBatch): Promise<void> => {
    this.batches.push(batch);
    this.storedAtWrite.push((this.persister.states.get(STORED)?.stateBatches ?? []).map((b) => b.deliveryState));
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  settleAll(ok: boolean): void {
    for (const p of this.pending.splice(0)) {
      if (ok) p.resolve();
      else p.reject(new Error('DLQ topic does not exist'));
    }
  }
}

function config(dlq: ManualDlq | null, deliveryCountLimit = 2): SharePartitionConfig {
  return {
    lockDurationMs: () => 30_000,
    deliveryCountLimit: () => deliveryCountLimit,
    maxInFlightRecords: () => 200,
    autoOffsetReset: () => 'earliest',
    deadLetterQueue: dlq ? { enabled: () => dlq.enabled, write: dlq.write } : undefined,
  };
}

async function partition(persister: MemoryPersister, dlq: ManualDlq | null): Promise<SharePartition> {
  const sp = new SharePartition(KEY, persister, config(dlq), () => {}, () => clock);
  open.push(sp);
  await sp.initialize({ logStartOffset: 0, highWatermark: 100, offsetForTimestamp: () => undefined });
  return sp;
}

function persister(): MemoryPersister {
  const p = new MemoryPersister();
  p.initializeOnRead = true;
  return p;
}

/** Resolves once `check` holds, checked at each turn of the event loop (the writes are in-memory promises). */
async function settled(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

const stored = (p: MemoryPersister) => p.states.get(STORED)!;

/** Offsets 0..last acquired twice, each delivery ended by `end` (a release, a lock timeout): past the limit of 2. */
async function deliverTwice(sp: SharePartition, last: number, end: () => Promise<unknown>): Promise<void> {
  for (let delivery = 1; delivery <= 2; delivery++) {
    expect(sp.acquire('m', [{ baseOffset: 0, lastOffset: last }], 100, 500, false)).toEqual([{ firstOffset: 0, lastOffset: last, deliveryCount: delivery }]);
    await end();
  }
}

/** Completes the DLQ's writes (or fails them): the records are archived, and the stored start offset reaches `end`. */
async function archivedUpTo(sp: SharePartition, p: MemoryPersister, dlq: ManualDlq, ok: boolean, end: number): Promise<void> {
  dlq.settleAll(ok);
  await settled(() => sp.startOffset === end);
  expect(stored(p).startOffset).toBe(end);
}

afterEach(() => {
  for (const sp of open.splice(0)) sp.close();
});

describe('SharePartition with a dead-letter queue', () => {
  it('stores a rejected record ARCHIVING, hands it to the DLQ after that write, and archives it after the DLQ write', async () => {
    const p = persister();
    const dlq = new ManualDlq(p);
    const sp = await partition(p, dlq);
    sp.acquire('m', [{ baseOffset: 0, lastOffset: 9 }], 100, 500, false);
    expect(await sp.acknowledge('m', [{ firstOffset: 3, lastOffset: 3, acknowledgeTypes: [REJECT] }])).toBe(0);
    expect(sp.stateOf(3)?.state).toBe(RecordState.Archiving);
    await settled(() => dlq.batches.length === 1);
    expect(dlq.batches).toEqual([{ firstOffset: 3, lastOffset: 3, deliveryCount: 1, cause: DlqCause.ClientReject }]);
    // The DLQ was written to only after ARCHIVING was stored.
    expect(dlq.storedAtWrite[0]).toContain(PersistedDeliveryState.Archiving);
    dlq.settleAll(true);
    await settled(() => stored(p).stateBatches.some((b) => b.firstOffset <= 3 && b.lastOffset >= 3 && b.deliveryState === PersistedDeliveryState.Archived));
    expect(sp.stateOf(3)?.state).toBe(RecordState.Archived);
    expect(sp.counts()).toMatchObject({ archived: 1, acquired: 9 });
  });

  it('sends a record released past the delivery count limit with its count, and archives it even when the DLQ write fails', async () => {
    const p = persister();
    const dlq = new ManualDlq(p);
    const sp = await partition(p, dlq);
    await deliverTwice(sp, 4, async () => expect(await sp.acknowledge('m', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [RELEASE] }])).toBe(0));
    await settled(() => dlq.batches.length === 1);
    expect(dlq.batches).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 2, cause: DlqCause.DeliveryCountExceeded }]);
    await archivedUpTo(sp, p, dlq, false, 5);
  });

  it('sends records whose lock expired on their last delivery, as Kafka\'s releaseAcquisitionLockOnTimeout does', async () => {
    const p = persister();
    const dlq = new ManualDlq(p);
    const sp = await partition(p, dlq);
    await deliverTwice(sp, 2, () => {
      clock += 30_001;
      return sp.expireLocks();
    });
    await settled(() => dlq.batches.length === 1);
    expect(dlq.batches).toEqual([{ firstOffset: 0, lastOffset: 2, deliveryCount: 2, cause: DlqCause.DeliveryCountExceeded }]);
    expect(dlq.storedAtWrite[0]).toContain(PersistedDeliveryState.Archiving);
    await archivedUpTo(sp, p, dlq, true, 3);
  });

  it('hands ARCHIVING records to the DLQ again when loaded after a crash, the cause told by the delivery count', async () => {
    const p = persister();
    const dlq = new ManualDlq(p);
    const sp = await partition(p, dlq);
    sp.acquire('m', [{ baseOffset: 0, lastOffset: 9 }], 100, 500, false);
    await sp.acknowledge('m', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [1, 1, 1, 3, 1, 1, 1, 3, 1, 1] }]);
    await settled(() => dlq.batches.length === 2);
    // The broker dies before the DLQ writes complete: the stored state still says ARCHIVING.
    sp.close();
    expect(stored(p).stateBatches.filter((b) => b.deliveryState === PersistedDeliveryState.Archiving).map((b) => b.firstOffset)).toEqual([3, 7]);
    const again = new ManualDlq(p);
    const reloaded = await partition(p, again);
    expect(again.batches).toEqual([
      { firstOffset: 3, lastOffset: 3, deliveryCount: 1, cause: DlqCause.ClientReject },
      { firstOffset: 7, lastOffset: 7, deliveryCount: 1, cause: DlqCause.ClientReject },
    ]);
    expect(reloaded.startOffset).toBe(3);
    await archivedUpTo(reloaded, p, again, true, 10);
  });

  it('archives at once, without the DLQ, when the group has none (share.version 1 or no topic named)', async () => {
    const p = persister();
    const dlq = new ManualDlq(p);
    dlq.enabled = false;
    const sp = await partition(p, dlq);
    sp.acquire('m', [{ baseOffset: 0, lastOffset: 0 }], 100, 500, false);
    expect(await sp.acknowledge('m', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [REJECT] }])).toBe(0);
    expect(sp.stateOf(0)).toBeUndefined();
    expect(sp.startOffset).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(dlq.batches).toEqual([]);
  });
});
