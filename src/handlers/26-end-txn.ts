import type { EndTxnRequest } from '../../protocol/generated/EndTxnRequest.js';
import type { EndTxnResponse } from '../../protocol/generated/EndTxnResponse.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeTransactionalId } from '../security/authorization.js';

const FIRST_PRODUCER_FENCED_VERSION = 2;
/** EndTxn v5: transaction version 2, an epoch bump per transaction returned in the response (KIP-890 part 2). */
const FIRST_TV2_VERSION = 5;

export const handler: Handler<EndTxnRequest, EndTxnResponse> = {
  apiKey: 26,
  name: 'EndTxn',
  minVersion: 0,
  maxVersion: 5,
  async handle(request, ctx) {
    if (!authorizeTransactionalId(ctx, AclOperation.WRITE, request.transactionalId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1, producerEpoch: -1 };
    }
    const result = await ctx.broker.transactionCoordinator.handleEndTransaction(
      request.transactionalId, request.producerId, request.producerEpoch, request.committed, ctx.apiVersion >= FIRST_TV2_VERSION ? 2 : 0,
    );
    let errorCode = result.errorCode;
    if (errorCode === ErrorCode.PRODUCER_FENCED && ctx.apiVersion < FIRST_PRODUCER_FENCED_VERSION) errorCode = ErrorCode.INVALID_PRODUCER_EPOCH;
    if (errorCode !== ErrorCode.NONE) {
      ctx.log.debug({ clientId: ctx.clientId, transactionalId: request.transactionalId, committed: request.committed, errorCode }, 'EndTxn refused');
    }
    return { throttleTimeMs: 0, errorCode, producerId: result.producerId, producerEpoch: result.producerEpoch };
  },
};
