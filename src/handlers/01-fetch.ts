import type { FetchRequest } from '../../protocol/generated/FetchRequest.js';
import type { FetchResponse, FetchableTopicResponse, PartitionData } from '../../protocol/generated/FetchResponse.js';
import type { FileSlice } from '../../protocol/primitives.js';
import type { Broker } from '../broker.js';
import { ErrorCode } from '../errors.js';
import { FetchSession, type SessionContext, type SessionPartition } from '../fetch-sessions.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { FIRST_V2_FETCH_VERSION, readDownConverted, type DownConvertedRead } from '../legacy/fetch-down-conversion.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';
import { waitRemote, type Handler, type RequestContext } from './handler.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';
import { currentLeaderEpochError, leaderEndpoint } from './partitions.js';

const EMPTY_RECORDS = Buffer.alloc(0);
const FIRST_SESSION_VERSION = 7;
const FIRST_TOPIC_ID_VERSION = 13;
/** Fetch v16 (KIP-951): a NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH partition names its current leader. */
const FIRST_CURRENT_LEADER_VERSION = 16;
/** Fetch v10 is the first a consumer sends knowing ZSTD batches (KIP-110). */
const FIRST_ZSTD_FETCH_VERSION = 10;
/** Kafka's IsolationLevel: READ_UNCOMMITTED 0, READ_COMMITTED 1. */
const READ_COMMITTED = 1;

/** One partition to read: from the request, or remembered by the fetch session. */
interface FetchTarget {
  /** undefined when the request named a topic we do not have. */
  topic: string | undefined;
  /** The name or id the client used, echoed back in the response. */
  requestedName: string;
  topicId: string;
  partition: number;
  fetchOffset: number;
  partitionMaxBytes: number;
  currentLeaderEpoch: number;
  session?: SessionPartition;
}

interface PartitionRead {
  target: FetchTarget;
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
    // Kafka's FetchResponse.partitionResponse for a partition it does not read sends an empty list; a read sets it.
    abortedTransactions: errorCode === ErrorCode.NONE ? null : [],
    preferredReadReplica: -1,
    // Fetch v12+ clients need empty, not null, records for partitions without data.
    records: EMPTY_RECORDS,
  };
}

/**
 * A partition refused for its client's leader epoch. From v16 (KIP-951) a fenced client learns the current leader and
 * epoch at once, as Kafka 4.4 answers it (not for UNKNOWN_LEADER_EPOCH: this broker is the one behind then).
 */
function fencedOrUnknown(partitionIndex: number, errorCode: number, log: UnifiedLog, broker: Broker, version: number): PartitionData {
  // A failed read: no aborted transactions list at all (Kafka's FetchPartitionData for a read error).
  const data = { ...partitionData(partitionIndex, errorCode), abortedTransactions: null };
  if (errorCode === ErrorCode.FENCED_LEADER_EPOCH && version >= FIRST_CURRENT_LEADER_VERSION) data.currentLeader = { leaderId: broker.nodeId, leaderEpoch: log.leaderEpoch };
  return data;
}

function requestedTargets(request: FetchRequest, broker: Broker, version: number): FetchTarget[] {
  return request.topics.flatMap((t) => {
    const topic = version >= FIRST_TOPIC_ID_VERSION ? broker.topics.getById(t.topicId) : broker.topics.get(t.topic);
    return t.partitions.map((p) => ({
      topic: topic?.name,
      requestedName: t.topic,
      topicId: topic?.topicId ?? t.topicId ?? ZERO_UUID,
      partition: p.partition,
      fetchOffset: p.fetchOffset,
      partitionMaxBytes: p.partitionMaxBytes,
      currentLeaderEpoch: p.currentLeaderEpoch,
    }));
  });
}

/** Brings the session up to date with the request; returns the partitions to read, in session order. */
function sessionTargets(ctx: SessionContext, request: FetchRequest, requested: FetchTarget[], broker: Broker, version: number): FetchTarget[] {
  if (ctx.kind !== 'full' && ctx.kind !== 'incremental') return requested;
  const session = ctx.session;
  if (!session) return requested;
  if (ctx.kind === 'incremental') {
    for (const forgotten of request.forgottenTopicsData) {
      const name = version >= FIRST_TOPIC_ID_VERSION ? broker.topics.getById(forgotten.topicId)?.name : forgotten.topic;
      if (name !== undefined) for (const p of forgotten.partitions) session.partitions.delete(FetchSession.key(name, p));
    }
  }
  const unknown: FetchTarget[] = [];
  for (const t of requested) {
    if (t.topic === undefined) {
      unknown.push(t);
      continue;
    }
    const key = FetchSession.key(t.topic, t.partition);
    const known = session.partitions.get(key);
    if (known) {
      known.fetchOffset = t.fetchOffset;
      known.partitionMaxBytes = t.partitionMaxBytes;
      known.currentLeaderEpoch = t.currentLeaderEpoch;
    } else {
      session.partitions.set(key, {
        topic: t.topic, topicId: t.topicId, partition: t.partition, fetchOffset: t.fetchOffset, partitionMaxBytes: t.partitionMaxBytes,
        currentLeaderEpoch: t.currentLeaderEpoch, lastHighWatermark: -1, lastLogStartOffset: -1, lastStableOffset: -1,
      });
    }
  }
  const fromSession = [...session.partitions.values()].map((s) => ({
    topic: s.topic, requestedName: s.topic, topicId: s.topicId, partition: s.partition,
    fetchOffset: s.fetchOffset, partitionMaxBytes: s.partitionMaxBytes, currentLeaderEpoch: s.currentLeaderEpoch, session: s,
  }));
  return [...fromSession, ...unknown];
}

/**
 * One pass over the partitions, honouring max_bytes and KIP-74's "at least one batch". read_committed
 * reads stop at the last stable offset and list the aborted transactions of what they send.
 */
function readAll(
  targets: FetchTarget[], maxBytes: number, broker: Broker, version: number, isolationLevel: number, denied: ReadonlySet<string>,
): { reads: PartitionRead[]; bytes: number } {
  let remaining = maxBytes;
  let bytes = 0;
  const reads = targets.map((target): PartitionRead => {
    if (denied.has(target.topic ?? target.requestedName)) return { target, data: partitionData(target.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED), bytes: 0 };
    const log = target.topic !== undefined ? broker.getLog(target.topic, target.partition) : undefined;
    if (!log) {
      const unknownTopic = version >= FIRST_TOPIC_ID_VERSION ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      return { target, data: partitionData(target.partition, target.topic ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : unknownTopic), bytes: 0 };
    }
    if (log.isOffline) return { target, data: partitionData(target.partition, ErrorCode.KAFKA_STORAGE_ERROR), bytes: 0 };
    const epochError = currentLeaderEpochError(target.currentLeaderEpoch, log);
    if (epochError !== ErrorCode.NONE) return { target, data: fencedOrUnknown(target.partition, epochError, log, broker, version), bytes: 0 };
    // KafkaApis.maybeConvertFetchedData: a topic that recompresses to ZSTD is not served below Fetch v10 (KIP-110).
    if (version < FIRST_ZSTD_FETCH_VERSION && log.config.compressionType === 'zstd') {
      return { target, data: partitionData(target.partition, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE), bytes: 0 };
    }
    const data = partitionData(target.partition, ErrorCode.NONE);
    data.highWatermark = log.highWatermark;
    data.lastStableOffset = log.lastStableOffset;
    data.logStartOffset = log.logStartOffset;
    if (target.fetchOffset < log.logStartOffset || target.fetchOffset > log.logEndOffset) {
      data.errorCode = ErrorCode.OFFSET_OUT_OF_RANGE;
      return { target, data, bytes: 0 };
    }
    const limit = Math.min(target.partitionMaxBytes, Math.max(remaining, 0));
    if (version < FIRST_V2_FETCH_VERSION) {
      // v0-2 have no request-wide limit, so every partition may return one message larger than its limit.
      const converted = readDownConvertedOrError(log, target, limit, version, version < 3 || bytes === 0);
      if (typeof converted === 'number') data.errorCode = converted;
      else {
        if (converted.bytes > 0) data.records = converted.records;
        remaining -= converted.bytes;
        bytes += converted.bytes;
      }
      return { target, data, bytes: typeof converted === 'number' ? 0 : converted.bytes };
    }
    let slices: FileSlice[];
    let read: number;
    if (isolationLevel === READ_COMMITTED) {
      const committed = log.readCommitted(target.fetchOffset, limit, bytes === 0);
      ({ slices, bytes: read } = committed);
      data.abortedTransactions = committed.abortedTransactions;
    } else {
      ({ slices, bytes: read } = log.read(target.fetchOffset, limit, bytes === 0));
    }
    if (read > 0) data.records = slices;
    remaining -= read;
    bytes += read;
    return { target, data, bytes: read };
  });
  return { reads, bytes };
}

function readDownConvertedOrError(log: UnifiedLog, target: FetchTarget, limit: number, version: number, minOne: boolean): DownConvertedRead | number {
  try {
    return readDownConverted(log, target.fetchOffset, limit, version, minOne);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'number' ? code : ErrorCode.KAFKA_STORAGE_ERROR;
  }
}

/** An incremental response carries only partitions with records, an error, or changed offsets. */
function hasNews(read: PartitionRead): boolean {
  const s = read.target.session;
  const d = read.data;
  if (!s || read.bytes > 0 || d.errorCode !== ErrorCode.NONE) return true;
  return s.lastHighWatermark !== d.highWatermark || s.lastLogStartOffset !== d.logStartOffset || s.lastStableOffset !== d.lastStableOffset;
}

function groupByTopic(reads: PartitionRead[]): FetchableTopicResponse[] {
  const topics: FetchableTopicResponse[] = [];
  let current: FetchableTopicResponse | undefined;
  for (const r of reads) {
    if (!current || current.topicId !== r.target.topicId || current.topic !== r.target.requestedName) {
      current = { topic: r.target.requestedName, topicId: r.target.topicId, partitions: [] };
      topics.push(current);
    }
    current.partitions.push(r.data);
  }
  return topics;
}

function emptyResponse(errorCode: number): FetchResponse {
  return { throttleTimeMs: 0, errorCode, sessionId: 0, responses: [], nodeEndpoints: [] };
}

export const handler: Handler<FetchRequest, FetchResponse> = {
  apiKey: 1,
  name: 'Fetch',
  // v0-3 read message formats v0/v1, converted down from the log's v2 batches (issue 13).
  minVersion: 0,
  maxVersion: 18,
  async handle(request, ctx: RequestContext) {
    const { broker } = ctx;
    const version = ctx.apiVersion;
    const session: SessionContext =
      version >= FIRST_SESSION_VERSION ? broker.fetchSessions.begin(request.sessionId, request.sessionEpoch) : { kind: 'sessionless' };
    if (session.kind === 'error') return emptyResponse(session.errorCode);
    const targets = sessionTargets(session, request, requestedTargets(request, broker, version), broker, version);

    const deadline = Date.now() + request.maxWaitMs;
    // A consumer needs READ on each topic it fetches (KafkaApis.handleFetchRequest).
    const names = new Set(targets.map((t) => t.topic ?? (version < FIRST_TOPIC_ID_VERSION ? t.requestedName : undefined)).filter((n) => n !== undefined));
    const denied = new Set([...names].filter((n) => !authorizeTopic(ctx, AclOperation.READ, n)));
    let result = readAll(targets, request.maxBytes, broker, version, request.isolationLevel, denied);
    // ReplicaManager.fetchMessages answers at once when there is nothing to fetch: an incremental fetch whose
    // session is empty (the Java consumer forgets every partition it still has buffered records of) must not
    // sit out max_wait_ms, or the consumer's next fetch waits behind it.
    const answerNow = (): boolean =>
      targets.length === 0 || result.bytes >= request.minBytes || result.reads.some((r) => r.data.errorCode !== ErrorCode.NONE);
    // Long poll: wait for appends to the fetched partitions until min_bytes or max_wait_ms.
    if (!answerNow() && Date.now() < deadline) ctx.responseDelayed?.();
    while (!answerNow() && Date.now() < deadline && !broker.closing) {
      const partitions = targets.filter((t) => t.topic !== undefined).map((t): [string, number] => [t.topic!, t.partition]);
      await waitRemote(ctx, broker.purgatory.wait(partitions, deadline - Date.now()));
      result = readAll(targets, request.maxBytes, broker, version, request.isolationLevel, denied);
    }

    const included = session.kind === 'incremental' ? result.reads.filter(hasNews) : result.reads;
    for (const r of included) {
      const cached = r.target.session;
      if (cached) {
        cached.lastHighWatermark = r.data.highWatermark;
        cached.lastLogStartOffset = r.data.logStartOffset;
        cached.lastStableOffset = r.data.lastStableOffset;
        // Kafka's IncrementalFetchContext moves a partition that returned records to the end of the
        // session, so when max_bytes fills the next fetch starts with the others: no partition starves.
        if (session.kind === 'incremental' && r.bytes > 0) session.session.rotateToEnd(cached);
      }
      if (r.bytes > 0) broker.metrics?.bytesFetched(r.target.topic!, r.data.partitionIndex, r.bytes);
    }
    const sessionId = session.kind === 'full' || session.kind === 'incremental' ? (session.session?.id ?? 0) : 0;
    // v16: the endpoint of each leader a partition named (this broker's, on the request's listener).
    const nodeEndpoints = included.some((r) => r.data.currentLeader.leaderId >= 0) ? [leaderEndpoint(broker, ctx)] : [];
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId, responses: groupByTopic(included), nodeEndpoints };
  },
};
