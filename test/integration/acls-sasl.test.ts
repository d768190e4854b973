// ACLs and quotas for SASL principals: a super user (User:admin) grants User:alice a prefix of topics and a
// group; alice produces and consumes with kafkajs, bob is refused, ANONYMOUS on PLAINTEXT sees nothing.
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { listenerPorts } from '../helpers/secure-broker.js';

const USERS = { admin: 'admin-secret', alice: 'alice-secret', bob: 'bob-secret' };
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" ${Object.entries(USERS)
  .map(([u, p]) => `user_${u}="${p}"`).join(' ')};`;

let broker: BrokerProcess;
let saslPort = 0;
let plainPort = 0;

const client = (user: keyof typeof USERS) => new Kafka({
  clientId: `acl-${user}`, brokers: [`127.0.0.1:${saslPort}`], logLevel: logLevel.NOTHING,
  sasl: { mechanism: 'plain', username: user, password: USERS[user] }, retry: { retries: 0 },
});

beforeAll(async () => {
  broker = await startBroker({
    overrides: [
      'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms=PLAIN',
      `listener.name.sasl_plaintext.plain.sasl.jaas.config=${JAAS}`,
      'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users=User:admin',
      'auto.create.topics.enable=false',
    ],
  });
  const ports = listenerPorts(broker);
  saslPort = ports.SASL_PLAINTEXT;
  plainPort = ports.PLAINTEXT;
  const admin = client('admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'alice-orders' }, { topic: 'secret' }] });
  const allow = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes, resourcePatternType = ResourcePatternTypes.LITERAL) => ({
    resourceType, resourceName, resourcePatternType, principal: 'User:alice', host: '*', operation, permissionType: AclPermissionTypes.ALLOW,
  });
  await admin.createAcls({
    acl: [
      allow(AclResourceTypes.TOPIC, 'alice-', AclOperationTypes.WRITE, ResourcePatternTypes.PREFIXED),
      allow(AclResourceTypes.TOPIC, 'alice-', AclOperationTypes.READ, ResourcePatternTypes.PREFIXED),
      allow(AclResourceTypes.GROUP, 'alice-group', AclOperationTypes.READ),
    ],
  });
  await admin.disconnect();
}, 60_000);

afterAll(async () => {
  await broker.stop();
  broker.cleanup();
});

describe('ACLs for SASL principals', () => {
  it('lets alice produce and consume what her ACLs allow', async () => {
    const producer = client('alice').producer();
    await producer.connect();
    await producer.send({ topic: 'alice-orders', messages: [{ value: 'one' }, { value: 'two' }] });
    await expect(producer.send({ topic: 'secret', messages: [{ value: 'x' }] })).rejects.toThrow(/not authorized/i);
    await producer.disconnect();

    const consumer = client('alice').consumer({ groupId: 'alice-group', maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'alice-orders', fromBeginning: true });
    const values: string[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer.run({ eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
        if (values.length === 2) resolve();
      } }).catch(reject);
    });
    await consumer.disconnect();
    expect(values).toEqual(['one', 'two']);
  }, 60_000);

  it('refuses bob', async () => {
    const producer = client('bob').producer();
    await producer.connect();
    await expect(producer.send({ topic: 'alice-orders', messages: [{ value: 'bob' }] })).rejects.toThrow(/not authorized/i);
    await producer.disconnect();
    // kafkajs asks Metadata first: bob may not even DESCRIBE the topic, and the refusal is logged with his principal.
    // The broker's log lines reach us through its stdout: wait for the line rather than race it.
    const deniedBob = () => broker.logs.some((l) => l.msg === 'Principal is denied operation on resource' && l.principal === 'User:bob' &&
      l.resourceType === 'TOPIC' && l.resource === 'alice-orders');
    for (let i = 0; i < 100 && !deniedBob(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(deniedBob()).toBe(true);
  }, 60_000);

  it('shows each principal only its topics in Metadata', async () => {
    const admin = client('alice').admin();
    await admin.connect();
    expect((await admin.listTopics()).sort()).toEqual(['alice-orders']);
    await admin.disconnect();
    const anonymous = await WireClient.connect(plainPort);
    const meta = await anonymous.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(meta.topics).toEqual([]);
    anonymous.close();
  });
});
