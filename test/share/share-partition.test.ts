// SharePartition on its own: acquisition, locks, delivery counts, acknowledgements and what is persisted, with
// the in-memory Persister standing in for the share coordinator.
import { afterEach, describe, expect, it } from 'vitest';
import { SharePartition, type SharePartitionConfig } from '../../src/share/share-partition.js';
import { RecordState } from '../../src/share/in-flight-batch.js';
import { PersisterError } from '../../src/share/persister.js';
import { MemoryPersister } from '../helpers/memory-persister.js';

const KEY = { groupId: 'g', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partition: 0 };
const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;
const RENEW = 4;

let clock = 1_000_000;
const open: SharePartition[] = [];

function config(over: Partial<Record<keyof SharePartitionConfig, unknown>> = {}): SharePartitionConfig {
  return {
    lockDurationMs: () => (over.lockDurationMs as number) ?? 30_000,
    deliveryCountLimit: () => (over.deliveryCountLimit as number) ?? 5,
    maxInFlightRecords: () => (over.maxInFlightRecords as number) ?? 200,
    autoOffsetReset: () => (over.autoOffsetReset as string) ?? 'earliest',
    renewAcknowledgeEnabled: () => (over.renewAcknowledgeEnabled as boolean) ?? true,
  };
}

/** An in-memory Persister whose partitions read as initialized by the group coordinator (start offset -1). */
function initialized(): MemoryPersister {
  const persister = new MemoryPersister();
  persister.initializeOnRead = true;
  return persister;
}

async function partition(over: Parameters<typeof config>[0] = {}, persister = initialized(), log: { logStartOffset: number; highWatermark: number; leaderEpoch?: number } = { logStartOffset: 0, highWatermark: 100 }) {
  const sp = new SharePartition(KEY, persister, config(over), () => {}, () => clock);
  open.push(sp);
  await sp.initialize({ ...log, offsetForTimestamp: () => undefined });
  return { sp, persister };
}

/** Log batches of `size` records from `from` up to (excluding) `to`. */
function batches(from: number, to: number, size = 10) {
  const out = [];
  for (let o = from; o < to; o += size) out.push({ baseOffset: o, lastOffset: Math.min(o + size, to) - 1 });
  return out;
}

afterEach(() => {
  for (const sp of open.splice(0)) sp.close();
});

describe('SharePartition', () => {
  it('acquires whole log batches once, and never the same record for two members at once', async () => {
    const { sp } = await partition();
    expect(sp.acquire('a', batches(0, 30), 15, 500, false)).toEqual([{ firstOffset: 0, lastOffset: 19, deliveryCount: 1 }]);
    expect(sp.nextFetchOffset()).toBe(20);
    // b fetches from the start again (as a second reader of the same log batches would): only 20..29 are free.
    expect(sp.acquire('b', batches(0, 30), 100, 500, false)).toEqual([{ firstOffset: 20, lastOffset: 29, deliveryCount: 1 }]);
    expect(sp.stateOf(5)).toMatchObject({ state: RecordState.Acquired, memberId: 'a' });
    expect(sp.stateOf(25)).toMatchObject({ state: RecordState.Acquired, memberId: 'b' });
  });

  it('record_limit mode acquires exactly MaxRecords, splitting a batch', async () => {
    const { sp } = await partition();
    expect(sp.acquire('a', batches(0, 10), 4, 500, true)).toEqual([{ firstOffset: 0, lastOffset: 3, deliveryCount: 1 }]);
    expect(sp.acquire('b', batches(0, 10), 4, 500, true)).toEqual([{ firstOffset: 4, lastOffset: 7, deliveryCount: 1 }]);
  });

  it('keeps a million acquired records of one batch as one run, and splits only when acknowledged partially', async () => {
    const { sp, persister } = await partition({ maxInFlightRecords: 2_000_000 }, undefined, { logStartOffset: 0, highWatermark: 1_000_000 });
    const started = performance.now();
    expect(sp.acquire('a', [{ baseOffset: 0, lastOffset: 999_999 }], 1_000_000, 1_000_000, false)).toEqual([{ firstOffset: 0, lastOffset: 999_999, deliveryCount: 1 }]);
    expect(performance.now() - started).toBeLessThan(50);
    expect(sp.inFlightBatchCount).toBe(1);
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 999_999, acknowledgeTypes: [ACCEPT] }])).toBe(0);
    expect(sp.startOffset).toBe(1_000_000);
    expect(sp.inFlightBatchCount).toBe(0);
    expect(persister.writes.at(-1)!.state.startOffset).toBe(1_000_000);
  });

  it('moves the start offset past acknowledged and archived records only', async () => {
    const { sp, persister } = await partition();
    sp.acquire('a', batches(0, 10), 10, 500, false);
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [ACCEPT, REJECT, ACCEPT, ACCEPT] }])).toBe(0);
    expect(sp.startOffset).toBe(4);
    expect(await sp.acknowledge('a', [{ firstOffset: 5, lastOffset: 6, acknowledgeTypes: [ACCEPT] }])).toBe(0);
    expect(sp.startOffset).toBe(4);
    expect(sp.stateOf(5)!.state).toBe(RecordState.Acknowledged);
    expect(sp.stateOf(7)!.state).toBe(RecordState.Acquired);
    // Persisted: start 4 and 5-6 acknowledged; 4 and 7-9, out on their first delivery, have no batch (as in Kafka).
    const stored = persister.states.values().next().value!;
    expect(stored.startOffset).toBe(4);
    expect(stored.stateBatches).toEqual([{ firstOffset: 5, lastOffset: 6, deliveryState: 2, deliveryCount: 1 }]);
  });

  it('refuses, changing nothing, acknowledgements of records the member does not hold', async () => {
    const { sp, persister } = await partition();
    sp.acquire('a', batches(0, 10), 10, 500, false);
    const writes = persister.writes.length;
    expect(await sp.acknowledge('b', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACCEPT] }])).toBe(121);
    // The first batch is fine, the second names offsets never acquired: neither is applied.
    expect(await sp.acknowledge('a', [
      { firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACCEPT] },
      { firstOffset: 9, lastOffset: 12, acknowledgeTypes: [ACCEPT] },
    ])).toBe(121);
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACCEPT, ACCEPT, ACCEPT] }])).toBe(42);
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [7] }])).toBe(42);
    expect(sp.stateOf(0)!.state).toBe(RecordState.Acquired);
    expect(sp.startOffset).toBe(0);
    expect(persister.writes.length).toBe(writes);
  });

  it('makes records available again when their lock expires, and redelivers them with delivery count 2', async () => {
    const { sp, persister } = await partition({ lockDurationMs: 1000 });
    sp.acquire('a', batches(0, 10), 10, 500, false);
    clock += 999;
    await sp.expireLocks();
    expect(sp.stateOf(0)!.state).toBe(RecordState.Acquired);
    clock += 1;
    await sp.expireLocks();
    expect(sp.stateOf(0)).toMatchObject({ state: RecordState.Available, deliveryCount: 1, memberId: null });
    // The expired lock cannot be acknowledged any more.
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(121);
    expect(sp.nextFetchOffset()).toBe(0);
    expect(sp.acquire('b', batches(0, 10), 10, 500, false)).toEqual([{ firstOffset: 0, lastOffset: 9, deliveryCount: 2 }]);
    expect(persister.writes.at(-1)!.state.stateBatches).toEqual([{ firstOffset: 0, lastOffset: 9, deliveryState: 0, deliveryCount: 1 }]);
  });

  it('the lock expires by itself on a timer', async () => {
    clock = Date.now();
    const sp = new SharePartition(KEY, initialized(), config({ lockDurationMs: 50 }), () => {}, () => Date.now());
    open.push(sp);
    await sp.initialize({ logStartOffset: 0, highWatermark: 10, offsetForTimestamp: () => undefined });
    sp.acquire('a', batches(0, 10), 10, 500, false);
    await new Promise((r) => setTimeout(r, 120));
    expect(sp.stateOf(3)!.state).toBe(RecordState.Available);
  });

  it('RENEW extends the lock', async () => {
    const { sp } = await partition({ lockDurationMs: 1000 });
    sp.acquire('a', batches(0, 10), 10, 500, false);
    clock += 800;
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [RENEW] }])).toBe(0);
    clock += 800;
    await sp.expireLocks();
    expect(sp.stateOf(0)!.state).toBe(RecordState.Acquired);
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(0);
  });

  it('refuses RENEW with INVALID_RECORD_STATE when share.renew.acknowledge.enable is false, applying nothing', async () => {
    const { sp, persister } = await partition({ renewAcknowledgeEnabled: false });
    sp.acquire('a', batches(0, 10), 10, 500, false);
    const writes = persister.writes.length;
    expect(await sp.acknowledge('a', [
      { firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACCEPT] },
      { firstOffset: 5, lastOffset: 9, acknowledgeTypes: [RENEW] },
    ])).toBe(121);
    expect(sp.stateOf(0)).toMatchObject({ state: RecordState.Acquired, memberId: 'a' });
    expect(persister.writes.length).toBe(writes);
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(0);
  });

  it('archives a record released past group.share.delivery.count.limit', async () => {
    const { sp, persister } = await partition({ deliveryCountLimit: 3 });
    for (let delivery = 1; delivery <= 3; delivery++) {
      expect(sp.acquire('a', batches(0, 1), 1, 500, false)).toEqual([{ firstOffset: 0, lastOffset: 0, deliveryCount: delivery }]);
      expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [RELEASE] }])).toBe(0);
    }
    expect(sp.acquire('a', batches(0, 1), 1, 500, false)).toEqual([]);
    expect(sp.startOffset).toBe(1);
    expect(persister.writes.at(-1)!.state.startOffset).toBe(1);
  });

  it('caps in-flight records at group.share.partition.max.record.locks, but redelivers available ones', async () => {
    const { sp } = await partition({ maxInFlightRecords: 20 });
    expect(sp.acquire('a', batches(0, 50), 100, 500, false)).toEqual([{ firstOffset: 0, lastOffset: 19, deliveryCount: 1 }]);
    expect(sp.nextFetchOffset()).toBeUndefined();
    expect(sp.acquire('b', batches(20, 50), 100, 500, false)).toEqual([]);
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }, { firstOffset: 10, lastOffset: 19, acknowledgeTypes: [RELEASE] }])).toBe(0);
    expect(sp.nextFetchOffset()).toBe(10);
    expect(sp.acquire('b', batches(10, 50), 100, 500, false)).toEqual([
      { firstOffset: 10, lastOffset: 19, deliveryCount: 2 },
      { firstOffset: 20, lastOffset: 29, deliveryCount: 1 },
    ]);
  });

  it('releases what a member holds when its session closes, giving back the delivery count', async () => {
    const { sp } = await partition();
    sp.acquire('a', batches(0, 10), 10, 500, false);
    sp.acquire('b', batches(10, 20), 10, 500, false);
    await sp.releaseMember('a', true);
    expect(sp.stateOf(0)).toMatchObject({ state: RecordState.Available, deliveryCount: 0 });
    expect(sp.stateOf(10)).toMatchObject({ state: RecordState.Acquired, memberId: 'b' });
  });

  it('starts from the persisted state: acknowledged records are not delivered again, counts survive', async () => {
    const first = await partition();
    first.sp.acquire('a', batches(0, 10), 10, 500, false);
    await first.sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT, ACCEPT, RELEASE, ACCEPT, ACCEPT, ACCEPT, ACCEPT, ACCEPT, ACCEPT, ACCEPT] }]);
    const writes = first.persister.writes.length;
    first.sp.acquire('a', batches(0, 20), 2, 500, false); // 2 (count 2), then 10..19 new
    // As in Kafka, an acquisition is not written: a restart now has not seen these deliveries.
    expect(first.persister.writes.length).toBe(writes);
    const { sp } = await partition({}, first.persister);
    expect(sp.startOffset).toBe(2);
    expect(sp.acquire('b', batches(0, 20), 100, 500, false)).toEqual([
      { firstOffset: 2, lastOffset: 2, deliveryCount: 2 },
      { firstOffset: 10, lastOffset: 19, deliveryCount: 1 },
    ]);
  });

  it("does not write a delivery still out with another record's acknowledgement, as Kafka writes only what changed", async () => {
    const first = await partition();
    first.sp.acquire('a', batches(0, 30), 30, 500, false);
    // 20..29 are released once (their count 1 is written), then acquired again by b.
    expect(await first.sp.acknowledge('a', [{ firstOffset: 20, lastOffset: 29, acknowledgeTypes: [RELEASE] }])).toBe(0);
    expect(first.sp.acquire('b', batches(20, 30), 10, 500, false)).toEqual([{ firstOffset: 20, lastOffset: 29, deliveryCount: 2 }]);
    expect(await first.sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(0);
    // The write moves the start offset past 0..9 and stores, for 20..29, what the release left; 10..19 (never
    // delivered before) not at all.
    expect(first.persister.writes.at(-1)!.state).toMatchObject({ startOffset: 10, stateBatches: [{ firstOffset: 20, lastOffset: 29, deliveryState: 0, deliveryCount: 1 }] });
    // After a restart the deliveries that were out are not counted (KIP-932): 10..19 come at 1, 20..29 at 2.
    const { sp } = await partition({}, first.persister);
    expect(sp.acquire('c', batches(0, 30), 100, 500, false)).toEqual([
      { firstOffset: 10, lastOffset: 19, deliveryCount: 1 },
      { firstOffset: 20, lastOffset: 29, deliveryCount: 2 },
    ]);
  });

  it('share.auto.offset.reset latest starts at the end and persists it', async () => {
    const { sp, persister } = await partition({ autoOffsetReset: 'latest' }, undefined, { logStartOffset: 5, highWatermark: 42 });
    expect(sp.startOffset).toBe(42);
    expect(sp.nextFetchOffset()).toBe(42);
    expect(persister.states.values().next().value!.startOffset).toBe(42);
  });

  it('answers an acknowledgement only once the write is durable', async () => {
    const persister = initialized();
    const { sp } = await partition({}, persister);
    sp.acquire('a', batches(0, 10), 10, 500, false);
    persister.writeDelayMs = 100;
    const started = Date.now();
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(persister.states.values().next().value!.startOffset).toBe(10);
  });

  it('answers a write refused as fenced with NOT_LEADER_OR_FOLLOWER and marks the partition for reloading', async () => {
    const persister = initialized();
    const { sp } = await partition({}, persister);
    sp.acquire('a', batches(0, 10), 10, 500, false);
    persister.writeState = async () => {
      throw new PersisterError(124, 'fenced');
    };
    // Kafka's SharePartition.fetchPersisterError: FENCED_STATE_EPOCH -> NotLeaderOrFollowerException.
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(6);
    expect(sp.fenced).toBe(true);
  });

  describe('a failed write is rolled back (Kafka\'s rollbackOrProcessStateUpdates)', () => {
    /** Makes the persister's writes wait for `open()`, then fail with `errorCode` (or succeed with 0). */
    function gated(persister: MemoryPersister) {
      const write = persister.writeState.bind(persister);
      let open!: (errorCode: number) => void;
      let started!: () => void;
      const writing = new Promise<void>((r) => (started = r));
      const gate = new Promise<number>((r) => (open = r));
      persister.writeState = async (key, state) => {
        started();
        const errorCode = await gate;
        if (errorCode !== 0) throw new PersisterError(errorCode, 'injected');
        return write(key, state);
      };
      return { open, writing };
    }

    it('an acknowledgement whose write fails leaves the records acquired by the member, and gets Kafka\'s code', async () => {
      const { sp, persister } = await partition();
      sp.acquire('a', batches(0, 10), 10, 500, false);
      const before = persister.writes.length;
      persister.writeState = async () => {
        throw new PersisterError(56, 'disk'); // KAFKA_STORAGE_ERROR from __share_group_state's log
      };
      expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(15); // COORDINATOR_NOT_AVAILABLE
      expect(sp.stateOf(0)).toMatchObject({ state: RecordState.Acquired, memberId: 'a', deliveryCount: 1 });
      expect(sp.stateOf(9)).toMatchObject({ state: RecordState.Acquired, memberId: 'a', deliveryCount: 1 });
      expect(sp.startOffset).toBe(0);
      expect(sp.counts()).toMatchObject({ acquired: 10, acknowledged: 0 });
      // A released record's failed write does not make it available either; any other failure is UNKNOWN_SERVER_ERROR.
      persister.writeState = async () => {
        throw new Error('boom');
      };
      expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [RELEASE] }])).toBe(-1);
      expect(sp.acquire('b', batches(0, 10), 10, 500, false)).toEqual([]);
      expect(sp.stateOf(0)).toMatchObject({ state: RecordState.Acquired, memberId: 'a' });
      // The member can acknowledge them again once the store works.
      delete (persister as Partial<MemoryPersister>).writeState;
      expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(0);
      expect(sp.startOffset).toBe(10);
      expect(persister.writes.length).toBe(before + 1);
      expect(persister.states.values().next().value!.startOffset).toBe(10);
    });

    it('records waiting for their write can be neither acquired nor acknowledged again', async () => {
      const { sp, persister } = await partition();
      sp.acquire('a', batches(0, 10), 10, 500, false);
      const { open, writing } = gated(persister);
      const released = sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [RELEASE] }]);
      await writing;
      expect(sp.nextFetchOffset()).toBe(10);
      expect(sp.acquire('b', batches(0, 10), 10, 500, false)).toEqual([]);
      expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(121);
      open(15);
      expect(await released).toBe(15);
      expect(sp.stateOf(5)).toMatchObject({ state: RecordState.Acquired, memberId: 'a', deliveryCount: 1 });
    });

    it('a record whose lock expired while its write was out is released when the write fails', async () => {
      const { sp, persister } = await partition({ lockDurationMs: 1000 });
      sp.acquire('a', batches(0, 10), 10, 500, false);
      const { open, writing } = gated(persister);
      const accepted = sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }]);
      await writing;
      clock += 1000;
      await sp.expireLocks().catch(() => {});
      open(15);
      expect(await accepted).toBe(15);
      expect(sp.stateOf(0)).toMatchObject({ state: RecordState.Available, memberId: null, deliveryCount: 1 });
      expect(sp.acquisitionLockTimeouts).toBe(10);
      expect(sp.acquire('b', batches(0, 10), 10, 500, false)).toEqual([{ firstOffset: 0, lastOffset: 9, deliveryCount: 2 }]);
    });

    it('a release on a closed session is rolled back too; the records stay with the member', async () => {
      const { sp, persister } = await partition();
      sp.acquire('a', batches(0, 10), 10, 500, false);
      persister.writeState = async () => {
        throw new PersisterError(15, 'coordinator');
      };
      expect(await sp.releaseMember('a', true)).toBe(15);
      expect(sp.stateOf(0)).toMatchObject({ state: RecordState.Acquired, memberId: 'a', deliveryCount: 1 });
    });

    it('acknowledgements made while a write is out go into the next write together', async () => {
      const { sp, persister } = await partition();
      sp.acquire('a', batches(0, 30), 30, 500, false);
      const before = persister.writes.length;
      const { open, writing } = gated(persister);
      const first = sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }]);
      await writing;
      const more = [10, 20].map((o) => sp.acknowledge('a', [{ firstOffset: o, lastOffset: o + 9, acknowledgeTypes: [ACCEPT] }]));
      open(0);
      expect(await Promise.all([first, ...more])).toEqual([0, 0, 0]);
      expect(persister.writes.length).toBe(before + 2);
      expect(persister.writes.at(-1)!.state.startOffset).toBe(30);
      expect(sp.startOffset).toBe(30);
    });
  });

  it("reads and writes its state at the partition's leader epoch, which a share coordinator fences when older than one it saw", async () => {
    // As Kafka's ShareCoordinatorShard: a Kafka node on the directory before wrote the state at its epoch, 8.
    class FencingPersister extends MemoryPersister {
      readonly seen: number[] = [];
      override async readState(key: typeof KEY, leaderEpoch = -1) {
        this.seen.push(leaderEpoch);
        if (leaderEpoch < 8) throw new PersisterError(74, 'The leader epoch in the request is older than the epoch on the broker.');
        return super.readState(key);
      }
    }
    const fencing = new FencingPersister();
    fencing.initializeOnRead = true;
    const { sp, persister } = await partition({}, fencing, { logStartOffset: 0, highWatermark: 100, leaderEpoch: 9 });
    sp.acquire('a', batches(0, 10), 10, 500, false);
    expect(await sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] }])).toBe(0);
    expect(persister.writes.at(-1)!.state.leaderEpoch).toBe(9);
    await expect(partition({}, fencing, { logStartOffset: 0, highWatermark: 100, leaderEpoch: 0 })).rejects.toMatchObject({ errorCode: 74 });
    expect(fencing.seen).toEqual([9, 0]);
  });

  it('does not start on a state the group coordinator has not initialized (UNKNOWN_TOPIC_OR_PARTITION)', async () => {
    const sp = new SharePartition(KEY, new MemoryPersister(), config(), () => {}, () => clock);
    open.push(sp);
    await expect(sp.initialize({ logStartOffset: 0, highWatermark: 10, offsetForTimestamp: () => undefined })).rejects.toMatchObject({ errorCode: 3 });
  });
});
