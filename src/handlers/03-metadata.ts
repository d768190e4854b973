import type { MetadataRequest } from '../../protocol/generated/MetadataRequest.js';
import type {
  MetadataResponse,
  MetadataResponsePartition,
  MetadataResponseTopic,
} from '../../protocol/generated/MetadataResponse.js';
import type { Broker } from '../broker.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { INTERNAL_TOPICS } from '../metadata/internal-topics.js';
import { ZERO_UUID, type TopicInfo } from '../metadata/topic-registry.js';
import type { Handler, RequestContext } from './handler.js';

/** Every topic operation (READ..DESCRIBE_CONFIGS, ALTER_CONFIGS): no authorizer, so all are allowed. */
const ALL_TOPIC_OPERATIONS = 0b1111_1111_1000;
const OMITTED_OPERATIONS = -2147483648;

function partitionsOf(topic: TopicInfo, broker: Broker): MetadataResponsePartition[] {
  const nodeId = broker.nodeId;
  return Array.from({ length: topic.partitions }, (_, partitionIndex) => {
    // A partition whose log dir failed has no leader left: Kafka answers LEADER_NOT_AVAILABLE, the replica offline.
    const offline = broker.getLog(topic.name, partitionIndex)?.isOffline ?? false;
    return {
      errorCode: offline ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
      partitionIndex,
      leaderId: offline ? -1 : nodeId,
      leaderEpoch: 0,
      replicaNodes: [nodeId],
      isrNodes: offline ? [] : [nodeId],
      offlineReplicas: offline ? [nodeId] : [],
    };
  });
}

function topicResponse(
  name: string | null,
  topic: TopicInfo | undefined,
  errorCode: number,
  request: MetadataRequest,
  broker: Broker,
): MetadataResponseTopic {
  return {
    errorCode,
    name: topic?.name ?? name,
    topicId: topic?.topicId ?? ZERO_UUID,
    isInternal: topic ? INTERNAL_TOPICS.has(topic.name) : false,
    partitions: topic && errorCode === ErrorCode.NONE ? partitionsOf(topic, broker) : [],
    topicAuthorizedOperations: request.includeTopicAuthorizedOperations ? ALL_TOPIC_OPERATIONS : OMITTED_OPERATIONS,
  } as MetadataResponseTopic;
}

function lookUp(broker: Broker, name: string, allowAutoCreate: boolean): [TopicInfo | undefined, number] {
  const existing = broker.topics.get(name);
  if (existing) return [existing, ErrorCode.NONE];
  if (!allowAutoCreate) return [undefined, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION];
  try {
    return [broker.autoCreateTopic(name), ErrorCode.NONE];
  } catch (err) {
    if (err instanceof KafkaError) {
      // A topic created concurrently by another request is simply there now.
      if (err.code === ErrorCode.TOPIC_ALREADY_EXISTS) return [broker.topics.get(name), ErrorCode.NONE];
      return [undefined, err.code];
    }
    throw err;
  }
}

function topicsFor(request: MetadataRequest, ctx: RequestContext): MetadataResponseTopic[] {
  const { broker } = ctx;
  // v0: an empty list means all topics; v1+: null means all, empty means none.
  const all = request.topics === null || (ctx.apiVersion === 0 && request.topics.length === 0);
  if (all) {
    return [...broker.topics.all()].map((t) => topicResponse(t.name, t, ErrorCode.NONE, request, broker));
  }
  const allowAutoCreate = broker.config.autoCreateTopicsEnable && (ctx.apiVersion < 4 || request.allowAutoTopicCreation);
  // KafkaApis.handleTopicMetadataRequest: a request naming any non-zero topic id is answered by id, whatever
  // the names say (the Java Admin sends name "" with each id); an unknown id is echoed with UNKNOWN_TOPIC_ID.
  if (request.topics!.some((t) => t.topicId !== undefined && t.topicId !== ZERO_UUID)) {
    return request.topics!.map((requested) => {
      const topic = requested.topicId === ZERO_UUID ? undefined : broker.topics.getById(requested.topicId);
      if (topic) return topicResponse(topic.name, topic, ErrorCode.NONE, request, broker);
      return { ...topicResponse(null, undefined, ErrorCode.UNKNOWN_TOPIC_ID, request, broker), topicId: requested.topicId };
    });
  }
  return request.topics!.map((requested) => {
    if (requested.name === null || requested.name === undefined) {
      return topicResponse(null, undefined, ErrorCode.UNKNOWN_TOPIC_ID, request, broker);
    }
    const [topic, errorCode] = lookUp(broker, requested.name, allowAutoCreate && !INTERNAL_TOPICS.has(requested.name));
    return topicResponse(requested.name, topic, errorCode, request, broker);
  });
}

export const handler: Handler<MetadataRequest, MetadataResponse> = {
  apiKey: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 12,
  handle(request, ctx) {
    const { broker } = ctx;
    const endpoint = broker.endpoints.find((e) => e.listenerName === ctx.listenerName) ?? broker.endpoints[0]!;
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: broker.nodeId, host: endpoint.host, port: endpoint.port, rack: null }],
      clusterId: broker.clusterId,
      controllerId: broker.nodeId,
      topics: topicsFor(request, ctx),
      clusterAuthorizedOperations: OMITTED_OPERATIONS,
    };
  },
};
