import type { MetadataRequest } from '../../protocol/generated/MetadataRequest.js';
import type { MetadataResponse, MetadataResponseTopic } from '../../protocol/generated/MetadataResponse.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { INTERNAL_TOPICS } from '../metadata/internal-topics.js';
import { ZERO_UUID, type TopicInfo } from '../metadata/topic-registry.js';
import type { Handler, RequestContext } from './handler.js';
import { partitionsOf } from './partitions.js';
import { AclOperation, AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, authorizeTopic, authorizeTopicCreation, CLUSTER_NAME, ResourceType } from '../security/authorization.js';


function topicResponse(
  name: string | null,
  topic: TopicInfo | undefined,
  errorCode: number,
  request: MetadataRequest,
  ctx: RequestContext,
): MetadataResponseTopic {
  const { broker } = ctx;
  const authorized = request.includeTopicAuthorizedOperations && topic && errorCode === ErrorCode.NONE;
  return {
    errorCode,
    name: topic?.name ?? name,
    topicId: topic?.topicId ?? ZERO_UUID,
    isInternal: topic ? INTERNAL_TOPICS.has(topic.name) : false,
    partitions: topic && errorCode === ErrorCode.NONE ? partitionsOf(topic, broker) : [],
    topicAuthorizedOperations: authorized ? authorizedOperations(ctx, ResourceType.TOPIC, topic.name) : AUTHORIZED_OPERATIONS_OMITTED,
  } as MetadataResponseTopic;
}

async function lookUp(ctx: RequestContext, name: string, allowAutoCreate: boolean): Promise<[TopicInfo | undefined, number]> {
  const { broker } = ctx;
  // KafkaApis.handleTopicMetadataRequest: no DESCRIBE hides even whether the topic exists; auto-creation needs CREATE.
  if (!authorizeTopic(ctx, AclOperation.DESCRIBE, name)) return [undefined, ErrorCode.TOPIC_AUTHORIZATION_FAILED];
  const existing = broker.topics.get(name);
  if (existing) return [existing, ErrorCode.NONE];
  if (!allowAutoCreate) return [undefined, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION];
  if (!authorizeTopicCreation(ctx, name)) return [undefined, ErrorCode.TOPIC_AUTHORIZATION_FAILED];
  try {
    return [await broker.autoCreateTopic(name), ErrorCode.NONE];
  } catch (err) {
    if (err instanceof KafkaError) {
      // A topic created concurrently by another request is there now, or about to be (Kafka's answer while it is being created).
      if (err.code === ErrorCode.TOPIC_ALREADY_EXISTS) {
        const topic = broker.topics.get(name);
        return topic ? [topic, ErrorCode.NONE] : [undefined, ErrorCode.LEADER_NOT_AVAILABLE];
      }
      return [undefined, err.code];
    }
    throw err;
  }
}

async function topicsFor(request: MetadataRequest, ctx: RequestContext): Promise<MetadataResponseTopic[]> {
  const { broker } = ctx;
  // v0: an empty list means all topics; v1+: null means all, empty means none.
  const all = request.topics === null || (ctx.apiVersion === 0 && request.topics.length === 0);
  if (all) {
    return [...broker.topics.all()]
      .filter((t) => authorizeTopic(ctx, AclOperation.DESCRIBE, t.name, false))
      .map((t) => topicResponse(t.name, t, ErrorCode.NONE, request, ctx));
  }
  const allowAutoCreate = broker.config.autoCreateTopicsEnable && (ctx.apiVersion < 4 || request.allowAutoTopicCreation);
  // KafkaApis.handleTopicMetadataRequest: a request naming any non-zero topic id is answered by id, whatever
  // the names say (the Java Admin sends name "" with each id); an unknown id is echoed with UNKNOWN_TOPIC_ID.
  if (request.topics!.some((t) => t.topicId !== undefined && t.topicId !== ZERO_UUID)) {
    return request.topics!.map((requested) => {
      const topic = requested.topicId === ZERO_UUID ? undefined : broker.topics.getById(requested.topicId);
      if (!topic) return { ...topicResponse(null, undefined, ErrorCode.UNKNOWN_TOPIC_ID, request, ctx), topicId: requested.topicId };
      // A topic the principal may not describe: TOPIC_AUTHORIZATION_FAILED without its name.
      if (!authorizeTopic(ctx, AclOperation.DESCRIBE, topic.name)) {
        return { ...topicResponse(null, undefined, ErrorCode.TOPIC_AUTHORIZATION_FAILED, request, ctx), topicId: topic.topicId };
      }
      return topicResponse(topic.name, topic, ErrorCode.NONE, request, ctx);
    });
  }
  return Promise.all(request.topics!.map(async (requested) => {
    if (requested.name === null || requested.name === undefined) {
      return topicResponse(null, undefined, ErrorCode.UNKNOWN_TOPIC_ID, request, ctx);
    }
    const [topic, errorCode] = await lookUp(ctx, requested.name, allowAutoCreate && !INTERNAL_TOPICS.has(requested.name));
    return topicResponse(requested.name, topic, errorCode, request, ctx);
  }));
}

export const handler: Handler<MetadataRequest, MetadataResponse> = {
  apiKey: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 13,
  async handle(request, ctx) {
    const { broker } = ctx;
    const endpoint = broker.endpoints.find((e) => e.listenerName === ctx.listenerName) ?? broker.endpoints[0]!;
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE, // v13+ (KIP-1102): REBOOTSTRAP_REQUIRED is for a cluster a client has lost
      brokers: [{ nodeId: broker.nodeId, host: endpoint.host, port: endpoint.port, rack: null }],
      clusterId: broker.clusterId,
      controllerId: broker.nodeId,
      topics: await topicsFor(request, ctx),
      clusterAuthorizedOperations: request.includeClusterAuthorizedOperations
        ? authorizedOperations(ctx, ResourceType.CLUSTER, CLUSTER_NAME)
        : AUTHORIZED_OPERATIONS_OMITTED,
    };
  },
};
