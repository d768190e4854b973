// Leader epochs across the move from Apache Kafka 4.4 to kafkite (issue #31, "the way out and back"). A Kafka node's
// every restart bumps its partitions' leader epoch by two (fenced: leader -1, unfenced: leader 1), its batches carry
// the epoch they were written in, leader-epoch-checkpoint lists where each began, and a Java consumer's committed
// offsets name the epoch of the record before them. Here Kafka restarts twice (epochs 0, 2 and 4, ten records each)
// while a Java consumer group commits as it goes; kafkite then takes the directory over, its election bumps the epoch
// again (Kafka's controlled shutdown left it at 5, leaderless; kafkite's change record makes it 6), and a second
// client checks what kafkite serves against what Kafka answered before the move: Metadata's epoch, the epoch cache
// (OffsetForLeaderEpoch), the epochs of ListOffsets, the fencing of older epochs, the epoch of new batches on disk.
// The consumer group resumes from its committed offset (epoch 4) and reads every record once. Kafka, started on the
// directory again, finds kafkite's epoch in its cache.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceKafka } from '../../bench/lib/reference-kafka.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import type { PartitionChangeRecord } from '../../protocol/generated/records/PartitionChangeRecord.js';
import type { PartitionRecord } from '../../protocol/generated/records/PartitionRecord.js';
import { ErrorCode } from '../../src/errors.js';
import { readMetadataOnDisk } from '../../src/metadata/metadata-log-files.js';
import { readMetadataRecord, recordTypeOf } from '../../src/metadata/metadata-records.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { KafkaTools } from '../helpers/java.js';
import { until } from '../helpers/poll.js';
import { createTopic, fetchRequest, produce, recordBatch } from '../reliability/support.js';

const TOPIC = 'epochs';
const GROUP = 'resumer';
const PROPERTIES = ['auto.create.topics.enable=false', 'group.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=1'];
const FORMAT_AT_KAFKITES_LEVEL = ['--release-version', '4.1-IV0', '--feature', 'eligible.leader.replicas.version=0'];
/** Kafka's epochs: the topic's first, then one per restart (fenced and unfenced again: two bumps). */
const KAFKA_EPOCHS = [0, 2, 4];
/** How many records the group has read after each epoch's ten (its committed offset: 5, 15, 25). */
const CONSUMED = [5, 10, 10];

let kafka: ReferenceKafka;
let kafkite: BrokerProcess | undefined;
let tools: KafkaTools;
/** What Kafka answered at epoch 4, before its last stop. */
let before: Answers;

const values = (round: number): string[] => Array.from({ length: 10 }, (_, i) => `e${round}-${i}`);
const dataDir = (): string => join(kafka.dir, 'data');
const partitionDir = (): string => join(dataDir(), `${TOPIC}-0`);
const checkpoint = (): string => readFileSync(join(partitionDir(), 'leader-epoch-checkpoint'), 'utf8');
const epochsOnDisk = (): number[] => [...batchesIn(readFileSync(join(partitionDir(), '00000000000000000000.log')))].map((b) => b.partitionLeaderEpoch);

/** Kafka's console consumer in the group, `count` records, one per poll so that it commits exactly what it printed. */
async function consume(bootstrap: string, count: number): Promise<string[]> {
  const run = await tools.run('org.apache.kafka.tools.consumer.ConsoleConsumer', '--bootstrap-server', bootstrap, '--topic', TOPIC, '--group', GROUP,
    '--from-beginning', '--max-messages', String(count), '--timeout-ms', '60000', '--command-property', 'max.poll.records=1');
  expect({ code: run.code, err: run.err }).toMatchObject({ code: 0 });
  return run.out.split('\n').filter((l) => l.length > 0);
}

interface Answers {
  metadataEpoch: number;
  /** OffsetForLeaderEpoch for epochs -1 to 7 (no current epoch given). */
  endOffsets: Map<number, { leaderEpoch: number; endOffset: number }>;
  /** ListOffsets v9: earliest, latest (both isolation levels), the max timestamp: [offset, leaderEpoch]. */
  listed: Record<string, [number, number]>;
  committed: { offset: number; leaderEpoch: number };
}

async function answers(port: number): Promise<Answers> {
  const client = await WireClient.connectWithRetry(port);
  try {
    const metadata = await client.send(3, 12, { topics: [{ name: TOPIC, topicId: '0'.repeat(32) }], allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    const endOffsets = new Map<number, { leaderEpoch: number; endOffset: number }>();
    for (let epoch = -1; epoch <= 7; epoch++) {
      const p = await offsetForLeaderEpoch(client, -1, epoch);
      expect(p.errorCode).toBe(ErrorCode.NONE);
      endOffsets.set(epoch, { leaderEpoch: p.leaderEpoch, endOffset: p.endOffset });
    }
    const listed: Record<string, [number, number]> = {};
    for (const [name, timestamp, isolationLevel] of [['earliest', -2, 0], ['latest', -1, 0], ['latestCommitted', -1, 1], ['maxTimestamp', -3, 0]] as const) {
      const p = await listOffsets(client, -1, timestamp, isolationLevel);
      expect(p.errorCode).toBe(ErrorCode.NONE);
      listed[name] = [p.offset, p.leaderEpoch];
    }
    const fetched = await client.send(9, 9, { groups: [{ groupId: GROUP, memberId: null, memberEpoch: -1, topics: [{ name: TOPIC, partitionIndexes: [0] }] }], requireStable: true });
    const c = fetched.groups[0].topics[0].partitions[0];
    return { metadataEpoch: metadata.topics[0].partitions[0].leaderEpoch, endOffsets, listed, committed: { offset: c.committedOffset, leaderEpoch: c.committedLeaderEpoch } };
  } finally {
    client.close();
  }
}

async function offsetForLeaderEpoch(client: WireClient, currentLeaderEpoch: number, leaderEpoch: number) {
  const res = await client.send(23, 4, { replicaId: -2, topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch, leaderEpoch }] }] });
  return res.topics[0].partitions[0];
}

async function listOffsets(client: WireClient, currentLeaderEpoch: number, timestamp: number, isolationLevel = 0) {
  const res = await client.send(2, 9, { replicaId: -1, isolationLevel, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch, timestamp, maxNumOffsets: 1 }] }] });
  return res.topics[0].partitions[0];
}

/** Fetch v16 from offset 0 naming `currentLeaderEpoch`: the partition's error, current leader and the endpoints sent. */
async function fetchAt(client: WireClient, topicId: string, currentLeaderEpoch: number) {
  const request = fetchRequest(TOPIC, 0, 0, 1000);
  request.topics[0]!.topicId = topicId;
  request.topics[0]!.partitions[0]!.currentLeaderEpoch = currentLeaderEpoch;
  const res = await client.send(1, 16, request);
  const p = res.responses[0].partitions[0];
  return { errorCode: p.errorCode, highWatermark: p.highWatermark, abortedTransactions: p.abortedTransactions, currentLeader: p.currentLeader, nodeEndpoints: res.nodeEndpoints };
}

/**
 * Produces `batch` once the node leads the partition: a Kafka node serves Metadata before it has made itself the
 * leader of a new partition or, after a restart, of its partitions again (until then UNKNOWN_TOPIC_OR_PARTITION or
 * NOT_LEADER_OR_FOLLOWER, nothing appended).
 */
async function produceWhenLed(client: WireClient, batch: string[]): Promise<void> {
  let errorCode = -1;
  await until(async () => {
    errorCode = (await produce(client, TOPIC, 0, recordBatch(batch))).errorCode;
    return errorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER && errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  }, `leadership of ${TOPIC}-0`);
  expect(errorCode).toBe(ErrorCode.NONE);
}

/** The topic's partition 0 leader epoch in the metadata log on disk, as Kafka's PartitionRegistration replays it. */
function imageLeaderEpoch(): number {
  let epoch = -1;
  let topicId = '';
  for (const r of readMetadataOnDisk(join(dataDir(), '__cluster_metadata-0')).records) {
    if (r.type === recordTypeOf('TopicRecord')) {
      const t = readMetadataRecord<{ name: string; topicId: string }>('TopicRecord', r);
      if (t.name === TOPIC) topicId = t.topicId;
    } else if (r.type === recordTypeOf('PartitionRecord')) {
      const p = readMetadataRecord<PartitionRecord>('PartitionRecord', r);
      if (p.topicId === topicId && p.partitionId === 0) epoch = p.leaderEpoch;
    } else if (r.type === recordTypeOf('PartitionChangeRecord')) {
      const c = readMetadataRecord<PartitionChangeRecord>('PartitionChangeRecord', r);
      if (c.topicId === topicId && c.partitionId === 0 && c.leader !== -2) epoch++;
    }
  }
  return epoch;
}

let consumedUnderKafka: string[] = [];
let kafkaCheckpoint = '';
let kafkaFenced: Awaited<ReturnType<typeof fetchAt>>;
let topicId = '';

beforeAll(async () => {
  tools = new KafkaTools();
  kafka = await ReferenceKafka.start({ properties: PROPERTIES, formatArgs: FORMAT_AT_KAFKITES_LEVEL, readyTimeoutMs: 90_000 });
  const bootstrap = (): string => `127.0.0.1:${kafka.ports.PLAINTEXT}`;
  for (let round = 0; round < KAFKA_EPOCHS.length; round++) {
    if (round > 0) kafka = await kafka.restart({ readyTimeoutMs: 90_000 });
    const client = await WireClient.connectWithRetry(kafka.ports.PLAINTEXT!);
    if (round === 0) await createTopic(client, TOPIC, 1);
    // Two batches of five, each stamped by Kafka with the epoch it leads in.
    for (const half of [0, 5]) await produceWhenLed(client, values(round).slice(half, half + 5));
    client.close();
    consumedUnderKafka.push(...(await consume(bootstrap(), CONSUMED[round]!)));
    if (round < KAFKA_EPOCHS.length - 1) expect(await kafka.stop()).toBe(143);
  }
  before = await answers(kafka.ports.PLAINTEXT!);
  const client = await WireClient.connectWithRetry(kafka.ports.PLAINTEXT!);
  topicId = (await client.send(3, 12, { topics: [{ name: TOPIC, topicId: '0'.repeat(32) }], allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })).topics[0].topicId;
  kafkaFenced = await fetchAt(client, topicId, before.metadataEpoch - 1);
  client.close();
  expect(await kafka.stop()).toBe(143);
  kafkaCheckpoint = checkpoint();
  kafkite = await startBroker({ dataDir: dataDir(), overrides: [...PROPERTIES, 'node.id=1'] });
}, 420_000);

afterAll(async () => {
  await tools?.close();
  if (kafkite && kafkite.child.exitCode === null) expect(await kafkite.stop()).toBe(0);
  await kafka?.stop();
  kafka?.cleanup();
}, 60_000);

describe('leader epochs, Kafka 4.4 -> kafkite', () => {
  it('had Kafka at epoch 4 with every batch stamped and the group committed at 25 in epoch 4', () => {
    expect(before.metadataEpoch).toBe(4);
    expect(kafkaCheckpoint).toBe('0\n3\n0 0\n2 10\n4 20\n');
    expect(epochsOnDisk()).toEqual([0, 0, 2, 2, 4, 4]);
    expect(consumedUnderKafka).toEqual([...values(0), ...values(1), ...values(2)].slice(0, 25));
    expect(before.committed).toEqual({ offset: 25, leaderEpoch: 4 });
  });

  it("serves the metadata image's leader epoch, one past the leaderless epoch Kafka's shutdown left", async () => {
    const served = await answers(kafkite!.port);
    expect(imageLeaderEpoch()).toBe(6);
    expect(served.metadataEpoch).toBe(6);
    // The group's commit is kafkite's as Kafka stored it.
    expect(served.committed).toEqual(before.committed);
    // The epoch cache: every epoch Kafka had ends where Kafka said; kafkite's epoch 6 begins at the log end, 30.
    for (const epoch of [-1, 0, 1, 2, 3, 4]) expect([epoch, served.endOffsets.get(epoch)]).toEqual([epoch, before.endOffsets.get(epoch)]);
    expect(served.endOffsets.get(5)).toEqual({ leaderEpoch: 4, endOffset: 30 });
    expect(served.endOffsets.get(6)).toEqual({ leaderEpoch: 6, endOffset: 30 });
    expect(served.endOffsets.get(7)).toEqual({ leaderEpoch: -1, endOffset: -1 });
    expect(checkpoint()).toBe('0\n4\n0 0\n2 10\n4 20\n6 30\n');
    // ListOffsets as Kafka answered, the latest offset now in epoch 6.
    expect(served.listed).toEqual({ ...before.listed, latest: [30, 6], latestCommitted: [30, 6] });
    expect(before.listed.latest).toEqual([30, 4]);
  });

  it('fences an older current leader epoch and refuses a newer one, as Kafka does', async () => {
    const client = await WireClient.connect(kafkite!.port);
    try {
      // Fetch v16 names the leader and its endpoint to a fenced client (KIP-951), exactly as Kafka did at epoch 4.
      const fenced = await fetchAt(client, topicId, 5);
      expect(fenced).toEqual({ ...kafkaFenced, currentLeader: { leaderId: 1, leaderEpoch: 6 }, nodeEndpoints: [{ ...kafkaFenced.nodeEndpoints[0], port: kafkite!.port }] });
      expect(kafkaFenced.errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
      const unknown = await fetchAt(client, topicId, 7);
      expect({ errorCode: unknown.errorCode, currentLeader: unknown.currentLeader, nodeEndpoints: unknown.nodeEndpoints })
        .toEqual({ errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH, currentLeader: { leaderId: -1, leaderEpoch: -1 }, nodeEndpoints: [] });
      expect((await fetchAt(client, topicId, 6)).errorCode).toBe(ErrorCode.NONE);
      expect((await listOffsets(client, 4, -1)).errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
      expect((await listOffsets(client, 7, -1)).errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
      expect(await offsetForLeaderEpoch(client, 5, 4)).toMatchObject({ errorCode: ErrorCode.FENCED_LEADER_EPOCH, leaderEpoch: -1, endOffset: -1 });
      expect(await offsetForLeaderEpoch(client, 6, 4)).toMatchObject({ errorCode: ErrorCode.NONE, leaderEpoch: 4, endOffset: 30 });
    } finally {
      client.close();
    }
  });

  it('stamps new batches with epoch 6; the group resumes at its commit and reads every record once', async () => {
    const client = await WireClient.connect(kafkite!.port);
    try {
      for (const half of [0, 5]) expect((await produce(client, TOPIC, 0, recordBatch(values(3).slice(half, half + 5)))).errorCode).toBe(ErrorCode.NONE);
    } finally {
      client.close();
    }
    expect(epochsOnDisk()).toEqual([0, 0, 2, 2, 4, 4, 6, 6]);
    // Kafka 4.4's consumer validates its position with OffsetsForLeaderEpoch (epoch 4 ends at 30: no truncation).
    const resumed = await consume(kafkite!.bootstrap, 15);
    expect(resumed).toEqual([...values(2).slice(5), ...values(3)]);
    const after = await answers(kafkite!.port);
    expect(after.committed).toEqual({ offset: 40, leaderEpoch: 6 });
  }, 120_000);

  it('keeps epoch 6 over a restart of kafkite (no election: node 1 leads already)', async () => {
    expect(await kafkite!.stop()).toBe(0);
    kafkite = await startBroker({ dataDir: dataDir(), overrides: [...PROPERTIES, 'node.id=1'] });
    const served = await answers(kafkite.port);
    expect(served.metadataEpoch).toBe(6);
    expect(served.endOffsets.get(6)).toEqual({ leaderEpoch: 6, endOffset: 40 });
    expect(checkpoint()).toBe('0\n4\n0 0\n2 10\n4 20\n6 30\n');
  }, 60_000);

  it("lets Kafka 4.4, on the directory again, read kafkite's epoch from its cache", async () => {
    expect(await kafkite!.stop()).toBe(0);
    kafka = await kafka.restart({ readyTimeoutMs: 90_000 });
    const client = await WireClient.connectWithRetry(kafka.ports.PLAINTEXT!);
    try {
      await until(async () => (await listOffsets(client, -1, -1)).errorCode === ErrorCode.NONE, `leadership of ${TOPIC}-0`);
    } finally {
      client.close();
    }
    const served = await answers(kafka.ports.PLAINTEXT!);
    // Kafka's own restart bumps the epoch past kafkite's 6; epoch 6 still ends where kafkite's records end.
    expect(served.metadataEpoch).toBeGreaterThan(6);
    expect(served.endOffsets.get(6)).toEqual({ leaderEpoch: 6, endOffset: 40 });
    expect(served.endOffsets.get(4)).toEqual({ leaderEpoch: 4, endOffset: 30 });
  }, 120_000);
});
