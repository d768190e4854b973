import type { ConsumerGroupHeartbeatRequest } from '../../protocol/generated/ConsumerGroupHeartbeatRequest.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/generated/ConsumerGroupHeartbeatResponse.js';
import { clientHostOf, type Handler } from './handler.js';

/** Kafka reports the client's address as InetAddress.toString: "/" + IP. */
/** v0 only: v1 (client-generated member ids, regex subscriptions) is still unstable in Kafka 4.0. */
export const handler: Handler<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse> = {
  apiKey: 68,
  name: 'ConsumerGroupHeartbeat',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    const result = await ctx.broker.groupCoordinator.consumerGroupHeartbeat({
      groupId: request.groupId,
      memberId: request.memberId,
      memberEpoch: request.memberEpoch,
      instanceId: request.instanceId,
      rackId: request.rackId,
      rebalanceTimeoutMs: request.rebalanceTimeoutMs,
      subscribedTopicNames: request.subscribedTopicNames,
      subscribedTopicRegex: request.subscribedTopicRegex,
      serverAssignor: request.serverAssignor,
      topicPartitions: request.topicPartitions,
      clientId: ctx.clientId ?? '',
      clientHost: clientHostOf(ctx.remoteAddress),
    }, ctx.broker.topics);
    return { throttleTimeMs: 0, ...result };
  },
};
