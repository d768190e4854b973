import type { StreamsGroupHeartbeatRequest } from '../../protocol/generated/StreamsGroupHeartbeatRequest.js';
import type { StreamsGroupHeartbeatResponse } from '../../protocol/generated/StreamsGroupHeartbeatResponse.js';
import { clientHostOf, type Handler } from './handler.js';
import { AclOperation, authorizeTopicCreation, authorizeGroup, authorizeTopic } from '../security/authorization.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { streamsErrorResult } from '../coordinator/streams/streams-group-coordinator.js';
import { GroupFeature, groupsEnabled, unsupportedVersion } from './group-features.js';

/** v0 (Kafka 4.2 GA of KIP-1071) and v1 (4.4: AcceptableRecoveryLag, TopologyDescriptionRequired). */
export const handler: Handler<StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse> = {
  apiKey: 88,
  name: 'StreamsGroupHeartbeat',
  minVersion: 0,
  maxVersion: 1,
  async handle(request, ctx) {
    if (!groupsEnabled(ctx, GroupFeature.STREAMS)) return unsupportedVersion(ctx, request);
    const failed = (errorCode: number, errorMessage: string): StreamsGroupHeartbeatResponse => {
      const { internalTopicsToCreate: _, ...result } = streamsErrorResult(errorCode, errorMessage);
      return { throttleTimeMs: 0, ...result };
    };
    // KafkaApis.handleStreamsGroupHeartbeat: READ on the group; the topology's source topics must be visible (DESCRIBE).
    if (!authorizeGroup(ctx, AclOperation.READ, request.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED, 'Group authorization failed.');
    const sources = (request.topology?.subtopologies ?? []).flatMap((s) => s.sourceTopics);
    const hidden = sources.filter((t) => !authorizeTopic(ctx, AclOperation.DESCRIBE, t));
    if (hidden.length > 0) return failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED, `Topic authorization failed for ${hidden.join(', ')}.`);
    const { internalTopicsToCreate, ...result } = await ctx.broker.groupCoordinator.streamsGroupHeartbeat({
      ...request, clientId: ctx.clientId ?? '', clientHost: clientHostOf(ctx.remoteAddress), apiVersion: ctx.apiVersion,
    }, ctx.broker.topics);
    // Kafka's AutoTopicCreationManager.createStreamsInternalTopics: the missing internal topics are created with the
    // configs the topology asks for; the member learns of them at a later heartbeat (MISSING_INTERNAL_TOPICS meanwhile).
    for (const topic of internalTopicsToCreate) {
      if (!authorizeTopicCreation(ctx, topic.name)) continue;
      try {
        await ctx.broker.createTopic(topic.name, { partitions: topic.partitions, replicationFactor: -1, configs: topic.configs, validateOnly: false });
      } catch (err) {
        if (!(err instanceof KafkaError && err.code === ErrorCode.TOPIC_ALREADY_EXISTS)) ctx.log.warn({ err, topic: topic.name }, 'failed to create a streams internal topic');
      }
    }
    return { throttleTimeMs: 0, ...result };
  },
};
