import type { AlterConfigsRequest } from '../../protocol/generated/AlterConfigsRequest.js';
import type { AlterConfigsResponse } from '../../protocol/generated/AlterConfigsResponse.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { ResourceType, STATIC_BROKER_CONFIGS_MESSAGE } from '../metadata/config-resources.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeConfigResource } from '../security/authorization.js';

/** Legacy AlterConfigs: the given set replaces all of a topic's overrides. */
export const handler: Handler<AlterConfigsRequest, AlterConfigsResponse> = {
  apiKey: 33,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    return {
      throttleTimeMs: 0,
      responses: request.resources.map((r) => {
        const answer = (errorCode: number, errorMessage: string | null = null) => ({ errorCode, errorMessage, resourceType: r.resourceType, resourceName: r.resourceName });
        const auth = authorizeConfigResource(ctx, AclOperation.ALTER_CONFIGS, r.resourceType, r.resourceName);
        if (!auth.allowed) return answer(auth.errorCode);
        if (r.resourceType !== ResourceType.TOPIC) return answer(ErrorCode.INVALID_CONFIG, STATIC_BROKER_CONFIGS_MESSAGE);
        const overrides: Record<string, string> = {};
        for (const c of r.configs) if (c.value !== null) overrides[c.name] = c.value;
        try {
          ctx.broker.alterTopicConfigs(r.resourceName, overrides, request.validateOnly);
          return answer(ErrorCode.NONE);
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          return answer(err.code, err.message);
        }
      }),
    };
  },
};
