// kafkite -> Apache Kafka 4.4, offline (issue #31, part 2): kafkite is filled with Kafka's Java client (topics of
// every codec, one compacted, topic configs, classic and KIP-848 groups with committed offsets, a committed and an
// aborted transaction), with small metadata snapshot thresholds, so that it snapshots its metadata image and deletes
// the log segments the snapshot covers; it is stopped; Kafka's DumpLogSegments decodes its latest snapshot and the
// log after it; then Kafka 4.4 (kafka.Kafka) starts
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
import {
  ALICE, COMMON_PROPERTIES, expectAliceConsumes, expectEveryRecord, expectGroupOffsets, expectIdempotentProducerGoesOn, expectReadCommitted, expectSecurityRecords,
  expectTopicConfigs, fillNode, TOPICS, type Filled,
} from '../helpers/offline-move.js';
import { listenerPorts } from '../helpers/secure-broker.js';
import { until } from '../helpers/poll.js';
import { initProducerId, type ProducerIdentity } from '../reliability/support.js';

let kafkite: BrokerProcess | undefined;
let kafka: ChildProcess | undefined;
let kafkaExited: Promise<number | null> | undefined;
let tools: KafkaTools;
let workDir: string;
let kafkaPort: number;
let saslPort: number;
/** What kafkite served before it stopped. */
let filled: Filled;
let dumped: string;
/** `tree /image` of Kafka's metadata shell on kafkite's latest snapshot. */
let shellTree: string;
/** The metadata log's directory when kafkite stopped. */
let metadataFiles: string[];

/** A snapshot every KiB of metadata records, 1 KiB segments, and only the latest snapshot kept. */
const SMALL_SNAPSHOTS = ['metadata.log.max.record.bytes.between.snapshots=1024', 'internal.metadata.log.segment.bytes=1024',
  'metadata.max.retention.bytes=1'];

const KAFKITE_PROPERTIES = [...COMMON_PROPERTIES, ...SMALL_SNAPSHOTS, 'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0'];

async function kafkiteFilled(): Promise<BrokerProcess> {
  const broker = await startBroker({ overrides: KAFKITE_PROPERTIES });
  filled = await fillNode(broker.port, broker.bootstrap, tools);
  return broker;
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kafka-takeover-'));
  tools = new KafkaTools();
  kafkite = await kafkiteFilled();
  expect(await kafkite.stop()).toBe(0);
  // kafkite restarts from its snapshot and the log after it, the segments before it deleted, with everything there.
  const again = await startBroker({ dataDir: kafkite.dataDir, overrides: KAFKITE_PROPERTIES });
  try {
    await expectEveryRecord(again.port, filled);
    await expectTopicConfigs(tools, again.bootstrap);
    await expectSecurityRecords(tools, again.bootstrap);
  } finally {
    expect(await again.stop()).toBe(0);
  }
  const dataDir = kafkite.dataDir;
  metadataFiles = readdirSync(join(dataDir, '__cluster_metadata-0'));
  const snapshotAndLog = metadataFiles.filter((f) => /^\d{20}(-\d{10}\.checkpoint|\.log)$/.test(f)).sort().map((f) => join(dataDir, '__cluster_metadata-0', f));
  const dump = await tools.run('org.apache.kafka.tools.DumpLogSegments', '--cluster-metadata-decoder', '--files', snapshotAndLog.join(','));
  expect(dump.code).toBe(0);
  dumped = dump.out;
  // Kafka's metadata shell (kafka-shell 4.3.1 on the 4.4 jars, with the three names 4.4 moved given back) prints
  // the image it loads from kafkite's latest snapshot.
  const snapshot = snapshotAndLog.filter((f) => f.endsWith('.checkpoint')).at(-1)!;
  const shims = ['TerseFailure', 'Exit', 'AppInfoParser'].map(compileJava).join(':');
  shellTree = execFileSync('java', javaArgs('org.apache.kafka.shell.MetadataShell', ['--snapshot', snapshot, 'tree', '/image'], shims), { cwd: workDir }).toString();

  // The properties kafkite prints for Kafka, for the same config as the broker's (an empty file and the overrides).
  const ports = listenerPorts(kafkite);
  kafkaPort = ports.PLAINTEXT;
  saslPort = ports.SASL_PLAINTEXT;
  const controllerPort = await freePort();
  const empty = join(workDir, 'kafkite.properties');
  writeFileSync(empty, '');
  const args = ['bin/kafkite.js', 'kafka-config', empty, '--controller-port', String(controllerPort),
    ...[`log.dirs=${dataDir}`, ...COMMON_PROPERTIES, `listeners=PLAINTEXT://127.0.0.1:${kafkaPort},SASL_PLAINTEXT://127.0.0.1:${saslPort}`].flatMap((o) => ['--override', o])];
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
  it('snapshotted its metadata and deleted the log segments and snapshots the latest snapshot covers', () => {
    const snapshots = metadataFiles.filter((f) => f.endsWith('.checkpoint'));
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).not.toBe('00000000000000000000-0000000000.checkpoint');
    expect(metadataFiles).not.toContain('00000000000000000000.log');
  });

  it("Kafka's DumpLogSegments decodes kafkite's metadata snapshot and log: the topics and their partitions", () => {
    expect(dumped).toMatch(/SnapshotHeader/);
    expect(dumped).toMatch(/SnapshotFooter/);
    expect(dumped).toContain('"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":33}');
    expect(dumped).toContain('"type":"REGISTER_BROKER_RECORD"');
    for (const name of TOPICS) {
      const id = Buffer.from(filled.topicIds.get(name)!, 'hex').toString('base64url');
      expect(dumped).toContain(`"type":"TOPIC_RECORD","version":0,"data":{"name":"${name}","topicId":"${id}"}`);
      expect(dumped).toContain(`"type":"PARTITION_RECORD","version":1,"data":{"partitionId":0,"topicId":"${id}","replicas":[1],"isr":[1]`);
    }
    expect(dumped).toContain('"type":"CONFIG_RECORD","version":0,"data":{"resourceType":2,"resourceName":"compacted","name":"cleanup.policy","value":"compact"}');
    expect(dumped).not.toContain('Exception');
  });

  it("Kafka's metadata shell loads kafkite's snapshot: the topics with their ids and leader, configs, SCRAM, ACLs, quotas, the features", () => {
    for (const name of TOPICS) {
      const id = Buffer.from(filled.topicIds.get(name)!, 'hex').toString('base64url');
      expect(shellTree).toMatch(new RegExp(`\\n {4}${name}:\\n {6}0:\\n {8}PartitionRegistration\\(replicas=\\[1\\],[^\\n]*isr=\\[1\\],[^\\n]*leader=1,[^\\n]*\\n(?: {6}\\d+:\\n {8}[^\\n]*\\n)* {6}id:\\n {8}${id}\\n`));
    }
    expect(shellTree).toMatch(/\n {2}metadataVersion:\n {4}Optional\[4\.4-IV2\]\n/);
    expect(shellTree).toMatch(/cleanup\.policy:\n\s+compact\n/);
    expect(shellTree).toMatch(/SCRAM-SHA-256:\n\s+alice:/);
    expect(shellTree).toContain('principal=User:alice');
    expect(shellTree).toContain('slow-client');
    expect(shellTree).not.toContain('Exception');
  });

  it('serves every record at its offset, with the same topic ids', () => expectEveryRecord(kafkaPort, filled));

  it('has the topic configs', () => expectTopicConfigs(tools, `127.0.0.1:${kafkaPort}`));

  it("resumes the groups at their committed offsets (classic, KIP-848's consumer, and a transaction's)", () => expectGroupOffsets(tools, `127.0.0.1:${kafkaPort}`));

  it('leaves the aborted transaction out of a read_committed read', () => expectReadCommitted(tools, `127.0.0.1:${kafkaPort}`));

  it('lets the idempotent producer go on: its next batch is appended, a retried one is a duplicate', async () => {
    const client = await WireClient.connect(kafkaPort);
    try {
      await expectIdempotentProducerGoesOn(client, filled);
      // Kafka's controller hands out producer ids past kafkite's reserved block (ProducerIdsRecord).
      // (COORDINATOR_LOAD_IN_PROGRESS, retriable, until the broker has its first block from the controller.)
      let fresh: ProducerIdentity | undefined;
      await until(async () => (fresh = await initProducerId(client).catch(() => undefined)) !== undefined, 'a producer id from Kafka', 30_000);
      expect(fresh!.producerId).toBeGreaterThan(filled.idempotent.producerId);
    } finally {
      client.close();
    }
  });

  it('has the SCRAM user, the ACL and the client quota', () => expectSecurityRecords(tools, `127.0.0.1:${kafkaPort}`));

  it("logs alice in with her SCRAM credential and enforces her ACLs", async () => {
    await expectAliceConsumes(tools, `127.0.0.1:${saslPort}`);
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
