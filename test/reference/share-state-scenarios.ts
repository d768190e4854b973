// Differential scenarios of the share coordinator (#29): the share-state APIs (83-87) and the share-group
// offsets admin APIs (90-92), with the errors Kafka 4.4 answers, word for word.
import { randomBytes } from 'node:crypto';
import type { Scenario, Session } from './differential.js';
import { createTopic, request } from './scenarios.js';

const GROUP = 'share-state-g';

function base64(topicId: string): string {
  return Buffer.from(topicId, 'hex').toString('base64url');
}

/** Waits, unrecorded, until the coordinators of these share partitions and groups have loaded (Kafka: NOT_COORDINATOR until then). */
export async function untilCoordinatorsLoaded(s: Session, topicId: string, partitions: number[], groups: string[], shareGroup = GROUP): Promise<void> {
  const shareKeys = partitions.map((p) => `${shareGroup}:${base64(topicId)}:${p}`);
  for (let tries = 0; tries < 200; tries++) {
    const share = await s.setup(10, 6, request(10, { keyType: 2, coordinatorKeys: shareKeys }));
    const group = await s.setup(10, 6, request(10, { keyType: 0, coordinatorKeys: groups }));
    const summary = await s.setup(87, 1, request(87, { groupId: shareGroup, topics: [{ topicId, partitions: partitions.map((partition) => ({ partition, leaderEpoch: 0 })) }] }));
    const loaded = [...share.coordinators, ...group.coordinators].every((c: { errorCode: number }) => c.errorCode === 0) &&
      summary.results[0].partitions.every((p: { errorCode: number }) => p.errorCode === 0);
    if (loaded) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const batch = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number) => ({ firstOffset, lastOffset, deliveryState, deliveryCount });

export const SHARE_STATE_SCENARIOS: Scenario[] = [
  {
    id: 'share-state-happy-path-and-errors',
    api: 85,
    exactMessages: true,
    async run(s) {
      const topicId = await createTopic(s, 'share-state', 2);
      await untilCoordinatorsLoaded(s, topicId, [0, 1], []);
      const topics = (partitions: unknown[]) => [{ topicId, partitions }];
      const read = (partition: number, leaderEpoch: number, label: string) => s.call(84, 0, request(84, { groupId: GROUP, topics: topics([{ partition, leaderEpoch }]) }), { label });
      const summary = (label: string) => s.call(87, 1, request(87, { groupId: GROUP, topics: topics([{ partition: 0, leaderEpoch: 0 }, { partition: 1, leaderEpoch: 0 }]) }), { label });
      const write = (p: { stateEpoch: number; leaderEpoch: number; startOffset: number; deliveryCompleteCount: number; stateBatches: unknown[] }, label: string) =>
        s.call(85, 1, request(85, { groupId: GROUP, topics: topics([{ partition: 0, ...p }]) }), { label });
      const initialize = (partition: number, stateEpoch: number, startOffset: number, label: string) =>
        s.call(83, 0, request(83, { groupId: GROUP, topics: topics([{ partition, stateEpoch, startOffset }]) }), { label });

      // A well-formed key of no topic: the topic ids of the two brokers differ, and the key is compared as text.
      await s.call(10, 6, request(10, { keyType: 2, coordinatorKeys: [`${GROUP}:AAAAAAAAAAAAAAAAAAAAAA:0`, 'not-a-key', `${GROUP}:x:1`] }));
      await read(0, 0, 'uninitialized');
      await write({ stateEpoch: 0, leaderEpoch: 0, startOffset: 0, deliveryCompleteCount: -1, stateBatches: [] }, 'uninitialized');
      await s.call(86, 0, request(86, { groupId: GROUP, topics: topics([{ partition: 0 }]) }), { label: 'uninitialized' });
      await initialize(7, 0, 0, 'unknown partition');
      await initialize(0, 0, 5, 'at 5');
      await summary('after initialize');
      await read(0, -1, 'negative leader epoch');
      await write({ stateEpoch: 0, leaderEpoch: 1, startOffset: 5, deliveryCompleteCount: 2, stateBatches: [batch(5, 9, 0, 1), batch(12, 14, 4, 5)] }, 'first');
      await write({ stateEpoch: 0, leaderEpoch: 0, startOffset: 6, deliveryCompleteCount: 1, stateBatches: [batch(6, 7, 2, 1)] }, 'older leader epoch, not yet read');
      await read(0, 1, 'leader epoch 1');
      await write({ stateEpoch: 0, leaderEpoch: 0, startOffset: 6, deliveryCompleteCount: 1, stateBatches: [] }, 'fenced leader epoch');
      await write({ stateEpoch: 0, leaderEpoch: 1, startOffset: 4, deliveryCompleteCount: 0, stateBatches: [batch(8, 8, 2, 2)] }, 'start offset back');
      await read(0, 1, 'merged');
      await initialize(0, 1, 20, 'state epoch 1');
      await write({ stateEpoch: 0, leaderEpoch: 1, startOffset: 20, deliveryCompleteCount: 0, stateBatches: [] }, 'fenced state epoch');
      await initialize(0, 0, 0, 'fenced state epoch');
      await summary('after reinitialize');
      await s.call(86, 0, request(86, { groupId: GROUP, topics: topics([{ partition: 0 }]) }), { label: 'initialized' });
      await summary('after delete');
      await s.call(83, 0, request(83, { groupId: '', topics: topics([{ partition: 0, stateEpoch: 0, startOffset: 0 }]) }), { label: 'empty group id' });
    },
  },
  {
    id: 'share-group-offsets-admin',
    api: 90,
    exactMessages: true,
    async run(s) {
      const group = `${GROUP}-admin`;
      const topicId = await createTopic(s, 'share-offsets', 2);
      await untilCoordinatorsLoaded(s, topicId, [0, 1], [group, `${GROUP}-classic`]);
      const describe = (topics: unknown, label: string) => s.call(90, 1, request(90, { groups: [{ groupId: group, topics }] }), { label });
      await describe([{ topicName: 'share-offsets', partitions: [0, 1] }, { topicName: 'share-offsets-none', partitions: [0] }], 'before');
      await describe(null, 'all, before');
      await s.call(91, 0, request(91, { groupId: group, topics: [{ topicName: 'share-offsets', partitions: [{ partitionIndex: 0, startOffset: 3 }] }] }), { label: 'unused group id' });
      await describe(null, 'all, after alter');
      await s.call(91, 0, request(91, {
        groupId: group, topics: [{ topicName: 'share-offsets', partitions: [{ partitionIndex: 1, startOffset: 4 }, { partitionIndex: 5, startOffset: 4 }] }, { topicName: 'share-offsets-none', partitions: [{ partitionIndex: 0, startOffset: 4 }] }],
      }), { label: 'unknown topic and partition' });
      await describe([{ topicName: 'share-offsets', partitions: [0, 1] }], 'after second alter');
      await s.call(92, 0, request(92, { groupId: group, topics: [{ topicName: 'share-offsets' }, { topicName: 'share-offsets-none' }] }));
      await s.call(92, 0, request(92, { groupId: group, topics: [{ topicName: 'share-offsets' }] }), { label: 'nothing left' });
      await describe(null, 'all, after delete');
      const classic = `${GROUP}-classic`;
      await s.setup(8, 9, request(8, { groupId: classic, generationIdOrMemberEpoch: -1, topics: [{ name: 'share-offsets', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1 }] }] }));
      await s.call(91, 0, request(91, { groupId: classic, topics: [{ topicName: 'share-offsets', partitions: [{ partitionIndex: 0, startOffset: 3 }] }] }), { label: 'classic group' });
      await s.call(92, 0, request(92, { groupId: classic, topics: [{ topicName: 'share-offsets' }] }), { label: 'classic group' });
    },
  },
  {
    id: 'share-group-offsets-with-a-member',
    api: 91,
    exactMessages: true,
    async run(s) {
      const group = `${GROUP}-member`;
      const topicId = await createTopic(s, 'share-member', 1);
      await untilCoordinatorsLoaded(s, topicId, [0], [group], group);
      const memberId = randomBytes(16).toString('base64url');
      let epoch = 0;
      // Joins, then heartbeats until the partition is assigned (Kafka assigns it a few heartbeats later).
      for (let tries = 0; tries < 100; tries++) {
        const hb = await s.setup(76, 1, request(76, { groupId: group, memberId, memberEpoch: epoch, subscribedTopicNames: epoch === 0 ? ['share-member'] : null }));
        epoch = hb.errorCode === 0 ? hb.memberEpoch : 0;
        if (hb.errorCode === 0 && (hb.assignment?.topicPartitions ?? []).length > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const summary = (label: string) => s.call(87, 1, request(87, { groupId: group, topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] }), { label });
      const alter = (label: string) => s.call(91, 0, request(91, { groupId: group, topics: [{ topicName: 'share-member', partitions: [{ partitionIndex: 0, startOffset: 3 }] }] }), { label });
      const remove = (label: string) => s.call(92, 0, request(92, { groupId: group, topics: [{ topicName: 'share-member' }] }), { label });
      await summary('initialized by the join');
      await s.call(90, 1, request(90, { groups: [{ groupId: group, topics: null }] }), { label: 'with a member' });
      await alter('with a member');
      await remove('with a member');
      await s.setup(76, 1, request(76, { groupId: group, memberId, memberEpoch: -1 }));
      await alter('empty');
      await summary('after alter');
      await remove('empty');
      await s.call(90, 1, request(90, { groups: [{ groupId: group, topics: null }] }), { label: 'after delete' });
    },
  },
];
