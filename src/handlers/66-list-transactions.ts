import type { ListTransactionsRequest } from '../../protocol/generated/ListTransactionsRequest.js';
import type { ListTransactionsResponse } from '../../protocol/generated/ListTransactionsResponse.js';
import { stateName, stateOfName, TransactionState as S } from '../coordinator/transaction/transaction-state.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorize, ResourceType } from '../security/authorization.js';
import { compileTopicRegex, InvalidRegularExpressionError } from '../coordinator/consumer/topic-regex.js';
import type { RE2JS } from 're2js';

/**
 * Kafka's TransactionStateManager.listTransactionStates: unknown state names are echoed back and match
 * nothing; DurationFilter (v1, -1 = none) keeps transactions running longer than it; TransactionalIdPattern
 * (v2, KIP-1152; null or empty = none) keeps the ids it matches whole, in RE2/J syntax (a lookahead is refused
 * as on a Kafka 4.4 node), and an invalid one answers INVALID_REGULAR_EXPRESSION with empty lists.
 */
export const handler: Handler<ListTransactionsRequest, ListTransactionsResponse> = {
  apiKey: 66,
  name: 'ListTransactions',
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    let pattern: RE2JS | null = null;
    if (ctx.apiVersion >= 2 && request.transactionalIdPattern !== null && request.transactionalIdPattern !== '') {
      try {
        // The same RE2/J compiler (and bounded cache) as KIP-848's topic regexes.
        pattern = compileTopicRegex(request.transactionalIdPattern);
      } catch (err) {
        if (!(err instanceof InvalidRegularExpressionError)) throw err;
        return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, unknownStateFilters: [], transactionStates: [] };
      }
    }
    const unknownStateFilters = request.stateFilters.filter((name) => stateOfName(name) === undefined);
    const states = new Set(request.stateFilters.map(stateOfName).filter((s) => s !== undefined));
    const producerIds = new Set(request.producerIdFilters);
    const durationFilter = ctx.apiVersion >= 1 ? request.durationFilter : -1;
    const now = Date.now();
    const transactionStates = [];
    for (const txn of ctx.broker.transactionCoordinator.transactions()) {
      // Dead is transient (an id being removed) and never listed.
      if (txn.state === S.Dead) continue;
      if (request.stateFilters.length > 0 && !states.has(txn.state)) continue;
      if (producerIds.size > 0 && !producerIds.has(txn.producerId)) continue;
      if (durationFilter >= 0 && now - txn.txnStartTimestamp <= durationFilter) continue;
      if (pattern !== null && !pattern.matches(txn.transactionalId)) continue;
      // Only the transactional ids the principal may DESCRIBE (KafkaApis.handleListTransactionsRequest).
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, txn.transactionalId, false)) continue;
      transactionStates.push({ transactionalId: txn.transactionalId, producerId: txn.producerId, transactionState: stateName(txn.state) });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates };
  },
};
