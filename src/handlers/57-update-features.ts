import type { UpdateFeaturesRequest } from '../../protocol/generated/UpdateFeaturesRequest.js';
import type { UpdateFeaturesResponse } from '../../protocol/generated/UpdateFeaturesResponse.js';
import { ErrorCode } from '../errors.js';
import { UpgradeType } from '../metadata/finalized-features.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { Handler } from './handler.js';

/**
 * `kafka-features upgrade|downgrade` (KIP-584): a broker forwards it to its controller, which kafkite is. ALTER on the
 * cluster (ControllerApis.handleUpdateFeatures); QuorumController.updateFeatures answers with the first failing
 * feature's error at the top level, or per feature results up to v1 (v2 carries none). v0's AllowDowngrade is a safe
 * downgrade (UpdateFeaturesRequest.upgradeType).
 */
export const handler: Handler<UpdateFeaturesRequest, UpdateFeaturesResponse> = {
  apiKey: 57,
  name: 'UpdateFeatures',
  minVersion: 0,
  maxVersion: 2,
  async handle(request, ctx) {
    if (!authorizeCluster(ctx, AclOperation.ALTER)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', results: [] };
    }
    const updates = request.featureUpdates.map((u) => ({
      feature: u.feature,
      level: u.maxVersionLevel,
      upgradeType: ctx.apiVersion === 0 ? (u.allowDowngrade ? UpgradeType.SAFE_DOWNGRADE : UpgradeType.UPGRADE) : u.upgradeType,
    }));
    const { errorCode, errorMessage } = await ctx.broker.features.update(updates, request.validateOnly);
    if (errorCode === ErrorCode.NONE && !request.validateOnly) ctx.log.info({ updates, principal: `${ctx.principal.principalType}:${ctx.principal.name}` }, 'finalized features updated');
    const results = errorCode === ErrorCode.NONE && ctx.apiVersion <= 1 ? request.featureUpdates.map((u) => ({ feature: u.feature, errorCode, errorMessage })) : [];
    return { throttleTimeMs: 0, errorCode, errorMessage, results };
  },
};
