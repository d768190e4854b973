import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BrokerConfig, ConfigError, ConfigSource, loadBrokerConfig, PropertiesSyntaxError, UnknownConfigError } from '../../config/broker-config.js';
import { envVarToPropertyName, propertiesFromEnv } from '../../config/env.js';

const dir = mkdtempSync(join(tmpdir(), 'kafkite-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function propertiesFile(text: string): string {
  const file = join(dir, `server-${fileCount++}.properties`);
  writeFileSync(file, text);
  return file;
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('environment variables', () => {
  it('maps names as the apache/kafka Docker image does', () => {
    expect(envVarToPropertyName('KAFKA_LOG_RETENTION_MS')).toBe('log.retention.ms');
    expect(envVarToPropertyName('KAFKA_NODE_ID')).toBe('node.id');
    expect(envVarToPropertyName('KAFKA_ZOOKEEPER_CLIENT__CNXN__SOCKET')).toBe('zookeeper.client_cnxn_socket');
    expect(envVarToPropertyName('KAFKA_SOME___DASHED_NAME')).toBe('some-dashed.name');
  });

  it('skips the variables the image scripts use and non-KAFKA_ variables', () => {
    const props = propertiesFromEnv({
      KAFKA_HEAP_OPTS: '-Xmx1G',
      KAFKA_OPTS: '-Dx=y',
      KAFKA_JMX_OPTS: '-Dcom.sun.management.jmxremote',
      KAFKA_JMX_PORT: '9999',
      KAFKA_LOG4J_OPTS: '-Dlog4j.configuration=x',
      KAFKA_LOG4J_ROOT_LOGLEVEL: 'WARN',
      KAFKA_DEBUG: 'y',
      KAFKA_GC_LOG_OPTS: ' ',
      KAFKA_JVM_PERFORMANCE_OPTS: '-server',
      KAFKA_VERSION: '3.9.0',
      PATH: '/usr/bin',
      KAFKA_UNSET: undefined,
      KAFKA_NUM_PARTITIONS: '3',
    });
    expect(Object.fromEntries(props)).toEqual({ 'num.partitions': '3' });
  });

  it('takes cluster.id from CLUSTER_ID, which the image formats storage with', () => {
    expect(Object.fromEntries(propertiesFromEnv({ CLUSTER_ID: 'MkU3OEVBNTcwNTJENDM2Qk' }))).toEqual({ 'cluster.id': 'MkU3OEVBNTcwNTJENDM2Qk' });
    expect(propertiesFromEnv({ CLUSTER_ID: 'a', KAFKA_CLUSTER_ID: 'b' }).get('cluster.id')).toBe('b');
  });

  it('takes listeners, JAAS lines and keystores as the apache/kafka image does', () => {
    const secrets = mkdtempSync(join(tmpdir(), 'kafkite-secrets-'));
    writeFileSync(join(secrets, 'ks_creds'), 'ks-pass\n');
    writeFileSync(join(secrets, 'key_creds'), 'key-pass\n');
    writeFileSync(join(secrets, 'jaas.conf'), `KafkaServer {\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n  user_admin="admin-secret";\n};\nsasl_ssl.KafkaServer { x required; };\nClient { y required; };\n`);
    try {
      const props = propertiesFromEnv({
        KAFKA_LISTENERS: 'SASL_SSL://:9093',
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'SASL_SSL:SASL_SSL',
        KAFKA_LISTENER_NAME_SASL__SSL_SCRAM___SHA___512_SASL_JAAS_CONFIG: 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
        KAFKA_SSL_KEYSTORE_FILENAME: 'kafka.keystore.jks',
        KAFKA_SSL_KEYSTORE_CREDENTIALS: 'ks_creds',
        KAFKA_SSL_KEY_CREDENTIALS: 'key_creds',
        KAFKA_OPTS: `-Djava.security.auth.login.config=${join(secrets, 'jaas.conf')}`,
      }, secrets);
      expect(Object.fromEntries(props)).toEqual({
        listeners: 'SASL_SSL://:9093',
        'listener.security.protocol.map': 'SASL_SSL:SASL_SSL',
        'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
        'ssl.keystore.location': join(secrets, 'kafka.keystore.jks'),
        'ssl.keystore.password': 'ks-pass',
        'ssl.key.password': 'key-pass',
        'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required\n  user_admin="admin-secret";',
        'listener.name.sasl_ssl.sasl.jaas.config': 'x required;',
      });
      expect(() => propertiesFromEnv({ KAFKA_SSL_KEYSTORE_CREDENTIALS: 'missing' }, secrets)).toThrow(/KAFKA_SSL_KEYSTORE_CREDENTIALS/);
    } finally {
      rmSync(secrets, { recursive: true, force: true });
    }
  });
});

describe('loadBrokerConfig', () => {
  it('gives Kafka defaults (and kafkite\'s) without any source', () => {
    const { config, unknownKeys, inertKeys } = loadBrokerConfig({});
    expect(unknownKeys).toEqual([]);
    expect(inertKeys).toEqual([]);
    expect(config.listeners).toEqual([{ name: 'PLAINTEXT', host: '', port: 9092, securityProtocol: 'PLAINTEXT' }]);
    expect(config.advertisedListeners).toEqual([{ name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 'PLAINTEXT' }]);
    expect(config.logDirs).toEqual(['/tmp/kafka-logs']);
    expect(config.nodeId).toBe(1);
    expect(config.numPartitions).toBe(1);
    expect(config.defaultReplicationFactor).toBe(1);
    expect(config.autoCreateTopicsEnable).toBe(true);
    expect(config.socketRequestMaxBytes).toBe(104857600);
    expect(config.messageMaxBytes).toBe(1048588);
    expect(config.maxConnections).toBe(2147483647);
    expect(config.maxConnectionsPerIp).toBe(2147483647);
    expect(config.connectionsMaxIdleMs).toBe(600000);
    expect(config.logRetentionCheckIntervalMs).toBe(300000);
    expect(config.logFlushSchedulerIntervalMs).toBe(Number.MAX_SAFE_INTEGER);
    expect(config.logCleanerEnable).toBe(true);
    expect(config.logCleanerBackoffMs).toBe(15000);
    expect(config.offsetsTopicNumPartitions).toBe(50);
    expect(config.offsetsRetentionMinutes).toBe(10080);
    expect(config.groupInitialRebalanceDelayMs).toBe(3000);
    expect(config.groupMinSessionTimeoutMs).toBe(6000);
    expect(config.groupMaxSessionTimeoutMs).toBe(1800000);
    expect(config.groupMaxSize).toBe(2147483647);
    expect(config.deleteTopicEnable).toBe(true);
    expect(config.logLevel).toBe('info');
    expect(config.adminListener).toBeNull();
    expect(config.zeroCopyEnable).toBe(true);
    expect(config.clusterId).toBeNull();
  });

  it('applies file < env < overrides', () => {
    const file = propertiesFile('num.partitions=2\nlog.cleaner.backoff.ms=100\ngroup.max.size=10\n');
    const { config } = loadBrokerConfig({
      file,
      env: { KAFKA_LOG_CLEANER_BACKOFF_MS: '200', KAFKA_GROUP_MAX_SIZE: '20' },
      overrides: ['group.max.size=30'],
    });
    expect(config.numPartitions).toBe(2);
    expect(config.logCleanerBackoffMs).toBe(200);
    expect(config.groupMaxSize).toBe(30);
  });

  it('splits an override at its first =', () => {
    const { config } = loadBrokerConfig({ overrides: ['log.dirs=/tmp/a=b'] });
    expect(config.logDirs).toEqual(['/tmp/a=b']);
    expect(configError(() => loadBrokerConfig({ overrides: ['num.partitions'] })).expected).toBe('key=value');
  });

  it('reads the file through the .properties grammar', () => {
    const file = propertiesFile('# kafkite\nlisteners = PLAINTEXT://127.0.0.1:0,\\\n   OTHER://127.0.0.1:0\nlistener.security.protocol.map=PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT\n');
    const { config } = loadBrokerConfig({ file });
    expect(config.listeners.map((l) => l.name)).toEqual(['PLAINTEXT', 'OTHER']);
  });

  it('names the file in a PropertiesSyntaxError', () => {
    const file = propertiesFile('a=1\nlog.dirs=C:\\users\\kafka\n');
    expect(() => loadBrokerConfig({ file })).toThrow(PropertiesSyntaxError);
    expect(() => loadBrokerConfig({ file })).toThrow(`${file}, line 2: malformed \\uxxxx encoding: \\users`);
  });

  it('throws the fs error for a missing file', () => {
    expect(() => loadBrokerConfig({ file: join(dir, 'missing.properties') })).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('reports unknown keys and inert keys separately', () => {
    const { unknownKeys, inertKeys } = loadBrokerConfig({
      overrides: [
        'no.such.config=1',
        'retention.ms=5',
        'zookeeper.connect=localhost:2181',
        'offsets.topic.replication.factor=1',
        'num.io.threads=8',
        'controller.quorum.voters=1@localhost:9093',
        'listener.name.internal.ssl.keystore.location=/x',
        'num.partitions=1',
        'log.level=debug',
      ],
    });
    expect(unknownKeys).toEqual(['no.such.config', 'retention.ms', 'zookeeper.connect']);
    expect(inertKeys).toEqual([
      'offsets.topic.replication.factor',
      'num.io.threads',
      'controller.quorum.voters',
    ]);
  });
});

describe('validation', () => {
  const cases: [string, string, string][] = [
    ['num.partitions', '0', 'an int >= 1'],
    ['num.partitions', 'two', 'an int >= 1'],
    ['num.partitions', '2147483648', 'an int >= 1'],
    ['num.partitions', '1.5', 'an int >= 1'],
    ['auto.create.topics.enable', 'yes', 'a boolean (true or false)'],
    ['connections.max.idle.ms', '10s', 'a long'],
    ['log.cleaner.min.cleanable.ratio', '1.5', 'a double in 0..1'],
    ['compression.gzip.level', '0', 'an int in 1..9 or -1'],
    ['remote.log.manager.copier.thread.pool.size', '0', 'an int >= 1'],
    ['offsets.topic.replication.factor', '40000', 'a short >= 1'],
    ['log.message.timestamp.type', 'createtime', 'one of: CreateTime, LogAppendTime'],
    ['log.cleanup.policy', 'delete,archive', 'a comma-separated list without empty or repeated values, each one of: compact, delete'],
    ['log.cleanup.policy', 'delete,delete', 'a comma-separated list without empty or repeated values, each one of: compact, delete'],
    ['listeners', 'PLAINTEXT://:9092,', 'a non-empty comma-separated list without empty or repeated values'],
    ['log.dirs', ' ', 'a non-empty comma-separated list without empty or repeated values'],
    ['node.id', '-1', 'an int >= 0'],
    ['log.segment.bytes', '1048575', 'an int >= 1048576'],
    ['security.inter.broker.protocol', 'TLS', 'one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL'],
    ['remote.log.metadata.manager.impl.prefix', '  ', 'a non-empty string'],
    ['controller.quorum.voters', 'localhost:9093', 'a comma-separated list of {node.id}@{host}:{port}'],
    ['controller.quorum.bootstrap.servers', 'localhost', 'a comma-separated list of {host}:{port}'],
    ['log.level', 'verbose', 'one of: trace, debug, info, warn, error, fatal, silent (case-insensitive)'],
    ['kafkite.zero.copy.enable', 'on', 'a boolean (true or false)'],
  ];
  it.each(cases)('rejects %s=%s, naming the key', (key, value, expected) => {
    const err = configError(() => loadBrokerConfig({ overrides: [`${key}=${value}`] }));
    expect(err.key).toBe(key);
    expect(err.value).toBe(value);
    expect(err.expected).toBe(expected);
    expect(err.message).toBe(`Invalid value ${value} for configuration ${key}: expected ${expected}`);
  });

  it('trims values and parses them by type', () => {
    const { config } = loadBrokerConfig({
      overrides: [
        'num.partitions= +7 ',
        'auto.create.topics.enable=FALSE',
        'log.cleaner.min.cleanable.ratio=.25',
        'log.cleanup.policy=compact , delete',
        'log.flush.interval.ms=9223372036854775807',
        'group.consumer.migration.policy=UPGRADE',
        'log.level=DEBUG',
      ],
    });
    expect(config.numPartitions).toBe(7);
    expect(config.autoCreateTopicsEnable).toBe(false);
    expect(config.get('log.cleaner.min.cleanable.ratio')).toBe(0.25);
    expect(config.get('log.cleanup.policy')).toEqual(['compact', 'delete']);
    expect(config.get('log.flush.interval.ms')).toBe(Number.MAX_SAFE_INTEGER);
    expect(config.get('group.consumer.migration.policy')).toBe('UPGRADE');
    expect(config.logLevel).toBe('debug');
    expect(config.get('log.retention.minutes')).toBeNull();
  });

  it('get() refuses names that are not broker configs', () => {
    expect(() => new BrokerConfig().get('retention.ms')).toThrow(UnknownConfigError);
  });

  it('validates known keys that kafkite otherwise ignores', () => {
    expect(configError(() => loadBrokerConfig({ env: { KAFKA_NUM_IO_THREADS: '0' } })).key).toBe('num.io.threads');
  });

  it("takes the admin listener's allowed hosts as a list and its principal as one principal", () => {
    const defaults = loadBrokerConfig({}).config;
    expect(defaults.adminAllowedHosts).toEqual([]);
    expect(defaults.adminPrincipal).toEqual({ principalType: 'User', name: 'ANONYMOUS' });
    const { config } = loadBrokerConfig({ env: { KAFKA_KAFKITE_ADMIN_ALLOWED_HOSTS: 'kafkite.internal, admin.example.com' }, overrides: ['kafkite.admin.principal= User:console:ops '] });
    expect(config.adminAllowedHosts).toEqual(['kafkite.internal', 'admin.example.com']);
    expect(config.adminPrincipal).toEqual({ principalType: 'User', name: 'console:ops' });
    for (const bad of ['console', 'User:a;User:b', ':x', 'User:']) {
      const err = configError(() => loadBrokerConfig({ overrides: [`kafkite.admin.principal=${bad}`] }));
      expect(err.key).toBe('kafkite.admin.principal');
      expect(err.message).toContain('expected a principal, such as User:alice');
    }
  });
});

describe('listeners', () => {
  const load = (...overrides: string[]): BrokerConfig => loadBrokerConfig({ overrides }).config;

  it('parses hosts, IPv6 brackets, ephemeral ports and lower-case names', () => {
    const config = load('listeners=plaintext://[::1]:0,INTERNAL://127.0.0.1:9093', 'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:plaintext');
    expect(config.listeners).toEqual([
      { name: 'PLAINTEXT', host: '::1', port: 0, securityProtocol: 'PLAINTEXT' },
      { name: 'INTERNAL', host: '127.0.0.1', port: 9093, securityProtocol: 'PLAINTEXT' },
    ]);
    expect(config.advertisedListeners).toEqual(config.listeners);
  });

  it('advertises localhost for an empty host and keeps explicit advertised listeners', () => {
    expect(load('listeners=PLAINTEXT://:0').advertisedListeners[0]!.host).toBe('localhost');
    // An empty advertised.listeners (Kafka 4.4 refuses it) counts as unset.
    expect(load('listeners=PLAINTEXT://:9093', 'advertised.listeners= ').advertisedListeners).toMatchObject([{ name: 'PLAINTEXT', host: 'localhost', port: 9093 }]);
    const config = load('listeners=PLAINTEXT://:9092', 'advertised.listeners=PLAINTEXT://broker.example:19092');
    expect(config.advertisedListeners).toEqual([{ name: 'PLAINTEXT', host: 'broker.example', port: 19092, securityProtocol: 'PLAINTEXT' }]);
  });

  it('leaves controller listeners out', () => {
    const config = load(
      'listeners=PLAINTEXT://:9092,CONTROLLER://:9093',
      'advertised.listeners=PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093',
      'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    );
    expect(config.listeners.map((l) => l.name)).toEqual(['PLAINTEXT']);
    expect(config.advertisedListeners.map((l) => l.name)).toEqual(['PLAINTEXT']);
  });

  it('accepts PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL listeners side by side, named through the protocol map', () => {
    const config = load(
      'listeners=LOCAL://127.0.0.1:9092,EXTERNAL://:9093,SSL://:9094,SASL_PLAINTEXT://:9095',
      'listener.security.protocol.map=LOCAL:PLAINTEXT,EXTERNAL:SASL_SSL,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT',
      'advertised.listeners=LOCAL://127.0.0.1:9092,EXTERNAL://kafka.example:19093,SSL://localhost:9094,SASL_PLAINTEXT://localhost:9095',
    );
    expect(config.listeners.map((l) => [l.name, l.securityProtocol])).toEqual([
      ['LOCAL', 'PLAINTEXT'], ['EXTERNAL', 'SASL_SSL'], ['SSL', 'SSL'], ['SASL_PLAINTEXT', 'SASL_PLAINTEXT'],
    ]);
    expect(config.advertisedListeners.find((l) => l.name === 'EXTERNAL')).toMatchObject({ host: 'kafka.example', port: 19093 });
  });

  it('resolves listener.name.<listener>.* overrides before the broker-wide key', () => {
    const config = load('ssl.keystore.type=PKCS12', 'listener.name.external.ssl.keystore.type=PEM', 'listener.name.external.plain.sasl.jaas.config=x');
    expect(config.listenerValue('EXTERNAL', 'ssl.keystore.type')).toBe('PEM');
    expect(config.listenerValue('INTERNAL', 'ssl.keystore.type')).toBe('PKCS12');
    expect(config.listenerValue('INTERNAL', 'ssl.client.auth')).toBe('none');
    expect(config.listenerValue('EXTERNAL', 'plain.sasl.jaas.config')).toBe('x');
  });

  it('rejects listener names without a security protocol, and bad protocol maps', () => {
    expect(configError(() => load('listeners=HTTP://:8080')).message).toContain('does not map HTTP');
    expect(configError(() => load('listener.security.protocol.map=PLAINTEXT:TLS')).key).toBe('listener.security.protocol.map');
    expect(configError(() => load('listener.security.protocol.map=PLAINTEXT')).key).toBe('listener.security.protocol.map');
  });

  it('rejects malformed endpoints, duplicate names and duplicate ports', () => {
    expect(configError(() => load('listeners=PLAINTEXT://localhost')).key).toBe('listeners');
    expect(configError(() => load('listeners=PLAINTEXT://:70000')).key).toBe('listeners');
    expect(configError(() => load('listeners=PLAINTEXT://:1,PLAINTEXT://:2')).message).toContain('PLAINTEXT appears twice');
    const ports = 'listener.security.protocol.map=A:PLAINTEXT,B:PLAINTEXT';
    expect(configError(() => load('listeners=A://:1,B://:1', ports)).message).toContain('1 appears twice');
    expect(load('listeners=A://:0,B://:0', ports).listeners).toHaveLength(2);
  });

  it('rejects advertising 0.0.0.0 or a listener name that listeners lacks', () => {
    expect(configError(() => load('listeners=PLAINTEXT://0.0.0.0:9092')).key).toBe('advertised.listeners');
    expect(load('listeners=PLAINTEXT://0.0.0.0:9092', 'advertised.listeners=PLAINTEXT://localhost:9092').listeners[0]!.host).toBe('0.0.0.0');
    const err = configError(() => load('advertised.listeners=SSL://localhost:9093'));
    expect(err.key).toBe('advertised.listeners');
  });

  it('needs at least one broker listener', () => {
    expect(configError(() => load('listeners=')).key).toBe('listeners');
  });
});

describe('logDirs and nodeId', () => {
  it('prefers log.dirs over log.dir and resolves relative paths against the working directory', () => {
    expect(new BrokerConfig({ 'log.dir': 'one' }, '/srv').logDirs).toEqual(['/srv/one']);
    expect(new BrokerConfig({ 'log.dir': 'one', 'log.dirs': 'a, /abs/b ' }, '/srv').logDirs).toEqual(['/srv/a', '/abs/b']);
    expect(loadBrokerConfig({ overrides: ['log.dirs=data'] }).config.logDirs).toEqual([resolve(process.cwd(), 'data')]);
    expect(configError(() => new BrokerConfig({ 'log.dirs': ' , ' })).key).toBe('log.dirs');
  });

  it('takes node.id, else broker.id, else 1', () => {
    expect(new BrokerConfig({ 'node.id': '5' }).nodeId).toBe(5);
    expect(new BrokerConfig({ 'broker.id': '0' }).nodeId).toBe(0);
    expect(new BrokerConfig({ 'node.id': '3', 'broker.id': '3' }).nodeId).toBe(3);
    expect(new BrokerConfig({ 'broker.id': '-1' }).nodeId).toBe(1);
    expect(new BrokerConfig().nodeId).toBe(1);
    expect(configError(() => new BrokerConfig({ 'node.id': '-1' })).key).toBe('node.id');
  });

  it('takes kafkite.storage.min.free.bytes as bytes or a percentage', () => {
    expect(new BrokerConfig({}).storageMinFree).toEqual({ bytes: 1073741824 });
    expect(new BrokerConfig({ 'kafkite.storage.min.free.bytes': '0' }).storageMinFree).toEqual({ bytes: 0 });
    expect(new BrokerConfig({ 'kafkite.storage.min.free.bytes': '5%' }).storageMinFree).toEqual({ percent: 5 });
    expect(new BrokerConfig({ 'kafkite.storage.min.free.bytes': '2.5%' }).storageMinFree).toEqual({ percent: 2.5 });
    for (const bad of ['1GB', '-1', '101%', '%', '']) {
      const err = configError(() => new BrokerConfig({ 'kafkite.storage.min.free.bytes': bad }));
      expect(err.key).toBe('kafkite.storage.min.free.bytes');
      expect(err.message).toContain('a number of bytes');
    }
  });

  it('rejects node.id and broker.id that differ, and ids below -1', () => {
    expect(configError(() => new BrokerConfig({ 'node.id': '1', 'broker.id': '2' })).message).toContain('the same value as broker.id (2)');
    expect(configError(() => new BrokerConfig({ 'broker.id': '-2' })).key).toBe('broker.id');
  });
});

describe('entries() for DescribeConfigs', () => {
  const config = loadBrokerConfig({
    overrides: ['num.partitions=3', 'log.retention.minutes=30', 'ssl.keystore.password=secret', 'log.flush.interval.messages=9223372036854775807'],
  }).config;
  const entry = (name: string) => config.entries().find((e) => e.name === name)!;

  it('lists every Kafka and kafkite broker config, read-only unless dynamically updatable', () => {
    const entries = config.entries();
    // Kafka 4.4's 384 table rows, log.message.downconversion.enable (Kafka 3.x's, for Fetch v0-3) and kafkite's 16.
    expect(entries.length).toBe(384 + 1 + 16);
    expect(entry('group.share.partition.max.record.locks')).toMatchObject({ value: '2000', source: ConfigSource.DEFAULT_CONFIG });
    expect(entry('group.share.max.delivery.count.limit')).toMatchObject({ value: '10', configType: 3 });
    expect(entries.find((e) => e.name === 'group.share.enable')).toBeUndefined();
    for (const name of ['log.dirs', 'node.id', 'process.roles', 'log.level', 'log.cleaner.enable']) expect(entry(name).readOnly).toBe(true);
    for (const name of ['log.retention.ms', 'log.retention.hours', 'message.max.bytes', 'log.cleanup.policy', 'log.cleaner.threads',
      'log.cleaner.min.cleanable.ratio', 'ssl.keystore.location', 'sasl.enabled.mechanisms']) expect(entry(name).readOnly).toBe(false);
    expect(entry('log.level')).toMatchObject({ value: 'info', source: ConfigSource.DEFAULT_CONFIG, configType: 2 });
  });

  it('reports static values, defaults and their sources', () => {
    expect(entry('num.partitions')).toMatchObject({
      value: '3',
      source: ConfigSource.STATIC_BROKER_CONFIG,
      configType: 3,
      synonyms: [
        { name: 'num.partitions', value: '3', source: ConfigSource.STATIC_BROKER_CONFIG },
        { name: 'num.partitions', value: '1', source: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    expect(entry('delete.topic.enable')).toMatchObject({ value: 'true', source: ConfigSource.DEFAULT_CONFIG, isSensitive: false });
    expect(entry('broker.rack')).toMatchObject({ value: null, source: ConfigSource.DEFAULT_CONFIG, synonyms: [] });
    expect(entry('log.flush.interval.messages').value).toBe('9223372036854775807');
  });

  it('gives a retention config the whole synonym chain', () => {
    expect(entry('log.retention.ms')).toMatchObject({
      value: null,
      source: ConfigSource.STATIC_BROKER_CONFIG,
      synonyms: [
        { name: 'log.retention.minutes', value: '30', source: ConfigSource.STATIC_BROKER_CONFIG },
        { name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG },
      ],
    });
  });

  it('hides sensitive values', () => {
    expect(entry('ssl.keystore.password')).toMatchObject({ value: null, isSensitive: true, configType: 9, source: ConfigSource.STATIC_BROKER_CONFIG });
    expect(entry('ssl.keystore.password').synonyms.every((s) => s.value === null)).toBe(true);
  });
});
