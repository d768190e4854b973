import { describe, expect, it } from 'vitest';
import { BrokerConfig } from '../../config/broker-config.js';
import {
  DEFAULT_GROUP_COORDINATOR_CONFIG, groupCoordinatorConfigOf, offsetsTopicConfigs,
} from '../../src/coordinator/coordinator-config.js';

describe('group coordinator config', () => {
  it("takes Kafka's defaults from an empty server.properties", () => {
    expect(groupCoordinatorConfigOf(new BrokerConfig())).toEqual(DEFAULT_GROUP_COORDINATOR_CONFIG);
  });

  it('reads the group and offsets settings', () => {
    const config = new BrokerConfig({
      'group.min.session.timeout.ms': '100',
      'group.initial.rebalance.delay.ms': '0',
      'offsets.retention.minutes': '2',
      'offsets.retention.check.interval.ms': '500',
      'offset.metadata.max.bytes': '10',
      'group.max.size': '3',
      'offsets.topic.segment.bytes': '1048576',
    });
    expect(groupCoordinatorConfigOf(config)).toMatchObject({
      groupMinSessionTimeoutMs: 100, groupInitialRebalanceDelayMs: 0, offsetsRetentionMs: 120000,
      offsetsRetentionCheckIntervalMs: 500, offsetMetadataMaxBytes: 10, groupMaxSize: 3,
    });
    expect(offsetsTopicConfigs(config)).toEqual({ 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': '1048576' });
  });
});
