// Exactly-once under kill -9: a consume-transform-produce pipeline (a transactional producer that commits
// its input offsets with its output, our wire client) runs while the broker is SIGKILLed several times
// mid-transaction and restarted on the same data dir and port. Afterwards the output read with
// read_committed holds every input record exactly once and the committed input offsets are the input's end.
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import type { WireClient } from '../../bench/lib/wire-client.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { connectWithRetry, createTopic, produce, readPartition, recordBatch, sleep } from './support.js';

const PARTITIONS = 2;
const PER_PARTITION = 150;
const CHUNK = 10;
const TXN_ID = 'eos-pipeline';
const GROUP = 'eos-group';
const OVERRIDES = ['offsets.topic.num.partitions=2', 'transaction.state.log.num.partitions=2'];

let broker: BrokerProcess | undefined;

afterEach(async () => {
  await broker?.kill();
  broker?.cleanup();
  broker = undefined;
});

class PipelineError extends Error {}

function check(what: string, errorCode: number): void {
  if (errorCode !== 0) throw new PipelineError(`${what}: error ${errorCode}`);
}

/** One transactional worker; any error or lost connection restarts it from InitProducerId and the committed offsets. */
class Pipeline {
  commits = 0;
  restarts = 0;
  /** The request in flight, for the log line: where the kills landed. */
  phase = 'idle';
  private client: WireClient | null = null;
  private producer = { producerId: -1, producerEpoch: -1 };
  private readonly sequences = new Map<number, number>();

  constructor(private readonly port: () => number) {}

  async run(): Promise<void> {
    for (;;) {
      try {
        if (await this.step()) return;
      } catch {
        this.restarts++;
        this.client?.close();
        this.client = null;
        await sleep(50);
      }
    }
  }

  private async connect(): Promise<WireClient> {
    if (this.client) return this.client;
    const client = await connectWithRetry(this.port(), 60_000);
    // A new InitProducerId fences the previous incarnation and aborts (or completes) its transaction.
    for (;;) {
      const init = await client.send(22, 4, { transactionalId: TXN_ID, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
      if (init.errorCode === 51 || init.errorCode === 14 || init.errorCode === 15) {
        await sleep(50);
        continue;
      }
      check('InitProducerId', init.errorCode);
      this.producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
      this.sequences.clear();
      this.client = client;
      return client;
    }
  }

  private async committedOffsets(client: WireClient): Promise<number[]> {
    for (;;) {
      const res = await client.send(9, 7, { groupId: GROUP, topics: [{ name: 'eos-in', partitionIndexes: [0, 1] }], groups: [], requireStable: true });
      check('OffsetFetch', res.errorCode);
      const partitions = res.topics[0].partitions;
      if (partitions.some((p: any) => p.errorCode === 88)) {
        await sleep(20);
        continue;
      }
      for (const p of partitions) check('OffsetFetch partition', p.errorCode);
      return partitions.map((p: any) => Math.max(0, Number(p.committedOffset)));
    }
  }

  /** One transaction: up to CHUNK records of one partition, transformed, with their offsets. Returns true when all input is done. */
  private async step(): Promise<boolean> {
    const client = await this.connect();
    const committed = await this.committedOffsets(client);
    const partition = committed.findIndex((o) => o < PER_PARTITION);
    if (partition < 0) return true;
    const input = await readPartition(client, 'eos-in', partition, committed[partition]);
    check('Fetch', input.errorCode);
    const values = input.values.slice(0, CHUNK);
    const { producerId, producerEpoch } = this.producer;
    this.phase = 'AddPartitionsToTxn';
    const added = await client.send(24, 3, {
      transactions: [], v3AndBelowTransactionalId: TXN_ID, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch,
      v3AndBelowTopics: [{ name: 'eos-out', partitions: [partition] }],
    });
    check('AddPartitionsToTxn', added.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode);
    this.phase = 'AddOffsetsToTxn';
    check('AddOffsetsToTxn', (await client.send(25, 3, { transactionalId: TXN_ID, producerId, producerEpoch, groupId: GROUP })).errorCode);
    const baseSequence = this.sequences.get(partition) ?? 0;
    const batch = encodeBatch({
      baseOffset: 0,
      records: values.map((v, i) => ({ offset: i, timestamp: Date.now(), key: null, value: Buffer.from(`out-${v}`), headers: [] })),
      producerId, producerEpoch, baseSequence, isTransactional: true,
    });
    this.phase = 'Produce';
    const produced: any = await client.send(0, 9, { transactionalId: TXN_ID, acks: -1, timeoutMs: 5000, topicData: [{ name: 'eos-out', partitionData: [{ index: partition, records: batch }] }] });
    check('Produce', produced.responses[0].partitionResponses[0].errorCode);
    this.sequences.set(partition, baseSequence + values.length);
    this.phase = 'TxnOffsetCommit';
    const offsets = await client.send(28, 3, {
      transactionalId: TXN_ID, groupId: GROUP, producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'eos-in', partitions: [{ partitionIndex: partition, committedOffset: committed[partition]! + values.length, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    check('TxnOffsetCommit', offsets.topics[0].partitions[0].errorCode);
    this.phase = 'EndTxn';
    check('EndTxn', (await client.send(26, 3, { transactionalId: TXN_ID, producerId, producerEpoch, committed: true })).errorCode);
    this.commits++;
    this.phase = 'idle';
    return false;
  }
}

async function readCommitted(bootstrap: string, expected: number): Promise<string[]> {
  const kafka = new Kafka({ clientId: 'eos-verify', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `eos-verify-${Date.now()}`, readUncommitted: false, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'eos-out', fromBeginning: true });
  const values: string[] = [];
  await new Promise<void>((resolve, reject) => {
    let timer = setTimeout(resolve, 15_000);
    consumer
      .run({
        eachMessage: async ({ message }) => {
          values.push(message.value!.toString());
          if (values.length >= expected) {
            // Give anything beyond the expected count time to show up.
            clearTimeout(timer);
            timer = setTimeout(resolve, 1500);
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return values;
}

describe('exactly-once under kill -9', () => {
  it('a consume-transform-produce pipeline outputs every input record once and commits the input offsets that match', async () => {
    broker = await startBroker({ overrides: OVERRIDES });
    const { dataDir, port } = broker;
    const admin = await connectWithRetry(port);
    await createTopic(admin, 'eos-in', PARTITIONS);
    await createTopic(admin, 'eos-out', PARTITIONS);
    const inputs: string[] = [];
    for (let p = 0; p < PARTITIONS; p++) {
      for (let i = 0; i < PER_PARTITION; i += 50) {
        const values = Array.from({ length: 50 }, (_, j) => `p${p}-${String(i + j).padStart(3, '0')}`);
        expect((await produce(admin, 'eos-in', p, recordBatch(values))).errorCode).toBe(0);
        inputs.push(...values);
      }
    }
    admin.close();

    const pipeline = new Pipeline(() => port);
    const running = pipeline.run();
    const kills: string[] = [];
    for (let i = 0; i < 4; i++) {
      // Kill once some transactions went through since the last restart, at a random moment within the next one.
      const before = pipeline.commits;
      const deadline = Date.now() + 30_000;
      while (pipeline.commits < before + 2 && Date.now() < deadline) await sleep(10);
      await sleep(Math.floor(Math.random() * 15));
      kills.push(`${pipeline.commits}:${pipeline.phase}`);
      await broker.kill();
      broker = await startBroker({ dataDir, port, overrides: OVERRIDES });
    }
    await running;
    console.log(`[eos-crash] kills (commits:request in flight) ${kills.join(',')}; transactions committed ${pipeline.commits}, pipeline restarts ${pipeline.restarts}`);
    expect(kills).toHaveLength(4);
    expect(pipeline.restarts).toBeGreaterThanOrEqual(4);

    const output = await readCommitted(broker.bootstrap, inputs.length);
    expect(output.length).toBe(inputs.length);
    expect([...output].sort()).toEqual(inputs.map((v) => `out-${v}`).sort());

    const reader = await connectWithRetry(port);
    const fetched = await reader.send(9, 7, { groupId: GROUP, topics: [{ name: 'eos-in', partitionIndexes: [0, 1] }], groups: [], requireStable: true });
    expect(fetched.topics[0].partitions.map((p: any) => [p.errorCode, p.committedOffset])).toEqual([[0, PER_PARTITION], [0, PER_PARTITION]]);
    reader.close();
  }, 180_000);
});
