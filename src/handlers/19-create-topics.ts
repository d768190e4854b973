import type { CreatableTopic, CreateTopicsRequest } from '../../protocol/generated/CreateTopicsRequest.js';
import type { CreatableTopicResult, CreateTopicsResponse } from '../../protocol/generated/CreateTopicsResponse.js';
import type { Broker } from '../broker.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeTopic, authorizeTopicCreation } from '../security/authorization.js';

function result(name: string, errorCode: number, errorMessage: string | null): CreatableTopicResult {
  return {
    name,
    topicId: ZERO_UUID,
    errorCode,
    errorMessage,
    topicConfigErrorCode: 0,
    numPartitions: -1,
    replicationFactor: -1,
    // Kafka's CreateTopics answers a topic it refused with an empty list of configs.
    configs: [],
  };
}

async function create(broker: Broker, t: CreatableTopic, validateOnly: boolean, deadline: number): Promise<CreatableTopicResult> {
  if (t.assignments.length > 0 && (t.numPartitions !== -1 || t.replicationFactor !== -1)) {
    throw new KafkaError(
      ErrorCode.INVALID_REQUEST,
      'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.',
    );
  }
  for (const a of t.assignments) {
    if (a.brokerIds.length !== 1 || a.brokerIds[0] !== broker.nodeId) {
      throw new KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Unknown broker(s) in the replica assignment of partition ${a.partitionIndex}.`);
    }
  }
  const configs: Record<string, string> = {};
  for (const c of t.configs) {
    if (c.value === null) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${c.name}`);
    configs[c.name] = c.value;
  }
  const topic = await broker.createTopic(t.name, {
    partitions: t.assignments.length > 0 ? t.assignments.length : t.numPartitions,
    replicationFactor: t.assignments.length > 0 ? 1 : t.replicationFactor,
    configs,
    validateOnly,
    deadline,
  });
  return {
    ...result(t.name, ErrorCode.NONE, null),
    topicId: topic.topicId,
    numPartitions: topic.partitions,
    replicationFactor: 1,
    configs: broker.config.describeTopicConfig(topic.configs).map((e) => ({
      name: e.name,
      value: e.value,
      readOnly: e.readOnly,
      configSource: e.source,
      isSensitive: e.isSensitive,
    })),
  };
}

export const handler: Handler<CreateTopicsRequest, CreateTopicsResponse> = {
  apiKey: 19,
  name: 'CreateTopics',
  minVersion: 0,
  maxVersion: 7,
  async handle(request, ctx) {
    // timeoutMs <= 0: Kafka 4.4's controller gets a deadline already past, so the whole request fails with
    // REQUEST_TIMED_OUT (CreateTopicsRequest.getErrorResponse: every topic, no message), validateOnly,
    // invalid and duplicate names alike, and nothing is created (checked against a Kafka 4.4 node).
    if (request.timeoutMs <= 0) {
      return { throttleTimeMs: 0, topics: request.topics.map((t) => result(t.name, ErrorCode.REQUEST_TIMED_OUT, null)) };
    }
    const deadline = Date.now() + request.timeoutMs;
    const seen = new Set<string>();
    const duplicates = new Set(request.topics.filter((t) => seen.size === seen.add(t.name).size).map((t) => t.name));
    return {
      throttleTimeMs: 0,
      // Broker.createTopic runs them one at a time, in the request's order.
      topics: await Promise.all(request.topics.map(async (t) => {
        if (duplicates.has(t.name)) return result(t.name, ErrorCode.INVALID_REQUEST, 'Create topics request from client contains a duplicate topic.');
        // CREATE on the cluster, else on the topic; the configs are only shown with DESCRIBE_CONFIGS (KafkaApis).
        if (!authorizeTopicCreation(ctx, t.name)) return result(t.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
        try {
          const created = await create(ctx.broker, t, request.validateOnly, deadline);
          if (authorizeTopic(ctx, AclOperation.DESCRIBE_CONFIGS, t.name)) return created;
          return { ...created, configs: null, topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          // Kafka answers a timeout without a message.
          return result(t.name, err.code, err.code === ErrorCode.REQUEST_TIMED_OUT ? null : err.message);
        }
      })),
    };
  },
};
