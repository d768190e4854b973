// ShareFetch (KIP-932), as Kafka 4.4's KafkaApis.handleShareFetchRequest: the share session's epoch first, then
// the piggybacked acknowledgements (answered once durable), then records acquired for the member from the
// session's partitions, waiting up to MaxWaitMs for some (Kafka's DelayedShareFetch).
import type { ShareFetchRequest } from '../../protocol/generated/ShareFetchRequest.js';
import type { PartitionData, ShareFetchResponse, ShareFetchableTopicResponse } from '../../protocol/generated/ShareFetchResponse.js';
import { ErrorCode } from '../errors.js';
import { fetchableBytes, readAndAcquire, type ShareRead } from '../share/share-fetch.js';
import { acknowledgeAll, type PartitionAcknowledgements } from '../share/share-partition-manager.js';
import { ShareSession, type ShareSessionPartition } from '../share/share-session-cache.js';
import { waitRemote, type Handler, type RequestContext } from './handler.js';
import { acknowledgeErrorMessage, deniedTopicIds, fillCurrentLeaders, shareRequestError } from './share-requests.js';

const EMPTY = Buffer.alloc(0);
/** ShareAcquireMode: 0 batch_optimized, 1 record_limit (KIP-1206). */
const RECORD_LIMIT_MODE = 1;

function topLevel(errorCode: number, lockMs = 0): ShareFetchResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage: null, acquisitionLockTimeoutMs: lockMs, responses: [], nodeEndpoints: [] };
}

function partitionData(partitionIndex: number, errorCode: number, acknowledgeErrorCode: number = ErrorCode.NONE): PartitionData {
  return {
    partitionIndex, errorCode, errorMessage: null, acknowledgeErrorCode, acknowledgeErrorMessage: acknowledgeErrorMessage(acknowledgeErrorCode),
    // The message's defaults, which Kafka 4.4 leaves in place unless the partition answers a leadership error.
    currentLeader: { leaderId: 0, leaderEpoch: 0 }, records: EMPTY, acquiredRecords: [],
  };
}

export const handler: Handler<ShareFetchRequest, ShareFetchResponse> = {
  apiKey: 78,
  name: 'ShareFetch',
  minVersion: 1,
  maxVersion: 2,
  async handle(request, ctx: RequestContext) {
    const { broker } = ctx;
    const manager = broker.sharePartitions;
    const groupId = request.groupId ?? '';
    const memberId = request.memberId ?? '';
    const refused = shareRequestError(ctx, groupId, memberId);
    if (refused !== ErrorCode.NONE) return topLevel(refused);
    const acks: PartitionAcknowledgements[] = request.topics.flatMap((t) =>
      t.partitions.filter((p) => p.acknowledgementBatches.length > 0).map((p) => ({ topicId: t.topicId, partition: p.partitionIndex, batches: p.acknowledgementBatches })));
    const lockMs = manager.lockDurationMs(groupId);
    // KafkaApis: an opening request carries no acknowledgements; a closing one fetches nothing (its partitions
    // are not read, and not refused either: Kafka 4.4 answers it with no error).
    if (request.shareSessionEpoch === 0 && acks.length > 0) return topLevel(ErrorCode.INVALID_REQUEST);
    const context = manager.sessions.begin(groupId, memberId, request.shareSessionEpoch, ctx.connectionId);
    // Refused before any partition: no lock duration, as Kafka 4.4 answers it.
    if (context.kind === 'error') return topLevel(context.errorCode);
    const session = context.session;
    if (context.kind === 'open' && context.replaced) await manager.releaseSession(context.replaced, false);
    for (const f of request.forgottenTopicsData) for (const p of f.partitions) session.remove(f.topicId, p);
    if (context.kind !== 'close') for (const t of request.topics) for (const p of t.partitions) session.add(t.topicId, p.partitionIndex);

    const denied = deniedTopicIds(ctx, [...request.topics.map((x) => x.topicId), ...[...session.partitions.values()].map((p) => p.topicId)]);
    const ackResults = await acknowledgeAll(manager, groupId, memberId, acks.filter((a) => !denied.has(a.topicId)));
    if (context.kind === 'close') {
      manager.sessions.remove(session);
      await manager.releaseSession(session, true);
      return answer(ctx, lockMs, acks.map((a) => ({ topicId: a.topicId, data: partitionData(a.partition, ErrorCode.NONE, ackResults.get(`${a.topicId}:${a.partition}`) ?? ErrorCode.TOPIC_AUTHORIZATION_FAILED) })));
    }

    const targets = [...session.partitions.values()];
    const reads = new Map<string, { data: PartitionData; read?: ShareRead }>();
    const readCommitted = manager.readCommitted(groupId);
    // TopicPartitionsAcquireTimeMs: from the request (or the last attempt) to each attempt at acquiring (DelayedShareFetch).
    let acquireStart = performance.now();
    const readOnce = async (): Promise<number> => {
      const now = performance.now();
      if (targets.length > 0 && !request.isRenewAck) broker.metrics?.shareGroups.topicPartitionsAcquireTime(groupId, now - acquireStart);
      acquireStart = now;
      let bytesLeft = request.maxBytes;
      let recordsLeft = request.maxRecords;
      let acquired = 0;
      for (const target of request.isRenewAck ? [] : targets) {
        const key = ShareSession.partitionKey(target.topicId, target.partition);
        if (reads.get(key)?.read) continue;
        const result = await readPartition(ctx, target, denied, {
          memberId, maxBytes: Math.max(bytesLeft, 0), minOneBatch: acquired === 0, maxRecords: recordsLeft, batchSize: request.batchSize,
          recordLimit: request.shareAcquireMode === RECORD_LIMIT_MODE, readCommitted,
        }, groupId);
        reads.set(key, result);
        if (result.read) {
          acquired += result.read.count;
          bytesLeft -= result.read.bytes;
          recordsLeft -= result.read.count;
        }
      }
      return acquired;
    };
    const deadline = Date.now() + request.maxWaitMs;
    // Records are acquired once MinBytes of them can be, or at MaxWaitMs whatever there is (DelayedShareFetch):
    // acquiring earlier would lock records the response then waits with.
    const ready = async (): Promise<boolean> => request.minBytes <= 1 || Date.now() >= deadline || broker.closing
      || (await fetchable(ctx, targets, groupId, readCommitted, request.minBytes)) >= request.minBytes;
    let acquired = (await ready()) ? await readOnce() : 0;
    const hasErrors = (): boolean => [...reads.values()].some((r) => r.data.errorCode !== ErrorCode.NONE);
    if (acquired === 0 && targets.length > 0 && acks.length === 0 && !hasErrors() && Date.now() < deadline) ctx.responseDelayed?.();
    while (acquired === 0 && targets.length > 0 && acks.length === 0 && !hasErrors() && Date.now() < deadline && !broker.closing) {
      const names = targets.map((t): [string, number] | undefined => {
        const name = broker.topics.getById(t.topicId)?.name;
        return name === undefined ? undefined : [name, t.partition];
      }).filter((x) => x !== undefined);
      await waitRemote(ctx, broker.purgatory.wait(names, deadline - Date.now()));
      if (await ready()) acquired = await readOnce();
    }

    // Kafka's SharePartitionManager.processShareFetch and ShareFetch.addErroneousToResponse: once per topic fetched.
    if (!request.isRenewAck) {
      manager.recordRequest('fetch', targets.map((t) => {
        const errorCode = reads.get(ShareSession.partitionKey(t.topicId, t.partition))?.data.errorCode ?? ErrorCode.NONE;
        // An uninitialized share partition is left out of the answer below, not answered in error.
        return { topicId: t.topicId, errorCode: errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && broker.topics.getById(t.topicId) ? ErrorCode.NONE : errorCode };
      }));
    }
    const answered: Array<{ topicId: string; data: PartitionData }> = [];
    for (const target of targets) {
      const key = ShareSession.partitionKey(target.topicId, target.partition);
      const data = reads.get(key)?.data ?? partitionData(target.partition, ErrorCode.NONE);
      const ack = ackResults.get(key);
      // A share partition the group coordinator has not initialized yet is left out, as Kafka 4.4 answers it.
      if (data.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && ack === undefined && broker.topics.getById(target.topicId)) continue;
      if (ack !== undefined) {
        data.acknowledgeErrorCode = ack;
        data.acknowledgeErrorMessage = acknowledgeErrorMessage(ack);
      }
      // An incremental response names only partitions with records, an error or acknowledgements (ShareFetchContext).
      if (context.kind === 'open' || data.acquiredRecords.length > 0 || data.errorCode !== ErrorCode.NONE || ack !== undefined) answered.push({ topicId: target.topicId, data });
    }
    for (const a of acks) {
      const key = ShareSession.partitionKey(a.topicId, a.partition);
      if (!session.partitions.has(key)) answered.push({ topicId: a.topicId, data: partitionData(a.partition, ErrorCode.NONE, ackResults.get(key) ?? ErrorCode.TOPIC_AUTHORIZATION_FAILED) });
    }
    return answer(ctx, lockMs, answered);
  },
};

function answer(ctx: RequestContext, lockMs: number, parts: ReadonlyArray<{ topicId: string; data: PartitionData }>): ShareFetchResponse {
  const nodeEndpoints = fillCurrentLeaders(ctx, parts);
  return { ...topLevel(ErrorCode.NONE, lockMs), responses: group(parts), nodeEndpoints };
}

/** Bytes the session's partitions could hand out, up to `upTo`; a partition in error counts as enough (answered at once). */
async function fetchable(ctx: RequestContext, targets: readonly ShareSessionPartition[], groupId: string, readCommitted: boolean, upTo: number): Promise<number> {
  let total = 0;
  for (const t of targets) {
    if (total >= upTo) break;
    const sp = await ctx.broker.sharePartitions.get(groupId, t.topicId, t.partition);
    const topic = ctx.broker.topics.getById(t.topicId);
    const log = topic && ctx.broker.getLog(topic.name, t.partition);
    if (typeof sp === 'number' || !log || log.isOffline) return upTo;
    total += fetchableBytes(sp, log, readCommitted, upTo - total);
  }
  return total;
}

async function readPartition(
  ctx: RequestContext, target: ShareSessionPartition, denied: ReadonlySet<string>, req: Parameters<typeof readAndAcquire>[2], groupId: string,
): Promise<{ data: PartitionData; read?: ShareRead }> {
  const { broker } = ctx;
  if (denied.has(target.topicId)) return { data: partitionData(target.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED) };
  const sp = await broker.sharePartitions.get(groupId, target.topicId, target.partition);
  if (typeof sp === 'number') return { data: partitionData(target.partition, sp) };
  const topic = broker.topics.getById(target.topicId)!;
  const log = broker.getLog(topic.name, target.partition);
  if (!log) return { data: partitionData(target.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) };
  if (log.isOffline) return { data: partitionData(target.partition, ErrorCode.KAFKA_STORAGE_ERROR) };
  const read = await readAndAcquire(sp, log, req);
  const data = partitionData(target.partition, ErrorCode.NONE);
  if (read.records) {
    data.records = read.records;
    data.acquiredRecords = read.acquired;
    broker.metrics?.bytesFetched(topic.name, target.partition, read.bytes);
  }
  return read.count > 0 ? { data, read } : { data };
}

function group(parts: ReadonlyArray<{ topicId: string; data: PartitionData }>): ShareFetchableTopicResponse[] {
  const topics: ShareFetchableTopicResponse[] = [];
  for (const p of parts) {
    let t = topics.find((x) => x.topicId === p.topicId);
    if (!t) topics.push((t = { topicId: p.topicId, partitions: [] }));
    t.partitions.push(p.data);
  }
  return topics;
}
