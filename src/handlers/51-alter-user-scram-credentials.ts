// AlterUserScramCredentials: the client sends the salted password (kafka-configs derives it with PBKDF2);
// the broker keeps StoredKey and ServerKey, persisted in the cluster metadata log before it answers.
import type { AlterUserScramCredentialsRequest } from '../../protocol/generated/AlterUserScramCredentialsRequest.js';
import type { AlterUserScramCredentialsResponse } from '../../protocol/generated/AlterUserScramCredentialsResponse.js';
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { Handler } from './handler.js';

export const handler: Handler<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse> = {
  apiKey: 51,
  name: 'AlterUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  async handle(request, ctx) {
    // Kafka's ControllerApis: ALTER on the cluster, else every user gets CLUSTER_AUTHORIZATION_FAILED.
    if (!authorizeCluster(ctx, AclOperation.ALTER)) {
      const users = [...new Set([...request.deletions, ...request.upsertions].map((e) => e.name))];
      return {
        throttleTimeMs: 0,
        results: users.map((user) => ({ user, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' })),
      };
    }
    const results = await ctx.broker.scramCredentials.alter(request.deletions, request.upsertions);
    for (const r of results) {
      ctx.log.info({ user: r.user, errorCode: r.errorCode, principal: `${ctx.principal.principalType}:${ctx.principal.name}`, clientId: ctx.clientId }, 'SCRAM credentials altered');
    }
    return { throttleTimeMs: 0, results };
  },
};
