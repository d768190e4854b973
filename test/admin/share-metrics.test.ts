// Kafka's share-group metrics on /metrics (KIP-932), moved by real share activity over TCP: a member joining
// and leaving a share group changes group-count{protocol="share"} and share-group-count{state}; a share
// session loading, acquiring and acknowledging records moves PartitionLoadTimeMs, InFlightMessageCount and
// RecordAcknowledgementsPerSec{ackType} and AcquisitionLockTimeoutPerSec; joins, fetches and a refused acknowledgement
// move share-group-rebalance-count, TopicPartitionsAcquireTimeMs{group} and the per-topic Total/Failed ShareFetch
// and ShareAcknowledgement request counts (share-consumer-java checks them under a real KafkaShareConsumer).
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { ApiKey } from '../../protocol/generated/index.js';
import { adminAddress, startBroker, type BrokerProcess } from '../helpers/broker-process.js';

let broker: BrokerProcess;
let wire: WireClient;
let topicId: string;

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${adminAddress(broker)}/metrics`)).text();
  const escaped = series.replace(/[{}"]/g, (c) => `\\${c}`);
  const found = text.match(new RegExp(`^${escaped} (\\S+)$`, 'm'));
  return found ? Number(found[1]) : 0;
}

beforeAll(async () => {
  broker = await startBroker({ overrides: ['group.share.min.record.lock.duration.ms=1000', 'group.share.record.lock.duration.ms=1000'] });
  wire = await WireClient.connect(broker.port);
  const created = await wire.send(ApiKey.CreateTopics, 7, { topics: [{ name: 'sm-in', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
  expect(created.topics[0].errorCode).toBe(0);
  topicId = created.topics[0].topicId;
}, 60_000);

afterAll(async () => {
  wire?.close();
  expect(await broker?.stop()).toBe(0);
  broker?.cleanup();
});

const heartbeat = (memberId: string, memberEpoch: number) =>
  wire.send(ApiKey.ShareGroupHeartbeat, 1, { groupId: 'sm-group', memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? ['sm-in'] : null });

describe('share-group metrics', () => {
  it('counts share groups by protocol and state as members join and leave', async () => {
    expect(await metric('kafkite_share_group_count{state="Stable"}')).toBe(0);
    expect(await metric('kafkite_group_count{protocol="share"}')).toBe(0);
    const joined = await heartbeat('sm-a', 0);
    expect(joined.errorCode).toBe(0);
    expect(await metric('kafkite_group_count{protocol="share"}')).toBe(1);
    expect(await metric('kafkite_share_group_count{state="Stable"}')).toBe(1);
    expect(await metric('kafkite_share_group_count{state="Empty"}')).toBe(0);
    expect((await heartbeat('sm-a', -1)).errorCode).toBe(0);
    expect(await metric('kafkite_share_group_count{state="Stable"}')).toBe(0);
    expect(await metric('kafkite_share_group_count{state="Empty"}')).toBe(1);
    expect(await metric('kafkite_group_count{protocol="share"}')).toBe(1);
  });

  it('counts acknowledgements by type, share-partition loads and the records in flight', async () => {
    const loadsBefore = await metric('kafkite_share_partition_load_time_seconds_count');
    expect((await heartbeat('sm-b', 0)).errorCode).toBe(0);
    let epoch = 0;
    const fetch = async () => {
      const res = await wire.send(ApiKey.ShareFetch, 2, {
        groupId: 'sm-group', memberId: 'sm-b', shareSessionEpoch: epoch++, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 10, batchSize: 10, shareAcquireMode: 0, isRenewAck: false,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [],
      });
      expect(res.errorCode).toBe(0);
      return res.responses[0]?.partitions[0]?.acquiredRecords ?? [];
    };
    expect(await fetch()).toEqual([]);
    expect(await metric('kafkite_share_partition_load_time_seconds_count')).toBe(loadsBefore + 1);
    const producer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    for (let i = 0; i < 3; i++) await producer.send({ topic: 'sm-in', messages: [{ value: `v${i}` }] });
    await producer.disconnect();
    expect(await fetch()).toEqual([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
    const inFlight = 'kafkite_share_partition_in_flight_messages{group="sm-group",topic="sm-in",partition="0"}';
    expect(await metric(inFlight)).toBe(3);
    const acked = await wire.send(ApiKey.ShareAcknowledge, 2, {
      groupId: 'sm-group', memberId: 'sm-b', shareSessionEpoch: epoch++, isRenewAck: false,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [
        { firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }, { firstOffset: 1, lastOffset: 1, acknowledgeTypes: [2] }, { firstOffset: 2, lastOffset: 2, acknowledgeTypes: [3] },
      ] }] }],
    });
    expect(acked.responses[0].partitions[0].errorCode).toBe(0);
    for (const ackType of ['Accept', 'Release', 'Reject']) expect(await metric(`kafkite_share_record_acknowledgements_total{ack_type="${ackType}"}`)).toBe(1);
    // 0 accepted moves the start offset past it; 1 (available again) and 2 (archived) stay in flight.
    expect(await metric(inFlight)).toBe(2);
    // The released record, acquired again and left unacknowledged, comes back when its lock (1 s) expires.
    const timeouts = 'kafkite_share_acquisition_lock_timeouts{group="sm-group",topic="sm-in",partition="0"}';
    expect(await metric(timeouts)).toBe(0);
    expect(await fetch()).toEqual([{ firstOffset: 1, lastOffset: 1, deliveryCount: 2 }]);
    await expect.poll(() => metric(timeouts), { timeout: 10_000, interval: 200 }).toBe(1);
  });

  it('counts share requests per topic, failed ones, acquisition waits and rebalances', async () => {
    const created = await wire.send(ApiKey.CreateTopics, 7, { topics: [{ name: 'sm-req', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    const reqTopicId = created.topics[0].topicId;
    const series = (name: string) => `${name}{topic="sm-req"}`;
    const rebalancesBefore = await metric('kafkite_share_group_rebalances_total');
    const joined = await wire.send(ApiKey.ShareGroupHeartbeat, 1, { groupId: 'sm-req-group', memberId: 'sm-c', memberEpoch: 0, rackId: null, subscribedTopicNames: ['sm-req'] });
    expect(joined.errorCode).toBe(0);
    // The join bumped the group epoch (a new member, its partition initialized): one rebalance, as Kafka records one per heartbeat.
    expect(await metric('kafkite_share_group_rebalances_total')).toBe(rebalancesBefore + 1);
    const again = await wire.send(ApiKey.ShareGroupHeartbeat, 1, { groupId: 'sm-req-group', memberId: 'sm-c', memberEpoch: joined.memberEpoch, rackId: null, subscribedTopicNames: null });
    expect(again.memberEpoch).toBe(joined.memberEpoch);
    expect(await metric('kafkite_share_group_rebalances_total')).toBe(rebalancesBefore + 1);

    let epoch = 0;
    const shareFetch = (acknowledgementBatches: unknown[] = []) => wire.send(ApiKey.ShareFetch, 2, {
      groupId: 'sm-req-group', memberId: 'sm-c', shareSessionEpoch: epoch++, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 10, batchSize: 10, shareAcquireMode: 0, isRenewAck: false,
      topics: [{ topicId: reqTopicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches }] }], forgottenTopicsData: [],
    });
    await shareFetch();
    const producer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({ topic: 'sm-req', messages: [{ value: 'a' }, { value: 'b' }] });
    await producer.disconnect();
    const got = await shareFetch();
    expect(got.responses[0].partitions[0].acquiredRecords).toEqual([{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }]);
    expect(await metric(series('kafkite_topic_share_fetch_requests_total'))).toBe(2);
    expect(await metric(series('kafkite_topic_failed_share_fetch_requests_total'))).toBe(0);
    expect(await metric('kafkite_share_topic_partitions_acquire_time_seconds_count{group="sm-req-group"}')).toBe(2);
    // Accepted on a fetch, then the same offsets again on ShareAcknowledge: refused (INVALID_RECORD_STATE), a failed request.
    const accept = [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [1] }];
    const fetched = await shareFetch(accept);
    expect(fetched.responses[0].partitions[0].acknowledgeErrorCode).toBe(0);
    const refused = await wire.send(ApiKey.ShareAcknowledge, 2, {
      groupId: 'sm-req-group', memberId: 'sm-c', shareSessionEpoch: epoch++, isRenewAck: false,
      topics: [{ topicId: reqTopicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: accept }] }],
    });
    expect(refused.responses[0].partitions[0].errorCode).toBe(121);
    expect(await metric(series('kafkite_topic_share_acknowledgement_requests_total'))).toBe(2);
    expect(await metric(series('kafkite_topic_failed_share_acknowledgement_requests_total'))).toBe(1);
    expect(await metric(series('kafkite_topic_share_fetch_requests_total'))).toBe(3);
  });
});
