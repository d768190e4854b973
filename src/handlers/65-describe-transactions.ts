import type { DescribeTransactionsRequest } from '../../protocol/generated/DescribeTransactionsRequest.js';
import type { DescribeTransactionsResponse, TransactionState } from '../../protocol/generated/DescribeTransactionsResponse.js';
import { stateName, TransactionState as S } from '../coordinator/transaction/transaction-state.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeTopic, authorizeTransactionalId } from '../security/authorization.js';

export const handler: Handler<DescribeTransactionsRequest, DescribeTransactionsResponse> = {
  apiKey: 65,
  name: 'DescribeTransactions',
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const transactionStates = request.transactionalIds.map((transactionalId): TransactionState => {
      // DESCRIBE on the transactional id; its topics only where the principal may DESCRIBE them (KafkaApis).
      if (!authorizeTransactionalId(ctx, AclOperation.DESCRIBE, transactionalId)) {
        return {
          errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, transactionalId, transactionState: '', transactionTimeoutMs: 0,
          transactionStartTimeMs: -1, producerId: -1, producerEpoch: -1, topics: [],
        };
      }
      const txn = ctx.broker.transactionCoordinator.get(transactionalId);
      if (!txn || txn.state === S.Dead) {
        return {
          errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, transactionalId, transactionState: '', transactionTimeoutMs: 0,
          transactionStartTimeMs: -1, producerId: -1, producerEpoch: -1, topics: [],
        };
      }
      return {
        errorCode: ErrorCode.NONE,
        transactionalId,
        transactionState: stateName(txn.state),
        transactionTimeoutMs: txn.txnTimeoutMs,
        transactionStartTimeMs: txn.txnStartTimestamp,
        producerId: txn.producerId,
        producerEpoch: txn.producerEpoch,
        topics: [...txn.partitions]
          .filter(([topic]) => authorizeTopic(ctx, AclOperation.DESCRIBE, topic, false))
          .map(([topic, ids]) => ({ topic, partitions: [...ids].sort((a, b) => a - b) })),
      };
    });
    return { throttleTimeMs: 0, transactionStates };
  },
};
