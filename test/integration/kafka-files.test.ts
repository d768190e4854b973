// Issue 31 (a kafkite data dir moved to Apache Kafka 4.4): what Kafka 4.4's own classes find in the files a real
// kafkite wrote. The Java client fills __consumer_offsets (a KIP-848 consumer group, its commits, a transaction
// with a group's offsets), kafkite stops cleanly, and test/clients/java/KafkaFiles.java decodes the data dir with
// Kafka's group coordinator record serde, rebuilds each partition's producer state with Kafka's LogSegment.recover()
// beside kafkite's snapshot of it, and reads __cluster_metadata-0/partition.metadata with Kafka's reader.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { compileJava, javaArgs } from '../helpers/java.js';
import { runJsonClient } from '../helpers/json-client.js';

const TOPICS = ['java-none', 'java-gzip', 'java-snappy', 'java-lz4', 'java-zstd', 'java-txn'];
const SCENARIOS = ['produce', 'consume-consumer', 'transactions'];

let broker: BrokerProcess;
let files: any;
/** Producers of transactions at transaction version 1 (no epoch bump at the marker): one committed, one left open. */
const txnProducers: number[] = [];

/** A TxnOffsetCommit in a transaction of its own (v3 requests: transaction version 1); ends it when `commit` is set. */
async function txnOffsetCommit(client: WireClient, transactionalId: string, commit: boolean): Promise<void> {
  const { producerId, producerEpoch, errorCode } = await client.send(22, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
  expect(errorCode).toBe(0);
  txnProducers.push(producerId);
  const groupId = `${transactionalId}-group`;
  expect((await client.send(25, 3, { transactionalId, producerId, producerEpoch, groupId })).errorCode).toBe(0);
  const res = await client.send(28, 3, {
    transactionalId, groupId, producerId, producerEpoch, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 'java-none', partitions: [{ partitionIndex: 0, committedOffset: 7, committedLeaderEpoch: -1, committedMetadata: null }] }],
  });
  expect(res.topics[0].partitions[0].errorCode).toBe(0);
  if (commit) expect((await client.send(26, 3, { transactionalId, producerId, producerEpoch, committed: true })).errorCode).toBe(0);
}

beforeAll(async () => {
  const [javaClient, kafkaFiles] = [compileJava('JavaClient'), compileJava('KafkaFiles')];
  broker = await startBroker({ overrides: ['auto.create.topics.enable=false', 'group.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=3'] });
  const client = await WireClient.connect(broker.port);
  try {
    for (const name of TOPICS) {
      const res = await client.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
      expect(res.topics[0].errorCode).toBe(0);
    }
    // JavaClient's second address is its SASL listener, which these scenarios do not use.
    const results = await runJsonClient('java', javaArgs('JavaClient', [broker.bootstrap, broker.bootstrap, ...SCENARIOS], javaClient));
    for (const scenario of SCENARIOS) expect(results[scenario]?.error).toBeUndefined();
    await txnOffsetCommit(client, 'files-committed', true);
    await txnOffsetCommit(client, 'files-open', false);
  } finally {
    client.close();
  }
  // A clean stop writes each log's producer snapshot, as Kafka's does at close.
  expect(await broker.stop()).toBe(0);
  // The KIP-848 group (JavaClient's java-g-consumer) subscribes to java-gzip: Kafka's hash of its metadata.
  files = await runJsonClient('java', javaArgs('KafkaFiles', [broker.dataDir, 'java-gzip'], kafkaFiles));
}, 180_000);

afterAll(() => broker?.cleanup());

describe("a kafkite data dir read by Kafka 4.4's classes", () => {
  it("every __consumer_offsets record decodes with Kafka's GroupCoordinatorRecordSerde, KIP-848 records included", () => {
    const { types, errors } = files.consumerOffsets;
    expect(errors).toEqual([]);
    for (const type of [
      'OffsetCommitValue', 'ConsumerGroupMetadataValue', 'ConsumerGroupMemberMetadataValue',
      'ConsumerGroupTargetAssignmentMetadataValue', 'ConsumerGroupTargetAssignmentMemberValue', 'ConsumerGroupCurrentMemberAssignmentValue',
    ]) {
      expect(types[type], type).toBeGreaterThan(0);
    }
  });

  it("the group's metadata hash is Kafka's (KIP-1101), with no ConsumerGroupPartitionMetadata record, as Kafka 4.4 writes", () => {
    const { types, groupMetadataHashes } = files.consumerOffsets;
    expect(types.ConsumerGroupPartitionMetadataValue).toBeUndefined();
    expect(files.metadataHash).not.toBe('0');
    // Joined (java-gzip's hash), then left: the last member gone, no subscribed topic, hash 0.
    expect(groupMetadataHashes).toEqual([files.metadataHash, '0']);
  });

  it('consumer-protocol members carry an explicit null ClassicMemberMetadata (a missing tag reads as a classic member)', () => {
    const { members } = files.consumerOffsets;
    expect(members.length).toBeGreaterThan(0);
    expect(members).toEqual(members.map((m: any) => ({ clientId: m.clientId, classicMemberMetadata: null })));
  });

  it("each producer snapshot of __consumer_offsets holds what Kafka's recovery of the same segments builds", () => {
    const partitions = files.producerSnapshots;
    expect(partitions.length).toBeGreaterThan(0);
    for (const p of partitions) {
      expect(p.snapshotOffset, p.partition).toBe(p.recoveredEndOffset);
      expect(p.snapshot, p.partition).toEqual(p.recovered);
    }
    // A TxnOffsetCommit batch (no sequence) is its producer's last data batch, committed or still open; under
    // transaction version 2 (the Java client's) the marker's epoch bump clears it in Kafka's state too.
    const producers = new Map(partitions.flatMap((p: any) => p.snapshot).map((e: any) => [e.producerId, e]));
    expect(txnProducers.map((id) => producers.get(id)?.lastDataOffset >= 0)).toEqual([true, true]);
    expect(producers.get(txnProducers[1])?.currentTxnFirstOffset).toBeGreaterThanOrEqual(0);
  });

  it("__cluster_metadata-0 has partition.metadata with the metadata topic's fixed id", () => {
    expect(files.clusterMetadata).toEqual({ exists: true, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', isMetadataTopicId: true });
  });
});
