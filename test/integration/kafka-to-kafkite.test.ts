// Apache Kafka 4.4 -> kafkite, offline (issue #31, part 3): a Kafka 4.4 combined node is filled with Kafka's Java
// client (topics of every codec, one compacted, topic configs, classic and KIP-848 groups with committed offsets, a
// committed and an aborted transaction, an idempotent producer mid-stream, a SCRAM user, an ACL, a client quota),
// stopped cleanly, and kafkite starts on its log dir as the same node id: every record at its offset with the same
// topic ids and configs, the groups' offsets, read_committed, the producer's sequence, SCRAM and ACLs and quotas.
// Kafka is formatted at kafkite's metadata.version (4.1-IV0, level 26) with eligible leader replicas off, which
// kafkite lacks: a node never runs below its cluster's finalized levels (Kafka's QuorumFeatures refuses such a node,
// and metadata.version is never downgraded), so kafkite refuses Kafka 4.4's default (4.4-IV2) at start-up; that case
// is the last test here. Directories kafkite cannot serve are refused with every file left as it was.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceKafka } from '../../bench/lib/reference-kafka.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { KafkaTools } from '../helpers/java.js';
import {
  COMMON_PROPERTIES, expectAliceConsumes, expectEveryRecord, expectGroupOffsets, expectIdempotentProducerGoesOn, expectReadCommitted, expectSecurityRecords,
  expectTopicConfigs, fillNode, servedTopicIds, TOPICS, type Filled,
} from '../helpers/offline-move.js';
import { listenerPorts } from '../helpers/secure-broker.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { frameMetadataRecord, unframeMetadataRecord, type MetadataRecord } from '../../src/metadata/metadata-frame.js';
import { latestSnapshot } from '../../src/metadata/metadata-log-files.js';
import { metadataRecord, recordTypeOf } from '../../src/metadata/metadata-records.js';
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

/** A hash of every file's path, size and bytes under `dir`. */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      hash.update(`${p}\0${st.size}\0`);
      if (st.isDirectory()) walk(p);
      else hash.update(readFileSync(p));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** Runs kafkite on `dataDir` (node.id 1) to its exit, for a directory it refuses. */
function kafkiteRefuses(dataDir: string): { status: number | null; stderr: string } {
  const config = join(workDir, 'refused.properties');
  writeFileSync(config, `node.id=1\nlog.dirs=${dataDir}\nlisteners=PLAINTEXT://127.0.0.1:0\n`);
  try {
    execFileSync(process.execPath, ['bin/kafkite.js', 'start', config], { cwd: REPO_ROOT, encoding: 'utf8', stdio: 'pipe', timeout: 30_000 });
    return { status: 0, stderr: '' };
  } catch (err) {
    const e = err as { status: number | null; stderr: string };
    return { status: e.status, stderr: e.stderr };
  }
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kafka-to-kafkite-'));
  tools = new KafkaTools();
  kafka = await ReferenceKafka.start({ properties: KAFKA_PROPERTIES, formatArgs: FORMAT_AT_KAFKITES_LEVEL, readyTimeoutMs: 90_000 });
  filled = await fillNode(kafka.ports.PLAINTEXT!, `127.0.0.1:${kafka.ports.PLAINTEXT}`, tools);
  // SIGTERM: Kafka's controlled shutdown (143, the JVM's status once its shutdown hooks ran).
  expect(await kafka.stop()).toBe(143);
  kafkite = await startBroker({ dataDir: join(kafka.dir, 'data'), overrides: [...COMMON_PROPERTIES, 'node.id=1', 'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0'] });
  saslPort = listenerPorts(kafkite).SASL_PLAINTEXT!;
}, 420_000);

afterAll(async () => {
  await tools?.close();
  if (kafkite && kafkite.child.exitCode === null) expect(await kafkite.stop()).toBe(0);
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

  it("refuses Kafka 4.4's default metadata.version (4.4-IV2), the directory left unchanged", async () => {
    expect(await kafkite!.stop()).toBe(0);
    const dir = await reformatted('newer', []);
    expect(refusal(dir)).toMatch(/kafkite cannot serve the data dir .*metadata.version 33 is newer than kafkite serves \(26/);
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

/** A copy of the served data dir with `record` appended to its metadata log, as the leader appends a batch. */
function withRecordAppended(name: string, record: MetadataRecord): string {
  const dir = join(workDir, name);
  cpSync(join(kafka!.dir, 'data'), dir, { recursive: true });
  const segment = join(dir, '__cluster_metadata-0', '00000000000000000000.log');
  const last = [...batchesIn(readFileSync(segment))].at(-1)!;
  const next = last.lastOffset + 1;
  const value = frameMetadataRecord(record);
  appendFileSync(segment, encodeBatch({ baseOffset: next, partitionLeaderEpoch: last.partitionLeaderEpoch, records: [{ offset: next, timestamp: Date.now(), key: null, value, headers: [] }] }));
  return dir;
}

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
    // The topics are in the snapshot only.
    const topicRecords = kept.filter((b) => !b.isControl).flatMap((b) => decodeBatch(log.subarray(b.pos, b.pos + b.sizeInBytes)).records)
      .filter((r) => unframeMetadataRecord(r.value!).type === recordTypeOf('TopicRecord'));
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

/** kafkite's error on `dir`, checked to exit 1 and to change no file. */
function refusal(dir: string): string {
  const hash = treeHash(dir);
  const run = kafkiteRefuses(dir);
  expect(run.status).toBe(1);
  expect(treeHash(dir)).toBe(hash);
  return run.stderr;
}
