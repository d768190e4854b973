import type { AlterClientQuotasRequest } from '../../protocol/generated/AlterClientQuotasRequest.js';
import type { AlterClientQuotasResponse } from '../../protocol/generated/AlterClientQuotasResponse.js';
import { ErrorCode } from '../errors.js';
import { InvalidQuotaError } from '../quota/client-quotas.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { Handler } from './handler.js';

// Kafka's KafkaApis.handleAlterClientQuotasRequest: ALTER_CONFIGS on the cluster; one result per entry.
export const handler: Handler<AlterClientQuotasRequest, AlterClientQuotasResponse> = {
  apiKey: 49,
  name: 'AlterClientQuotas',
  minVersion: 0,
  maxVersion: 1,
  async handle(request, ctx) {
    const allowed = authorizeCluster(ctx, AclOperation.ALTER_CONFIGS);
    const entries = [];
    for (const entry of request.entries) {
      const answer = (errorCode: number, errorMessage: string | null) => ({ errorCode, errorMessage, entity: entry.entity });
      if (!allowed) {
        entries.push(answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.'));
        continue;
      }
      try {
        await ctx.broker.clientQuotas.alter(entry.entity, entry.ops, request.validateOnly);
        entries.push(answer(ErrorCode.NONE, null));
        if (!request.validateOnly) ctx.log.info({ entity: entry.entity, ops: entry.ops, principal: `${ctx.principal.principalType}:${ctx.principal.name}` }, 'client quotas altered');
      } catch (err) {
        if (!(err instanceof InvalidQuotaError)) throw err;
        entries.push(answer(ErrorCode.INVALID_REQUEST, err.message));
      }
    }
    return { throttleTimeMs: 0, entries };
  },
};
