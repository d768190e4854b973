// ConsumerGroupHeartbeat v1 with a stock client: @platformatic/kafka on `groupProtocol: 'consumer'` picks v1
// from ApiVersions and generates its own member id (KIP-1082); the broker keeps it and the group gets its records.
import { Producer, stringSerializers } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { startStreamingConsumer, type StreamingConsumer } from '../helpers/platformatic.js';

const TOPIC = 'v1-topic';
const GROUP = 'v1-group';

let broker: BrokerProcess;
let consumer: StreamingConsumer | undefined;

beforeAll(async () => {
  broker = await startBroker({ overrides: ['group.consumer.heartbeat.interval.ms=300', 'group.consumer.min.heartbeat.interval.ms=100'] });
});

afterAll(async () => {
  await consumer?.stop();
  await broker.stop();
  broker.cleanup();
});

describe('@platformatic/kafka on ConsumerGroupHeartbeat v1', () => {
  it('joins with the member id it generated and consumes', async () => {
    const wire = await WireClient.connect(broker.port);
    try {
      const created = await wire.send(ApiKey.CreateTopics, 7, {
        topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
      });
      expect(created.topics[0].errorCode).toBe(0);
      const received: string[] = [];
      consumer = await startStreamingConsumer(
        { clientId: 'v1-consumer', bootstrapBrokers: [broker.bootstrap], groupId: GROUP, groupProtocol: 'consumer', maxWaitTime: 100 },
        TOPIC,
        received,
      );
      // platformatic generates a random UUID as its member id on v1; v0 would have left it to the broker (22 base64url chars).
      const clientMemberId = consumer.consumer.memberId;
      expect(clientMemberId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const described = await wire.send(ApiKey.ConsumerGroupDescribe, 0, { groupIds: [GROUP], includeAuthorizedOperations: false });
      expect(described.groups[0].members.map((m: any) => m.memberId)).toEqual([clientMemberId]);

      const producer = new Producer({ clientId: 'v1-producer', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers });
      await producer.send({ messages: Array.from({ length: 10 }, (_, i) => ({ topic: TOPIC, partition: i % 2, key: 'k', value: `v${i}` })) });
      await producer.close();
      const deadline = Date.now() + 30_000;
      while (received.length < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect([...received].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`).sort());
    } finally {
      wire.close();
    }
  }, 60_000);
});
