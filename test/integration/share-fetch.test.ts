// ShareFetch (78) and ShareAcknowledge (79) over TCP against the real broker process, driven with kafkite's own
// codecs: share sessions of one group acquiring disjoint records, RELEASE, REJECT, lock expiry, a dropped
// connection, a member leaving, and the errors Kafka answers bad input with. Members join with ShareGroupHeartbeat,
// whose coordinator initializes the share partitions' state on __share_group_state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcknowledgementBatch } from '../../protocol/generated/ShareFetchRequest.js';
import type { ShareFetchResponse } from '../../protocol/generated/ShareFetchResponse.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;
const LOCK_MS = 1500;
const UNKNOWN_ID = 'f'.repeat(32);
let broker: BrokerProcess;
let admin: WireClient;

beforeAll(async () => {
  broker = await startBroker({
    overrides: ['group.share.min.record.lock.duration.ms=1000', `group.share.record.lock.duration.ms=${LOCK_MS}`],
  });
  admin = await WireClient.connect(broker.port);
});

afterAll(async () => {
  admin.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

async function createTopic(name: string): Promise<string> {
  const res = await admin.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  expect(res.topics[0].errorCode).toBe(0);
  return res.topics[0].topicId;
}

/** Produces `batches` batches of `size` records with values "<offset>". */
async function produce(topic: string, first: number, batches: number, size: number): Promise<void> {
  for (let b = 0; b < batches; b++) {
    const base = first + b * size;
    const records = encodeBatch({
      baseOffset: 0,
      records: Array.from({ length: size }, (_, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(String(base + i)), headers: [] })),
    });
    const res = await admin.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
  }
}

interface Member {
  client: WireClient;
  memberId: string;
  epoch: number;
}

/** A member of the share group, joined with ShareGroupHeartbeat (its group coordinator initializes the share partition). */
async function member(memberId: string, group: string, topic: string): Promise<Member> {
  const client = await WireClient.connect(broker.port);
  const joined = await client.send(76, 1, { groupId: group, memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: [topic] });
  expect(joined.errorCode).toBe(0);
  return { client, memberId, epoch: 0 };
}

interface FetchOpts {
  minBytes?: number;
  maxRecords?: number;
  maxWaitMs?: number;
  acks?: AcknowledgementBatch[];
  epoch?: number;
}

async function shareFetch(m: Member, group: string, topicId: string, opts: FetchOpts = {}): Promise<ShareFetchResponse> {
  const epoch = opts.epoch ?? m.epoch;
  const res: ShareFetchResponse = await m.client.send(78, 2, {
    groupId: group, memberId: m.memberId, shareSessionEpoch: epoch, maxWaitMs: opts.maxWaitMs ?? 0, minBytes: opts.minBytes ?? 1, maxBytes: 1 << 20,
    maxRecords: opts.maxRecords ?? 500, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: opts.acks ?? [] }] }],
    forgottenTopicsData: [],
  });
  if (res.errorCode === 0 && opts.epoch === undefined) m.epoch = m.epoch === 0 ? 1 : m.epoch + 1;
  return res;
}

async function acknowledge(m: Member, group: string, topicId: string, acks: AcknowledgementBatch[], epoch?: number) {
  const res = await m.client.send(79, 2, {
    groupId: group, memberId: m.memberId, shareSessionEpoch: epoch ?? m.epoch, isRenewAck: false,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }],
  });
  if (res.errorCode === 0 && epoch === undefined) m.epoch++;
  return res;
}

/** The acquired ranges of partition 0, checked against the records sent: each acquired offset's record is there. */
function acquired(res: ShareFetchResponse): Array<{ firstOffset: number; lastOffset: number; deliveryCount: number }> {
  expect(res.errorCode).toBe(0);
  const p = res.responses[0]?.partitions[0];
  if (!p) return [];
  expect(p.errorCode).toBe(0);
  const buf = p.records as Buffer;
  const values = new Map<number, string>();
  for (const h of batchesIn(buf)) for (const r of decodeBatch(buf.subarray(h.pos, h.pos + h.sizeInBytes)).records) values.set(r.offset, r.value!.toString());
  for (const r of p.acquiredRecords) for (let o = r.firstOffset; o <= r.lastOffset; o++) expect(values.get(o)).toBe(String(o));
  return p.acquiredRecords;
}

function offsets(ranges: Array<{ firstOffset: number; lastOffset: number }>): number[] {
  return ranges.flatMap((r) => Array.from({ length: r.lastOffset - r.firstOffset + 1 }, (_, i) => r.firstOffset + i));
}

describe('share fetch', () => {
  it('two sessions of one group never hold the same record; RELEASE gives records to the other, REJECT archives them', async () => {
    const topicId = await createTopic('share-basic');
    const m1 = await member('m1', 'g1', 'share-basic');
    const m2 = await member('m2', 'g1', 'share-basic');
    // Opening the sessions initializes the share partition at the end of the empty log (share.auto.offset.reset latest).
    expect(acquired(await shareFetch(m1, 'g1', topicId))).toEqual([]);
    expect(acquired(await shareFetch(m2, 'g1', topicId))).toEqual([]);
    await produce('share-basic', 0, 5, 10);
    const a1 = acquired(await shareFetch(m1, 'g1', topicId, { maxRecords: 20 }));
    const a2 = acquired(await shareFetch(m2, 'g1', topicId, { maxRecords: 20 }));
    const a3 = acquired(await shareFetch(m1, 'g1', topicId, { maxRecords: 20 }));
    expect(a1).toEqual([{ firstOffset: 0, lastOffset: 19, deliveryCount: 1 }]);
    expect(a2).toEqual([{ firstOffset: 20, lastOffset: 39, deliveryCount: 1 }]);
    expect(a3).toEqual([{ firstOffset: 40, lastOffset: 49, deliveryCount: 1 }]);
    expect(acquired(await shareFetch(m2, 'g1', topicId, { maxWaitMs: 200 }))).toEqual([]);

    // m1 may not acknowledge m2's records: nothing changes.
    const foreign = await acknowledge(m1, 'g1', topicId, [{ firstOffset: 20, lastOffset: 29, acknowledgeTypes: [ACCEPT] }]);
    expect(foreign.responses[0].partitions[0].errorCode).toBe(121);
    const own = await acknowledge(m1, 'g1', topicId, [
      { firstOffset: 0, lastOffset: 9, acknowledgeTypes: [ACCEPT] },
      { firstOffset: 10, lastOffset: 19, acknowledgeTypes: [RELEASE] },
      { firstOffset: 40, lastOffset: 49, acknowledgeTypes: [REJECT] },
    ]);
    expect(own.errorCode).toBe(0);
    expect(own.responses[0].partitions[0].errorCode).toBe(0);
    // The released records go to m2, delivered a second time; the rejected and accepted ones to no one.
    expect(acquired(await shareFetch(m2, 'g1', topicId))).toEqual([{ firstOffset: 10, lastOffset: 19, deliveryCount: 2 }]);
    const accepted = await shareFetch(m2, 'g1', topicId, { acks: [{ firstOffset: 10, lastOffset: 39, acknowledgeTypes: [ACCEPT] }], maxWaitMs: 300 });
    expect(accepted.responses[0].partitions[0].acknowledgeErrorCode).toBe(0);
    expect(acquired(accepted)).toEqual([]);
    // A third member of the group finds nothing left: every record was accepted or rejected.
    const m3 = await member('m3', 'g1', 'share-basic');
    expect(acquired(await shareFetch(m3, 'g1', topicId))).toEqual([]);
    expect(acquired(await shareFetch(m3, 'g1', topicId, { maxWaitMs: 300 }))).toEqual([]);
    // Another group reads the same topic on its own: it starts where its partition was initialized (the end).
    const other = await member('o1', 'g2', 'share-basic');
    expect(acquired(await shareFetch(other, 'g2', topicId))).toEqual([]);
    await produce('share-basic', 50, 1, 5);
    expect(acquired(await shareFetch(other, 'g2', topicId))).toEqual([{ firstOffset: 50, lastOffset: 54, deliveryCount: 1 }]);
    for (const m of [m1, m2, m3, other]) m.client.close();
  });

  it('an expired lock makes the records available again, delivered with count 2, and the late acknowledgement is refused', async () => {
    const topicId = await createTopic('share-expiry');
    const m1 = await member('e1', 'g', 'share-expiry');
    const m2 = await member('e2', 'g', 'share-expiry');
    await shareFetch(m1, 'g', topicId);
    await shareFetch(m2, 'g', topicId);
    await produce('share-expiry', 0, 1, 5);
    const first = await shareFetch(m1, 'g', topicId);
    expect(first.acquisitionLockTimeoutMs).toBe(LOCK_MS);
    expect(acquired(first)).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    // m2 long-polls: the lock's expiry wakes it.
    const started = Date.now();
    const redelivered = acquired(await shareFetch(m2, 'g', topicId, { maxWaitMs: 10_000 }));
    expect(redelivered).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 2 }]);
    expect(Date.now() - started).toBeLessThan(LOCK_MS + 2000);
    const late = await acknowledge(m1, 'g', topicId, [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACCEPT] }]);
    expect(late.responses[0].partitions[0].errorCode).toBe(121);
    expect((await acknowledge(m2, 'g', topicId, [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACCEPT] }])).responses[0].partitions[0].errorCode).toBe(0);
    m1.client.close();
    m2.client.close();
  });

  it('a dropped connection releases what its session held; closing the session with epoch -1 does too', async () => {
    const topicId = await createTopic('share-drop');
    const m1 = await member('d1', 'gd', 'share-drop');
    const m2 = await member('d2', 'gd', 'share-drop');
    await shareFetch(m1, 'gd', topicId);
    await shareFetch(m2, 'gd', topicId);
    await produce('share-drop', 0, 2, 5);
    expect(acquired(await shareFetch(m1, 'gd', topicId, { maxRecords: 5 }))).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    expect(acquired(await shareFetch(m2, 'gd', topicId, { maxRecords: 5 }))).toEqual([{ firstOffset: 5, lastOffset: 9, deliveryCount: 1 }]);
    m1.client.close();
    await new Promise((r) => setTimeout(r, 200));
    // Fetched records are not given back their delivery count on a dropped connection.
    expect(acquired(await shareFetch(m2, 'gd', topicId))).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 2 }]);
    // m2 closes its session acknowledging 0..4; 5..9 go back with their count undone (KAFKA-17541).
    const closed = await acknowledge(m2, 'gd', topicId, [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACCEPT] }], -1);
    expect(closed.errorCode).toBe(0);
    expect(closed.responses[0].partitions[0].errorCode).toBe(0);
    const m3 = await member('d3', 'gd', 'share-drop');
    expect(acquired(await shareFetch(m3, 'gd', topicId))).toEqual([{ firstOffset: 5, lastOffset: 9, deliveryCount: 1 }]);
    // The closed session is gone.
    expect((await shareFetch(m2, 'gd', topicId, { epoch: 3 })).errorCode).toBe(122);
    m2.client.close();
    m3.client.close();
  });

  it('waits for MinBytes before acquiring, up to MaxWaitMs, then hands out what there is', async () => {
    const topicId = await createTopic('share-minbytes');
    const m1 = await member('n1', 'gn', 'share-minbytes');
    const m2 = await member('n2', 'gn', 'share-minbytes');
    await shareFetch(m1, 'gn', topicId);
    await shareFetch(m2, 'gn', topicId);
    await produce('share-minbytes', 0, 1, 5);
    // Too few bytes: m1 waits without locking anything, so m2 can take the records meanwhile.
    let started = Date.now();
    const waiting = shareFetch(m1, 'gn', topicId, { minBytes: 1 << 20, maxWaitMs: 1500 });
    await new Promise((r) => setTimeout(r, 200));
    expect(acquired(await shareFetch(m2, 'gn', topicId))).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    expect((await acknowledge(m2, 'gn', topicId, [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACCEPT] }])).responses[0].partitions[0].errorCode).toBe(0);
    expect(acquired(await waiting)).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    // At MaxWaitMs it takes what there is; enough bytes arriving answer it before.
    await produce('share-minbytes', 5, 1, 5);
    started = Date.now();
    expect(acquired(await shareFetch(m1, 'gn', topicId, { minBytes: 1 << 20, maxWaitMs: 500 }))).toEqual([{ firstOffset: 5, lastOffset: 9, deliveryCount: 1 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    await acknowledge(m1, 'gn', topicId, [{ firstOffset: 5, lastOffset: 9, acknowledgeTypes: [ACCEPT] }]);
    started = Date.now();
    const big = shareFetch(m1, 'gn', topicId, { minBytes: 300, maxWaitMs: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    await produce('share-minbytes', 10, 5, 10);
    // Answered as soon as 300 bytes could be acquired (the batches arrive one by one), long before MaxWaitMs.
    const answer = await big;
    const got = offsets(acquired(answer));
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => 10 + i));
    expect((answer.responses[0]!.partitions[0]!.records as Buffer).length).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(3000);
    m1.client.close();
    m2.client.close();
  });

  it('a member leaving its group (ShareGroupHeartbeat epoch -1) gives back what it held', async () => {
    const topicId = await createTopic('share-leave');
    const m1 = await member('l1', 'gl', 'share-leave');
    const m2 = await member('l2', 'gl', 'share-leave');
    await shareFetch(m1, 'gl', topicId);
    await shareFetch(m2, 'gl', topicId);
    await produce('share-leave', 0, 1, 5);
    expect(acquired(await shareFetch(m1, 'gl', topicId))).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    const left = await m1.client.send(76, 1, { groupId: 'gl', memberId: 'l1', memberEpoch: -1, rackId: null, subscribedTopicNames: null });
    expect(left.errorCode).toBe(0);
    // Once the release's state write is durable (the leave's answer does not wait for it, as in Kafka), which wakes
    // the waiting fetch, well before the lock's expiry (LOCK_MS after the acquisition).
    expect(acquired(await shareFetch(m2, 'gl', topicId, { maxWaitMs: LOCK_MS / 2 }))).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 2 }]);
    // Its session went with it.
    expect((await shareFetch(m1, 'gl', topicId)).errorCode).toBe(122);
    m1.client.close();
    m2.client.close();
  });

  it('gives nothing from a share partition no group coordinator initialized (a group nobody joined), as Kafka 4.4', async () => {
    const topicId = await createTopic('share-nobody');
    await produce('share-nobody', 0, 1, 3);
    const stranger: Member = { client: await WireClient.connect(broker.port), memberId: 'x1', epoch: 0 };
    const res = await shareFetch(stranger, 'never-joined', topicId, { maxWaitMs: 100 });
    expect([res.errorCode, res.responses]).toEqual([0, []]);
    stranger.client.close();
  });

  it('names the current leader, its leader epoch and endpoint on a partition refused NOT_LEADER_OR_FOLLOWER', async () => {
    const topicId = await createTopic('share-fenced');
    const m = await member('n1', 'gn', 'share-fenced');
    await shareFetch(m, 'gn', topicId);
    await produce('share-fenced', 0, 1, 3);
    expect(acquired(await shareFetch(m, 'gn', topicId))).toEqual([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
    // The partition as Metadata v12 describes it: this node leads it at its leader epoch.
    const meta = await admin.send(3, 12, { topics: [{ topicId: '0'.repeat(32), name: 'share-fenced' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    const { leaderId, leaderEpoch } = meta.topics[0].partitions[0];
    const self = meta.brokers.find((b: { nodeId: number }) => b.nodeId === leaderId);
    expect(leaderId).toBeGreaterThan(0);
    // A newer leader epoch read from the share coordinator (as a new leader elsewhere would) fences this broker's share partition.
    const read = await admin.send(84, 0, { groupId: 'gn', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: leaderEpoch + 5 }] }] });
    expect(read.results[0].partitions[0].errorCode).toBe(0);
    const current = { leaderId, leaderEpoch };
    const endpoints = [{ nodeId: leaderId, host: self.host, port: self.port, rack: null }];
    const acked = await acknowledge(m, 'gn', topicId, [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [ACCEPT] }]);
    expect(acked.responses[0].partitions[0]).toMatchObject({ errorCode: 6, currentLeader: current });
    expect(acked.nodeEndpoints).toEqual(endpoints);
    // Loaded again, the share partition's read is refused the same way (SharePartition.fetchPersisterError).
    const fetched = await shareFetch(m, 'gn', topicId);
    expect(fetched.responses[0].partitions[0]).toMatchObject({ errorCode: 6, currentLeader: current });
    expect(fetched.nodeEndpoints).toEqual(endpoints);
    m.client.close();
  });

  it('answers bad share session epochs and requests with Kafka\'s errors', async () => {
    const topicId = await createTopic('share-bad');
    const m = await member('b1', 'gb', 'share-bad');
    // No session yet.
    expect((await shareFetch(m, 'gb', topicId, { epoch: 1 })).errorCode).toBe(122);
    expect((await acknowledge(m, 'gb', topicId, [], 1)).errorCode).toBe(122);
    // ShareAcknowledge cannot open a session; an opening ShareFetch carries no acknowledgements.
    expect((await acknowledge(m, 'gb', topicId, [], 0)).errorCode).toBe(123);
    expect((await shareFetch(m, 'gb', topicId, { epoch: 0, acks: [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [ACCEPT] }] })).errorCode).toBe(42);
    await shareFetch(m, 'gb', topicId);
    expect((await shareFetch(m, 'gb', topicId, { epoch: 5 })).errorCode).toBe(123);
    // The right epoch still works after the refusals.
    expect((await shareFetch(m, 'gb', topicId)).errorCode).toBe(0);
    const unknown = await shareFetch(m, 'gb', UNKNOWN_ID);
    expect(unknown.errorCode).toBe(0);
    expect(unknown.responses.find((t) => t.topicId === UNKNOWN_ID)?.partitions[0]?.errorCode).toBe(100);
    // Closing with partitions named and nothing to acknowledge is no error (as Kafka 4.4 answers it): the session ends.
    const closing = await shareFetch(m, 'gb', topicId, { epoch: -1 });
    expect([closing.errorCode, closing.responses]).toEqual([0, []]);
    expect((await shareFetch(m, 'gb', topicId, { epoch: -1 })).errorCode).toBe(122);
    m.client.close();
  });
});
