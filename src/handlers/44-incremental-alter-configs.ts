import type { AlterableConfig, IncrementalAlterConfigsRequest } from '../../protocol/generated/IncrementalAlterConfigsRequest.js';
import type { IncrementalAlterConfigsResponse } from '../../protocol/generated/IncrementalAlterConfigsResponse.js';
import { brokerConfigDef, topicConfigDef } from '../../config/definitions.js';
import { ErrorCode, KafkaError } from '../errors.js';
import { ResourceType } from '../metadata/config-resources.js';
import { groupConfigDef } from '../metadata/group-configs.js';
import type { Handler, RequestContext } from './handler.js';
import { AclOperation, authorizeConfigResource } from '../security/authorization.js';

const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

type TypeOf = (name: string) => string | undefined;

function listOf(value: string | undefined): string[] {
  return value === undefined || value === '' ? [] : value.split(',').map((v) => v.trim());
}

/** Applies SET/DELETE/APPEND/SUBTRACT to a copy of the current configs; APPEND/SUBTRACT only on list configs. */
function apply(
  current: ReadonlyMap<string, string>, ops: AlterableConfig[], typeOf: TypeOf, kind: string, currentValue: (name: string) => string | undefined,
): Map<string, string> {
  const next = new Map(current);
  for (const op of ops) {
    const type = typeOf(op.name);
    if (type === undefined) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Unknown ${kind} config name: ${op.name}`);
    if ((op.configOperation === OpType.APPEND || op.configOperation === OpType.SUBTRACT) && type !== 'list') {
      throw new KafkaError(ErrorCode.INVALID_CONFIG, `Config value append is not allowed for config key: ${op.name}`);
    }
    switch (op.configOperation) {
      case OpType.SET:
        if (op.value === null) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Null value not supported for: ${op.name}`);
        next.set(op.name, op.value);
        break;
      case OpType.DELETE:
        next.delete(op.name);
        break;
      case OpType.APPEND: {
        const values = listOf(next.get(op.name) ?? currentValue(op.name));
        for (const v of listOf(op.value ?? '')) if (!values.includes(v)) values.push(v);
        next.set(op.name, values.join(','));
        break;
      }
      case OpType.SUBTRACT: {
        const remove = new Set(listOf(op.value ?? ''));
        next.set(op.name, listOf(next.get(op.name) ?? currentValue(op.name)).filter((v) => !remove.has(v)).join(','));
        break;
      }
      default:
        throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unknown config operation ${op.configOperation}`);
    }
  }
  return next;
}

/** A broker config's type; listener.name.<l>.<key> has the type of <key>. */
const brokerTypeOf: TypeOf = (name) => brokerConfigDef(name.replace(/^listener\.name\.[^.]+\./, ''))?.type;

async function alter(r: IncrementalAlterConfigsRequest['resources'][number], validateOnly: boolean, ctx: RequestContext): Promise<void> {
  const { broker } = ctx;
  switch (r.resourceType) {
    case ResourceType.TOPIC: {
      const topic = broker.topics.get(r.resourceName);
      if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist.`);
      const effective = (name: string) => broker.config.describeTopicConfig(topic.configs).find((e) => e.name === name)?.value ?? undefined;
      const next = apply(new Map(Object.entries(topic.configs)), r.configs, (n) => topicConfigDef(n)?.type, 'topic', effective);
      await broker.alterTopicConfigs(topic.name, Object.fromEntries(next), validateOnly);
      return;
    }
    case ResourceType.BROKER: {
      if (r.resourceName !== '' && r.resourceName !== String(broker.nodeId)) {
        throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${broker.nodeId} or empty string, but received ${r.resourceName}`);
      }
      const perBroker = r.resourceName !== '';
      const effective = (name: string) => broker.config.entries().find((e) => e.name === name)?.value ?? undefined;
      const next = apply(broker.dynamicConfigs.brokerConfigs(perBroker), r.configs, brokerTypeOf, 'broker', effective);
      await broker.alterBrokerConfigs(perBroker, next, validateOnly);
      return;
    }
    case ResourceType.GROUP: {
      const next = apply(broker.dynamicConfigs.groupConfigs(r.resourceName), r.configs, (n) => groupConfigDef(n)?.type, 'group', () => undefined);
      await broker.dynamicConfigs.alterGroup(r.resourceName, next, validateOnly);
      return;
    }
    default:
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`);
  }
}

export const handler: Handler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> = {
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  async handle(request, ctx) {
    const responses: IncrementalAlterConfigsResponse['responses'] = [];
    // One resource at a time: each persists before the next reads the configs it may build on.
    for (const r of request.resources) {
      const answer = (errorCode: number, errorMessage: string | null = null) => ({ errorCode, errorMessage, resourceType: r.resourceType, resourceName: r.resourceName });
      const auth = authorizeConfigResource(ctx, AclOperation.ALTER_CONFIGS, r.resourceType, r.resourceName);
      if (!auth.allowed) {
        responses.push(answer(auth.errorCode));
        continue;
      }
      try {
        await alter(r, request.validateOnly, ctx);
        responses.push(answer(ErrorCode.NONE));
      } catch (err) {
        if (!(err instanceof KafkaError)) throw err;
        responses.push(answer(err.code, err.message));
      }
    }
    return { throttleTimeMs: 0, responses };
  },
};
