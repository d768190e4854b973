// ShareAcknowledge (KIP-932), as Kafka 4.4's KafkaApis.handleShareAcknowledgeRequest: acknowledgements outside
// a fetch, on an open share session (epoch 0 is refused: a session opens with ShareFetch); epoch -1 closes the
// session after acknowledging and releases what it still held. Each partition is answered once its write is durable.
import type { ShareAcknowledgeRequest } from '../../protocol/generated/ShareAcknowledgeRequest.js';
import type { ShareAcknowledgeResponse, ShareAcknowledgeTopicResponse } from '../../protocol/generated/ShareAcknowledgeResponse.js';
import { ErrorCode } from '../errors.js';
import { acknowledgeAll } from '../share/share-partition-manager.js';
import { INITIAL_SHARE_SESSION_EPOCH } from '../share/share-session-cache.js';
import type { Handler } from './handler.js';
import { acknowledgeErrorMessage, deniedTopicIds, fillCurrentLeaders, shareRequestError } from './share-requests.js';

function topLevel(errorCode: number, lockMs = 0): ShareAcknowledgeResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage: null, acquisitionLockTimeoutMs: lockMs, responses: [], nodeEndpoints: [] };
}

export const handler: Handler<ShareAcknowledgeRequest, ShareAcknowledgeResponse> = {
  apiKey: 79,
  name: 'ShareAcknowledge',
  minVersion: 1,
  maxVersion: 2,
  async handle(request, ctx) {
    const manager = ctx.broker.sharePartitions;
    const groupId = request.groupId ?? '';
    const memberId = request.memberId ?? '';
    const refused = shareRequestError(ctx, groupId, memberId);
    if (refused !== ErrorCode.NONE) return topLevel(refused);
    const lockMs = manager.lockDurationMs(groupId);
    if (request.shareSessionEpoch === INITIAL_SHARE_SESSION_EPOCH) return topLevel(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    const context = manager.sessions.begin(groupId, memberId, request.shareSessionEpoch, ctx.connectionId);
    if (context.kind === 'error') return topLevel(context.errorCode);
    const denied = deniedTopicIds(ctx, request.topics.map((t) => t.topicId));
    // Partitions named without acknowledgements are neither applied nor answered (as Kafka 4.4 answers them).
    const named = request.topics
      .map((t) => ({ topicId: t.topicId, partitions: t.partitions.filter((p) => p.acknowledgementBatches.length > 0) }))
      .filter((t) => t.partitions.length > 0);
    const acks = named.filter((t) => !denied.has(t.topicId)).flatMap((t) =>
      t.partitions.map((p) => ({ topicId: t.topicId, partition: p.partitionIndex, batches: p.acknowledgementBatches })));
    const results = await acknowledgeAll(manager, groupId, memberId, acks);
    if (context.kind === 'close') {
      manager.sessions.remove(context.session);
      await manager.releaseSession(context.session, true);
    }
    const responses: ShareAcknowledgeTopicResponse[] = named.map((t) => ({
      topicId: t.topicId,
      partitions: t.partitions.map((p) => {
        const errorCode = denied.has(t.topicId) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : results.get(`${t.topicId}:${p.partitionIndex}`)!;
        return { partitionIndex: p.partitionIndex, errorCode, errorMessage: acknowledgeErrorMessage(errorCode), currentLeader: { leaderId: 0, leaderEpoch: 0 } };
      }),
    }));
    const nodeEndpoints = fillCurrentLeaders(ctx, responses.flatMap((t) => t.partitions.map((data) => ({ topicId: t.topicId, data }))));
    return { ...topLevel(ErrorCode.NONE, lockMs), responses, nodeEndpoints };
  },
};
