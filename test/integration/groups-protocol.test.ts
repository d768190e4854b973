// Every version of the group APIs, spoken on a raw socket with the generated codecs against the
// real broker process: JoinGroup 0-9 (with MEMBER_ID_REQUIRED from v4), SyncGroup, Heartbeat,
// OffsetCommit, OffsetFetch (v8+ batched groups), DescribeGroups, ListGroups, LeaveGroup,
// DeleteGroups, OffsetDelete and FindCoordinator (v4+ batched keys).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEYS, ApiKey, requestHeaderVersion, responseHeaderVersion } from '../../protocol/generated/index.js';
import { writeRequestHeader } from '../../protocol/generated/RequestHeader.js';
import { Reader, Writer } from '../../protocol/primitives.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let client: RawClient;

/** One connection; requests are answered in order, so one pending reply at a time suffices. */
class RawClient {
  private buffered = Buffer.alloc(0);
  private waiting: ((frame: Buffer) => void) | undefined;
  private correlationId = 0;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        const frame = this.buffered.subarray(4, 4 + size);
        this.buffered = this.buffered.subarray(4 + size);
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve?.(frame);
      }
    });
  }

  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  async send(apiKey: number, version: number, body: unknown): Promise<any> {
    const api = API_KEYS[apiKey]!;
    const w = new Writer();
    w.int32(0);
    const correlationId = ++this.correlationId;
    writeRequestHeader(w, requestHeaderVersion(apiKey, version), { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'raw' });
    api.writeRequest(w, version, body);
    const frame = w.toBuffer();
    frame.writeInt32BE(frame.length - 4, 0);
    const reply = new Promise<Buffer>((resolve) => { this.waiting = resolve; });
    this.socket.write(frame);
    const r = new Reader(await reply);
    expect(r.int32()).toBe(correlationId);
    if (responseHeaderVersion(apiKey, version) >= 1) r.skipTaggedFields();
    return api.readResponse(r, version);
  }

  close(): void {
    this.socket.destroy();
  }
}

beforeAll(async () => {
  broker = await startBroker({ overrides: ['group.initial.rebalance.delay.ms=0'] });
  client = await RawClient.open(broker.port);
  // Offsets are committed to 'topic': Kafka answers UNKNOWN_TOPIC_OR_PARTITION for a topic it does not have.
  const created = await client.send(ApiKey.CreateTopics, 5, {
    topics: [{ name: 'topic', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
  });
  expect(created.topics[0].errorCode).toBe(0);
});

afterAll(async () => {
  client.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

/** ConsumerProtocolSubscription v0: topics ["t"], null user data. */
const NO_TOPIC_ID = '0'.repeat(32);
const SUBSCRIPTION = Buffer.from('0000' + '00000001' + '0001' + '74' + 'ffffffff', 'hex');

function joinRequest(groupId: string, memberId: string) {
  return {
    groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId, groupInstanceId: null, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: SUBSCRIPTION }], reason: null,
  };
}

function offsetFetchRequest(version: number, groupId: string, topics: Array<{ name: string; partitionIndexes: number[] }>) {
  return version >= 8
    ? { groupId: '', topics: [], groups: [{ groupId, memberId: null, memberEpoch: -1, topics }], requireStable: false }
    : { groupId, topics, groups: [], requireStable: false };
}

describe('group APIs on the wire, every version', () => {
  for (let v = 0; v <= 6; v++) {
    it(`FindCoordinator v${v} names this broker`, async () => {
      const res = await client.send(ApiKey.FindCoordinator, v, { key: 'some-group', keyType: 0, coordinatorKeys: ['a', 'b'] });
      // The messages are Kafka 4.4's (test/reference/conformance.test.ts compares them): '' per key, 'NONE' before v4.
      if (v >= 4) {
        expect(res.coordinators).toEqual([
          { key: 'a', nodeId: 1, host: '127.0.0.1', port: broker.port, errorCode: 0, errorMessage: '' },
          { key: 'b', nodeId: 1, host: '127.0.0.1', port: broker.port, errorCode: 0, errorMessage: '' },
        ]);
      } else {
        expect(res).toMatchObject({ errorCode: 0, nodeId: 1, host: '127.0.0.1', port: broker.port, errorMessage: v >= 1 ? 'NONE' : '' });
      }
    });
  }

  for (let v = 0; v <= 9; v++) {
    const [syncV, heartbeatV, leaveV, describeV, listV, deleteV] = [v % 6, v % 5, v % 6, v % 6, v % 6, v % 3];
    it(`runs a group through JoinGroup v${v}, SyncGroup v${syncV}, Heartbeat v${heartbeatV}, OffsetCommit/Fetch v${v}, ` +
       `DescribeGroups v${describeV}, ListGroups v${listV}, LeaveGroup v${leaveV}, DeleteGroups v${deleteV}`, async () => {
      const groupId = `raw-v${v}`;
      let joined = await client.send(ApiKey.JoinGroup, v, joinRequest(groupId, ''));
      if (v >= 4) {
        expect(joined.errorCode).toBe(79); // MEMBER_ID_REQUIRED
        joined = await client.send(ApiKey.JoinGroup, v, joinRequest(groupId, joined.memberId));
      }
      expect(joined).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range', leader: joined.memberId });
      expect(joined.members).toEqual([{ memberId: joined.memberId, groupInstanceId: null, metadata: SUBSCRIPTION }]);
      if (v >= 7) expect(joined.protocolType).toBe('consumer');
      const memberId: string = joined.memberId;

      const synced = await client.send(ApiKey.SyncGroup, syncV, {
        groupId, generationId: 1, memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range',
        assignments: [{ memberId, assignment: Buffer.from('assignment') }],
      });
      expect(synced).toMatchObject({ errorCode: 0, assignment: Buffer.from('assignment') });
      expect((await client.send(ApiKey.Heartbeat, heartbeatV, { groupId, generationId: 1, memberId, groupInstanceId: null })).errorCode).toBe(0);

      // OffsetCommit v0 has no generation: only a standalone consumer's commit to a group without members.
      const commitGroup = v === 0 ? `${groupId}-standalone` : groupId;
      const committed = await client.send(ApiKey.OffsetCommit, v, {
        groupId: commitGroup, generationIdOrMemberEpoch: v === 0 ? -1 : 1, memberId: v === 0 ? '' : memberId, groupInstanceId: null,
        retentionTimeMs: -1,
        topics: [{ name: 'topic', partitions: [{ partitionIndex: 0, committedOffset: 100 + v, committedLeaderEpoch: 3, commitTimestamp: -1, committedMetadata: `meta-${v}` }] }],
      });
      // topicId is read as the zero uuid: only OffsetCommit/OffsetFetch v10 (topic ids, not served) carry it.
      expect(committed.topics).toEqual([{ name: 'topic', topicId: NO_TOPIC_ID, partitions: [{ partitionIndex: 0, errorCode: 0 }] }]);

      // The leader epoch travels in OffsetCommit v6+ and OffsetFetch v5+.
      const fetched = await client.send(ApiKey.OffsetFetch, v, offsetFetchRequest(v, commitGroup, [{ name: 'topic', partitionIndexes: [0, 1] }]));
      const topics = v >= 8 ? fetched.groups[0].topics : fetched.topics;
      expect(topics).toEqual([{ name: 'topic', ...(v >= 8 ? { topicId: NO_TOPIC_ID } : {}), partitions: [
        { partitionIndex: 0, committedOffset: 100 + v, committedLeaderEpoch: v >= 6 ? 3 : -1, metadata: `meta-${v}`, errorCode: 0 },
        { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
      ] }]);

      const described = await client.send(ApiKey.DescribeGroups, describeV, { groups: [groupId], includeAuthorizedOperations: true });
      expect(described.groups[0]).toMatchObject({ errorCode: 0, groupId, groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
      expect(described.groups[0].members).toMatchObject([{ memberId, clientId: 'raw', memberMetadata: SUBSCRIPTION, memberAssignment: Buffer.from('assignment') }]);
      expect(described.groups[0].members[0].clientHost).toBe('/127.0.0.1');

      const listed = await client.send(ApiKey.ListGroups, listV, { statesFilter: ['Stable'], typesFilter: [] });
      expect(listed.errorCode).toBe(0);
      expect(listed.groups.map((g: { groupId: string }) => g.groupId)).toContain(groupId);

      const left = await client.send(ApiKey.LeaveGroup, leaveV, { groupId, memberId, members: [{ memberId, groupInstanceId: null, reason: 'done' }] });
      expect(left.errorCode).toBe(0);
      if (leaveV >= 3) expect(left.members).toEqual([{ memberId, groupInstanceId: null, errorCode: 0 }]);
      const after = await client.send(ApiKey.DescribeGroups, describeV, { groups: [groupId], includeAuthorizedOperations: false });
      expect(after.groups[0]).toMatchObject({ groupState: 'Empty', members: [] });

      const deleted = await client.send(ApiKey.DeleteGroups, deleteV, { groupsNames: [groupId, `${groupId}-missing`] });
      // errorMessage is DeleteGroups v3's (Kafka 4.4); read as null below it.
      expect(deleted.results).toEqual([{ groupId, errorCode: 0, errorMessage: null }, { groupId: `${groupId}-missing`, errorCode: 69, errorMessage: null }]);
    });
  }

  it('OffsetDelete v0 removes a standalone group\'s offset', async () => {
    const res = await client.send(ApiKey.OffsetDelete, 0, { groupId: 'raw-v0-standalone', topics: [{ name: 'topic', partitions: [{ partitionIndex: 0 }] }] });
    expect(res).toMatchObject({ errorCode: 0, topics: [{ name: 'topic', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
    const fetched = await client.send(ApiKey.OffsetFetch, 2, offsetFetchRequest(2, 'raw-v0-standalone', [{ name: 'topic', partitionIndexes: [0] }]));
    expect(fetched.topics[0].partitions[0].committedOffset).toBe(-1);
    const missing = await client.send(ApiKey.OffsetDelete, 0, { groupId: 'nope', topics: [] });
    expect(missing.errorCode).toBe(69);
  });
});
