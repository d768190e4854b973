import type { FetchRequest } from '../../protocol/generated/FetchRequest.js';
import type { FetchResponse, PartitionData } from '../../protocol/generated/FetchResponse.js';
import type { FileSlice } from '../../protocol/primitives.js';
import type { Broker } from '../broker.js';
import { ErrorCode } from '../errors.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';
import type { Handler, RequestContext } from './handler.js';

const EMPTY_RECORDS = Buffer.alloc(0);

interface PartitionRead {
  topic: string | undefined;
  data: PartitionData;
  bytes: number;
}

function partitionData(partitionIndex: number, errorCode: number): PartitionData {
  return {
    partitionIndex,
    errorCode,
    highWatermark: -1,
    lastStableOffset: -1,
    logStartOffset: -1,
    divergingEpoch: { epoch: -1, endOffset: -1 },
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
    snapshotId: { endOffset: -1, epoch: -1 },
    abortedTransactions: null,
    preferredReadReplica: -1,
    // Fetch v12+ clients need empty, not null, records for partitions without data.
    records: EMPTY_RECORDS,
  };
}

/** One pass over the requested partitions, honouring max_bytes and KIP-74's "at least one batch". */
function readAll(request: FetchRequest, broker: Broker, version: number): { topics: Array<{ topicId: string; name: string | null; reads: PartitionRead[] }>; bytes: number } {
  let remaining = request.maxBytes;
  let bytes = 0;
  const topics = request.topics.map((t) => {
    const topic = version >= 13 ? broker.topics.getById(t.topicId) : broker.topics.get(t.topic);
    const unknownCode = version >= 13 ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    const reads = t.partitions.map((p): PartitionRead => {
      const log = topic && broker.getLog(topic.name, p.partition);
      if (!log) return { topic: topic?.name, data: partitionData(p.partition, topic ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : unknownCode), bytes: 0 };
      const data = partitionData(p.partition, ErrorCode.NONE);
      data.highWatermark = log.highWatermark;
      data.lastStableOffset = log.lastStableOffset;
      data.logStartOffset = log.logStartOffset;
      if (p.fetchOffset < log.logStartOffset || p.fetchOffset > log.logEndOffset) {
        data.errorCode = ErrorCode.OFFSET_OUT_OF_RANGE;
        return { topic: topic.name, data, bytes: 0 };
      }
      const limit = Math.min(p.partitionMaxBytes, Math.max(remaining, 0));
      const { slices, bytes: read } = log.read(p.fetchOffset, limit, bytes === 0);
      if (read > 0) data.records = slices as FileSlice[];
      remaining -= read;
      bytes += read;
      return { topic: topic.name, data, bytes: read };
    });
    return { topicId: topic?.topicId ?? t.topicId ?? ZERO_UUID, name: topic?.name ?? t.topic, reads };
  });
  return { topics, bytes };
}

function hasError(result: ReturnType<typeof readAll>): boolean {
  return result.topics.some((t) => t.reads.some((r) => r.data.errorCode !== ErrorCode.NONE));
}

export const handler: Handler<FetchRequest, FetchResponse> = {
  apiKey: 1,
  name: 'Fetch',
  minVersion: 4,
  maxVersion: 17,
  async handle(request, ctx: RequestContext) {
    const { broker } = ctx;
    const deadline = Date.now() + request.maxWaitMs;
    let result = readAll(request, broker, ctx.apiVersion);
    // Long poll: wait for appends to the fetched partitions until min_bytes or max_wait_ms.
    while (result.bytes < request.minBytes && !hasError(result) && Date.now() < deadline && !broker.closing) {
      const partitions = result.topics.flatMap((t) =>
        t.reads.filter((r) => r.topic !== undefined).map((r): [string, number] => [r.topic!, r.data.partitionIndex]),
      );
      await broker.purgatory.wait(partitions, deadline - Date.now());
      result = readAll(request, broker, ctx.apiVersion);
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      sessionId: 0,
      responses: result.topics.map((t) => ({ topic: t.name ?? '', topicId: t.topicId, partitions: t.reads.map((r) => r.data) })),
      nodeEndpoints: [],
    };
  },
};
