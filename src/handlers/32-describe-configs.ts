import type { DescribeConfigsRequest, DescribeConfigsResource } from '../../protocol/generated/DescribeConfigsRequest.js';
import type { DescribeConfigsResourceResult, DescribeConfigsResponse, DescribeConfigsResult } from '../../protocol/generated/DescribeConfigsResponse.js';
import { ConfigSource, type BrokerConfig, type ConfigEntry } from '../../config/broker-config.js';
import { brokerConfigDef, topicConfigDef } from '../../config/definitions.js';
import { ErrorCode } from '../errors.js';
import { ResourceType } from '../metadata/config-resources.js';
import { describeGroupConfigs } from '../metadata/group-configs.js';
import type { Handler, RequestContext } from './handler.js';
import { AclOperation, authorizeConfigResource } from '../security/authorization.js';

/** The config table has no prose; the documentation is its type, default and valid values. */
function documentationOf(name: string, resourceType: number): string | null {
  const def = resourceType === ResourceType.TOPIC ? topicConfigDef(name) : brokerConfigDef(name);
  if (!def) return null;
  return `Type: ${def.type}. Default: ${def.default ?? 'null'}.`;
}

function toResult(entry: ConfigEntry, request: DescribeConfigsRequest, resourceType: number): DescribeConfigsResourceResult {
  return {
    name: entry.name,
    value: entry.value,
    readOnly: entry.readOnly,
    isDefault: entry.source === ConfigSource.DEFAULT_CONFIG,
    configSource: entry.source,
    isSensitive: entry.isSensitive,
    synonyms: request.includeSynonyms ? entry.synonyms.map((s) => ({ ...s })) : [],
    configType: entry.configType,
    documentation: request.includeDocumentation ? documentationOf(entry.name, resourceType) : null,
  };
}

function clusterDefaultEntries(config: BrokerConfig): ConfigEntry[] {
  const defaults = config.dynamicConfigs(false);
  return config.entries().filter((e) => defaults.has(e.name)).map((e) => ({
    ...e,
    value: e.isSensitive ? null : defaults.get(e.name)!,
    source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    // Only the default's own level: kafka-configs --entity-default on Kafka 4.4 shows no static or default synonyms.
    synonyms: e.synonyms.filter((s) => s.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
  }));
}

function describe(resource: DescribeConfigsResource, request: DescribeConfigsRequest, ctx: RequestContext): DescribeConfigsResult {
  const { broker } = ctx;
  const base = { resourceType: resource.resourceType, resourceName: resource.resourceName };
  const auth = authorizeConfigResource(ctx, AclOperation.DESCRIBE_CONFIGS, resource.resourceType, resource.resourceName);
  if (!auth.allowed) return { ...base, errorCode: auth.errorCode, errorMessage: null, configs: [] };
  let entries: ConfigEntry[];
  if (resource.resourceType === ResourceType.TOPIC) {
    const topic = broker.topics.get(resource.resourceName);
    if (!topic) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic ${resource.resourceName} does not exist.`, configs: [] };
    entries = broker.config.describeTopicConfig(topic.configs);
  } else if (resource.resourceType === ResourceType.BROKER) {
    if (resource.resourceName !== '' && resource.resourceName !== String(broker.nodeId)) {
      return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unexpected broker id, expected ${broker.nodeId} or empty string, but received ${resource.resourceName}`, configs: [] };
    }
    // The empty name is the cluster default: only the dynamic defaults set on it (Kafka's ConfigHelper).
    entries = resource.resourceName === '' ? clusterDefaultEntries(broker.config) : broker.config.entries();
  } else if (resource.resourceType === ResourceType.GROUP) {
    entries = describeGroupConfigs(broker.dynamicConfigs.groupConfigs(resource.resourceName), broker.config);
  } else {
    return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unsupported resource type ${resource.resourceType}`, configs: [] };
  }
  const keys = resource.configurationKeys === null ? null : new Set(resource.configurationKeys);
  const selected = keys === null ? entries : entries.filter((e) => keys.has(e.name));
  // Kafka's ConfigHelper leaves the message unset, which its generated data classes send as ''.
  return { ...base, errorCode: ErrorCode.NONE, errorMessage: '', configs: selected.map((e) => toResult(e, request, resource.resourceType)) };
}

export const handler: Handler<DescribeConfigsRequest, DescribeConfigsResponse> = {
  apiKey: 32,
  name: 'DescribeConfigs',
  minVersion: 0,
  maxVersion: 4,
  handle: (request, ctx) => ({ throttleTimeMs: 0, results: request.resources.map((r) => describe(r, request, ctx)) }),
};
