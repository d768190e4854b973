// Graceful shutdown and restart with consumers attached: a kafkajs group consumer and a long-running
// kcat (librdkafka) group consumer stay up while the broker is stopped with SIGTERM and restarted on
// the same port and log dir (kcat -E, so kcat does not give up when "all brokers are down"). Both
// reconnect, rejoin their groups and continue from their committed offsets: they get every record
// produced after the restart, and none from before it a second time.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, expect, it } from 'vitest';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { sleep } from './support.js';

const TOPIC = 'resume';
const OVERRIDES = ['group.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=3', 'group.min.session.timeout.ms=1000'];

let broker: BrokerProcess | undefined;
const stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  await broker?.kill();
  broker?.cleanup();
  broker = undefined;
});

function until(check: () => boolean, what: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (check()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what()}`));
      else setTimeout(poll, 50);
    };
    poll();
  });
}

async function produceValues(bootstrap: string, values: string[]): Promise<void> {
  const kafka = new Kafka({ clientId: 'restart-producer', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, acks: -1, messages: values.map((value, i) => ({ partition: i % 2, value })) });
  await producer.disconnect();
}

const count = (values: string[], v: string) => values.filter((x) => x === v).length;

it('kafkajs and kcat group consumers reconnect after a restart and continue from their offsets', async () => {
  broker = await startBroker({ overrides: OVERRIDES });
  const { dataDir, port, bootstrap } = broker;
  const kafka = new Kafka({
    clientId: 'restart-consumer',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, retries: 30 },
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
  await admin.disconnect();

  const first = Array.from({ length: 100 }, (_, i) => `before-${i}`);
  const second = Array.from({ length: 100 }, (_, i) => `after-${i}`);
  await produceValues(bootstrap, first);

  const kafkajsSeen: string[] = [];
  const consumer = kafka.consumer({ groupId: 'restart-kafkajs', sessionTimeout: 10_000, heartbeatInterval: 300, maxWaitTimeInMs: 100, retry: { initialRetryTime: 100, retries: 30 } });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void kafkajsSeen.push(message.value!.toString()) });
  stops.push(() => consumer.disconnect().catch(() => {}));

  const kcatSeen: string[] = [];
  const kcat = spawn('kcat', [
    '-b', bootstrap, '-G', 'restart-kcat', '-q', '-u', '-E', '-f', '%s\\n',
    '-X', 'auto.offset.reset=earliest', '-X', 'auto.commit.interval.ms=100', '-X', 'reconnect.backoff.max.ms=500',
    TOPIC,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  createInterface({ input: kcat.stdout! }).on('line', (line) => kcatSeen.push(line));
  let kcatErrors = '';
  kcat.stderr!.on('data', (d) => (kcatErrors += d));
  stops.push(() => void kcat.kill('SIGKILL'));

  await until(() => kafkajsSeen.length >= 100 && kcatSeen.length >= 100, () => `both consumers to read the first 100 (kafkajs ${kafkajsSeen.length}, kcat ${kcatSeen.length}; kcat: ${kcatErrors.slice(-500)})`);
  // Let both commit (kafkajs after each batch, librdkafka every 100 ms).
  await sleep(1000);

  expect(await broker.stop()).toBe(0);
  await sleep(500);
  broker = await startBroker({ dataDir, port, overrides: OVERRIDES });
  await produceValues(bootstrap, second);

  await until(
    () => second.every((v) => kafkajsSeen.includes(v) && kcatSeen.includes(v)),
    () => `both consumers to read the records produced after the restart (kafkajs ${kafkajsSeen.length}, kcat ${kcatSeen.length}; kcat: ${kcatErrors.slice(-500)})`,
  );
  for (const seen of [kafkajsSeen, kcatSeen]) {
    for (const v of first) expect(count(seen, v)).toBe(1);
    for (const v of second) expect(count(seen, v)).toBe(1);
  }
  expect(kcat.exitCode).toBeNull();
  console.log(`[restart] kafkajs read ${kafkajsSeen.length}, kcat read ${kcatSeen.length} records across a SIGTERM restart; no redelivery`);
}, 90_000);
