// Shared pieces of the reliability tests: requests built with our codecs, reading a partition back,
// and the broker's memory figures from /proc.
import { readFileSync } from 'node:fs';
import type { FetchResponse } from '../../protocol/generated/FetchResponse.js';
import type { ProduceResponse } from '../../protocol/generated/ProduceResponse.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';

const ZERO_UUID = '0'.repeat(32);

export interface ProducerIdentity {
  producerId: number;
  producerEpoch: number;
}

export function recordBatch(values: string[], producer?: ProducerIdentity & { baseSequence: number }): Buffer {
  const now = Date.now();
  return encodeBatch({
    baseOffset: 0,
    records: values.map((v, i) => ({ offset: i, timestamp: now, key: null, value: Buffer.from(v), headers: [] })),
    producerId: producer?.producerId,
    producerEpoch: producer?.producerEpoch,
    baseSequence: producer?.baseSequence,
  });
}

function produceRequest(topic: string, partition: number, records: Buffer, acks = -1) {
  return { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

/** Produce v9; returns the single partition's response. */
export async function produce(client: WireClient, topic: string, partition: number, records: Buffer, acks = -1) {
  const res = await client.send<ProduceResponse>(0, 9, produceRequest(topic, partition, records, acks));
  return res.responses[0]!.partitionResponses[0]!;
}

export async function createTopic(client: WireClient, name: string, partitions: number, configs: Array<{ name: string; value: string }> = []): Promise<void> {
  const res = await client.send(19, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  if (res.topics[0].errorCode !== 0) throw new Error(`CreateTopics ${name}: error ${res.topics[0].errorCode}`);
}

export async function initProducerId(client: WireClient): Promise<ProducerIdentity> {
  const res = await client.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
  if (res.errorCode !== 0) throw new Error(`InitProducerId: error ${res.errorCode}`);
  return { producerId: res.producerId, producerEpoch: res.producerEpoch };
}

export function fetchRequest(topic: string, partition: number, fetchOffset: number, maxBytes = 4 << 20) {
  return {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1 }, maxWaitMs: 0, minBytes: 0,
    maxBytes, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
    topics: [{ topic, topicId: ZERO_UUID, partitions: [{
      partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: maxBytes, replicaDirectoryId: ZERO_UUID,
    }] }],
  };
}

/** Fetch v12 of one partition; returns its data. */
export async function fetchPartition(client: WireClient, topic: string, partition: number, fetchOffset: number) {
  const res = await client.send<FetchResponse>(1, 12, fetchRequest(topic, partition, fetchOffset));
  return res.responses[0]!.partitions[0]!;
}

export interface ReadBack {
  values: string[];
  offsets: number[];
  errorCode: number;
}

/** Every record of the partition from `from`, decoded (CRC checked by the decoder). */
export async function readPartition(client: WireClient, topic: string, partition: number, from = 0): Promise<ReadBack> {
  const values: string[] = [];
  const offsets: number[] = [];
  let offset = from;
  for (;;) {
    const data = await fetchPartition(client, topic, partition, offset);
    if (data.errorCode !== 0) return { values, offsets, errorCode: data.errorCode };
    const buf = data.records as Buffer;
    let progressed = false;
    for (const h of batchesIn(buf)) {
      for (const r of decodeBatch(buf.subarray(h.pos, h.pos + h.sizeInBytes)).records) {
        if (r.offset < offset) continue;
        values.push(r.value!.toString());
        offsets.push(r.offset);
        offset = r.offset + 1;
        progressed = true;
      }
    }
    if (!progressed || offset >= data.highWatermark) return { values, offsets, errorCode: 0 };
  }
}

/** Connects, retrying while the broker is (re)starting. */
export async function connectWithRetry(port: number, timeoutMs = 15_000): Promise<WireClient> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await WireClient.connect(port);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(50);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** VmRSS and VmHWM of a process, in MiB. */
export function memoryOf(pid: number): { rssMiB: number; hwmMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: Math.round(kib('VmRSS') / 1024), hwmMiB: Math.round(kib('VmHWM') / 1024) };
}

/** ApiVersions v3 and Metadata v12 on a fresh connection: the broker is alive and serving. */
async function brokerAnswers(port: number): Promise<boolean> {
  let client: WireClient | undefined;
  try {
    client = await WireClient.connect(port);
    const versions = await client.send(18, 3, { clientSoftwareName: 'reliability', clientSoftwareVersion: '1' });
    const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    return versions.errorCode === 0 && metadata.brokers.length === 1;
  } catch {
    return false;
  } finally {
    client?.close();
  }
}
