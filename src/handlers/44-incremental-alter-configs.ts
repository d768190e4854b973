import type { AlterableConfig, IncrementalAlterConfigsRequest } from '../../protocol/generated/IncrementalAlterConfigsRequest.js';
import type { IncrementalAlterConfigsResponse } from '../../protocol/generated/IncrementalAlterConfigsResponse.js';
import { topicConfigDef } from '../../config/definitions.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { ResourceType, STATIC_BROKER_CONFIGS_MESSAGE } from '../metadata/config-resources.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeConfigResource } from '../security/authorization.js';

const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

function listOf(value: string | undefined): string[] {
  return value === undefined || value === '' ? [] : value.split(',').map((v) => v.trim());
}

/** Applies SET/DELETE/APPEND/SUBTRACT to a copy of the current overrides; APPEND/SUBTRACT only on list configs. */
function apply(current: Record<string, string>, ops: AlterableConfig[], currentValue: (name: string) => string | undefined): Record<string, string> {
  const next = { ...current };
  for (const op of ops) {
    const def = topicConfigDef(op.name);
    if (!def) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${op.name}`);
    if ((op.configOperation === OpType.APPEND || op.configOperation === OpType.SUBTRACT) && def.type !== 'list') {
      throw new KafkaError(ErrorCode.INVALID_CONFIG, `Config value append is not allowed for config key: ${op.name}`);
    }
    switch (op.configOperation) {
      case OpType.SET:
        if (op.value === null) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Null value not supported for: ${op.name}`);
        next[op.name] = op.value;
        break;
      case OpType.DELETE:
        delete next[op.name];
        break;
      case OpType.APPEND: {
        const values = listOf(next[op.name] ?? currentValue(op.name));
        for (const v of listOf(op.value ?? '')) if (!values.includes(v)) values.push(v);
        next[op.name] = values.join(',');
        break;
      }
      case OpType.SUBTRACT: {
        const remove = new Set(listOf(op.value ?? ''));
        next[op.name] = listOf(next[op.name] ?? currentValue(op.name)).filter((v) => !remove.has(v)).join(',');
        break;
      }
      default:
        throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unknown config operation ${op.configOperation}`);
    }
  }
  return next;
}

export const handler: Handler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> = {
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const { broker } = ctx;
    return {
      throttleTimeMs: 0,
      responses: request.resources.map((r) => {
        const answer = (errorCode: number, errorMessage: string | null = null) => ({ errorCode, errorMessage, resourceType: r.resourceType, resourceName: r.resourceName });
        const auth = authorizeConfigResource(ctx, AclOperation.ALTER_CONFIGS, r.resourceType, r.resourceName);
        if (!auth.allowed) return answer(auth.errorCode);
        if (r.resourceType !== ResourceType.TOPIC) return answer(ErrorCode.INVALID_CONFIG, STATIC_BROKER_CONFIGS_MESSAGE);
        const topic = broker.topics.get(r.resourceName);
        if (!topic) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist.`);
        try {
          const effective = (name: string) => broker.config.describeTopicConfig(topic.configs).find((e) => e.name === name)?.value ?? undefined;
          broker.alterTopicConfigs(topic.name, apply(topic.configs, r.configs, effective), request.validateOnly);
          return answer(ErrorCode.NONE);
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          return answer(err.code, err.message);
        }
      }),
    };
  },
};
