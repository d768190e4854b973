// The console's JSON API under /v1 on the admin listener. Every route goes through the broker's own code
// (topic registry, log manager, group coordinator, configs); writes are refused when kafkite.console.read.only.
// With an authorizer, writes and the record browser are authorized as kafkite.admin.principal, with the checks
// Kafka's KafkaApis/ControllerApis make for the equivalent request; the other reads are not (see the README).
import { statfsSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { DEFAULT_LOOKUP_MAX_BYTES, LookupError, type LookupTarget } from '../../storage/tools/lookup.js';
import { OffsetOutOfRangeError } from '../../storage/errors.js';
import type { Broker } from '../broker.js';
import { assignedPartitionsOf } from '../coordinator/consumer-protocol.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { INTERNAL_TOPICS } from '../metadata/internal-topics.js';
import { AclOperation, authorizeConfigResource, authorizeGroup, authorizeTopic, authorizeTopicCreation, type AuthContext } from '../security/authorization.js';
import { principalToString, type KafkaPrincipal } from '../security/principal.js';
import { groupIds, groupLags, streamsGroupMembers } from './group-views.js';
import type { TrafficHistory } from './traffic-history.js';
import { browseRecords, livePartitionLookup, partitionDetail } from './partition-views.js';

export interface ConsoleApiOptions {
  broker: Broker;
  traffic: TrafficHistory;
  readOnly: boolean;
  version: string;
  startedAt: number;
  adminAddress: () => string;
  /** kafkite.admin.principal: what the authorizer checks the console's requests as. */
  principal: KafkaPrincipal;
  log: Logger;
}

/** The API keys of the equivalent Kafka requests, for the authorizer's log line. */
const API = { PRODUCE: 0, FETCH: 1, OFFSET_COMMIT: 8, CREATE_TOPICS: 19, DELETE_TOPICS: 20, DELETE_RECORDS: 21, CREATE_PARTITIONS: 37, DELETE_GROUPS: 42, INCREMENTAL_ALTER_CONFIGS: 44 } as const;

const AUTHORIZATION_ERRORS: ReadonlySet<number> = new Set([ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.GROUP_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED]);

const ERROR_NAMES = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

/** A write refused because the console is read-only. */
class ReadOnlyError extends Error {
  override readonly name = 'ReadOnlyError';
}

class BadRequestError extends Error {
  override readonly name = 'BadRequestError';
}

function int(value: unknown, name: string, fallback?: number): number {
  if (value === undefined || value === '') {
    if (fallback === undefined) throw new BadRequestError(`${name} is required`);
    return fallback;
  }
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new BadRequestError(`${name} must be an integer`);
  return n;
}

function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof ReadOnlyError) return reply.code(403).send({ error: 'CONSOLE_READ_ONLY', message: err.message });
  if (err instanceof BadRequestError) return reply.code(400).send({ error: 'INVALID_REQUEST', message: err.message });
  if (err instanceof LookupError || err instanceof OffsetOutOfRangeError) return reply.code(400).send({ error: 'OFFSET_OUT_OF_RANGE', message: err.message });
  if (err instanceof KafkaError) {
    const status = err.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? 404 : AUTHORIZATION_ERRORS.has(err.code) ? 403 : 400;
    return reply.code(status).send({ error: ERROR_NAMES.get(err.code) ?? String(err.code), message: err.message });
  }
  throw err;
}

export function registerConsoleApi(app: FastifyInstance, opts: ConsoleApiOptions): void {
  const { broker, readOnly } = opts;
  const writing = (): void => {
    if (readOnly) throw new ReadOnlyError('The console is read-only (kafkite.console.read.only=true).');
  };
  const principal = principalToString(opts.principal);
  const context = (request: FastifyRequest, apiKey: number): AuthContext => ({
    principal: opts.principal,
    // authorize() takes the host from "ip:port", as a Kafka connection's remote address.
    remoteAddress: `${request.ip}:${request.socket.remotePort ?? 0}`,
    clientId: 'kafkite-console',
    apiKey,
    broker,
    log: opts.log,
  });
  /** Throws Kafka's error for the denial, named in the message the console shows. */
  const allow = (allowed: boolean, code: number, what: string): void => {
    if (!allowed) throw new KafkaError(code, `${ERROR_NAMES.get(code)}: ${principal} is not authorized to ${what}.`);
  };
  const allowTopic = (request: FastifyRequest, apiKey: number, op: number, topic: string, what: string): void =>
    allow(authorizeTopic(context(request, apiKey), op, topic), ErrorCode.TOPIC_AUTHORIZATION_FAILED, `${what} topic ${topic}`);
  const logOf = (topic: string, partition: string) => {
    const log = broker.getLog(topic, int(partition, 'partition'));
    if (!log) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${topic}-${partition} does not exist.`);
    return log;
  };
  // Route handlers: errors with a meaning become 4xx; anything else goes to the server's error handler.
  const route = <T>(fn: (request: T, reply: FastifyReply) => unknown) => async (request: T, reply: FastifyReply) => {
    try {
      return await fn(request, reply);
    } catch (err) {
      return sendError(reply, err);
    }
  };

  app.get('/v1/overview', async () => ({
    clusterId: broker.clusterId,
    nodeId: broker.nodeId,
    version: opts.version,
    uptimeMs: Date.now() - opts.startedAt,
    readOnly,
    listeners: [
      ...broker.endpoints.map((e) => ({ name: e.listenerName, address: `${e.host}:${e.port}` })),
      { name: 'ADMIN', address: opts.adminAddress() },
    ],
    logDirs: broker.config.logDirs.map((dir) => {
      let usedBytes = 0;
      for (const p of broker.logManager.partitionSizes(dir)) usedBytes += p.size;
      try {
        const fs = statfsSync(dir);
        return { dir, usedBytes, freeBytes: fs.bavail * fs.bsize, totalBytes: fs.blocks * fs.bsize };
      } catch {
        return { dir, usedBytes, freeBytes: null, totalBytes: null };
      }
    }),
    topics: [...broker.topics.all()].length,
  }));

  app.get('/v1/traffic', async () => ({ intervalMs: 1000, ...opts.traffic.snapshot() }));

  app.post<{ Body: { name?: string; partitions?: number; configs?: Record<string, string> } }>(
    '/v1/topics',
    route(async (request, reply) => {
      writing();
      const body = request.body ?? {};
      if (typeof body.name !== 'string') throw new BadRequestError('name is required');
      // CreateTopics: CREATE on the cluster, else on the topic.
      allow(authorizeTopicCreation(context(request, API.CREATE_TOPICS), body.name), ErrorCode.TOPIC_AUTHORIZATION_FAILED, `create topic ${body.name}`);
      const topic = await broker.createTopic(body.name, { partitions: int(body.partitions, 'partitions', -1), replicationFactor: -1, configs: body.configs ?? {}, validateOnly: false });
      return reply.code(201).send({ name: topic.name, partitions: topic.partitions });
    }),
  );

  app.delete<{ Params: { name: string } }>(
    '/v1/topics/:name',
    route(async (request) => {
      writing();
      allowTopic(request, API.DELETE_TOPICS, AclOperation.DELETE, request.params.name, 'delete');
      if (INTERNAL_TOPICS.has(request.params.name)) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, 'Internal topics cannot be deleted.');
      await broker.deleteTopic(request.params.name);
      return { deleted: request.params.name };
    }),
  );

  app.get<{ Params: { name: string } }>(
    '/v1/topics/:name/configs',
    route(async (request) => {
      const topic = broker.topics.get(request.params.name);
      if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${request.params.name} does not exist.`);
      return {
        configs: broker.config.describeTopicConfig(topic.configs).map((e) => ({
          name: e.name,
          value: e.value,
          source: e.source === 1 ? 'topic' : e.source === 4 ? 'broker' : 'default',
          readOnly: e.readOnly,
          isSensitive: e.isSensitive,
        })),
      };
    }),
  );

  // IncrementalAlterConfigs' SET and DELETE on the topic's overrides.
  app.patch<{ Params: { name: string }; Body: { set?: Record<string, string>; delete?: string[] } }>(
    '/v1/topics/:name/configs',
    route(async (request) => {
      writing();
      // IncrementalAlterConfigs on a TOPIC resource (ConfigResource.Type 2): ALTER_CONFIGS on the topic.
      const auth = authorizeConfigResource(context(request, API.INCREMENTAL_ALTER_CONFIGS), AclOperation.ALTER_CONFIGS, 2, request.params.name);
      allow(auth.allowed, auth.errorCode, `alter the configs of topic ${request.params.name}`);
      const topic = broker.topics.get(request.params.name);
      if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${request.params.name} does not exist.`);
      const next: Record<string, string> = { ...topic.configs, ...(request.body?.set ?? {}) };
      for (const key of request.body?.delete ?? []) delete next[key];
      broker.alterTopicConfigs(topic.name, next, false);
      return { configs: next };
    }),
  );

  app.post<{ Params: { name: string }; Body: { count?: number } }>(
    '/v1/topics/:name/partitions',
    route(async (request) => {
      writing();
      allowTopic(request, API.CREATE_PARTITIONS, AclOperation.ALTER, request.params.name, 'add partitions to');
      await broker.createPartitions(request.params.name, int(request.body?.count, 'count'), false);
      return { partitions: broker.topics.get(request.params.name)?.partitions };
    }),
  );

  app.get<{ Params: { name: string; partition: string } }>(
    '/v1/topics/:name/partitions/:partition',
    route(async (request) => ({ topic: request.params.name, partition: Number(request.params.partition), ...partitionDetail(logOf(request.params.name, request.params.partition)) })),
  );

  app.post<{ Params: { name: string; partition: string }; Body: { offset?: number } }>(
    '/v1/topics/:name/partitions/:partition/delete-records',
    route(async (request) => {
      writing();
      allowTopic(request, API.DELETE_RECORDS, AclOperation.DELETE, request.params.name, 'delete records of');
      const log = logOf(request.params.name, request.params.partition);
      const offset = int(request.body?.offset, 'offset');
      if (offset !== -1 && (offset < 0 || offset > log.highWatermark)) throw new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE, `offset ${offset} is outside [0, ${log.highWatermark}]`);
      return { logStartOffset: log.deleteRecordsBefore(offset) };
    }),
  );

  app.get<{ Params: { name: string; partition: string }; Querystring: { offset?: string; timestamp?: string; maxBytes?: string } }>(
    '/v1/topics/:name/partitions/:partition/lookup',
    route(async (request) => {
      const log = logOf(request.params.name, request.params.partition);
      const q = request.query;
      const target: LookupTarget = q.timestamp !== undefined ? { timestamp: int(q.timestamp, 'timestamp') } : { offset: int(q.offset, 'offset') };
      return livePartitionLookup(log, target, int(q.maxBytes, 'maxBytes', DEFAULT_LOOKUP_MAX_BYTES));
    }),
  );

  app.get<{
    Params: { name: string; partition: string };
    Querystring: { offset?: string; timestamp?: string; newest?: string; limit?: string; key?: string };
  }>(
    '/v1/topics/:name/partitions/:partition/records',
    route(async (request) => {
      // The browser shows records: Fetch's READ on the topic.
      allowTopic(request, API.FETCH, AclOperation.READ, request.params.name, 'read');
      const log = logOf(request.params.name, request.params.partition);
      const q = request.query;
      const limit = Math.min(Math.max(int(q.limit, 'limit', 100), 1), 1000);
      let offset: number;
      if (q.newest !== undefined) offset = Math.max(log.logStartOffset, log.highWatermark - int(q.newest, 'newest'));
      else if (q.timestamp !== undefined) offset = log.fetchOffsetByTimestamp(int(q.timestamp, 'timestamp'))?.offset ?? log.highWatermark;
      else offset = Math.max(int(q.offset, 'offset', log.logStartOffset), log.logStartOffset);
      if (offset > log.highWatermark) throw new BadRequestError(`offset ${offset} is past the high watermark ${log.highWatermark}`);
      const browsed = browseRecords(log, { offset, limit, keyFilter: q.key || undefined, maxScanBytes: 64 * 1024 * 1024 });
      return { startOffset: offset, logStartOffset: log.logStartOffset, highWatermark: log.highWatermark, ...browsed };
    }),
  );

  // A test message, appended as a Produce with acks=all would (then flushed).
  app.post<{ Params: { name: string; partition: string }; Body: { key?: string | null; value?: string | null; headers?: Array<{ key: string; value: string }> } }>(
    '/v1/topics/:name/partitions/:partition/records',
    route(async (request, reply) => {
      writing();
      allowTopic(request, API.PRODUCE, AclOperation.WRITE, request.params.name, 'write to');
      if (INTERNAL_TOPICS.has(request.params.name)) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, 'Cannot append to internal topic');
      const log = logOf(request.params.name, request.params.partition);
      const body = request.body ?? {};
      const now = Date.now();
      const records = encodeBatch({
        baseOffset: 0,
        records: [
          {
            offset: 0,
            timestamp: now,
            key: typeof body.key === 'string' ? Buffer.from(body.key) : null,
            value: typeof body.value === 'string' ? Buffer.from(body.value) : null,
            headers: (body.headers ?? []).map((h) => ({ key: String(h.key), value: h.value === undefined ? null : Buffer.from(String(h.value)) })),
          },
        ],
      });
      const result = log.appendAsLeader(records, now);
      broker.metrics?.recordsAppended(log.topic, log.partition, 1, records.length);
      broker.purgatory.notify(log.topic, log.partition);
      await log.flush();
      return reply.code(201).send({ offset: result.firstOffset });
    }),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/groups/:id',
    route(async (request, reply) => {
      const ids = groupIds(broker);
      if (ids === null) return reply.code(503).send({ error: 'COORDINATOR_LOAD_IN_PROGRESS', message: 'The group coordinator is loading offsets.' });
      const groupId = request.params.id;
      const listed = broker.groupCoordinator.listGroups([], []).groups.find((g) => g.groupId === groupId);
      if (!listed) return reply.code(404).send({ error: 'GROUP_ID_NOT_FOUND', message: `Group ${groupId} not found.` });
      const offsets = groupLags(broker, groupId);
      const base = { groupId, state: listed.groupState, type: listed.groupType, protocolType: listed.protocolType, offsets, totalLag: offsets.reduce((s, o) => s + (o.lag ?? 0), 0) };
      if (listed.groupType === 'consumer') {
        const [group] = broker.groupCoordinator.consumerGroupDescribe([groupId], broker.topics);
        return {
          ...base,
          protocol: group?.assignorName ?? '',
          members: (group?.members ?? []).map((m) => ({
            memberId: m.memberId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            assignment: m.assignment.topicPartitions.map((tp) => ({ topic: tp.topicName, partitions: tp.partitions })),
          })),
        };
      }
      if (listed.groupType === 'streams') {
        const { assignor, members } = streamsGroupMembers(broker, groupId);
        return { ...base, protocol: assignor, members };
      }
      const [group] = broker.groupCoordinator.describeGroups([groupId]);
      return {
        ...base,
        protocol: group?.protocolData ?? '',
        members: (group?.members ?? []).map((m) => ({
          memberId: m.memberId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          assignment: group?.protocolType === 'consumer' ? (assignedPartitionsOf(m.memberAssignment) ?? []) : [],
        })),
      };
    }),
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/groups/:id',
    route(async (request, reply) => {
      writing();
      allow(authorizeGroup(context(request, API.DELETE_GROUPS), AclOperation.DELETE, request.params.id), ErrorCode.GROUP_AUTHORIZATION_FAILED, `delete group ${request.params.id}`);
      const [result] = await broker.groupCoordinator.deleteGroups([request.params.id]);
      if (result && result.errorCode !== ErrorCode.NONE) {
        return reply.code(400).send({ error: ERROR_NAMES.get(result.errorCode) ?? String(result.errorCode), message: `Group ${request.params.id} was not deleted.` });
      }
      return { deleted: request.params.id };
    }),
  );

  // kafka-consumer-groups.sh --reset-offsets: only on an empty group (Kafka's rule), committed as an admin commit.
  app.post<{ Params: { id: string }; Body: { topic?: string; to?: string; value?: number } }>(
    '/v1/groups/:id/reset-offsets',
    route(async (request, reply) => {
      writing();
      const groupId = request.params.id;
      const { topic: topicName, to, value } = request.body ?? {};
      // An admin client's alterConsumerGroupOffsets is an OffsetCommit: READ on the group, then on the topic.
      allow(authorizeGroup(context(request, API.OFFSET_COMMIT), AclOperation.READ, groupId), ErrorCode.GROUP_AUTHORIZATION_FAILED, `commit offsets of group ${groupId}`);
      if (typeof topicName === 'string') allowTopic(request, API.OFFSET_COMMIT, AclOperation.READ, topicName, 'commit offsets for');
      const listed = broker.groupCoordinator.listGroups([], []).groups.find((g) => g.groupId === groupId);
      if (listed && listed.groupState !== 'Empty') {
        return reply.code(400).send({ error: 'NON_EMPTY_GROUP', message: `Assignments can only be reset if the group '${groupId}' is inactive, but the current state is ${listed.groupState}.` });
      }
      if (typeof topicName !== 'string') throw new BadRequestError('topic is required');
      const topic = broker.topics.get(topicName);
      if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${topicName} does not exist.`);
      const partitions = Array.from({ length: topic.partitions }, (_, p) => {
        const log = broker.getLog(topic.name, p)!;
        let committedOffset: number;
        if (to === 'earliest') committedOffset = log.logStartOffset;
        else if (to === 'latest') committedOffset = log.highWatermark;
        else if (to === 'timestamp') committedOffset = log.fetchOffsetByTimestamp(int(value, 'value'))?.offset ?? log.highWatermark;
        else if (to === 'offset') committedOffset = Math.min(Math.max(int(value, 'value'), log.logStartOffset), log.highWatermark);
        else throw new BadRequestError('to must be earliest, latest, timestamp or offset');
        return { partitionIndex: p, committedOffset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' };
      });
      const result = await broker.groupCoordinator.commitOffsets({ groupId, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: [{ name: topic.name, partitions }] });
      const failed = result.flatMap((t) => t.partitions).find((p) => p.errorCode !== ErrorCode.NONE);
      if (failed) return reply.code(400).send({ error: ERROR_NAMES.get(failed.errorCode) ?? String(failed.errorCode), message: 'The offsets were not reset.' });
      return { offsets: partitions.map((p) => ({ partition: p.partitionIndex, offset: p.committedOffset })) };
    }),
  );
}
