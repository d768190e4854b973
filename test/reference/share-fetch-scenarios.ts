// Differential scenario of share fetching (#29): ShareFetch (78) and ShareAcknowledge (79) on a share partition
// initialized through InitializeShareGroupState, two members, their share sessions and the errors Kafka 4.4
// answers, and the state the acknowledgements left (ReadShareGroupState).
import type { Scenario } from './differential.js';
import { batch, createTopic, produce, request } from './scenarios.js';
import { untilCoordinatorsLoaded } from './share-state-scenarios.js';

const GROUP = 'share-fetch-g';

export const SHARE_FETCH_SCENARIOS: Scenario[] = [
  {
    id: 'share-fetch-sessions-and-acknowledgements',
    api: 78,
    async run(s) {
      const topicId = await createTopic(s, 'share-fetch', 1);
      await untilCoordinatorsLoaded(s, topicId, [0], [], GROUP);
      await s.setup(0, 9, produce('share-fetch', batch(['a', 'b', 'c', 'd', 'e'])));
      await s.setup(0, 9, produce('share-fetch', batch(['f', 'g', 'h', 'i', 'j'])));
      await s.setup(83, 0, request(83, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 0 }] }] }));
      const fetch = (memberId: string, epoch: number, acks: unknown[], label: string) => s.call(78, 1, request(78, {
        groupId: GROUP, memberId, shareSessionEpoch: epoch, maxWaitMs: 200, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }],
      }), { label });
      const acknowledge = (memberId: string, epoch: number, acks: unknown[], label: string) => s.call(79, 1, request(79, {
        groupId: GROUP, memberId, shareSessionEpoch: epoch, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }],
      }), { label });
      const ack = (firstOffset: number, lastOffset: number, type: number) => ({ firstOffset, lastOffset, acknowledgeTypes: [type] });

      await fetch('m1', 0, [], 'm1 opens and acquires');
      await fetch('m2', 0, [], 'm2 opens, nothing left');
      await acknowledge('m2', 1, [ack(0, 4, 1)], 'm2 acknowledges m1 records');
      await fetch('m2', 1, [ack(0, 0, 1)], 'wrong epoch');
      await fetch('m3', 1, [], 'no session');
      await fetch('m3', 0, [ack(0, 0, 1)], 'opening with acknowledgements');
      await acknowledge('m1', 0, [ack(0, 4, 1)], 'acknowledge at epoch 0');
      await acknowledge('m1', 1, [ack(0, 4, 1), ack(5, 7, 2), ack(8, 9, 3)], 'accept release reject');
      await fetch('m2', 2, [], 'm2 gets the released');
      await fetch('m2', 3, [ack(5, 7, 1)], 'm2 accepts them');
      await acknowledge('m2', -1, [], 'm2 closes');
      await fetch('m2', 5, [], 'closed session');
      await s.call(84, 0, request(84, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] }), { label: 'state left' });
    },
  },
  {
    // A group with share.renew.acknowledge.enable=false (KIP-1222): what a RENEW gets, alone and beside an ACCEPT.
    id: 'share-renew-acknowledge-disabled',
    api: 79,
    async run(s) {
      const group = `${GROUP}-renew-off`;
      const topicId = await createTopic(s, 'share-renew', 1);
      await untilCoordinatorsLoaded(s, topicId, [0], [], group);
      await s.setup(44, 1, request(44, {
        resources: [{ resourceType: 32, resourceName: group, configs: [{ name: 'share.renew.acknowledge.enable', configOperation: 0, value: 'false' }] }],
      }));
      // Kafka applies a group config once its broker has the ConfigRecord from the metadata log, a moment after
      // the answer (and later on a loaded machine): wait until DescribeConfigs shows it, as a share partition reads it.
      const describeRenew = request(32, { resources: [{ resourceType: 32, resourceName: group, configurationKeys: ['share.renew.acknowledge.enable'] }], includeSynonyms: false, includeDocumentation: false });
      for (let tries = 0; (await s.setup(32, 4, describeRenew)).results[0].configs[0]?.value !== 'false'; tries++) {
        if (tries > 100) throw new Error(`${s.target.name}: share.renew.acknowledge.enable=false not applied`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await s.setup(0, 9, produce('share-renew', batch(['a', 'b', 'c', 'd', 'e'])));
      await s.setup(83, 0, request(83, { groupId: group, topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 0 }] }] }));
      await s.call(78, 2, request(78, {
        groupId: group, memberId: 'r1', shareSessionEpoch: 0, maxWaitMs: 200, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
      }), { label: 'r1 acquires' });
      const acknowledge = (epoch: number, isRenewAck: boolean, acks: unknown[], label: string) => s.call(79, 2, request(79, {
        groupId: group, memberId: 'r1', shareSessionEpoch: epoch, isRenewAck, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }],
      }), { label });
      await acknowledge(1, true, [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [4] }], 'renew alone');
      await acknowledge(2, true, [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [4] }, { firstOffset: 2, lastOffset: 4, acknowledgeTypes: [1] }], 'renew beside accept');
      await acknowledge(3, false, [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] }], 'accept all');
      await s.call(84, 0, request(84, { groupId: group, topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] }), { label: 'state left' });
    },
  },
  {
    // A ReadShareGroupState at a newer leader epoch, as a partition's new leader elsewhere would send, fences the
    // share partition loaded at the older one: its acknowledgement, then the fetch that loads it again, are refused
    // NOT_LEADER_OR_FOLLOWER, naming the partition's current leader and leader epoch and that leader's endpoint.
    id: 'share-fetch-fenced-leader-epoch',
    api: 78,
    async run(s) {
      const group = `${GROUP}-fenced`;
      const topicId = await createTopic(s, 'share-fenced', 1);
      await untilCoordinatorsLoaded(s, topicId, [0], [], group);
      await s.setup(0, 9, produce('share-fenced', batch(['a', 'b', 'c'])));
      await s.setup(83, 0, request(83, { groupId: group, topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 0 }] }] }));
      const fetch = (epoch: number, label: string) => s.call(78, 2, request(78, {
        groupId: group, memberId: 'f1', shareSessionEpoch: epoch, maxWaitMs: 200, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
      }), { label });
      await fetch(0, 'acquires');
      // The share coordinator records a newer leader epoch from a read (ReadShareGroupState), not from a write.
      await s.call(84, 0, request(84, { groupId: group, topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 5 }] }] }), { label: 'newer leader epoch' });
      await s.call(79, 2, request(79, {
        groupId: group, memberId: 'f1', shareSessionEpoch: 1, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1] }] }] }],
      }), { label: 'fenced' });
      await fetch(2, 'fenced, loaded again');
    },
  },
  {
    // What an acknowledgement writes while other records of the partition are out: Kafka writes only the batches the
    // change touches (SharePartition's updated states), so records acquired and never written before stay unwritten,
    // and ones released before keep the count their release wrote (KIP-932: a delivery in flight is not counted).
    id: 'share-fetch-write-leaves-acquired-records',
    api: 79,
    async run(s) {
      const group = `${GROUP}-in-flight`;
      const topicId = await createTopic(s, 'share-in-flight', 1);
      await untilCoordinatorsLoaded(s, topicId, [0], [], group);
      await s.setup(0, 9, produce('share-in-flight', batch(['a', 'b', 'c'])));
      await s.setup(0, 9, produce('share-in-flight', batch(['d', 'e', 'f'])));
      await s.setup(0, 9, produce('share-in-flight', batch(['g', 'h', 'i'])));
      await s.setup(83, 0, request(83, { groupId: group, topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 0 }] }] }));
      const fetch = (epoch: number, acks: unknown[], label: string) => s.call(78, 1, request(78, {
        groupId: group, memberId: 'w1', shareSessionEpoch: epoch, maxWaitMs: 200, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }],
      }), { label });
      const acknowledge = (epoch: number, acks: unknown[], label: string) => s.call(79, 1, request(79, {
        groupId: group, memberId: 'w1', shareSessionEpoch: epoch, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }],
      }), { label });
      const state = (label: string) => s.call(84, 0, request(84, { groupId: group, topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] }), { label });
      await fetch(0, [], 'acquires all');
      await acknowledge(1, [{ firstOffset: 6, lastOffset: 8, acknowledgeTypes: [2] }], 'releases the last batch');
      await state('after the release');
      await fetch(2, [], 'acquires the released again');
      await acknowledge(3, [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1] }], 'accepts the first batch');
      await state('after the accept, the rest still out');
    },
  },
];
