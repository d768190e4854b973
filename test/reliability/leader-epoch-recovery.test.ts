// Leader epochs survive a crash (issue #31): the broker is SIGKILLed right after a write and its leader-epoch-checkpoint
// and recovery-point-offset-checkpoint are lost, so recovery re-reads every batch; as Kafka's LogSegment.recover does,
// it rebuilds the epoch cache from the epochs stamped in the batch headers. Epochs 0, 2 and 4 come from two restarts
// after each of which the metadata log holds the partition leaderless (the PartitionChangeRecord a Kafka node's
// controlled shutdown writes): kafkite's election bumps the epoch by two, as Kafka's restarts do. OffsetForLeaderEpoch,
// ListOffsets and the checkpoint file after the crash must equal what they were before it.
import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { ErrorCode } from '../../src/errors.js';
import { frameMetadataRecord } from '../../src/metadata/metadata-frame.js';
import { metadataRecord } from '../../src/metadata/metadata-records.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { createTopic, produce, readPartition, recordBatch } from './support.js';

const TOPIC = 'epochs';

let broker: BrokerProcess | undefined;

afterAll(async () => {
  if (broker && broker.child.exitCode === null) await broker.kill();
  broker?.cleanup();
});

const partitionDir = (): string => join(broker!.dataDir, `${TOPIC}-0`);
const checkpoint = (): string => readFileSync(join(partitionDir(), 'leader-epoch-checkpoint'), 'utf8');

/** Appends a PartitionChangeRecord leaving partition 0 leaderless to the stopped broker's metadata log, as its leader would. */
function leaveLeaderless(topicId: string): void {
  const dir = join(broker!.dataDir, '__cluster_metadata-0');
  const segment = join(dir, readdirSync(dir).filter((f) => /^\d{20}\.log$/.test(f)).sort().at(-1)!);
  const last = [...batchesIn(readFileSync(segment))].at(-1)!;
  const change = { partitionId: 0, topicId, leader: -1, isr: null, leaderRecoveryState: -1, replicas: null, removingReplicas: null,
    addingReplicas: null, directories: null, eligibleLeaderReplicas: null, lastKnownElr: null };
  const value = frameMetadataRecord(metadataRecord('PartitionChangeRecord', 0, change));
  const offset = last.lastOffset + 1;
  appendFileSync(segment, encodeBatch({ baseOffset: offset, partitionLeaderEpoch: last.partitionLeaderEpoch, records: [{ offset, timestamp: Date.now(), key: null, value, headers: [] }] }));
}

async function metadata(client: WireClient): Promise<{ topicId: string; leaderEpoch: number }> {
  const res = await client.send(3, 12, { topics: [{ name: TOPIC, topicId: '0'.repeat(32) }], allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  return { topicId: res.topics[0].topicId, leaderEpoch: res.topics[0].partitions[0].leaderEpoch };
}

/** OffsetForLeaderEpoch for epochs -1 to 5 and ListOffsets v9 (earliest, latest, max timestamp) with their epochs. */
async function epochAnswers(client: WireClient): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (let leaderEpoch = -1; leaderEpoch <= 5; leaderEpoch++) {
    const res = await client.send(23, 4, { replicaId: -2, topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch }] }] });
    const p = res.topics[0].partitions[0];
    answers.push({ requested: leaderEpoch, errorCode: p.errorCode, leaderEpoch: p.leaderEpoch, endOffset: p.endOffset });
  }
  for (const timestamp of [-2, -1, -3]) {
    const res = await client.send(2, 9, { replicaId: -1, isolationLevel: 0,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }] }] });
    const p = res.topics[0].partitions[0];
    answers.push({ timestamp, errorCode: p.errorCode, offset: p.offset, leaderEpoch: p.leaderEpoch });
  }
  return answers;
}

/**
 * What a Kafka 4.4 node answered for the same writes, its epochs 0, 2 and 4 from two restarts (run once by hand:
 * ReferenceKafka, kill() after the last write, both files removed, restarted: its leader-epoch-checkpoint was rebuilt
 * as `0 0, 2 4, 4 8`, followed by `6 13` for its own election after the restart).
 */
const KAFKA_ANSWERS = [
  ...[[-1, -1], [0, 4], [0, 4], [2, 8], [2, 8], [4, 13], [-1, -1]].map(([leaderEpoch, endOffset], i) => ({ requested: i - 1, errorCode: 0, leaderEpoch, endOffset })),
  { timestamp: -2, errorCode: 0, offset: 0, leaderEpoch: 0 },
  { timestamp: -1, errorCode: 0, offset: 13, leaderEpoch: 4 },
  { timestamp: -3, errorCode: 0, offset: 12, leaderEpoch: 4 },
];

describe('leader epochs across a crash that loses leader-epoch-checkpoint', () => {
  it('are rebuilt from the batch headers: the same answers and the same file as before the crash', async () => {
    broker = await startBroker({ overrides: ['auto.create.topics.enable=false'] });
    let client = await WireClient.connectWithRetry(broker.port);
    await createTopic(client, TOPIC, 1);
    const { topicId } = await metadata(client);
    for (const round of [0, 1, 2]) {
      if (round > 0) {
        client.close();
        expect(await broker.stop()).toBe(0);
        leaveLeaderless(topicId);
        broker = await startBroker({ dataDir: broker.dataDir, port: broker.port, overrides: ['auto.create.topics.enable=false'] });
        client = await WireClient.connectWithRetry(broker.port);
      }
      expect((await metadata(client)).leaderEpoch).toBe(2 * round);
      for (const half of ['a', 'b']) expect((await produce(client, TOPIC, 0, recordBatch([`${round}${half}0`, `${round}${half}1`]))).errorCode).toBe(ErrorCode.NONE);
    }
    // The last write, then the crash: no clean-shutdown marker, and (as if no checkpoint had been taken) both files gone.
    // Stamped a minute ahead, so that the max-timestamp lookup finds it even within the same millisecond as 2b.
    const tail = encodeBatch({ baseOffset: 0, records: [{ offset: 0, timestamp: Date.now() + 60_000, key: null, value: Buffer.from('tail'), headers: [] }] });
    expect((await produce(client, TOPIC, 0, tail)).errorCode).toBe(ErrorCode.NONE);
    const before = await epochAnswers(client);
    expect(before).toEqual(KAFKA_ANSWERS);
    expect(checkpoint()).toBe('0\n3\n0 0\n2 4\n4 8\n');
    client.close();
    await broker.kill();
    rmSync(join(partitionDir(), 'leader-epoch-checkpoint'));
    rmSync(join(broker.dataDir, 'recovery-point-offset-checkpoint'), { force: true });
    broker = await startBroker({ dataDir: broker.dataDir, port: broker.port, overrides: ['auto.create.topics.enable=false'] });
    client = await WireClient.connectWithRetry(broker.port);
    try {
      expect((await metadata(client)).leaderEpoch).toBe(4);
      expect(await epochAnswers(client)).toEqual(before);
      expect(checkpoint()).toBe('0\n3\n0 0\n2 4\n4 8\n');
      const read = await readPartition(client, TOPIC, 0);
      expect(read.values).toEqual(['0a0', '0a1', '0b0', '0b1', '1a0', '1a1', '1b0', '1b1', '2a0', '2a1', '2b0', '2b1', 'tail']);
    } finally {
      client.close();
    }
  }, 120_000);
});
