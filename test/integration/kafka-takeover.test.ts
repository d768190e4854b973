// kafkite -> Apache Kafka 4.4, offline (issue #31, part 2): kafkite is filled with Kafka's Java client (topics of
// every codec, one compacted, topic configs, classic and KIP-848 groups with committed offsets, a committed and an
// aborted transaction), stopped; Kafka's DumpLogSegments decodes its metadata log; then Kafka 4.4 (kafka.Kafka) starts
// on the same log dir with the properties `kafkite kafka-config` prints, and Kafka's own tools and clients find every
// record at its offset, the same topic ids and configs, the groups' committed offsets, and read_committed without the
// aborted records; no partition dir is moved aside as stray.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/free-port.js';
import { waitUntilServing } from '../../bench/lib/reference-kafka.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { compileJava, javaArgs, KafkaTools } from '../helpers/java.js';
import { runJsonClient } from '../helpers/json-client.js';
import { listenerPorts } from '../helpers/secure-broker.js';
import { until } from '../helpers/poll.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { connectWithRetry, initProducerId, produce, readPartition, recordBatch, type ProducerIdentity, type ReadBack } from '../reliability/support.js';

const CODEC_TOPICS = ['java-none', 'java-gzip', 'java-snappy', 'java-lz4', 'java-zstd'];
const TOPICS = [...CODEC_TOPICS, 'java-txn', 'compacted', 'idempotent'];
const OVERRIDES = [
  'auto.create.topics.enable=false', 'group.initial.rebalance.delay.ms=0', 'offsets.topic.num.partitions=3',
  'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users=User:ANONYMOUS',
  'sasl.enabled.mechanisms=SCRAM-SHA-256',
];
/** alice logs in with SCRAM on the SASL listener; her ACLs let her read java-none in group alice-group, nothing else. */
const ALICE = ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=SCRAM-SHA-256',
  'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";'];

let kafkite: BrokerProcess | undefined;
let kafka: ChildProcess | undefined;
let kafkaExited: Promise<number | null> | undefined;
let tools: KafkaTools;
let workDir: string;
let kafkaPort: number;
let saslPort: number;
/** What kafkite served before it stopped: topic ids and each partition 0's records. */
const topicIds = new Map<string, string>();
const before = new Map<string, ReadBack>();
let dumped: string;
/** An idempotent producer mid-stream on kafkite: its id, epoch and the next sequence. */
let idempotent: ProducerIdentity & { baseSequence: number };
let lastBatch: Buffer;

async function kafkiteFilled(): Promise<BrokerProcess> {
  const broker = await startBroker({ overrides: [...OVERRIDES, 'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0'] });
  const client = await connectWithRetry(broker.port);
  for (const name of TOPICS) {
    const configs = name === 'compacted' ? [{ name: 'cleanup.policy', value: 'compact' }, { name: 'min.compaction.lag.ms', value: '60000' }]
      : name === 'java-none' ? [{ name: 'retention.ms', value: '86400000' }] : [];
    const res = await client.send(19, 7, { topics: [{ name, numPartitions: name === 'compacted' ? 2 : 1, replicationFactor: 1, assignments: [], configs }], timeoutMs: 5000, validateOnly: false });
    expect(res.topics[0].errorCode).toBe(0);
  }
  const classes = compileJava('JavaClient');
  await runJsonClient('java', javaArgs('JavaClient', [broker.bootstrap, broker.bootstrap, 'produce', 'consume-classic', 'consume-consumer', 'transactions'], classes), { timeoutMs: 240_000 });
  // Keys of the compacted topic, a later value replacing an earlier one.
  const keyed = encodeBatch({
    baseOffset: 0,
    records: Array.from({ length: 50 }, (_, i) => ({ offset: i, timestamp: Date.now(), key: Buffer.from(`k-${i % 5}`), value: Buffer.from(`v-${i}`), headers: [] })),
  });
  expect((await produce(client, 'compacted', 0, keyed)).errorCode).toBe(0);
  const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  for (const t of metadata.topics) topicIds.set(t.name, t.topicId);
  // An idempotent producer's first two batches; it goes on on Kafka.
  const producer = await initProducerId(client);
  for (let i = 0; i < 2; i++) {
    lastBatch = recordBatch([`idem-${2 * i}`, `idem-${2 * i + 1}`], { ...producer, baseSequence: 2 * i });
    expect((await produce(client, 'idempotent', 0, lastBatch)).errorCode).toBe(0);
  }
  idempotent = { ...producer, baseSequence: 4 };
  // A SCRAM user, an ACL and a client quota, through Kafka's tools.
  const bootstrap = ['--bootstrap-server', broker.bootstrap];
  for (const args of [
    ['org.apache.kafka.tools.ConfigCommand', ...bootstrap, '--alter', '--entity-type', 'users', '--entity-name', 'alice', '--add-config', 'SCRAM-SHA-256=[iterations=4096,password=alice-secret]'],
    ['org.apache.kafka.tools.ConfigCommand', ...bootstrap, '--alter', '--entity-type', 'clients', '--entity-name', 'slow-client', '--add-config', 'producer_byte_rate=1024'],
    ['org.apache.kafka.tools.AclCommand', ...bootstrap, '--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'java-none', '--group', 'alice-group'],
  ]) {
    const run = await tools.run(args[0]!, ...args.slice(1));
    expect({ args, code: run.code, err: run.err }).toEqual({ args, code: 0, err: '' });
  }
  for (const name of TOPICS) before.set(name, await readPartition(client, name, 0));
  client.close();
  return broker;
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kafka-takeover-'));
  tools = new KafkaTools();
  kafkite = await kafkiteFilled();
  expect(await kafkite.stop()).toBe(0);
  const dataDir = kafkite.dataDir;
  const metadataLog = join(dataDir, '__cluster_metadata-0', '00000000000000000000.log');
  const dump = await tools.run('org.apache.kafka.tools.DumpLogSegments', '--cluster-metadata-decoder', '--files', metadataLog);
  expect(dump.code).toBe(0);
  dumped = dump.out;

  // The properties kafkite prints for Kafka, for the same config as the broker's (an empty file and the overrides).
  const ports = listenerPorts(kafkite);
  kafkaPort = ports.PLAINTEXT;
  saslPort = ports.SASL_PLAINTEXT;
  const controllerPort = await freePort();
  const empty = join(workDir, 'kafkite.properties');
  writeFileSync(empty, '');
  const args = ['bin/kafkite.js', 'kafka-config', empty, '--controller-port', String(controllerPort),
    ...[`log.dirs=${dataDir}`, ...OVERRIDES, `listeners=PLAINTEXT://127.0.0.1:${kafkaPort},SASL_PLAINTEXT://127.0.0.1:${saslPort}`].flatMap((o) => ['--override', o])];
  const properties = execFileSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  writeFileSync(join(workDir, 'server.properties'), properties);
  const log4j = join(workDir, 'log4j2.properties');
  writeFileSync(log4j, [
    'appender.file.type=File', 'appender.file.name=FILE', `appender.file.fileName=${join(workDir, 'kafka.log')}`,
    'appender.file.layout.type=PatternLayout', 'appender.file.layout.pattern=[%d] %p %m (%c)%n',
    'rootLogger.level=INFO', 'rootLogger.appenderRef.file.ref=FILE',
  ].join('\n') + '\n');
  kafka = spawn('java', ['-Xms64m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dlog4j2.configurationFile=${log4j}`,
    '-cp', join(REPO_ROOT, 'test/kafka/lib/*'), 'kafka.Kafka', join(workDir, 'server.properties')], { cwd: workDir, stdio: 'ignore' });
  kafkaExited = new Promise((r) => kafka!.once('exit', (code) => r(code)));
  await waitUntilServing(kafkaPort, 90_000).catch((err) => {
    throw new Error(`${(err as Error).message}: ${readFileSync(join(workDir, 'kafka.log'), 'utf8').slice(-3000)}`);
  });
}, 420_000);

afterAll(async () => {
  if (kafka && kafka.exitCode === null) {
    kafka.kill('SIGTERM');
    const timer = setTimeout(() => kafka?.kill('SIGKILL'), 20_000);
    await kafkaExited;
    clearTimeout(timer);
  }
  await tools?.close();
  if (kafkite) {
    if (kafkite.child.exitCode === null) await kafkite.kill();
    kafkite.cleanup();
  }
  rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe('kafkite -> Kafka 4.4 on the same log dir', () => {
  it("Kafka's DumpLogSegments decodes kafkite's metadata log: the topics and their partitions", () => {
    expect(dumped).toContain('LeaderChange: {"version":0,"leaderId":1');
    expect(dumped).toContain('"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":26}');
    expect(dumped).toContain('"type":"REGISTER_BROKER_RECORD"');
    for (const name of TOPICS) {
      const id = Buffer.from(topicIds.get(name)!, 'hex').toString('base64url');
      expect(dumped).toContain(`"type":"TOPIC_RECORD","version":0,"data":{"name":"${name}","topicId":"${id}"}`);
      expect(dumped).toContain(`"type":"PARTITION_RECORD","version":1,"data":{"partitionId":0,"topicId":"${id}","replicas":[1],"isr":[1]`);
    }
    expect(dumped).toContain('"type":"CONFIG_RECORD","version":0,"data":{"resourceType":2,"resourceName":"compacted","name":"cleanup.policy","value":"compact"}');
    expect(dumped).not.toContain('Exception');
  });

  it('serves every record at its offset, with the same topic ids', async () => {
    const client = await WireClient.connect(kafkaPort);
    try {
      const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      const served = new Map<string, string>(metadata.topics.map((t: { name: string; topicId: string }) => [t.name, t.topicId]));
      for (const name of TOPICS) expect([name, served.get(name)]).toEqual([name, topicIds.get(name)]);
      for (const name of TOPICS) {
        const kept = before.get(name)!;
        expect(kept.values.length).toBeGreaterThan(0);
        // The new leader's high watermark reaches the log end once it has taken the partition over.
        let read = await readPartition(client, name, 0);
        await until(async () => (read = await readPartition(client, name, 0)).offsets.length >= kept.offsets.length, `${name} served up to its end`, 30_000).catch(() => {});
        expect({ name, errorCode: read.errorCode, count: read.offsets.length }).toEqual({ name, errorCode: 0, count: kept.offsets.length });
        expect({ name, offsets: read.offsets, values: read.values }).toEqual({ name, offsets: kept.offsets, values: kept.values });
      }
    } finally {
      client.close();
    }
  });

  it('has the topic configs', async () => {
    const compacted = await tools.run('org.apache.kafka.tools.ConfigCommand', '--bootstrap-server', `127.0.0.1:${kafkaPort}`, '--describe', '--entity-type', 'topics', '--entity-name', 'compacted');
    expect(compacted.out).toContain('cleanup.policy=compact');
    expect(compacted.out).toContain('min.compaction.lag.ms=60000');
    const none = await tools.run('org.apache.kafka.tools.ConfigCommand', '--bootstrap-server', `127.0.0.1:${kafkaPort}`, '--describe', '--entity-type', 'topics', '--entity-name', 'java-none');
    expect(none.out).toContain('retention.ms=86400000');
  });

  it("resumes the groups at their committed offsets (classic, KIP-848's consumer, and a transaction's)", async () => {
    for (const [group, topic, offset] of [['java-g-classic', 'java-none', 100], ['java-g-consumer', 'java-gzip', 100], ['java-txn-group', 'java-none', 42]] as const) {
      const run = await tools.run('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', '--bootstrap-server', `127.0.0.1:${kafkaPort}`, '--describe', '--group', group);
      const row = run.out.split('\n').find((l) => l.includes(` ${topic} `));
      expect({ group, row: row?.trim().split(/\s+/).slice(1, 4) }).toEqual({ group, row: [topic, '0', String(offset)] });
    }
  });

  it('leaves the aborted transaction out of a read_committed read', async () => {
    const records = await tools.consumeCommitted(`127.0.0.1:${kafkaPort}`, 'java-txn');
    expect(records.map(([, , value]) => value)).toEqual([...Array.from({ length: 10 }, (_, i) => `committed-${i}`), 'committed-after-abort']);
  });

  it('lets the idempotent producer go on: its next batch is appended, a retried one is a duplicate', async () => {
    const client = await WireClient.connect(kafkaPort);
    try {
      const retried = await produce(client, 'idempotent', 0, lastBatch);
      expect({ errorCode: retried.errorCode, baseOffset: retried.baseOffset }).toEqual({ errorCode: 0, baseOffset: 2 });
      const next = await produce(client, 'idempotent', 0, recordBatch(['idem-4', 'idem-5'], idempotent));
      expect({ errorCode: next.errorCode, baseOffset: next.baseOffset }).toEqual({ errorCode: 0, baseOffset: 4 });
      expect((await readPartition(client, 'idempotent', 0)).values).toEqual(['idem-0', 'idem-1', 'idem-2', 'idem-3', 'idem-4', 'idem-5']);
      // Kafka's controller hands out producer ids past kafkite's reserved block (ProducerIdsRecord).
      // (COORDINATOR_LOAD_IN_PROGRESS, retriable, until the broker has its first block from the controller.)
      let fresh: ProducerIdentity | undefined;
      await until(async () => (fresh = await initProducerId(client).catch(() => undefined)) !== undefined, 'a producer id from Kafka', 30_000);
      expect(fresh!.producerId).toBeGreaterThan(idempotent.producerId);
    } finally {
      client.close();
    }
  });

  it('has the SCRAM user, the ACL and the client quota', async () => {
    const bootstrap = ['--bootstrap-server', `127.0.0.1:${kafkaPort}`];
    const users = await tools.run('org.apache.kafka.tools.ConfigCommand', ...bootstrap, '--describe', '--entity-type', 'users', '--entity-name', 'alice');
    expect(users.out).toContain('SCRAM-SHA-256=iterations=4096');
    const quotas = await tools.run('org.apache.kafka.tools.ConfigCommand', ...bootstrap, '--describe', '--entity-type', 'clients', '--entity-name', 'slow-client');
    expect(quotas.out).toContain('producer_byte_rate=1024');
    const acls = await tools.run('org.apache.kafka.tools.AclCommand', ...bootstrap, '--list', '--topic', 'java-none');
    expect(acls.out).toMatch(/principal=User:alice, host=\*, operation=READ, permissionType=ALLOW/);
  });

  it("logs alice in with her SCRAM credential and enforces her ACLs", async () => {
    const consume = (topic: string) => tools.run('org.apache.kafka.tools.consumer.ConsoleConsumer', '--bootstrap-server', `127.0.0.1:${saslPort}`,
      '--topic', topic, '--group', 'alice-group', '--from-beginning', '--max-messages', '100', '--timeout-ms', '15000',
      ...ALICE.flatMap((p) => ['--consumer-property', p]));
    const allowed = await consume('java-none');
    expect(allowed.out.split('\n').filter((l) => l.startsWith('record '))).toHaveLength(100);
    const denied = await consume('java-gzip');
    expect(denied.out.split('\n').filter((l) => l.startsWith('record '))).toEqual([]);
    // Kafka's GetOffsetShell as alice: READ (which implies DESCRIBE) lets her list java-none's offsets; java-gzip is refused.
    const aliceConfig = join(workDir, 'alice.properties');
    writeFileSync(aliceConfig, ALICE.join('\n') + '\n');
    const offsets = (topic: string) => tools.run('org.apache.kafka.tools.GetOffsetShell', '--bootstrap-server', `127.0.0.1:${saslPort}`, '--command-config', aliceConfig, '--topic', topic);
    const visible = await offsets('java-none');
    expect(visible.out.trim()).toBe('java-none:0:100');
    const hidden = await offsets('java-gzip');
    expect(hidden.out).not.toContain('java-gzip:0:');
    // Kafka lists only the topics she may describe.
    expect(hidden.out + hidden.err).toContain('Could not match any topic-partitions');
  });

  it('moves no partition dir aside as stray', () => {
    const dirs = readdirSync(kafkite!.dataDir);
    expect(dirs.filter((d) => d.includes('-stray') || d.endsWith('-delete'))).toEqual([]);
    for (const name of TOPICS) expect(existsSync(join(kafkite!.dataDir, `${name}-0`))).toBe(true);
    expect(readFileSync(join(workDir, 'kafka.log'), 'utf8')).not.toMatch(/stray/i);
  });
});
