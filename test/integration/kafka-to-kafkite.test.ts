// Apache Kafka 4.4 -> kafkite, offline (issue #31, part 3): a Kafka 4.4 combined node is filled with Kafka's Java
// client (topics of every codec, one compacted, topic configs, classic and KIP-848 groups with committed offsets, a
// committed and an aborted transaction, an idempotent producer mid-stream, a SCRAM user, an ACL, a client quota),
// stopped cleanly, and kafkite starts on its log dir as the same node id: every record at its offset with the same
// topic ids and configs, the groups' offsets, read_committed, the producer's sequence, SCRAM and ACLs and quotas.
// Kafka is formatted here at kafkite's lowest metadata.version (4.1-IV0, level 26) with eligible leader replicas off,
// static voters; kafka44-default-dir.test.ts takes over a directory formatted Kafka 4.4's default way (4.4-IV2,
// kraft.version 1, ELR on). A level above 4.4-IV2 is refused (a node never runs below its cluster's finalized levels:
// Kafka's QuorumFeatures refuses such a node). Directories kafkite cannot serve are refused with every file left as it was.
// kafkite finalizes the log's feature levels (4.1-IV0: no share or streams groups, whose APIs answer as Kafka's do)
// until `kafka-features upgrade` raises them; and it records itself leader of the partitions Kafka's controlled
// shutdown left leaderless, so that Kafka, started on the directory again, finds them led by node 1.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceKafka } from '../../bench/lib/reference-kafka.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { finalizedFeatures, partitionLeaders, refusal as refusedUnchanged, withRecordAppended as appended } from '../helpers/kafka-data-dir.js';
import { compileJava, javaArgs, KafkaTools } from '../helpers/java.js';
import {
  COMMON_PROPERTIES, expectAliceConsumes, expectEveryRecord, expectGroupOffsets, expectIdempotentProducerGoesOn, expectReadCommitted, expectSecurityRecords,
  expectTopicConfigs, fillNode, servedTopicIds, TOPICS, type Filled,
} from '../helpers/offline-move.js';
import { until } from '../helpers/poll.js';
import { listenerPorts } from '../helpers/secure-broker.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import { unframeMetadataRecord, type MetadataRecord } from '../../src/metadata/metadata-frame.js';
import { latestSnapshot, readMetadataOnDisk } from '../../src/metadata/metadata-log-files.js';
import { metadataRecord, readMetadataRecord, recordTypeOf } from '../../src/metadata/metadata-records.js';
import { ErrorCode } from '../../src/errors.js';
import { connectWithRetry, initProducerId, readPartition } from '../reliability/support.js';

const KAFKA_PROPERTIES = [...COMMON_PROPERTIES, 'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
  // Snapshots every 2 s (Kafka's default is an hour): kafkite then replays the latest snapshot and the log after it.
  'metadata.log.max.snapshot.interval.ms=2000'];
const FORMAT_AT_KAFKITES_LEVEL = ['--release-version', '4.1-IV0', '--feature', 'eligible.leader.replicas.version=0'];

let kafka: ReferenceKafka | undefined;
let kafkite: BrokerProcess | undefined;
let tools: KafkaTools;
let workDir: string;
let saslPort: number;
let filled: Filled;
/** What Kafka answered before it stopped: its finalized features and the share group APIs. */
let kafkaAnswers: FeatureAnswers;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kafka-to-kafkite-'));
  tools = new KafkaTools();
  kafka = await ReferenceKafka.start({ properties: KAFKA_PROPERTIES, formatArgs: FORMAT_AT_KAFKITES_LEVEL, readyTimeoutMs: 90_000 });
  filled = await fillNode(kafka.ports.PLAINTEXT!, `127.0.0.1:${kafka.ports.PLAINTEXT}`, tools);
  kafkaAnswers = await featureAnswers(kafka.ports.PLAINTEXT!);
  // SIGTERM: Kafka's controlled shutdown (143, the JVM's status once its shutdown hooks ran).
  expect(await kafka.stop()).toBe(143);
  kafkite = await startBroker({ dataDir: join(kafka.dir, 'data'), overrides: [...COMMON_PROPERTIES, 'node.id=1', 'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0'] });
  saslPort = listenerPorts(kafkite).SASL_PLAINTEXT!;
}, 420_000);

afterAll(async () => {
  await tools?.close();
  for (const c of shareConsumers) c.kill('SIGKILL');
  if (kafkite && kafkite.child.exitCode === null) expect(await kafkite.stop()).toBe(0);
  await kafka?.stop();
  kafka?.cleanup();
  rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe('Kafka 4.4 -> kafkite on the same log dir', () => {
  it('serves every record at its offset, with the same topic ids', () => expectEveryRecord(kafkite!.port, filled));

  it('has the topic configs', () => expectTopicConfigs(tools, kafkite!.bootstrap));

  it("resumes the groups at their committed offsets (classic, KIP-848's consumer, and a transaction's)", () => expectGroupOffsets(tools, kafkite!.bootstrap));

  it('leaves the aborted transaction out of a read_committed read', () => expectReadCommitted(tools, kafkite!.bootstrap));

  it('lets the idempotent producer go on: its next batch is appended, a retried one is a duplicate', async () => {
    const client = await WireClient.connect(kafkite!.port);
    try {
      await expectIdempotentProducerGoesOn(client, filled);
      // A new producer id lies past the blocks Kafka's controller handed out (its ProducerIdsRecord).
      expect((await initProducerId(client)).producerId).toBeGreaterThan(filled.idempotent.producerId);
    } finally {
      client.close();
    }
  });

  it('has the SCRAM user, the ACL and the client quota', () => expectSecurityRecords(tools, kafkite!.bootstrap));

  it('logs alice in with her SCRAM credential and enforces her ACLs', () => expectAliceConsumes(tools, `127.0.0.1:${saslPort}`));

  it("finalizes the feature levels of Kafka's log: at 4.1-IV0 no share groups, whose APIs answer as Kafka's", async () => {
    const served = await featureAnswers(kafkite!.port);
    expect(kafkaAnswers.finalized.map((f) => f.name)).not.toContain('share.version');
    expect(kafkaAnswers.finalized.map((f) => f.name)).not.toContain('streams.version');
    expect(kafkaAnswers.finalized).toContainEqual({ name: 'metadata.version', level: 26 });
    expect(served.finalized).toEqual(kafkaAnswers.finalized);
    expect(kafkaAnswers.heartbeat.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect({ heartbeat: served.heartbeat, describe: served.describe }).toEqual({ heartbeat: kafkaAnswers.heartbeat, describe: kafkaAnswers.describe });
  });

  it('raises share.version with kafka-features, as a FeatureLevelRecord in the log; a share consumer then reads', async () => {
    const admin = ['--bootstrap-server', kafkite!.bootstrap];
    // Above what kafkite supports: refused as Kafka's controller refuses it, nothing written.
    const tooHigh = await tools.run('org.apache.kafka.tools.FeatureCommand', ...admin, 'upgrade', '--feature', 'share.version=3');
    expect(tooHigh.code).toBe(1);
    expect(tooHigh.out + tooHigh.err).toContain('Invalid update version 3 for feature share.version. Local controller 1 only supports versions 0-2');
    const upgrade = await tools.run('org.apache.kafka.tools.FeatureCommand', ...admin, 'upgrade', '--feature', 'share.version=1');
    expect({ code: upgrade.code, out: upgrade.out.trim() }).toEqual({ code: 0, out: 'share.version was upgraded to 1.' });
    const shareLevels = readMetadataOnDisk(join(kafka!.dir, 'data', '__cluster_metadata-0')).records
      .filter((r) => r.type === recordTypeOf('FeatureLevelRecord'))
      .map((r) => readMetadataRecord<{ name: string; featureLevel: number }>('FeatureLevelRecord', r))
      .filter((f) => f.name === 'share.version');
    expect(shareLevels).toEqual([{ name: 'share.version', featureLevel: 1 }]);
    const describe = await tools.run('org.apache.kafka.tools.FeatureCommand', ...admin, 'describe');
    expect(describe.out).toMatch(/Feature: share\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 2\s+FinalizedVersionLevel: 1\s/);
    expect(describe.out).toMatch(/Feature: streams\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 1\s+FinalizedVersionLevel: 0\s/);
    // Kafka 4.4's KafkaShareConsumer reads java-none from its start (share.auto.offset.reset is a group config).
    const config = await tools.run('org.apache.kafka.tools.ConfigCommand', ...admin, '--alter', '--entity-type', 'groups', '--entity-name', 'moved-share',
      '--add-config', 'share.auto.offset.reset=earliest');
    expect({ code: config.code, err: config.err }).toEqual({ code: 0, err: '' });
    const expected = filled.before.get('java-none')!.offsets;
    const received = await shareConsume(kafkite!.bootstrap, 'java-none', 'moved-share', expected.length);
    expect(received.sort((a, b) => a - b)).toEqual(expected);
  }, 120_000);

  it('refuses a metadata.version newer than 4.4-IV2, the directory left unchanged', async () => {
    expect(await kafkite!.stop()).toBe(0);
    // No Kafka 4.4 writes a level above 33: the record a later Kafka's upgrade would append.
    const dir = withRecordAppended('newer', metadataRecord('FeatureLevelRecord', 0, { name: 'metadata.version', featureLevel: 34 }));
    expect(refusal(dir)).toMatch(/kafkite cannot serve the data dir .*metadata.version 34 is newer than kafkite serves \(26\.\.33, 4\.1-IV0\.\.4\.4-IV2\)/);
  }, 60_000);

  it("refuses a multi-node cluster's directory (three voters), the directory left unchanged", async () => {
    const voters = [1, 2, 3].map((id) => `${id}@127.0.0.1:${kafka!.ports.CONTROLLER! + id - 1}:${Buffer.alloc(16, id).toString('base64url')}`).join(',');
    const dir = await reformatted('voters', [...FORMAT_AT_KAFKITES_LEVEL, '--initial-controllers', voters], (props) =>
      props.replace(/^controller\.quorum\.voters=\d+@(.*)$/m, 'controller.quorum.bootstrap.servers=$1'));
    expect(refusal(dir)).toContain("it is a multi-node cluster's directory: nodes 2, 3 besides this node (node.id 1) are voters or brokers");
  }, 60_000);

  it('refuses a topic with tiered storage, the directory left unchanged', () => {
    // Kafka's controller records the config as this ConfigRecord (tiered storage needs a remote storage plugin to enable).
    const dir = withRecordAppended('tiered', metadataRecord('ConfigRecord', 0, { resourceType: 2, resourceName: 'java-none', name: 'remote.storage.enable', value: 'true' }));
    expect(refusal(dir)).toContain('topics use tiered storage (remote.storage.enable=true), whose remote segments kafkite cannot read: java-none');
  });

  it('refuses a directory where another node leads a partition, the directory left unchanged', () => {
    // A reassignment's outcome as Kafka's controller records it: node 2 joined java-gzip-0's replicas and leads it.
    const change = { partitionId: 0, topicId: filled.topicIds.get('java-gzip')!, isr: [1, 2], leader: 2, replicas: [1, 2], removingReplicas: null, addingReplicas: null,
      leaderRecoveryState: -1, directories: null, eligibleLeaderReplicas: null, lastKnownElr: null };
    const dir = withRecordAppended('led-elsewhere', metadataRecord('PartitionChangeRecord', 0, change));
    expect(refusal(dir)).toContain('partitions have replicas on other nodes than node.id 1: java-gzip-0');
  });
});

/** A copy of the served data dir with `record` appended to its metadata log. */
const withRecordAppended = (name: string, record: MetadataRecord) => appended(join(kafka!.dir, 'data'), join(workDir, name), record);
const refusal = (dir: string) => refusedUnchanged(dir, workDir);

describe("Kafka's log start moved past its latest snapshot", () => {
  it('is served from the snapshot, then the log after it', async () => {
    const dir = join(workDir, 'snapshotted');
    cpSync(join(kafka!.dir, 'data'), dir, { recursive: true });
    const metadataDir = join(dir, '__cluster_metadata-0');
    const snapshot = latestSnapshot(metadataDir)!;
    expect(snapshot.endOffset).toBeGreaterThan(0);
    // What Kafka's KafkaMetadataLog.maybeClean leaves once its retention has run: the segments before the snapshot gone.
    const log = readFileSync(join(metadataDir, '00000000000000000000.log'));
    const kept = [...batchesIn(log)].filter((b) => b.lastOffset >= snapshot.endOffset);
    const base = kept[0]!.baseOffset;
    for (const f of readdirSync(metadataDir)) if (/^0{20}\.(log|index|timeindex)$/.test(f)) rmSync(join(metadataDir, f));
    writeFileSync(join(metadataDir, `${String(base).padStart(20, '0')}.log`), Buffer.concat(kept.map((b) => log.subarray(b.pos, b.pos + b.sizeInBytes))));
    // The filled topics are in the snapshot only (kafkite's share consumer above created __share_group_state after it).
    const topicRecords = kept.filter((b) => !b.isControl).flatMap((b) => decodeBatch(log.subarray(b.pos, b.pos + b.sizeInBytes)).records)
      .map((r) => unframeMetadataRecord(r.value!)).filter((r) => r.type === recordTypeOf('TopicRecord'))
      .filter((r) => TOPICS.includes(readMetadataRecord<{ name: string }>('TopicRecord', r).name));
    expect({ base: base > 0, topicRecordsAfterSnapshot: topicRecords.length }).toEqual({ base: true, topicRecordsAfterSnapshot: 0 });
    const broker = await startBroker({ dataDir: dir, overrides: [...COMMON_PROPERTIES, 'node.id=1'] });
    try {
      const client = await connectWithRetry(broker.port);
      const served = await servedTopicIds(client);
      for (const name of TOPICS) expect([name, served.get(name)]).toEqual([name, filled.topicIds.get(name)]);
      expect((await readPartition(client, 'java-none', 0)).values).toEqual(filled.before.get('java-none')!.values);
      client.close();
      // What only the snapshot holds: a topic config, the ACL, the SCRAM user (topics alone could be rebuilt from their directories).
      const admin = ['--bootstrap-server', broker.bootstrap];
      expect((await tools.run('org.apache.kafka.tools.ConfigCommand', ...admin, '--describe', '--entity-type', 'topics', '--entity-name', 'java-none')).out).toContain('retention.ms=86400000');
      expect((await tools.run('org.apache.kafka.tools.AclCommand', ...admin, '--list', '--topic', 'java-none')).out).toContain('principal=User:alice');
      expect((await tools.run('org.apache.kafka.tools.ConfigCommand', ...admin, '--describe', '--entity-type', 'users', '--entity-name', 'alice')).out).toContain('SCRAM-SHA-256=iterations=4096');
    } finally {
      expect(await broker.stop()).toBe(0);
    }
  }, 60_000);
});

describe('Kafka 4.4 on the directory again, after kafkite', () => {
  it("finds every partition led by node 1, as kafkite recorded it in Kafka's form", async () => {
    if (kafkite!.child.exitCode === null) expect(await kafkite!.stop()).toBe(0);
    const metadataDir = join(kafka!.dir, 'data', '__cluster_metadata-0');
    const leaders = partitionLeaders(readMetadataOnDisk(metadataDir).records);
    const recorded = new Map<string, number>();
    for (const name of TOPICS) {
      const p = leaders.get(`${filled.topicIds.get(name)}-0`)!;
      // Kafka's controlled shutdown left the partition leaderless; kafkite's change record names node 1, an epoch on.
      expect({ name, leaders: p.leaders.slice(-2) }).toEqual({ name, leaders: [-1, 1] });
      recorded.set(name, p.leaderEpoch);
    }
    // Kafka's own decoder reads kafkite's PartitionChangeRecord.
    const dump = await tools.run('org.apache.kafka.tools.DumpLogSegments', '--cluster-metadata-decoder', '--files', join(metadataDir, '00000000000000000000.log'));
    expect({ code: dump.code, err: dump.err }).toEqual({ code: 0, err: '' });
    const topicId = Buffer.from(filled.topicIds.get('java-none')!, 'hex').toString('base64url');
    expect(dump.out).toContain(`{"type":"PARTITION_CHANGE_RECORD","version":2,"data":{"partitionId":0,"topicId":"${topicId}","leader":1}}`);
    kafka = await kafka!.restart({ readyTimeoutMs: 90_000 });
    const client = await connectWithRetry(kafka.ports.PLAINTEXT!);
    try {
      const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      for (const name of TOPICS) {
        const p = metadata.topics.find((t: { name: string }) => t.name === name).partitions[0];
        // Kafka goes on from the epoch kafkite recorded (its own re-registration and unfencing bump it further).
        expect({ name, leader: p.leaderId, later: p.leaderEpoch > recorded.get(name)! }).toEqual({ name, leader: 1, later: true });
      }
      expect((await readPartition(client, 'java-none', 0)).values).toEqual(filled.before.get('java-none')!.values);
    } finally {
      client.close();
      expect(await kafka.stop()).toBe(143);
    }
  }, 180_000);
});

/** A copy of Kafka's data dir with its metadata log replaced by a new `kafka-storage format` with `args`. */
async function reformatted(name: string, args: string[], edit: (props: string) => string = (p) => p): Promise<string> {
  const dir = join(workDir, name);
  cpSync(join(kafka!.dir, 'data'), dir, { recursive: true });
  rmSync(join(dir, '__cluster_metadata-0'), { recursive: true });
  rmSync(join(dir, 'meta.properties'));
  const props = join(workDir, `${name}.properties`);
  writeFileSync(props, edit(readFileSync(join(kafka!.dir, 'server.properties'), 'utf8').replace(/^log\.dirs=.*$/m, `log.dirs=${dir}`)));
  const format = await tools.run('kafka.tools.StorageTool', 'format', '-t', 'AAAAAAAAAAAAAAAAAAAAAA', '-c', props, ...args);
  expect({ code: format.code, err: format.err }).toEqual({ code: 0, err: '' });
  return dir;
}

interface FeatureAnswers {
  finalized: Array<{ name: string; level: number }>;
  heartbeat: { errorCode: number };
  describe: unknown;
}

/** ApiVersions' finalized features of the node on `port`, and its answers to ShareGroupHeartbeat and ShareGroupDescribe. */
async function featureAnswers(port: number): Promise<FeatureAnswers> {
  const client = await WireClient.connectWithRetry(port);
  try {
    const finalized = await finalizedFeatures(client);
    const heartbeat = await client.send(76, 1, { groupId: 'moved-share', memberId: 'AAAAAAAAAAAAAAAAAAAAAA', memberEpoch: 0, rackId: null, subscribedTopicNames: ['java-none'] });
    const describe = await client.send(77, 1, { groupIds: ['moved-share'], includeAuthorizedOperations: false });
    return { finalized, heartbeat, describe };
  } finally {
    client.close();
  }
}

const shareConsumers: ChildProcessWithoutNullStreams[] = [];

/** The offsets a KafkaShareConsumer (implicit acknowledgement) receives from `topic` until it has `count` of them. */
async function shareConsume(bootstrap: string, topic: string, group: string, count: number): Promise<number[]> {
  const child = spawn('java', javaArgs('ShareConsumerApp', [bootstrap, topic, group, '100', '0', 'implicit'], compileJava('ShareConsumerApp')));
  shareConsumers.push(child);
  const received: number[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-10_000)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const event = line.startsWith('{') ? (JSON.parse(line) as { recv?: number }) : {};
    if (event.recv !== undefined) received.push(event.recv);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await until(() => received.length >= count || child.exitCode !== null, `${count} records in share group ${group} (${stderr})`);
  child.stdin.end();
  expect(await exited).toBe(0);
  return received;
}
