// Issue 15 part 5 on the wire: OffsetCommit to a missing topic, classic session-timeout timing, and a group
// whose static members closed without leaving being deletable one session timeout later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let client: WireClient;

/** ConsumerProtocolSubscription v0: topics ["t"], null user data. */
const SUBSCRIPTION = Buffer.from('0000' + '00000001' + '0001' + '74' + 'ffffffff', 'hex');

beforeAll(async () => {
  broker = await startBroker({ overrides: ['group.initial.rebalance.delay.ms=0', 'group.min.session.timeout.ms=1000'] });
  client = await WireClient.connect(broker.port);
  const created = await client.send(ApiKey.CreateTopics, 5, {
    topics: [{ name: 'present', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
  });
  expect(created.topics[0].errorCode).toBe(0);
});

afterAll(async () => {
  client?.close();
  expect(await broker.stop()).toBe(0);
  broker.cleanup();
});

function commit(groupId: string, topics: Array<{ name: string; partitions: number[] }>) {
  return client.send(ApiKey.OffsetCommit, 9, {
    groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
    topics: topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p, committedOffset: 42, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' })),
    })),
  });
}

async function join(groupId: string, instanceId: string, sessionTimeoutMs: number) {
  const joined = await client.send(ApiKey.JoinGroup, 9, {
    groupId, sessionTimeoutMs, rebalanceTimeoutMs: sessionTimeoutMs, memberId: '', groupInstanceId: instanceId, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: SUBSCRIPTION }], reason: null,
  });
  expect(joined.errorCode).toBe(0);
  const synced = await client.send(ApiKey.SyncGroup, 5, {
    groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: instanceId, protocolType: 'consumer',
    protocolName: 'range', assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }],
  });
  expect(synced.errorCode).toBe(0);
  return joined as { memberId: string; generationId: number };
}

async function describeGroup(groupId: string) {
  return (await client.send(ApiKey.DescribeGroups, 5, { groups: [groupId], includeAuthorizedOperations: false })).groups[0];
}

describe('OffsetCommit to a topic that does not exist', () => {
  it('answers UNKNOWN_TOPIC_OR_PARTITION for those partitions and commits the others', async () => {
    const res = await commit('commit-missing', [{ name: 'present', partitions: [0, 7] }, { name: 'absent', partitions: [0, 1] }]);
    const errors = res.topics.flatMap((t: any) => t.partitions.map((p: any) => `${t.name}-${p.partitionIndex}:${p.errorCode}`)).sort();
    expect(errors).toEqual(['absent-0:3', 'absent-1:3', 'present-0:0', 'present-7:3']);
    const fetched = await client.send(ApiKey.OffsetFetch, 8, {
      groupId: '', topics: [], requireStable: false,
      groups: [{ groupId: 'commit-missing', memberId: null, memberEpoch: -1, topics: null }],
    });
    // Only the existing partition was stored.
    // topicId (OffsetFetch v10, not served) reads as the zero uuid.
    expect(fetched.groups[0].topics).toEqual([{ name: 'present', topicId: '0'.repeat(32), partitions: [
      { partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
    ] }]);
  });

  it('stores nothing when every partition is unknown', async () => {
    const res = await commit('commit-none', [{ name: 'absent', partitions: [0] }]);
    expect(res.topics).toEqual([{ name: 'absent', topicId: '0'.repeat(32), partitions: [{ partitionIndex: 0, errorCode: 3 }] }]);
    const listed = await client.send(ApiKey.ListGroups, 4, { statesFilter: [] });
    expect(listed.groups.map((g: any) => g.groupId)).not.toContain('commit-none');
  });
});

describe('classic session timeouts', () => {
  it('expires a member one session timeout after its last heartbeat (within +10%)', async () => {
    const sessionTimeoutMs = 3000;
    const groupId = 'session-timing';
    const { memberId, generationId } = await join(groupId, 'timing-1', sessionTimeoutMs);
    // Heartbeat for a while so that the expiry timer has been re-armed at least once.
    let last = 0;
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const hb = await client.send(ApiKey.Heartbeat, 4, { groupId, generationId, memberId, groupInstanceId: 'timing-1' });
      expect(hb.errorCode).toBe(0);
      last = Date.now();
    }
    // Poll until the member is gone; it must not be gone before the session timeout nor much after.
    let goneAt = 0;
    while (goneAt === 0) {
      const group = await describeGroup(groupId);
      if (group.members.length === 0) goneAt = Date.now();
      else await new Promise((r) => setTimeout(r, 50));
      if (Date.now() - last > 3 * sessionTimeoutMs) break;
    }
    expect(goneAt).toBeGreaterThan(0);
    expect(goneAt - last).toBeGreaterThanOrEqual(sessionTimeoutMs - 100);
    expect(goneAt - last).toBeLessThanOrEqual(sessionTimeoutMs * 1.1 + 100);
  });

  it('lets a group whose static members closed be deleted one session timeout later', async () => {
    const sessionTimeoutMs = 2000;
    const groupId = 'static-closed';
    await join(groupId, 'static-a', sessionTimeoutMs);
    const joinedAt = Date.now();
    // The client closes without LeaveGroup (a static member never sends one on close).
    const early = await client.send(ApiKey.DeleteGroups, 2, { groupsNames: [groupId] });
    expect(early.results[0].errorCode).toBe(68); // NON_EMPTY_GROUP
    await new Promise((r) => setTimeout(r, Math.max(0, joinedAt + sessionTimeoutMs * 1.1 + 100 - Date.now())));
    expect((await describeGroup(groupId)).groupState).toBe('Empty');
    const deleted = await client.send(ApiKey.DeleteGroups, 2, { groupsNames: [groupId] });
    expect(deleted.results[0].errorCode).toBe(0);
  });
});
