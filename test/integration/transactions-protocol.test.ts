// Transactions over the wire with our own client: the coordinator's answers, fencing, bad input (Kafka's
// error and no state change), the listing APIs, verification of produce, timeouts and restarts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { Reader } from '../../protocol/primitives.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { startBroker, type BrokerProcess, adminAddress } from '../helpers/broker-process.js';

const E = {
  NONE: 0, UNKNOWN_TOPIC_OR_PARTITION: 3, NOT_ENOUGH_REPLICAS: 19, OUT_OF_ORDER_SEQUENCE_NUMBER: 45, INVALID_PRODUCER_EPOCH: 47, INVALID_TXN_STATE: 48, INVALID_PRODUCER_ID_MAPPING: 49,
  INVALID_TRANSACTION_TIMEOUT: 50, CONCURRENT_TRANSACTIONS: 51, OPERATION_NOT_ATTEMPTED: 55, UNSTABLE_OFFSET_COMMIT: 88,
  PRODUCER_FENCED: 90, TRANSACTIONAL_ID_NOT_FOUND: 105, TRANSACTION_ABORTABLE: 120,
} as const;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

let broker: BrokerProcess;
let client: WireClient;

const OVERRIDES = [
  'offsets.topic.num.partitions=3',
  'transaction.state.log.num.partitions=3',
  'transaction.abort.timed.out.transaction.cleanup.interval.ms=200',
  'transaction.max.timeout.ms=60000',
];

beforeAll(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
  client = await WireClient.connect(broker.port);
  for (const name of ['tx-a', 'tx-b', 'tx-hang', 'tx-restart']) {
    const res = await client.send(19, 7, { topics: [{ name, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(res.topics[0].errorCode).toBe(E.NONE);
  }
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function initProducerId(transactionalId: string, timeoutMs = 30000, version = 4, producerId = -1, producerEpoch = -1) {
  return client.send(22, version, { transactionalId, transactionTimeoutMs: timeoutMs, producerId, producerEpoch });
}

function addPartitions(transactionalId: string, producerId: number, producerEpoch: number, topics: Array<{ name: string; partitions: number[] }>, version = 3) {
  return client.send(24, version, {
    transactions: [], v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: topics,
  });
}

function endTxn(transactionalId: string, producerId: number, producerEpoch: number, committed: boolean, version = 4) {
  return client.send(26, version, { transactionalId, producerId, producerEpoch, committed });
}

function describeTxn(transactionalId: string) {
  return client.send(65, 0, { transactionalIds: [transactionalId] }).then((r: any) => r.transactionStates[0]);
}

function txnBatch(producerId: number, producerEpoch: number, baseSequence: number, values: string[], isTransactional = true): Buffer {
  return encodeBatch({
    baseOffset: 0,
    records: values.map((v, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(v), headers: [] })),
    producerId, producerEpoch, baseSequence, isTransactional,
  });
}

async function produce(transactionalId: string | null, topic: string, partition: number, records: Buffer, version = 11) {
  const res: any = await client.send(0, version, { transactionalId, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
  return res.responses[0].partitionResponses[0];
}

async function fetchPartitionState(topic: string, partition: number) {
  const res: any = await client.send(1, 12, {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
    isolationLevel: 0, sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
    topics: [{ topic, topicId: ZERO_UUID, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20, replicaDirectoryId: ZERO_UUID }] }],
  });
  return res.responses[0].partitions[0];
}

/** The first value of `what` that is `ok`, polled every 100 ms; throws with the last one after `timeoutMs`. */
async function eventually<T>(what: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await what();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The __transaction_state records of `transactionalId` as stored in the broker's files, decoded by Kafka's
 * TransactionLogKey v0 / TransactionLogValue v1 schemas (shared/kafka-record-specs/transaction-coordinator).
 */
function storedTransactionLog(transactionalId: string): Array<{ producerEpoch: number; status: number; clientTransactionVersion: number }> {
  const out: Array<{ producerEpoch: number; status: number; clientTransactionVersion: number }> = [];
  for (const dir of readdirSync(broker.dataDir).filter((d) => d.startsWith('__transaction_state-')).sort()) {
    for (const file of readdirSync(join(broker.dataDir, dir)).filter((f) => f.endsWith('.log')).sort()) {
      const bytes = readFileSync(join(broker.dataDir, dir, file));
      for (const header of batchesIn(bytes)) {
        for (const record of decodeBatch(bytes.subarray(header.pos, header.pos + header.sizeInBytes)).records) {
          const key = new Reader(record.key!);
          if (key.int16() !== 0 || key.string(false) !== transactionalId || record.value === null) continue;
          const value = new Reader(record.value);
          expect(value.int16()).toBe(1); // flexible: ClientTransactionVersion is tagged field 2
          value.int64(); // ProducerId
          const producerEpoch = value.int16();
          value.int32(); // TransactionTimeoutMs
          const status = value.int8();
          const topics = value.arrayLength(true, true);
          for (let t = 0; t < topics; t++) {
            value.string(true);
            for (let n = value.arrayLength(true, false); n > 0; n--) value.int32();
            value.skipTaggedFields();
          }
          value.int64(); // TransactionLastUpdateTimestampMs
          value.int64(); // TransactionStartTimestampMs
          let clientTransactionVersion = 0; // the field's default
          for (let n = value.uvarint(); n > 0; n--) {
            const tag = value.uvarint();
            const field = new Reader(value.raw(value.uvarint()));
            if (tag === 2) clientTransactionVersion = field.int16();
          }
          out.push({ producerEpoch, status, clientTransactionVersion });
        }
      }
    }
  }
  return out;
}

const STATUS = { Empty: 0, Ongoing: 1, PrepareAbort: 3, CompleteAbort: 5 } as const;

/** A second connection producing a transaction's batches to one partition, one after another (acks=1). */
class ProducerWhile {
  /** Records appended, and the error codes of the batches refused. */
  appended = 0;
  readonly errors: number[] = [];

  private constructor(
    private readonly connection: WireClient,
    private readonly transactionalId: string,
    private readonly producerId: number,
    private readonly producerEpoch: number,
    private readonly topic: string,
    private readonly partition: number,
  ) {}

  static async open(transactionalId: string, producerId: number, producerEpoch: number, topic: string, partition: number): Promise<ProducerWhile> {
    return new ProducerWhile(await WireClient.connect(broker.port), transactionalId, producerId, producerEpoch, topic, partition);
  }

  /** Produces until `change` (a request on the other connection, its state record written and flushed) is answered; at least once. */
  async produceWhile(change: Promise<unknown>): Promise<void> {
    let answered = false;
    void change.then(() => (answered = true), () => (answered = true));
    do {
      const res: any = await this.connection.send(0, 9, {
        transactionalId: this.transactionalId, acks: 1, timeoutMs: 5000,
        topicData: [{ name: this.topic, partitionData: [{ index: this.partition, records: txnBatch(this.producerId, this.producerEpoch, this.appended, ['v']) }] }],
      });
      const errorCode = res.responses[0].partitionResponses[0].errorCode;
      if (errorCode === E.NONE) this.appended++;
      else this.errors.push(errorCode);
    } while (!answered);
  }

  close(): void {
    this.connection.close();
  }
}

describe('transaction coordinator over the wire', () => {
  it('InitProducerId bumps the epoch per call, fences the old producer, and refuses bad timeouts', async () => {
    const first = await initProducerId('wire-init');
    expect(first).toMatchObject({ errorCode: E.NONE, producerEpoch: 0 });
    const second = await initProducerId('wire-init');
    expect(second).toMatchObject({ errorCode: E.NONE, producerId: first.producerId, producerEpoch: 1 });
    // The fenced producer: PRODUCER_FENCED from v2 of AddPartitionsToTxn, INVALID_PRODUCER_EPOCH before.
    expect((await addPartitions('wire-init', first.producerId, 0, [{ name: 'tx-a', partitions: [0] }], 2)).resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(E.PRODUCER_FENCED);
    expect((await addPartitions('wire-init', first.producerId, 0, [{ name: 'tx-a', partitions: [0] }], 1)).resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    // KIP-360: the current producer resumes with its id and epoch; a stale epoch is fenced (INVALID_PRODUCER_EPOCH before v4).
    expect(await initProducerId('wire-init', 30000, 4, first.producerId, 1)).toMatchObject({ errorCode: E.NONE, producerEpoch: 2 });
    expect((await initProducerId('wire-init', 30000, 4, first.producerId, 0)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await initProducerId('wire-init', 30000, 3, first.producerId, 0)).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    expect((await initProducerId('wire-init', 60001)).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    expect((await initProducerId('wire-init', 0)).errorCode).toBe(E.INVALID_TRANSACTION_TIMEOUT);
    // None of the refusals changed the state.
    expect(await describeTxn('wire-init')).toMatchObject({ errorCode: E.NONE, transactionState: 'Empty', producerEpoch: 2, transactionTimeoutMs: 30000 });
  });

  it('commits: Ongoing with its partitions, markers written, CompleteCommit', async () => {
    const { producerId, producerEpoch } = await initProducerId('wire-commit');
    const before = await fetchPartitionState('tx-a', 1);
    expect((await addPartitions('wire-commit', producerId, producerEpoch, [{ name: 'tx-a', partitions: [1] }])).resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(E.NONE);
    expect(await describeTxn('wire-commit')).toMatchObject({ transactionState: 'Ongoing', topics: [{ topic: 'tx-a', partitions: [1] }] });
    expect((await produce('wire-commit', 'tx-a', 1, txnBatch(producerId, producerEpoch, 0, ['x', 'y']))).errorCode).toBe(E.NONE);
    // The open transaction holds the last stable offset at its first record.
    expect((await fetchPartitionState('tx-a', 1)).lastStableOffset).toBe(before.highWatermark);
    expect((await endTxn('wire-commit', producerId, producerEpoch, true)).errorCode).toBe(E.NONE);
    const after = await fetchPartitionState('tx-a', 1);
    // Two records and the COMMIT marker; nothing unstable left.
    expect(after.highWatermark).toBe(before.highWatermark + 3);
    expect(after.lastStableOffset).toBe(after.highWatermark);
    // EndTxn is answered once PrepareCommit is on disk; CompleteCommit follows the markers' flush, as in Kafka.
    const completed = await eventually(() => describeTxn('wire-commit'), (d: any) => d.transactionState !== 'PrepareCommit');
    expect(completed).toMatchObject({ transactionState: 'CompleteCommit', topics: [] });
    // A retried EndTxn(commit) is answered NONE; an abort now is INVALID_TXN_STATE.
    expect((await endTxn('wire-commit', producerId, producerEpoch, true)).errorCode).toBe(E.NONE);
    expect((await endTxn('wire-commit', producerId, producerEpoch, false)).errorCode).toBe(E.INVALID_TXN_STATE);
  });

  it('rejects bad input with Kafka\'s errors and changes nothing', async () => {
    // EndTxn for an unknown transactional id.
    expect((await endTxn('wire-nobody', 12345, 0, true)).errorCode).toBe(E.INVALID_PRODUCER_ID_MAPPING);
    expect((await describeTxn('wire-nobody')).errorCode).toBe(E.TRANSACTIONAL_ID_NOT_FOUND);

    const { producerId, producerEpoch } = await initProducerId('wire-bad');
    // AddPartitionsToTxn naming a missing topic: that partition UNKNOWN_TOPIC_OR_PARTITION, the rest not attempted.
    const added = await addPartitions('wire-bad', producerId, producerEpoch, [{ name: 'tx-a', partitions: [0] }, { name: 'no-such-topic', partitions: [0] }, { name: 'tx-b', partitions: [7] }]);
    const codes = Object.fromEntries(added.resultsByTopicV3AndBelow.map((t: any) => [t.name, t.resultsByPartition.map((p: any) => p.partitionErrorCode)]));
    expect(codes).toEqual({ 'tx-a': [E.OPERATION_NOT_ATTEMPTED], 'no-such-topic': [E.UNKNOWN_TOPIC_OR_PARTITION], 'tx-b': [E.UNKNOWN_TOPIC_OR_PARTITION] });
    expect(await describeTxn('wire-bad')).toMatchObject({ transactionState: 'Empty', topics: [] });

    // A transactional batch for a partition not in the transaction (KIP-890 verification), not appended:
    // TRANSACTION_ABORTABLE from Produce v11 (KIP-1050), INVALID_TXN_STATE before.
    const hw = (await fetchPartitionState('tx-b', 0)).highWatermark;
    expect((await produce('wire-bad', 'tx-b', 0, txnBatch(producerId, producerEpoch, 0, ['nope']))).errorCode).toBe(E.TRANSACTION_ABORTABLE);
    expect((await produce('wire-bad', 'tx-b', 0, txnBatch(producerId, producerEpoch, 0, ['nope']), 10)).errorCode).toBe(E.INVALID_TXN_STATE);
    expect((await fetchPartitionState('tx-b', 0)).highWatermark).toBe(hw);

    // A stale epoch after a newer InitProducerId: fenced on every path, nothing appended or stored.
    expect((await addPartitions('wire-bad', producerId, producerEpoch, [{ name: 'tx-b', partitions: [0] }])).resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(E.NONE);
    expect((await client.send(25, 3, { transactionalId: 'wire-bad', producerId, producerEpoch, groupId: 'wire-bad-group' })).errorCode).toBe(E.NONE);
    const bumped = await initProducerId('wire-bad');
    // The open transaction was aborted by the fence: CONCURRENT_TRANSACTIONS is never left over for a one-node coordinator.
    expect(bumped.errorCode === E.NONE || bumped.errorCode === E.CONCURRENT_TRANSACTIONS).toBe(true);
    const current = bumped.errorCode === E.NONE ? bumped : await initProducerId('wire-bad');
    expect(current.producerEpoch).toBeGreaterThan(producerEpoch);
    const stale = await produce('wire-bad', 'tx-b', 0, txnBatch(producerId, producerEpoch, 0, ['stale']));
    expect(stale.errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    expect((await fetchPartitionState('tx-b', 0)).highWatermark).toBe(hw + 1); // only the fence's ABORT marker
    const commit = await client.send(28, 3, {
      transactionalId: 'wire-bad', groupId: 'wire-bad-group', producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'tx-b', partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    expect(commit.topics[0].partitions[0].errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    const fetched = await client.send(9, 7, { groupId: 'wire-bad-group', topics: [{ name: 'tx-b', partitionIndexes: [0] }], groups: [], requireStable: true });
    expect(fetched.topics[0].partitions[0]).toMatchObject({ committedOffset: -1, errorCode: E.NONE });
    expect((await endTxn('wire-bad', producerId, producerEpoch, true)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await endTxn('wire-bad', producerId, producerEpoch, true, 1)).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    // A transactional batch without a transactional id in the request.
    expect((await produce(null, 'tx-b', 0, txnBatch(current.producerId, current.producerEpoch, 0, ['anon']))).errorCode).toBe(53);
  });

  it('keeps TxnOffsetCommit offsets pending until the commit: OffsetFetch requireStable answers UNSTABLE_OFFSET_COMMIT meanwhile', async () => {
    const { producerId, producerEpoch } = await initProducerId('wire-offsets');
    const group = 'wire-offsets-group';
    // TxnOffsetCommit before AddOffsetsToTxn: the group's partition is not in the transaction.
    const commitReq = (offset: number) => ({
      transactionalId: 'wire-offsets', groupId: group, producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'tx-a', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'm' }] }],
    });
    expect((await client.send(28, 3, commitReq(7))).topics[0].partitions[0].errorCode).toBe(E.INVALID_TXN_STATE);
    expect((await client.send(28, 4, commitReq(7))).topics[0].partitions[0].errorCode).toBe(E.TRANSACTION_ABORTABLE);
    expect((await client.send(25, 3, { transactionalId: 'wire-offsets', producerId, producerEpoch, groupId: group })).errorCode).toBe(E.NONE);
    expect((await client.send(28, 3, commitReq(7))).topics[0].partitions[0].errorCode).toBe(E.NONE);
    const fetchOffsets = (requireStable: boolean) =>
      client.send(9, 7, { groupId: group, topics: [{ name: 'tx-a', partitionIndexes: [0] }], groups: [], requireStable }).then((r: any) => r.topics[0].partitions[0]);
    expect(await fetchOffsets(true)).toMatchObject({ errorCode: E.UNSTABLE_OFFSET_COMMIT, committedOffset: -1 });
    expect(await fetchOffsets(false)).toMatchObject({ errorCode: E.NONE, committedOffset: -1 });
    expect((await endTxn('wire-offsets', producerId, producerEpoch, true)).errorCode).toBe(E.NONE);
    expect(await fetchOffsets(true)).toMatchObject({ errorCode: E.NONE, committedOffset: 7, metadata: 'm' });

    // An aborted transaction's offsets are discarded.
    expect((await client.send(25, 3, { transactionalId: 'wire-offsets', producerId, producerEpoch, groupId: group })).errorCode).toBe(E.NONE);
    expect((await client.send(28, 3, commitReq(99))).topics[0].partitions[0].errorCode).toBe(E.NONE);
    expect((await endTxn('wire-offsets', producerId, producerEpoch, false)).errorCode).toBe(E.NONE);
    expect(await fetchOffsets(true)).toMatchObject({ errorCode: E.NONE, committedOffset: 7 });
  });

  it('commits TxnOffsetCommit offsets sent right before EndTxn, without waiting for their answer', async () => {
    for (const [transactionalId, commitVersion, endVersion] of [['wire-offsets-pipelined', 3, 4], ['wire-offsets-pipelined-tv2', 5, 5]] as const) {
      let { producerId, producerEpoch } = await initProducerId(transactionalId, 30000, 5);
      const group = `${transactionalId}-group`;
      const fetchOffsets = () =>
        client.send(9, 7, { groupId: group, topics: [{ name: 'tx-a', partitionIndexes: [0] }], groups: [], requireStable: true }).then((r: any) => r.topics[0].partitions[0]);
      for (const offset of [11, 12, 13]) {
        // Transaction version 1 adds the group's partition with AddOffsetsToTxn; TxnOffsetCommit v5 adds it itself.
        if (commitVersion < 5) expect((await client.send(25, 3, { transactionalId, producerId, producerEpoch, groupId: group })).errorCode).toBe(E.NONE);
        const commit = client.send(28, commitVersion, {
          transactionalId, groupId: group, producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
          topics: [{ name: 'tx-a', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
        });
        const end = endTxn(transactionalId, producerId, producerEpoch, true, endVersion);
        expect((await commit).topics[0].partitions[0].errorCode).toBe(E.NONE);
        let ended: any = await end;
        // The EndTxn may find the offsets' add still being written (CONCURRENT_TRANSACTIONS): a client retries it.
        if (ended.errorCode === E.CONCURRENT_TRANSACTIONS) ended = await endTxn(transactionalId, producerId, producerEpoch, true, endVersion);
        expect(ended.errorCode).toBe(E.NONE);
        // EndTxn v5 answers with the epoch the next transaction uses (KIP-890 part 2).
        if (endVersion >= 5) ({ producerId, producerEpoch } = ended);
        // Committed and stable: offsets left pending after the markers would answer UNSTABLE_OFFSET_COMMIT for good.
        expect(await eventually(fetchOffsets, (p: any) => p.errorCode === E.NONE && p.committedOffset === offset, 5000)).toMatchObject({ errorCode: E.NONE, committedOffset: offset });
      }
    }
  });

  it('lists and describes transactions with state, producer id and duration filters', async () => {
    const a = await initProducerId('wire-list-1');
    const b = await initProducerId('wire-list-2');
    await addPartitions('wire-list-2', b.producerId, b.producerEpoch, [{ name: 'tx-b', partitions: [1, 0] }]);
    const list = (stateFilters: string[], producerIdFilters: number[] = [], durationFilter = -1) =>
      client.send(66, 1, { stateFilters, producerIdFilters, durationFilter });
    const ongoing = await list(['Ongoing']);
    expect(ongoing.transactionStates).toContainEqual({ transactionalId: 'wire-list-2', producerId: b.producerId, transactionState: 'Ongoing' });
    expect(ongoing.transactionStates.map((t: any) => t.transactionalId)).not.toContain('wire-list-1');
    expect((await list([], [a.producerId])).transactionStates).toEqual([{ transactionalId: 'wire-list-1', producerId: a.producerId, transactionState: 'Empty' }]);
    const unknown = await list(['Bogus']);
    expect(unknown.unknownStateFilters).toEqual(['Bogus']);
    expect(unknown.transactionStates).toEqual([]);
    // Running longer than an hour: none of the ongoing ones.
    expect((await list(['Ongoing'], [], 3_600_000)).transactionStates).toEqual([]);
    await new Promise((r) => setTimeout(r, 20));
    expect((await list(['Ongoing'], [b.producerId], 10)).transactionStates).toHaveLength(1);
    const described = await describeTxn('wire-list-2');
    expect(described).toMatchObject({ errorCode: E.NONE, transactionState: 'Ongoing', producerId: b.producerId, topics: [{ topic: 'tx-b', partitions: [0, 1] }] });
    expect(described.transactionStartTimeMs).toBeGreaterThan(Date.now() - 60_000);
    expect((await endTxn('wire-list-2', b.producerId, b.producerEpoch, false)).errorCode).toBe(E.NONE);
  });

  it('a hanging transaction holds the last stable offset until its timeout aborts it with an epoch bump', async () => {
    const { producerId, producerEpoch } = await initProducerId('wire-hang', 1500);
    const start = (await fetchPartitionState('tx-hang', 0)).highWatermark;
    await addPartitions('wire-hang', producerId, producerEpoch, [{ name: 'tx-hang', partitions: [0] }]);
    expect((await produce('wire-hang', 'tx-hang', 0, txnBatch(producerId, producerEpoch, 0, ['hang']))).errorCode).toBe(E.NONE);
    // Other producers keep writing; the LSO stays at the open transaction's first offset.
    expect((await produce(null, 'tx-hang', 0, txnBatch(-1, -1, -1, ['plain-1', 'plain-2'], false))).errorCode).toBe(E.NONE);
    const held = await fetchPartitionState('tx-hang', 0);
    expect(held.highWatermark).toBe(start + 3);
    expect(held.lastStableOffset).toBe(start);
    const aborted = await eventually(() => describeTxn('wire-hang'), (d: any) => d.transactionState === 'CompleteAbort');
    expect(aborted).toMatchObject({ transactionState: 'CompleteAbort', producerEpoch: producerEpoch + 1 });
    const released = await fetchPartitionState('tx-hang', 0);
    expect(released.highWatermark).toBe(start + 4); // the ABORT marker
    expect(released.lastStableOffset).toBe(released.highWatermark);
    // The timed-out producer is fenced.
    expect((await endTxn('wire-hang', producerId, producerEpoch, true)).errorCode).toBe(E.PRODUCER_FENCED);
    expect((await produce('wire-hang', 'tx-hang', 0, txnBatch(producerId, producerEpoch, 1, ['late']))).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
  });

  it('admin HTTP lists ongoing transactions; metrics count started, committed, aborted and timed out ones', async () => {
    const admin = adminAddress(broker);
    const { producerId, producerEpoch } = await initProducerId('wire-admin');
    await addPartitions('wire-admin', producerId, producerEpoch, [{ name: 'tx-a', partitions: [1, 0] }]);
    const { transactions } = await (await fetch(`${admin}/v1/transactions`)).json();
    const listed = transactions.find((t: any) => t.transactionalId === 'wire-admin');
    expect(listed).toMatchObject({ producerId, producerEpoch, state: 'Ongoing', partitions: [{ topic: 'tx-a', partition: 0 }, { topic: 'tx-a', partition: 1 }] });
    expect(listed.durationMs).toBeGreaterThanOrEqual(0);
    // Finished transactions are not listed.
    expect(transactions.map((t: any) => t.transactionalId)).not.toContain('wire-commit');
    const metricsText = await (await fetch(`${admin}/metrics`)).text();
    const metric = (name: string) => Number(metricsText.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1]);
    expect(metric('kafkite_transactions_started_total')).toBeGreaterThanOrEqual(5);
    expect(metric('kafkite_transactions_committed_total')).toBeGreaterThanOrEqual(2);
    expect(metric('kafkite_transactions_aborted_total')).toBeGreaterThanOrEqual(3);
    expect(metric('kafkite_transactions_timed_out_total')).toBe(1);
    expect((await endTxn('wire-admin', producerId, producerEpoch, false)).errorCode).toBe(E.NONE);
    // Listed until CompleteAbort (PrepareAbort is still open), which follows the markers' flush.
    const after = await eventually(async () => (await (await fetch(`${admin}/v1/transactions`)).json()).transactions,
      (listedNow: any[]) => !listedNow.some((t) => t.transactionalId === 'wire-admin'));
    expect(after.map((t: any) => t.transactionalId)).not.toContain('wire-admin');
  });

  it('answers WriteTxnMarkers as a one-node broker: markers appended, unknown partitions refused', async () => {
    const { producerId, producerEpoch } = await initProducerId('wire-markers');
    await addPartitions('wire-markers', producerId, producerEpoch, [{ name: 'tx-b', partitions: [1] }]);
    expect((await produce('wire-markers', 'tx-b', 1, txnBatch(producerId, producerEpoch, 0, ['m']))).errorCode).toBe(E.NONE);
    const before = await fetchPartitionState('tx-b', 1);
    expect(before.lastStableOffset).toBeLessThan(before.highWatermark);
    const res = await client.send(27, 1, {
      markers: [{ producerId, producerEpoch, transactionResult: false, coordinatorEpoch: 0, topics: [{ name: 'tx-b', partitionIndexes: [1] }, { name: 'no-such-topic', partitionIndexes: [0] }] }],
    });
    expect(res.markers[0].topics.map((t: any) => t.partitions[0].errorCode)).toEqual([E.NONE, E.UNKNOWN_TOPIC_OR_PARTITION]);
    const after = await fetchPartitionState('tx-b', 1);
    expect(after.highWatermark).toBe(before.highWatermark + 1);
    expect(after.lastStableOffset).toBe(after.highWatermark);
    await endTxn('wire-markers', producerId, producerEpoch, false);
  });

  it('WriteTxnMarkers v2 applies the marker\'s own transaction version (KIP-1228): a version 2 marker needs a bumped epoch', async () => {
    const { producerId, producerEpoch } = await initProducerId('wire-markers-v2');
    await addPartitions('wire-markers-v2', producerId, producerEpoch, [{ name: 'tx-b', partitions: [1] }]);
    expect((await produce('wire-markers-v2', 'tx-b', 1, txnBatch(producerId, producerEpoch, 0, ['m']))).errorCode).toBe(E.NONE);
    const before = await fetchPartitionState('tx-b', 1);
    const marker = (epoch: number, transactionVersion: number) => client.send(27, 2, {
      markers: [{ producerId, producerEpoch: epoch, transactionResult: false, coordinatorEpoch: 0, transactionVersion, topics: [{ name: 'tx-b', partitionIndexes: [1] }] }],
    });
    // At the open transaction's own epoch a version 2 marker is refused (v1 would take it), and nothing is written.
    expect((await marker(producerEpoch, 2)).markers[0].topics[0].partitions[0].errorCode).not.toBe(E.NONE);
    expect(await fetchPartitionState('tx-b', 1)).toMatchObject({ highWatermark: before.highWatermark, lastStableOffset: before.lastStableOffset });
    expect((await marker(producerEpoch + 1, 2)).markers[0].topics[0].partitions[0].errorCode).toBe(E.NONE);
    const after = await fetchPartitionState('tx-b', 1);
    expect(after.highWatermark).toBe(before.highWatermark + 1);
    expect(after.lastStableOffset).toBe(after.highWatermark);
    await endTxn('wire-markers-v2', producerId, producerEpoch, false);
  });

  it('advertises the transaction APIs and the finalized transaction.version', async () => {
    const res = await client.send(18, 3, { clientSoftwareName: 'wire', clientSoftwareVersion: '1' });
    const versions = Object.fromEntries(res.apiKeys.map((k: any) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    expect(versions).toMatchObject({ 0: [0, 13], 22: [0, 5], 24: [0, 5], 25: [0, 4], 26: [0, 5], 27: [0, 2], 28: [0, 6], 65: [0, 0], 66: [0, 2] });
    // v3 omits supported features whose minimum is 0 (KAFKA-17011); the finalized level is what clients go by.
    expect(res.finalizedFeatures).toContainEqual({ name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 });
    const v4 = await client.send(18, 4, { clientSoftwareName: 'wire', clientSoftwareVersion: '1' });
    expect(v4.supportedFeatures).toContainEqual({ name: 'transaction.version', minVersion: 0, maxVersion: 2 });
  });

  it('transaction version 2 (KIP-890 part 2): implicit adds by Produce v12 and TxnOffsetCommit v5, an epoch bump per EndTxn v5', async () => {
    const { producerId, producerEpoch: e0 } = await initProducerId('wire-tv2');
    const group = 'wire-tv2-group';
    const start = (await fetchPartitionState('tx-b', 1)).highWatermark;
    // No AddPartitionsToTxn: Produce v12 adds the partition, TxnOffsetCommit v5 the group's offsets partition.
    expect((await produce('wire-tv2', 'tx-b', 1, txnBatch(producerId, e0, 0, ['t1', 't2']), 12)).errorCode).toBe(E.NONE);
    const offsetsReq = (epoch: number, offset: number) => ({
      transactionalId: 'wire-tv2', groupId: group, producerId, producerEpoch: epoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'tx-b', partitions: [{ partitionIndex: 1, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    expect((await client.send(28, 5, offsetsReq(e0, 2))).topics[0].partitions[0].errorCode).toBe(E.NONE);
    const ongoing = await describeTxn('wire-tv2');
    expect(ongoing.transactionState).toBe('Ongoing');
    expect(ongoing.topics.map((t: any) => t.topic).sort()).toEqual(['__consumer_offsets', 'tx-b']);
    // EndTxn v5 answers the bumped epoch; its retry (the old epoch) gets the same answer.
    expect(await endTxn('wire-tv2', producerId, e0, true, 5)).toMatchObject({ errorCode: E.NONE, producerId, producerEpoch: e0 + 1 });
    expect(await endTxn('wire-tv2', producerId, e0, true, 5)).toMatchObject({ errorCode: E.NONE, producerId, producerEpoch: e0 + 1 });
    const fetchOffsets = () => client.send(9, 7, { groupId: group, topics: [{ name: 'tx-b', partitionIndexes: [1] }], groups: [], requireStable: true }).then((r: any) => r.topics[0].partitions[0]);
    expect(await fetchOffsets()).toMatchObject({ errorCode: E.NONE, committedOffset: 2 });
    // The COMMIT marker carries the bumped epoch, so the old epoch is fenced on the partition too.
    const committed = await fetchPartitionState('tx-b', 1);
    expect(committed.highWatermark).toBe(start + 3);
    const headers = [...batchesIn(committed.records as Buffer)];
    expect(headers.at(-1)).toMatchObject({ isControl: true, producerEpoch: e0 + 1 });
    expect((await produce('wire-tv2', 'tx-b', 1, txnBatch(producerId, e0, 2, ['stale']), 12)).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);

    // The next transaction: the new epoch, sequences from 0 again; aborted, with the next bump.
    expect((await produce('wire-tv2', 'tx-b', 1, txnBatch(producerId, e0 + 1, 0, ['aborted']), 12)).errorCode).toBe(E.NONE);
    expect((await client.send(28, 5, offsetsReq(e0 + 1, 3))).topics[0].partitions[0].errorCode).toBe(E.NONE);
    expect(await endTxn('wire-tv2', producerId, e0 + 1, false, 5)).toMatchObject({ errorCode: E.NONE, producerEpoch: e0 + 2 });
    expect(await fetchOffsets()).toMatchObject({ errorCode: E.NONE, committedOffset: 2 });
    // An abort with nothing added is allowed under version 2 (it bumps the epoch too); a stale EndTxn is fenced.
    expect(await endTxn('wire-tv2', producerId, e0 + 2, false, 5)).toMatchObject({ errorCode: E.NONE, producerEpoch: e0 + 3 });
    expect((await endTxn('wire-tv2', producerId, e0 + 1, true, 5)).errorCode).toBe(E.PRODUCER_FENCED);
    expect(await describeTxn('wire-tv2')).toMatchObject({ transactionState: 'CompleteAbort', producerEpoch: e0 + 3 });
    // TxnOffsetCommit v5 from a fenced epoch stores nothing.
    expect((await client.send(28, 5, offsetsReq(e0, 9))).topics[0].partitions[0].errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
    expect(await fetchOffsets()).toMatchObject({ committedOffset: 2 });
  });

  it('verifies a produce against the partitions already added while another change of its transaction is being written, as Kafka does', async () => {
    // The Java client sends AddOffsetsToTxn, or AddPartitionsToTxn for a new partition, while its batches for
    // partitions already added are in flight. Kafka's handleVerifyPartitionsInTransaction ignores the pending
    // change; failing those batches (NOT_ENOUGH_REPLICAS) made the client retry them after its backoff.
    const { producerId, producerEpoch } = await initProducerId('wire-pipelined');
    expect((await addPartitions('wire-pipelined', producerId, producerEpoch, [{ name: 'tx-a', partitions: [0] }])).resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(E.NONE);
    const hw = (await fetchPartitionState('tx-a', 0)).highWatermark;
    const producer = await ProducerWhile.open('wire-pipelined', producerId, producerEpoch, 'tx-a', 0);
    try {
      for (let round = 0; round < 10; round++) {
        const offsetsAdded = client.send(25, 3, { transactionalId: 'wire-pipelined', producerId, producerEpoch, groupId: `wire-pipelined-${round}` });
        await producer.produceWhile(offsetsAdded);
        expect((await offsetsAdded).errorCode).toBe(E.NONE);
        const partitionAdded = addPartitions('wire-pipelined', producerId, producerEpoch, [{ name: 'tx-b', partitions: [round % 2] }]);
        await producer.produceWhile(partitionAdded);
        expect((await partitionAdded).resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(E.NONE);
      }
    } finally {
      producer.close();
    }
    expect(producer.errors).toEqual([]);
    expect((await fetchPartitionState('tx-a', 0)).highWatermark).toBe(hw + producer.appended);
    expect((await endTxn('wire-pipelined', producerId, producerEpoch, true)).errorCode).toBe(E.NONE);
    const committed = await fetchPartitionState('tx-a', 0);
    expect(committed.highWatermark).toBe(hw + producer.appended + 1);
    expect(committed.lastStableOffset).toBe(committed.highWatermark);
  });

  it('never appends a produce racing EndTxn after the transaction\'s markers', async () => {
    // Verification passes while an add is being written, not once the transaction has begun to end, and it is
    // the last step before the append: a batch appended after the COMMIT marker would open a transaction the
    // coordinator does not know, holding the last stable offset for good.
    const { producerId, producerEpoch } = await initProducerId('wire-racing-end');
    expect((await addPartitions('wire-racing-end', producerId, producerEpoch, [{ name: 'tx-b', partitions: [1] }])).resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(E.NONE);
    const producer = await ProducerWhile.open('wire-racing-end', producerId, producerEpoch, 'tx-b', 1);
    try {
      await producer.produceWhile(endTxn('wire-racing-end', producerId, producerEpoch, true));
      await eventually(() => describeTxn('wire-racing-end'), (d: any) => d.transactionState === 'CompleteCommit');
      await producer.produceWhile(Promise.resolve());
    } finally {
      producer.close();
    }
    expect(producer.errors.every((e) => e === E.NOT_ENOUGH_REPLICAS || e === E.INVALID_TXN_STATE)).toBe(true);
    // The batch sent once the transaction was complete is refused: its partition is in no transaction.
    expect(producer.errors.at(-1)).toBe(E.INVALID_TXN_STATE);
    const state = await fetchPartitionState('tx-b', 1);
    expect(state.lastStableOffset).toBe(state.highWatermark);
    const last = [...batchesIn(state.records as Buffer)].at(-1)!;
    expect(last).toMatchObject({ isControl: true, producerId });
  });
});

describe('transaction version 2 sequences', () => {
  it('a producer new to a partition starts its transaction at sequence 0, else OUT_OF_ORDER_SEQUENCE_NUMBER and nothing is stored', async () => {
    const { producerId, producerEpoch } = await initProducerId('wire-tv2-seq');
    const start = (await fetchPartitionState('tx-a', 0)).highWatermark;
    expect((await produce('wire-tv2-seq', 'tx-a', 0, txnBatch(producerId, producerEpoch, 5, ['gap']), 12)).errorCode).toBe(E.OUT_OF_ORDER_SEQUENCE_NUMBER);
    const refused = await fetchPartitionState('tx-a', 0);
    expect(refused.highWatermark).toBe(start);
    expect(refused.lastStableOffset).toBe(start);
    expect((await produce('wire-tv2-seq', 'tx-a', 0, txnBatch(producerId, producerEpoch, 0, ['first']), 12)).errorCode).toBe(E.NONE);
    expect((await fetchPartitionState('tx-a', 0)).highWatermark).toBe(start + 1);
    expect((await endTxn('wire-tv2-seq', producerId, producerEpoch, false, 5)).errorCode).toBe(E.NONE);
    // Transaction version 0/1 (Produce v11): such a producer may start anywhere (its state here may have expired).
    const v1 = await initProducerId('wire-tv1-seq');
    await addPartitions('wire-tv1-seq', v1.producerId, v1.producerEpoch, [{ name: 'tx-a', partitions: [1] }]);
    expect((await produce('wire-tv1-seq', 'tx-a', 1, txnBatch(v1.producerId, v1.producerEpoch, 5, ['any']))).errorCode).toBe(E.NONE);
    expect((await endTxn('wire-tv1-seq', v1.producerId, v1.producerEpoch, false)).errorCode).toBe(E.NONE);
  });
});

describe('transaction version 2 timeouts', () => {
  it('a timed-out transaction is aborted under its own client transaction version, stored in __transaction_state', async () => {
    const { producerId, producerEpoch: e0 } = await initProducerId('wire-hang-tv2', 1500);
    expect((await produce('wire-hang-tv2', 'tx-hang', 1, txnBatch(producerId, e0, 0, ['hang']), 12)).errorCode).toBe(E.NONE);
    await eventually(() => describeTxn('wire-hang-tv2'), (d: any) => d.transactionState === 'CompleteAbort');
    // The fence and the abort keep the transaction's ClientTransactionVersion.
    expect(storedTransactionLog('wire-hang-tv2')).toEqual([
      { producerEpoch: e0, status: STATUS.Empty, clientTransactionVersion: 0 },
      { producerEpoch: e0, status: STATUS.Ongoing, clientTransactionVersion: 2 },
      { producerEpoch: e0 + 1, status: STATUS.PrepareAbort, clientTransactionVersion: 2 },
      { producerEpoch: e0 + 1, status: STATUS.CompleteAbort, clientTransactionVersion: 2 },
    ]);
    // One bump for the fence and the abort: the ABORT marker carries it, and the old epoch is fenced on the partition.
    const aborted = await fetchPartitionState('tx-hang', 1);
    expect([...batchesIn(aborted.records as Buffer)].at(-1)).toMatchObject({ isControl: true, producerId, producerEpoch: e0 + 1 });
    expect(aborted.lastStableOffset).toBe(aborted.highWatermark);
    expect((await produce('wire-hang-tv2', 'tx-hang', 1, txnBatch(producerId, e0, 1, ['late']), 12)).errorCode).toBe(E.INVALID_PRODUCER_EPOCH);
  });
});

describe('transaction state across restarts', () => {
  it('keeps producer ids, epochs, ongoing transactions and committed offsets through a clean stop and a kill -9', async () => {
    const dataDir = broker.dataDir;
    const { producerId, producerEpoch } = await initProducerId('wire-restart');
    await addPartitions('wire-restart', producerId, producerEpoch, [{ name: 'tx-restart', partitions: [0] }]);
    expect((await client.send(25, 3, { transactionalId: 'wire-restart', producerId, producerEpoch, groupId: 'wire-restart-group' })).errorCode).toBe(E.NONE);
    expect((await produce('wire-restart', 'tx-restart', 0, txnBatch(producerId, producerEpoch, 0, ['r1']))).errorCode).toBe(E.NONE);
    const commit = await client.send(28, 3, {
      transactionalId: 'wire-restart', groupId: 'wire-restart-group', producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'tx-restart', partitions: [{ partitionIndex: 0, committedOffset: 11, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    expect(commit.topics[0].partitions[0].errorCode).toBe(E.NONE);

    client.close();
    await broker.kill();
    broker = await startBroker({ dataDir, overrides: OVERRIDES });
    client = await WireClient.connect(broker.port);
    // The ongoing transaction and its pending offsets came back.
    expect(await describeTxn('wire-restart')).toMatchObject({ transactionState: 'Ongoing', producerId, producerEpoch });
    const fetchOffsets = () => client.send(9, 7, { groupId: 'wire-restart-group', topics: [{ name: 'tx-restart', partitionIndexes: [0] }], groups: [], requireStable: true }).then((r: any) => r.topics[0].partitions[0]);
    expect((await fetchOffsets()).errorCode).toBe(E.UNSTABLE_OFFSET_COMMIT);
    expect((await endTxn('wire-restart', producerId, producerEpoch, true)).errorCode).toBe(E.NONE);
    expect(await fetchOffsets()).toMatchObject({ errorCode: E.NONE, committedOffset: 11 });

    client.close();
    expect(await broker.stop()).toBe(0);
    broker = await startBroker({ dataDir, overrides: OVERRIDES });
    client = await WireClient.connect(broker.port);
    expect(await describeTxn('wire-restart')).toMatchObject({ transactionState: 'CompleteCommit', producerId, producerEpoch });
    expect(await fetchOffsets()).toMatchObject({ errorCode: E.NONE, committedOffset: 11 });
    // The next InitProducerId continues from the stored epoch.
    expect(await initProducerId('wire-restart')).toMatchObject({ errorCode: E.NONE, producerId, producerEpoch: producerEpoch + 1 });
  });
});
