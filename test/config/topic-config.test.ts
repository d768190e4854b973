import { describe, expect, it } from 'vitest';
import { BrokerConfig, ConfigError, ConfigSource, UnknownConfigError } from '../../config/broker-config.js';
import { DEFAULT_LOG_CONFIG } from '../../storage/log-config.js';

describe('logConfig', () => {
  it('gives Kafka\'s defaults on a stock broker with no overrides', () => {
    // Storage's defaults leave record timestamps unbounded (its tests use fixed clocks); Kafka 4.4 refuses a CreateTime
    // more than an hour ahead (message.timestamp.after.max.ms, KIP-1030).
    expect(new BrokerConfig().logConfig({})).toEqual({ ...DEFAULT_LOG_CONFIG, messageTimestampAfterMaxMs: 3_600_000 });
  });

  it('resolves retention.ms from log.retention.ms > minutes (x60000) > hours (x3600000)', () => {
    const retention = (props: Record<string, string>): number => new BrokerConfig(props).logConfig({}).retentionMs;
    expect(retention({ 'log.retention.hours': '2' })).toBe(7_200_000);
    expect(retention({ 'log.retention.hours': '2', 'log.retention.minutes': '3' })).toBe(180_000);
    expect(retention({ 'log.retention.hours': '2', 'log.retention.minutes': '3', 'log.retention.ms': '4' })).toBe(4);
    expect(retention({ 'log.retention.ms': '-1' })).toBe(-1);
  });

  it('treats any negative broker retention as unlimited, as Kafka does', () => {
    expect(new BrokerConfig({ 'log.retention.minutes': '-1' }).logConfig({}).retentionMs).toBe(-1);
    expect(new BrokerConfig({ 'log.retention.hours': '-5' }).logConfig({}).retentionMs).toBe(-1);
  });

  it('resolves segment.ms and segment.jitter.ms from the log.roll chains', () => {
    expect(new BrokerConfig({ 'log.roll.hours': '1' }).logConfig({}).segmentMs).toBe(3_600_000);
    expect(new BrokerConfig({ 'log.roll.hours': '1', 'log.roll.ms': '5000' }).logConfig({}).segmentMs).toBe(5000);
    expect(new BrokerConfig({ 'log.roll.jitter.hours': '2' }).logConfig({}).segmentJitterMs).toBe(7_200_000);
  });

  it('resolves flush.ms from log.flush.interval.ms, then log.flush.scheduler.interval.ms', () => {
    expect(new BrokerConfig({ 'log.flush.scheduler.interval.ms': '2000' }).logConfig({}).flushMs).toBe(2000);
    expect(new BrokerConfig({ 'log.flush.scheduler.interval.ms': '2000', 'log.flush.interval.ms': '10' }).logConfig({}).flushMs).toBe(10);
  });

  it('maps one-to-one synonyms, including non-numeric ones', () => {
    const config = new BrokerConfig({
      'log.segment.bytes': '1048576',
      'message.max.bytes': '2000000',
      'log.cleanup.policy': 'compact,delete',
      'log.message.timestamp.type': 'LogAppendTime',
      'log.preallocate': 'true',
      'log.message.downconversion.enable': 'false',
      'log.cleaner.min.cleanable.ratio': '0.1',
    }).logConfig({});
    expect(config).toMatchObject({
      segmentBytes: 1048576,
      maxMessageBytes: 2000000,
      cleanupPolicy: ['compact', 'delete'],
      messageTimestampType: 'LogAppendTime',
      preallocate: true,
      messageDownconversionEnable: false,
      minCleanableDirtyRatio: 0.1,
    });
  });

  it('lets topic overrides win over broker settings', () => {
    const broker = new BrokerConfig({ 'log.retention.hours': '1', 'log.segment.bytes': '1048576' });
    expect(broker.logConfig({ 'retention.ms': '1000', 'segment.bytes': '2097152', 'cleanup.policy': 'compact' })).toMatchObject({
      retentionMs: 1000,
      segmentBytes: 2097152,
      cleanupPolicy: ['compact'],
    });
  });

  it('takes the internal internal.segment.bytes over segment.bytes (>= 1 MiB), as Kafka 4.4 does, and hides it from describe', () => {
    const broker = new BrokerConfig();
    expect(() => broker.validateTopicConfigs({ 'segment.bytes': '1048575' })).toThrow('expected an int >= 1048576');
    expect(broker.logConfig({ 'segment.bytes': '2097152', 'internal.segment.bytes': '2048' }).segmentBytes).toBe(2048);
    expect(broker.describeTopicConfig({ 'internal.segment.bytes': '2048' }).find((e) => e.name === 'internal.segment.bytes')).toBeUndefined();
  });

  it('maps Long.MAX_VALUE to Number.MAX_SAFE_INTEGER', () => {
    expect(new BrokerConfig().logConfig({ 'flush.messages': '9223372036854775807' }).flushMessages).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('validateTopicConfigs', () => {
  const broker = new BrokerConfig();

  it('accepts every valid topic config', () => {
    expect(() =>
      broker.validateTopicConfigs({
        'retention.ms': '-1',
        'cleanup.policy': 'compact,delete',
        'compression.type': 'zstd',
        'min.insync.replicas': '1',
        'leader.replication.throttled.replicas': '*',
        'follower.replication.throttled.replicas': '0:1,1:1',
        'max.decompressed.message.bytes': '1048576',
        'remote.copy.lag.ms': '-1',
        'message.downconversion.enable': 'false',
        'remote.storage.enable': 'false',
      }),
    ).not.toThrow();
  });

  it('rejects unknown names with UnknownConfigError (a ConfigError)', () => {
    const run = (): void => broker.validateTopicConfigs({ 'log.retention.ms': '1' });
    expect(run).toThrow(UnknownConfigError);
    expect(run).toThrow(ConfigError);
    expect(run).toThrow('Unknown topic config name: log.retention.ms');
  });

  it('rejects bad values naming the key', () => {
    const cases: [string, string][] = [
      ['retention.ms', '-2'],
      ['segment.bytes', '1048575'],
      ['cleanup.policy', 'delete,delete'],
      ['cleanup.policy', 'archive'],
      ['min.cleanable.dirty.ratio', '2'],
      ['message.timestamp.type', 'Now'],
      ['compression.type', 'brotli'],
      ['preallocate', 'maybe'],
      ['leader.replication.throttled.replicas', '*,0:1'],
    ];
    for (const [key, value] of cases) {
      expect(() => broker.validateTopicConfigs({ [key]: value })).toThrow(`for configuration ${key}:`);
    }
  });

  it('rejects a min.compaction.lag.ms above max.compaction.lag.ms, and tiered storage', () => {
    expect(() => broker.validateTopicConfigs({ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' })).toThrow(ConfigError);
    expect(() => broker.validateTopicConfigs({ 'remote.storage.enable': 'true' })).toThrow('kafkite has no tiered storage');
  });
});

describe('describeTopicConfig', () => {
  it('lists all topic configs with sources and synonyms in Kafka\'s order', () => {
    const broker = new BrokerConfig({ 'log.retention.hours': '168', 'log.segment.bytes': '1048576' });
    const entries = broker.describeTopicConfig({ 'cleanup.policy': 'compact , delete' });
    // Kafka 4.4's 38 but internal.segment.bytes, and message.downconversion.enable (Kafka 3.x's, for Fetch v0-3).
    expect(entries).toHaveLength(38);
    const entry = (name: string) => entries.find((e) => e.name === name)!;

    expect(entry('cleanup.policy')).toEqual({
      name: 'cleanup.policy',
      value: 'compact,delete',
      source: ConfigSource.DYNAMIC_TOPIC_CONFIG,
      isSensitive: false,
      readOnly: false,
      configType: 7,
      synonyms: [
        { name: 'cleanup.policy', value: 'compact,delete', source: ConfigSource.DYNAMIC_TOPIC_CONFIG },
        { name: 'log.cleanup.policy', value: 'delete', source: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    expect(entry('retention.ms')).toMatchObject({
      value: '604800000',
      source: ConfigSource.STATIC_BROKER_CONFIG,
      synonyms: [
        { name: 'log.retention.hours', value: '168', source: ConfigSource.STATIC_BROKER_CONFIG },
        { name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    expect(entry('segment.bytes')).toMatchObject({ value: '1048576', source: ConfigSource.STATIC_BROKER_CONFIG });
    expect(entry('flush.messages')).toMatchObject({ value: '9223372036854775807', source: ConfigSource.DEFAULT_CONFIG, configType: 5 });
    expect(entry('remote.storage.enable')).toMatchObject({ value: 'false', source: ConfigSource.DEFAULT_CONFIG, synonyms: [] });
  });

  it('shows broker values converted to the topic unit', () => {
    const entries = new BrokerConfig({ 'log.retention.minutes': '5' }).describeTopicConfig({});
    expect(entries.find((e) => e.name === 'retention.ms')!.value).toBe('300000');
  });
});
