// The transaction coordinator on an in-memory __transaction_state: Kafka's record bytes, the state
// machine, and what a restart finds (a transaction left prepared is completed at start-up).
import { describe, expect, it } from 'vitest';
import type { CoordinatorRecord } from '../../src/coordinator/offsets-topic.js';
import { TransactionCoordinator, type TransactionMarkerWriter, type TxnMarker } from '../../src/coordinator/transaction/transaction-coordinator.js';
import { decodeTransactionLogValue, transactionLogKey, transactionLogValue } from '../../src/coordinator/transaction/transaction-log.js';
import type { TxnPartitions } from '../../src/coordinator/transaction/transaction-metadata.js';
import { TransactionStateManager, type TransactionStateTopic } from '../../src/coordinator/transaction/transaction-state-manager.js';
import { stateName, TransactionState } from '../../src/coordinator/transaction/transaction-state.js';
import { transactionLogValueVersion } from '../../src/coordinator/transaction/transaction-version.js';

class MemoryTransactionStateTopic implements TransactionStateTopic {
  readonly numPartitions = 3;
  readonly partitions = new Map<number, CoordinatorRecord[]>();
  async append(partition: number, records: ReadonlyArray<CoordinatorRecord>): Promise<void> {
    const list = this.partitions.get(partition) ?? [];
    list.push(...records);
    this.partitions.set(partition, list);
  }
  async readAll(partition: number): Promise<CoordinatorRecord[]> {
    return [...(this.partitions.get(partition) ?? [])];
  }
  async flush(): Promise<void> {}
}

class RecordingMarkers implements TransactionMarkerWriter {
  readonly written: Array<{ producerId: number; producerEpoch: number; commit: boolean; transactionVersion: number; partitions: string[] }> = [];
  fail = false;
  async writeMarkers({ producerId, producerEpoch, commit, transactionVersion }: TxnMarker, partitions: TxnPartitions): Promise<void> {
    if (this.fail) throw new Error('disk gone');
    this.written.push({ producerId, producerEpoch, commit, transactionVersion, partitions: [...partitions].flatMap(([t, ids]) => [...ids].map((p) => `${t}-${p}`)) });
  }
}

const CONFIG = { transactionMaxTimeoutMs: 900_000, abortTimedOutTransactionsIntervalMs: 3_600_000, transactionalIdExpirationMs: 1000, removeExpiredTransactionalIdsIntervalMs: 3_600_000 };

async function open(topic: MemoryTransactionStateTopic, markers = new RecordingMarkers(), firstId = 100) {
  let next = firstId;
  const coordinator = new TransactionCoordinator(CONFIG, new TransactionStateManager(topic, () => 1), markers, { nextId: () => next++ });
  await coordinator.startup();
  return { coordinator, markers };
}

describe('TransactionLogKey/Value', () => {
  it('writes Kafka\'s layout: int16 version, then the fields; v1 with tagged fields', () => {
    expect(transactionLogKey('tx')).toEqual(Buffer.from([0, 0, 0, 2, 0x74, 0x78]));
    const transit = {
      producerId: 7, previousProducerId: -1, nextProducerId: -1, producerEpoch: 3, lastProducerEpoch: -1, txnTimeoutMs: 60000,
      state: TransactionState.Ongoing, partitions: new Map([['t', new Set([1, 0])]]), txnStartTimestamp: 1000, txnLastUpdateTimestamp: 2000,
      clientTransactionVersion: 0,
    };
    const v0 = transactionLogValue(transit, 0);
    expect(v0.toString('hex')).toBe(
      '0000' + '0000000000000007' + '0003' + '0000ea60' + '01' + '00000001' + '000174' + '00000002' + '00000000' + '00000001' + '00000000000007d0' + '00000000000003e8',
    );
    // v1 (flexible): compact arrays and strings, then tagged PreviousProducerId (0) and ClientTransactionVersion (2).
    const v1 = { ...transit, producerId: 9, previousProducerId: 8, producerEpoch: 1, txnStartTimestamp: 5, txnLastUpdateTimestamp: 6, clientTransactionVersion: 2 };
    expect(transactionLogValue(v1, 1).toString('hex')).toBe(
      '0001' + '0000000000000009' + '0001' + '0000ea60' + '01' + '02' + '027403' + '00000000' + '00000001' + '00' + '0000000000000006' + '0000000000000005'
        + '02' + '0008' + '0000000000000008' + '0202' + '0002',
    );
    for (const version of [0, 1]) {
      const decoded = decodeTransactionLogValue(transactionLogValue({ ...transit, previousProducerId: 5, clientTransactionVersion: 2 }, version));
      expect(decoded).toMatchObject({ producerId: 7, producerEpoch: 3, txnTimeoutMs: 60000, state: TransactionState.Ongoing, txnStartTimestamp: 1000, txnLastUpdateTimestamp: 2000 });
      expect(decoded.partitions).toEqual(new Map([['t', new Set([0, 1])]]));
      expect(decoded.previousProducerId).toBe(version === 1 ? 5 : -1);
      expect(decoded.clientTransactionVersion).toBe(version === 1 ? 2 : 0);
    }
    // Empty transactions store null partitions.
    const empty = transactionLogValue({ ...transit, state: TransactionState.Empty, partitions: new Map() }, 0);
    expect(empty.readInt32BE(2 + 8 + 2 + 4 + 1)).toBe(-1);
  });
});

describe('TransactionCoordinator', () => {
  it('writes the TransactionLogValue version of the transaction.version finalized at the time of each write', async () => {
    const topic = new MemoryTransactionStateTopic();
    let level = 2;
    const coordinator = new TransactionCoordinator(CONFIG, new TransactionStateManager(topic, () => transactionLogValueVersion(level)), new RecordingMarkers(), { nextId: () => 100 });
    await coordinator.startup();
    await coordinator.handleInitProducerId('tx', 60_000, null);
    level = 0; // UpdateFeatures lowered it (Kafka's TransactionStateManager reads the level at each append)
    await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0])]]));
    const versions = [...topic.partitions.values()].flat().map((r) => r.value!.readInt16BE(0));
    expect(versions).toEqual([1, 0]);
  });

  it('completes a transaction left in PrepareCommit at start-up: markers, then CompleteCommit', async () => {
    const topic = new MemoryTransactionStateTopic();
    const markers = new RecordingMarkers();
    const { coordinator } = await open(topic, markers);
    const init = await coordinator.handleInitProducerId('tx', 60_000, null);
    expect(init).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 0 });
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0, 1])]]))).toBe(0);
    // The markers cannot be written: the transaction stays PrepareCommit (as after a crash between the two phases).
    markers.fail = true;
    expect((await coordinator.handleEndTransaction('tx', 100, 0, true, 0)).errorCode).toBe(0);
    expect(coordinator.get('tx')!.state).toBe(TransactionState.PrepareCommit);
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0])]]))).toBe(51); // CONCURRENT_TRANSACTIONS
    coordinator.shutdown();

    const restarted = await open(topic);
    expect(restarted.markers.written).toEqual([{ producerId: 100, producerEpoch: 0, commit: true, transactionVersion: 0, partitions: ['out-0', 'out-1'] }]);
    expect(restarted.coordinator.get('tx')!.state).toBe(TransactionState.CompleteCommit);
    // The next InitProducerId continues from the persisted epoch.
    expect(await restarted.coordinator.handleInitProducerId('tx', 60_000, null)).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 1 });
    restarted.coordinator.shutdown();
  });

  it('follows Kafka\'s transitions: INVALID_TXN_STATE, retries, fencing, a timed-out transaction aborted with a bumped epoch', async () => {
    const topic = new MemoryTransactionStateTopic();
    const { coordinator, markers } = await open(topic);
    await coordinator.handleInitProducerId('tx', 60_000, null);
    expect((await coordinator.handleEndTransaction('tx', 100, 0, true, 0)).errorCode).toBe(48); // Empty: INVALID_TXN_STATE
    expect((await coordinator.handleEndTransaction('tx', 999, 0, true, 0)).errorCode).toBe(49); // wrong producer id
    await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([2])]]));
    expect((await coordinator.handleEndTransaction('tx', 100, 1, false, 0)).errorCode).toBe(90); // an epoch from the future: fenced
    await coordinator.abortTimedOutTransactions(Date.now() + 61_000);
    expect(coordinator.get('tx')).toMatchObject({ state: TransactionState.CompleteAbort, producerEpoch: 1 });
    expect(markers.written.at(-1)).toEqual({ producerId: 100, producerEpoch: 1, commit: false, transactionVersion: 0, partitions: ['out-2'] });
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([2])]]))).toBe(90);
    // KIP-360 with the stale epoch: fenced; with the current one: bumped.
    expect((await coordinator.handleInitProducerId('tx', 60_000, { producerId: 100, producerEpoch: 0 })).errorCode).toBe(90);
    expect(await coordinator.handleInitProducerId('tx', 60_000, { producerId: 100, producerEpoch: 1 })).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 2 });
    // Transaction version 2 (EndTxn v5): every EndTxn bumps the epoch, and a retry gets the same answer.
    await coordinator.handleAddPartitions('tx', 100, 2, new Map([['out', new Set([0])]]), 2);
    expect(await coordinator.handleEndTransaction('tx', 100, 2, true, 2)).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 3 });
    expect(await coordinator.handleEndTransaction('tx', 100, 2, true, 2)).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 3 });
    expect(markers.written.at(-1)).toEqual({ producerId: 100, producerEpoch: 3, commit: true, transactionVersion: 2, partitions: ['out-0'] });
    // transactional.id.expiration.ms: a finished id is removed with a tombstone.
    await coordinator.removeExpiredTransactionalIds(Date.now() + 2000);
    expect(coordinator.get('tx')).toBeUndefined();
    const records = await topic.readAll(coordinator.partitionFor('tx'));
    expect(records.at(-1)!.value).toBeNull();
    coordinator.shutdown();
    const reloaded = await open(topic);
    expect(reloaded.coordinator.get('tx')).toBeUndefined();
    reloaded.coordinator.shutdown();
  });

  it('a new producer instance fences a version 2 transaction: one epoch bump, aborted under its client transaction version', async () => {
    const topic = new MemoryTransactionStateTopic();
    const { coordinator, markers } = await open(topic);
    await coordinator.handleInitProducerId('tx', 60_000, null);
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0])]]), 2)).toBe(0);
    expect((await coordinator.handleInitProducerId('tx', 60_000, null)).errorCode).toBe(51); // CONCURRENT_TRANSACTIONS: retry
    expect(markers.written).toEqual([{ producerId: 100, producerEpoch: 1, commit: false, transactionVersion: 2, partitions: ['out-0'] }]);
    const stored = (await topic.readAll(coordinator.partitionFor('tx'))).map((r) => decodeTransactionLogValue(r.value!));
    expect(stored.slice(-2).map((v) => [stateName(v.state), v.producerEpoch, v.clientTransactionVersion])).toEqual([
      ['PrepareAbort', 1, 2],
      ['CompleteAbort', 1, 2],
    ]);
    expect(await coordinator.handleInitProducerId('tx', 60_000, null)).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 2 });
    coordinator.shutdown();
  });

  it('version 2 with the epoch exhausted: the markers still carry a bumped epoch, then the next producer id takes over', async () => {
    const topic = new MemoryTransactionStateTopic();
    // An Ongoing transaction at the last usable epoch, as __transaction_state holds it.
    const ongoing = {
      producerId: 100, previousProducerId: -1, nextProducerId: -1, producerEpoch: 32766, lastProducerEpoch: -1, txnTimeoutMs: 60_000,
      state: TransactionState.Ongoing, partitions: new Map([['out', new Set([0])]]), txnStartTimestamp: Date.now(), txnLastUpdateTimestamp: Date.now(),
      clientTransactionVersion: 2,
    };
    await topic.append(new TransactionStateManager(topic, () => 1).partitionFor('tx'), [{ key: transactionLogKey('tx'), value: transactionLogValue(ongoing, 1) }]);
    const { coordinator, markers } = await open(topic, new RecordingMarkers(), 200);
    expect(await coordinator.handleEndTransaction('tx', 100, 32766, true, 2)).toEqual({ errorCode: 0, producerId: 200, producerEpoch: 0 });
    // A retry (the old id and epoch) gets the same answer once the transaction is complete.
    expect(await coordinator.handleEndTransaction('tx', 100, 32766, true, 2)).toEqual({ errorCode: 0, producerId: 200, producerEpoch: 0 });
    // Above the data's 32766: a partition takes a version 2 marker only with an epoch above its producer's.
    expect(markers.written).toEqual([{ producerId: 100, producerEpoch: 32767, commit: true, transactionVersion: 2, partitions: ['out-0'] }]);
    expect(coordinator.get('tx')).toMatchObject({ state: TransactionState.CompleteCommit, producerId: 200, producerEpoch: 0, previousProducerId: 100, lastProducerEpoch: 32766 }); // the epoch the client last used, as Kafka's prepareComplete keeps it
    await coordinator.shutdown();
  });

  it('answers EndTxn once Prepare* is durable, writes markers only after it, and applies the next add after Complete*', async () => {
    const events: string[] = [];
    class RecordingTopic extends MemoryTransactionStateTopic {
      override async append(partition: number, records: ReadonlyArray<CoordinatorRecord>, durability = 'flushed'): Promise<void> {
        events.push(`${stateName(decodeTransactionLogValue(records[0]!.value!).state)} ${durability}`);
        await super.append(partition, records);
      }
    }
    class HeldMarkers extends RecordingMarkers {
      release!: () => void;
      override async writeMarkers(...args: Parameters<RecordingMarkers['writeMarkers']>): Promise<void> {
        events.push('markers written');
        await new Promise<void>((resolve) => (this.release = resolve));
        events.push('markers durable');
        await super.writeMarkers(...args);
      }
    }
    const markers = new HeldMarkers();
    const { coordinator } = await open(new RecordingTopic(), markers);
    await coordinator.handleInitProducerId('tx', 60_000, null);
    await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0])]]), 0, false);
    events.length = 0;
    expect(await coordinator.handleEndTransaction('tx', 100, 0, true, 0)).toEqual({ errorCode: 0, producerId: 100, producerEpoch: 0 });
    // The decision was on disk before the first marker was written; the answer did not wait for the markers.
    expect(events).toEqual(['PrepareCommit flushed', 'markers written']);
    // A stale epoch is refused at once; the producer's next add is answered at once and applied once the
    // markers are durable, Complete* first; its data waits for that (awaitStateDurable).
    expect(await coordinator.handleAddPartitions('tx', 100, 1, new Map([['out', new Set([0])]]), 0, false)).toBe(90);
    expect(await coordinator.handleAddPartitions('tx', 999, 0, new Map([['out', new Set([0])]]), 0, false)).toBe(49); // INVALID_PRODUCER_ID_MAPPING
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0])]]), 0, false)).toBe(0);
    let applied: number | null = null;
    const durable = coordinator.awaitStateDurable('tx').then((code) => (applied = code));
    // A request that must see the state (EndTxn here) waits for the same.
    const end = coordinator.handleEndTransaction('tx', 100, 0, false, 0);
    await new Promise((r) => setImmediate(r));
    expect(applied).toBeNull();
    expect(events).toEqual(['PrepareCommit flushed', 'markers written']);
    markers.release();
    expect(await durable).toBe(0);
    expect(events).toEqual(['PrepareCommit flushed', 'markers written', 'markers durable', 'CompleteCommit unflushed', 'Ongoing flushing']);
    expect((await end).errorCode).toBe(0);
    expect(events.at(-2)).toBe('PrepareAbort flushed');
    markers.release();
    await coordinator.shutdown();
  });

  it('two adds deferred behind a completing transaction: a batch of the second waits for it, not for the first one\'s flush', async () => {
    // librdkafka adds each partition the next transaction writes to by a request of its own, right after
    // EndTxn's answer. Once the first add was applied, unflushedState was its flush alone: a batch for the
    // second partition was verified before that partition's add (INVALID_TXN_STATE, seen with quixstreams).
    class HeldFlushTopic extends MemoryTransactionStateTopic {
      held: Array<() => void> = [];
      override flush(): Promise<void> {
        return new Promise((resolve) => this.held.push(resolve));
      }
    }
    class HeldMarkers extends RecordingMarkers {
      release!: () => void;
      override async writeMarkers(...args: Parameters<RecordingMarkers['writeMarkers']>): Promise<void> {
        await new Promise<void>((resolve) => (this.release = resolve));
        await super.writeMarkers(...args);
      }
    }
    const topic = new HeldFlushTopic();
    const markers = new HeldMarkers();
    const { coordinator } = await open(topic, markers);
    const ticks = async (n = 20) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };
    await coordinator.handleInitProducerId('tx', 60_000, null);
    // (This topic's appends are durable at once: only a 'flushing' add's flush is held.)
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0])]]))).toBe(0);
    expect((await coordinator.handleEndTransaction('tx', 100, 0, true, 0)).errorCode).toBe(0);
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0])]]), 0, false)).toBe(0);
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([1])]]), 0, false)).toBe(0);
    markers.release();
    // The first add applied, its flush held: a batch for out-1 arrives now.
    await ticks();
    expect(coordinator.get('tx')!.hasPartition('out', 0)).toBe(true);
    let durable: number | null = null;
    let verified: unknown = null;
    void coordinator.awaitStateDurable('tx').then((code) => {
      durable = code;
      verified = coordinator.verifyPartitions('tx', 100, 0, new Map([['out', new Set([1])]]));
    });
    while (durable === null && topic.held.length > 0) {
      topic.held.shift()!();
      await ticks();
    }
    expect(durable).toBe(0);
    expect(verified).toEqual(new Map([['out', new Map([[1, 0]])]]));
    await coordinator.shutdown();
  });

  it('an add answered before its flush: awaitStateDurable waits for that flush, and reports its failure', async () => {
    // A state topic whose flushes settle only when the test says so.
    class HeldFlushTopic extends MemoryTransactionStateTopic {
      held: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
      override flush(): Promise<void> {
        return new Promise((resolve, reject) => this.held.push({ resolve, reject }));
      }
    }
    const topic = new HeldFlushTopic();
    const { coordinator } = await open(topic);
    await coordinator.handleInitProducerId('tx', 60_000, null);
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([0])]]), 0, false)).toBe(0);
    expect(coordinator.get('tx')).toMatchObject({ state: TransactionState.Ongoing });
    expect(topic.held).toHaveLength(1);
    let settled: number | null = null;
    const durable = coordinator.awaitStateDurable('tx').then((code) => (settled = code));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBeNull(); // the record is not on disk yet: a produce must not append
    topic.held[0].resolve();
    expect(await durable).toBe(0);
    expect(await coordinator.awaitStateDurable('tx')).toBe(0); // nothing pending any more
    // A durable add of a partition already in the transaction still waits for the earlier record.
    expect(await coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([1])]]), 0, false)).toBe(0);
    const again = coordinator.handleAddPartitions('tx', 100, 0, new Map([['out', new Set([1])]]));
    topic.held[1].reject(new Error('fdatasync failed'));
    expect(await again).toBe(15); // COORDINATOR_NOT_AVAILABLE
    coordinator.shutdown();
  });
});
