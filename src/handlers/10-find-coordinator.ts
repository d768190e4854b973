import type { FindCoordinatorRequest } from '../../protocol/generated/FindCoordinatorRequest.js';
import type { Coordinator, FindCoordinatorResponse } from '../../protocol/generated/FindCoordinatorResponse.js';
import type { Handler, RequestContext } from './handler.js';
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeCluster, authorizeGroup, authorizeTransactionalId } from '../security/authorization.js';

const GROUP_KEY_TYPE = 0;
const TRANSACTION_KEY_TYPE = 1;
/** The share coordinator's key "groupId:topicId:partition" (KIP-932; FindCoordinator v6+), asked by brokers. */
const SHARE_KEY_TYPE = 2;

/** Kafka's SharePartitionKey.validate of a coordinator key: a group id, a base64 topic id and a partition. */
function isShareCoordinatorKey(key: string): boolean {
  const parts = key.split(':');
  return parts.length === 3 && parts[0] !== '' && /^[A-Za-z0-9_-]{22}$/.test(parts[1]!) && /^\d+$/.test(parts[2]!);
}

/** This single node coordinates every group and transactional id, on the listener the client used. */
function coordinatorFor(key: string, keyType: number, ctx: RequestContext): Coordinator {
  const endpoints = ctx.broker.endpoints;
  const endpoint = endpoints.find((e) => e.listenerName === ctx.listenerName) ?? endpoints[0];
  let errorCode: number = ErrorCode.NONE;
  // What Kafka 4.4 sends for a v4+ key it found (its messages for errors match Errors.message()).
  let errorMessage = '';
  if (keyType !== GROUP_KEY_TYPE && keyType !== TRANSACTION_KEY_TYPE && (keyType !== SHARE_KEY_TYPE || ctx.apiVersion < 6)) {
    errorCode = ErrorCode.INVALID_REQUEST;
    errorMessage = `Unsupported key type ${keyType}`;
  } else if (keyType === SHARE_KEY_TYPE && !authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) {
    errorCode = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  } else if (keyType === SHARE_KEY_TYPE && !isShareCoordinatorKey(key)) {
    // Kafka 4.4 sends no message with a share key's error.
    errorCode = ErrorCode.INVALID_REQUEST;
  } else if (keyType === TRANSACTION_KEY_TYPE && key === '') {
    errorCode = ErrorCode.INVALID_REQUEST;
    errorMessage = 'The transactional id is empty';
  } else if (keyType === GROUP_KEY_TYPE && !authorizeGroup(ctx, AclOperation.DESCRIBE, key)) {
    errorCode = ErrorCode.GROUP_AUTHORIZATION_FAILED;
    errorMessage = 'Group authorization failed.';
  } else if (keyType === TRANSACTION_KEY_TYPE && !authorizeTransactionalId(ctx, AclOperation.DESCRIBE, key)) {
    errorCode = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    errorMessage = 'Transactional Id authorization failed.';
  } else if (!endpoint) {
    errorCode = ErrorCode.COORDINATOR_NOT_AVAILABLE;
    errorMessage = 'The coordinator is not available.';
  }
  return errorCode === ErrorCode.NONE
    ? { key, nodeId: ctx.broker.nodeId, host: endpoint!.host, port: endpoint!.port, errorCode, errorMessage }
    : { key, nodeId: -1, host: '', port: -1, errorCode, errorMessage };
}

export const handler: Handler<FindCoordinatorRequest, FindCoordinatorResponse> = {
  apiKey: 10,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 6,
  handle(request, ctx) {
    if (ctx.apiVersion >= 4) {
      const coordinators = request.coordinatorKeys.map((key) => coordinatorFor(key, request.keyType, ctx));
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, nodeId: -1, host: '', port: -1, coordinators };
    }
    const { nodeId, host, port, errorCode, errorMessage } = coordinatorFor(request.key, request.keyType, ctx);
    // FindCoordinatorResponse.prepareOldResponse sends Errors.message(), which is the name 'NONE' on success.
    return { throttleTimeMs: 0, errorCode, errorMessage: errorCode === ErrorCode.NONE ? 'NONE' : errorMessage, nodeId, host, port, coordinators: [] };
  },
};
