import type { DeleteTopicsRequest } from '../../protocol/generated/DeleteTopicsRequest.js';
import type { DeletableTopicResult, DeleteTopicsResponse } from '../../protocol/generated/DeleteTopicsResponse.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { ZERO_UUID } from '../metadata/topic-registry.js';
import type { Handler, RequestContext } from './handler.js';
import { INTERNAL_TOPICS } from '../metadata/internal-topics.js';
import { AclOperation, authorizeTopic } from '../security/authorization.js';

async function deleteOne(ctx: RequestContext, name: string | null, topicId: string): Promise<DeletableTopicResult> {
  const answer = (errorCode: number, errorMessage: string | null = null): DeletableTopicResult => ({ name, topicId, errorCode, errorMessage });
  const topic = name !== null ? ctx.broker.topics.get(name) : ctx.broker.topics.getById(topicId);
  // DELETE on the topic (KafkaApis.handleDeleteTopicsRequest); by name, checked before existence.
  if (name !== null && !authorizeTopic(ctx, AclOperation.DELETE, name)) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
  if (topic && name === null && !authorizeTopic(ctx, AclOperation.DELETE, topic.name)) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
  if (!topic) return name !== null ? answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.') : answer(ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.');
  if (INTERNAL_TOPICS.has(topic.name)) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Internal topics cannot be deleted.');
  try {
    await ctx.broker.deleteTopic(topic.name);
    return { name: topic.name, topicId: topic.topicId, errorCode: ErrorCode.NONE, errorMessage: null };
  } catch (err) {
    if (!(err instanceof KafkaError)) throw err;
    return answer(err.code, err.message);
  }
}

export const handler: Handler<DeleteTopicsRequest, DeleteTopicsResponse> = {
  apiKey: 20,
  name: 'DeleteTopics',
  minVersion: 0,
  maxVersion: 6,
  async handle(request, ctx) {
    const targets: Array<[string | null, string]> =
      ctx.apiVersion >= 6 ? request.topics.map((t) => [t.name, t.topicId]) : request.topicNames.map((n) => [n, ZERO_UUID]);
    const responses: DeletableTopicResult[] = [];
    for (const [name, topicId] of targets) responses.push(await deleteOne(ctx, name, topicId));
    return { throttleTimeMs: 0, responses };
  },
};
