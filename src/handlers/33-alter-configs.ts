import type { AlterConfigsRequest } from '../../protocol/generated/AlterConfigsRequest.js';
import type { AlterConfigsResponse } from '../../protocol/generated/AlterConfigsResponse.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { ResourceType } from '../metadata/config-resources.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeConfigResource } from '../security/authorization.js';

/** Legacy AlterConfigs: the given set replaces all of a topic's overrides, or a broker resource's dynamic configs. */
export const handler: Handler<AlterConfigsRequest, AlterConfigsResponse> = {
  apiKey: 33,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 2,
  async handle(request, ctx) {
    return {
      throttleTimeMs: 0,
      responses: await Promise.all(request.resources.map(async (r) => {
        const answer = (errorCode: number, errorMessage: string | null = null) => ({ errorCode, errorMessage, resourceType: r.resourceType, resourceName: r.resourceName });
        const auth = authorizeConfigResource(ctx, AclOperation.ALTER_CONFIGS, r.resourceType, r.resourceName);
        if (!auth.allowed) return answer(auth.errorCode);
        const overrides: Record<string, string> = {};
        for (const c of r.configs) if (c.value !== null) overrides[c.name] = c.value;
        try {
          if (r.resourceType === ResourceType.BROKER) {
            const { broker } = ctx;
            if (r.resourceName !== '' && r.resourceName !== String(broker.nodeId)) {
              return answer(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${broker.nodeId} or empty string, but received ${r.resourceName}`);
            }
            // The given set replaces the resource's dynamic configs, as for topics.
            await broker.alterBrokerConfigs(r.resourceName !== '', new Map(Object.entries(overrides)), request.validateOnly);
            return answer(ErrorCode.NONE);
          }
          if (r.resourceType !== ResourceType.TOPIC) return answer(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`);
          await ctx.broker.alterTopicConfigs(r.resourceName, overrides, request.validateOnly);
          return answer(ErrorCode.NONE);
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          return answer(err.code, err.message);
        }
      })),
    };
  },
};
