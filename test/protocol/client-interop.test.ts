// Bytes made by real client libraries' own encoders decode to what the client meant, and bytes we
// encode parse in the client's own decoder: a check on our reading of the specs that does not
// depend on it.
import { fetchV17, metadataV12, Reader as ClientReader } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { Reader, Writer } from '../../protocol/primitives.js';
import { readFetchRequest, writeFetchRequest } from '../../protocol/generated/FetchRequest.js';
import { readJoinGroupRequest } from '../../protocol/generated/JoinGroupRequest.js';
import { readMetadataRequest, writeMetadataRequest } from '../../protocol/generated/MetadataRequest.js';
import { writeMetadataResponse, type MetadataResponse } from '../../protocol/generated/MetadataResponse.js';
// @ts-expect-error kafkajs ships no types for its request encoders
import joinGroupV5 from 'kafkajs/src/protocol/requests/joinGroup/v5/request.js';

const TOPIC_ID = '0123456789abcdef0123456789abcdef';

function decodeAll<T>(bytes: Buffer, read: (r: Reader, v: number) => T, version: number): T {
  const r = new Reader(bytes);
  const value = read(r, version);
  expect(r.remaining).toBe(0);
  return value;
}

describe('@platformatic/kafka encoders', () => {
  it('Fetch v17 request', () => {
    const partition = { partition: 3, currentLeaderEpoch: 7, fetchOffset: 2 ** 40, lastFetchedEpoch: 6, partitionMaxBytes: 1048576 };
    // The client takes int64 values as bigint.
    const topics = [{ topicId: TOPIC_ID, partitions: [{ ...partition, fetchOffset: BigInt(partition.fetchOffset) }] }];
    const bytes = fetchV17.createRequest(500, 1, 52428800, 1, 0, -1, topics, [], 'rack-a').buffer;
    const m = decodeAll(bytes, readFetchRequest, 17);
    expect(m).toMatchObject({
      replicaId: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1 },
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 52428800,
      isolationLevel: 1,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic: '', topicId: TOPIC_ID, partitions: [{ ...partition, logStartOffset: -1, replicaDirectoryId: '0'.repeat(32) }] }],
      forgottenTopicsData: [],
      rackId: 'rack-a',
    });
    const w = new Writer();
    writeFetchRequest(w, 17, m);
    expect(w.toBuffer().equals(bytes)).toBe(true);
  });

  it('Metadata v12 request', () => {
    const bytes = metadataV12.createRequest(['orders'], true, false).buffer;
    const m = decodeAll(bytes, readMetadataRequest, 12);
    expect(m.topics).toEqual([{ topicId: '0'.repeat(32), name: 'orders' }]);
    expect(m.allowAutoTopicCreation).toBe(true);
    const w = new Writer();
    writeMetadataRequest(w, 12, m);
    expect(w.toBuffer().equals(bytes)).toBe(true);
  });

  it('parses our Metadata v12 response', () => {
    const response: MetadataResponse = {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: 'localhost', port: 9092, rack: null }],
      clusterId: 'kafkite',
      controllerId: 1,
      topics: [{
        errorCode: 0,
        name: 'orders',
        topicId: TOPIC_ID,
        isInternal: false,
        partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 0, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] }],
        topicAuthorizedOperations: -2147483648,
      }],
      clusterAuthorizedOperations: -2147483648,
    };
    const w = new Writer();
    writeMetadataResponse(w, 12, response);
    const parsed = metadataV12.parseResponse(0, 3, 12, ClientReader.from(Buffer.from(w.toBuffer())));
    expect(parsed).toMatchObject({
      brokers: response.brokers,
      clusterId: 'kafkite',
      controllerId: 1,
      topics: [{ name: 'orders', isInternal: false, partitions: [{ partitionIndex: 0, leaderId: 1, replicaNodes: [1], isrNodes: [1] }] }],
    });
    expect(parsed.topics[0].topicId.replace(/-/g, '')).toBe(TOPIC_ID);
  });
});

describe('kafkajs encoders', () => {
  it('JoinGroup v5 request', async () => {
    const metadata = Buffer.from('00010000000100066f7264657273ffffffff', 'hex');
    const request = joinGroupV5({
      groupId: 'g1',
      sessionTimeout: 30000,
      rebalanceTimeout: 60000,
      memberId: '',
      protocolType: 'consumer',
      groupProtocols: [{ name: 'RoundRobinAssigner', metadata }],
    });
    const bytes: Buffer = (await request.encode()).buffer;
    expect(decodeAll(bytes, readJoinGroupRequest, 5)).toEqual({
      groupId: 'g1',
      sessionTimeoutMs: 30000,
      rebalanceTimeoutMs: 60000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'RoundRobinAssigner', metadata }],
      reason: null,
    });
  });
});
