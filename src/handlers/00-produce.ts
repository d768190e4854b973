import type { ProduceRequest } from '../../protocol/generated/ProduceRequest.js';
import type { PartitionProduceResponse, ProduceResponse } from '../../protocol/generated/ProduceResponse.js';
import { ATTRIBUTES, BATCH_LENGTH, COMPRESSION_MASK, CompressionType, LOG_OVERHEAD, MAGIC } from '../../protocol/records/batch-header.js';
import { upConvertMessageSet } from '../../protocol/records/message-conversion.js';
import { RecordValidationError, StorageResourceError } from '../../storage/errors.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { ErrorCode } from '../errors.js';
import { NO_RESPONSE, waitRemote, type Handler, type RequestContext } from './handler.js';
import { INTERNAL_TOPICS } from '../metadata/internal-topics.js';
import { AclOperation, authorizeTopic, authorizeTransactionalId } from '../security/authorization.js';
import { inArrivalOrder, producerTransactionVersion, verifyTransactionalProduce, type VerificationFailure } from '../coordinator/transaction/produce-verification.js';

function partitionResponse(index: number, errorCode: number, errorMessage: string | null = null): PartitionProduceResponse {
  return {
    index,
    errorCode,
    baseOffset: -1,
    logAppendTimeMs: -1,
    logStartOffset: -1,
    recordErrors: [],
    errorMessage,
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
  };
}

/** Maps an append failure to its Kafka code: storage errors carry one; anything else is a storage fault. */
function errorCodeOf(err: unknown): number {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : ErrorCode.KAFKA_STORAGE_ERROR;
}

/** Produce v3 is the first to carry record batch v2; v0-2 carry message sets (magic 0/1), converted on append. */
const FIRST_V2_PRODUCE_VERSION = 3;
/** Produce v7 is the first whose batches may be ZSTD-compressed (KIP-110). */
const FIRST_ZSTD_PRODUCE_VERSION = 7;

/**
 * Kafka's ProduceRequest.validateRecords, which KafkaApis applies to each partition before the append and
 * answers for that partition alone: from v3, exactly one record batch, of magic 2, and ZSTD only from v7.
 * A batch too short to tell is left to the log's validation (CORRUPT_MESSAGE).
 */
function requestRecordsError(records: Buffer | null, version: number): { code: number; message: string } | null {
  if (version < FIRST_V2_PRODUCE_VERSION) return null;
  const refuse = (code: number, rule: string) => ({ code, message: `Produce requests with version ${version} ${rule}` });
  if (records === null || records.length < LOG_OVERHEAD) return refuse(ErrorCode.INVALID_RECORD, 'must have at least one record batch per partition');
  if (records.length < ATTRIBUTES + 2) return null;
  if (records[MAGIC] !== 2) return refuse(ErrorCode.INVALID_RECORD, 'are only allowed to contain record batches with magic version 2');
  if (version < FIRST_ZSTD_PRODUCE_VERSION && (records.readInt16BE(ATTRIBUTES) & COMPRESSION_MASK) === CompressionType.Zstd) {
    return refuse(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, 'are not allowed to use ZStandard compression');
  }
  if (records.length - (records.readInt32BE(BATCH_LENGTH) + LOG_OVERHEAD) >= LOG_OVERHEAD) {
    return refuse(ErrorCode.INVALID_RECORD, 'are only allowed to contain exactly one record batch per partition');
  }
  return null;
}

/** Produce v13 (Kafka 4.1+, KIP-516) names topics by id instead of by name. */
const FIRST_TOPIC_ID_VERSION = 13;

function appendAll(
  request: ProduceRequest, ctx: RequestContext, touched: UnifiedLog[], txnFailures: ReadonlyMap<string, VerificationFailure>,
): ProduceResponse['responses'] {
  const { broker } = ctx;
  const now = Date.now();
  const validAcks = request.acks === 0 || request.acks === 1 || request.acks === -1;
  return request.topicData.map((topicData) => {
    const writable = authorizeTopic(ctx, AclOperation.WRITE, topicData.name);
    // v13+ names the topic by id alone (decoded below it as the zero uuid); an id of no topic is UNKNOWN_TOPIC_ID.
    const unknownId = ctx.apiVersion >= FIRST_TOPIC_ID_VERSION && topicData.name === '';
    return {
    name: topicData.name,
    topicId: topicData.topicId,
    partitionResponses: topicData.partitionData.map((p) => {
      if (unknownId) return partitionResponse(p.index, ErrorCode.UNKNOWN_TOPIC_ID);
      if (!validAcks) return partitionResponse(p.index, ErrorCode.INVALID_REQUIRED_ACKS);
      if (!writable) return partitionResponse(p.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      const log = broker.getLog(topicData.name, p.index);
      if (!log) return partitionResponse(p.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      const refused = requestRecordsError(Buffer.isBuffer(p.records) ? p.records : null, ctx.apiVersion);
      if (refused) {
        // KafkaApis answers ProduceRequest.validateRecords' refusal with its code alone; the reason goes to the log.
        ctx.log.debug({ topic: topicData.name, partition: p.index, clientId: ctx.clientId, error: refused.message }, 'produce rejected');
        return partitionResponse(p.index, refused.code);
      }
      if (INTERNAL_TOPICS.has(topicData.name)) {
        return partitionResponse(p.index, ErrorCode.INVALID_TOPIC_EXCEPTION, 'Cannot append to internal topic');
      }
      if (!Buffer.isBuffer(p.records) || p.records.length === 0) {
        return partitionResponse(p.index, ErrorCode.CORRUPT_MESSAGE, 'Produce request without record batches');
      }
      const txnFailure = txnFailures.get(`${topicData.name}\0${p.index}`);
      if (txnFailure) return partitionResponse(p.index, txnFailure.errorCode, txnFailure.errorMessage);
      try {
        const records = ctx.apiVersion < FIRST_V2_PRODUCE_VERSION ? upConvertMessageSet(p.records, now) : p.records;
        const result = log.appendAsLeader(records, now, 'client', producerTransactionVersion(ctx.apiVersion));
        broker.metrics?.recordsAppended(topicData.name, p.index, result.lastOffset - result.firstOffset + 1, records.length);
        touched.push(log);
        broker.purgatory.notify(topicData.name, p.index);
        return {
          ...partitionResponse(p.index, ErrorCode.NONE),
          baseOffset: result.firstOffset,
          logAppendTimeMs: result.logAppendTime,
          logStartOffset: result.logStartOffset,
        };
      } catch (err) {
        const code = errorCodeOf(err);
        const fields = { topic: topicData.name, partition: p.index, clientId: ctx.clientId, error: (err as Error).message };
        // A full disk or the descriptor limit is logged once by storage, not per request.
        if (err instanceof StorageResourceError) ctx.log.debug(fields, 'produce refused: resource limit');
        else if (code === ErrorCode.KAFKA_STORAGE_ERROR) ctx.log.error(fields, 'append failed');
        else ctx.log.debug(fields, 'produce rejected');
        // Kafka's RecordValidationException lists the rejected records (LogValidator's recordErrors) and is the only
        // append failure ReplicaManager answers with a message (hasCustomErrorMessage); the rest get the code alone.
        // Except, in kafkite, a resource limit (a full disk, the descriptor limit): its retriable KAFKA_STORAGE_ERROR
        // says which limit and how far, where Kafka would have taken its log dir offline.
        if (!(err instanceof RecordValidationError)) return partitionResponse(p.index, code, err instanceof StorageResourceError ? err.message : null);
        return {
          ...partitionResponse(p.index, code, err.message),
          recordErrors: err.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })),
        };
      }
    }),
  };
  });
}

export const handler: Handler<ProduceRequest, ProduceResponse> = {
  apiKey: 0,
  name: 'Produce',
  // v0-2 served for real (issue 13): librdkafka compresses only when ApiVersions lists v0 (KAFKA-18659).
  minVersion: 0,
  maxVersion: 13,
  async handle(received, ctx) {
    const touched: UnifiedLog[] = [];
    // Kafka's KafkaApis.handleProduceRequest resolves v13's topic ids to names first; the rest goes by name.
    const request = ctx.apiVersion < FIRST_TOPIC_ID_VERSION ? received : {
      ...received,
      topicData: received.topicData.map((t) => ({ ...t, name: ctx.broker.topics.getById(t.topicId)?.name ?? '' })),
    };
    // KafkaApis.handleProduceRequest: a transactional producer needs WRITE on its transactional id.
    if (request.transactionalId !== null && !authorizeTransactionalId(ctx, AclOperation.WRITE, request.transactionalId)) {
      if (request.acks === 0) return NO_RESPONSE;
      const responses = request.topicData.map((t) => ({
        name: t.name, topicId: t.topicId, partitionResponses: t.partitionData.map((p) => partitionResponse(p.index, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)),
      }));
      return { responses, throttleTimeMs: 0, nodeEndpoints: [] };
    }
    // KIP-890: transactional batches only for partitions of their transaction (added implicitly from v12).
    const coordinator = ctx.broker.transactionCoordinator;
    const responses = await inArrivalOrder(coordinator, request.transactionalId, async () => appendAll(request, ctx, touched, await verifyTransactionalProduce(
      coordinator, request.transactionalId, request.topicData, ctx.apiVersion,
      ctx.broker.config.get('transaction.partition.verification.enable') as boolean,
    )));
    if (request.acks === 0) return NO_RESPONSE;
    if (request.acks === -1 && touched.length > 0) {
      // kafkite's durability default: acks=all is answered once the data is on disk (group-committed fdatasync).
      ctx.responseDelayed?.();
      try {
        // Counted as remote time, as Kafka counts an acks=all produce waiting in its DelayedProduce purgatory.
        await waitRemote(ctx, Promise.all(touched.map((log) => log.flush())));
      } catch (err) {
        ctx.log.error({ error: (err as Error).message }, 'flush failed');
        for (const t of responses) for (const p of t.partitionResponses) if (p.errorCode === ErrorCode.NONE) p.errorCode = ErrorCode.KAFKA_STORAGE_ERROR;
      }
    }
    return { responses, throttleTimeMs: 0, nodeEndpoints: [] };
  },
};
