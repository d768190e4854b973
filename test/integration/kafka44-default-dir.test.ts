// Apache Kafka 4.4 -> kafkite -> Kafka 4.4 on a data dir formatted the default way (issue #31, "the way out and
// back"): `kafka-storage format --standalone` with controller.quorum.bootstrap.servers, as Kafka's quickstart, which
// finalizes metadata.version 4.4-IV2 (33), kraft.version 1 (KIP-853: the node its quorum's one dynamic voter, its
// VotersRecord and KRaftVersionRecord in the log and snapshots) and eligible.leader.replicas.version 1 (KIP-966), and share.version 2 (the share groups' dead-letter queue, KIP-1191).
// The node is filled (offline-move.ts' fill, plus an ACL whose host is a CIDR block, 4.4-IV1's KIP-1276), killed
// with SIGKILL (that crash image is taken over by a second kafkite), restarted and stopped cleanly (its controlled
// shutdown leaves each partition leaderless with ELR [1]); kafkite takes the directory over, and Kafka 4.4 starts
// on it again afterwards. A directory formatted and never started is served too. Three Kafka starts in all; the
// file takes 60-90 s.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceKafka } from '../../bench/lib/reference-kafka.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import { latestSnapshot, readMetadataOnDisk } from '../../src/metadata/metadata-log-files.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { KafkaTools } from '../helpers/java.js';
import { finalizedFeatures, metadataLogRecords, partitionLeaders, refusal } from '../helpers/kafka-data-dir.js';
import {
  aliceConsumes, COMMON_PROPERTIES, expectAliceConsumes, expectEveryRecord, expectGroupOffsets, expectIdempotentProducerGoesOn, expectReadCommitted,
  expectSecurityRecords, expectTopicConfigs, fillNode, TOPICS, type Filled,
} from '../helpers/offline-move.js';
import { until } from '../helpers/poll.js';
import { listenerPorts } from '../helpers/secure-broker.js';
import { connectWithRetry, produce, readPartition, recordBatch } from '../reliability/support.js';

const LISTENERS = 'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0';
const KAFKA_PROPERTIES = [...COMMON_PROPERTIES, LISTENERS,
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
  'metadata.log.max.snapshot.interval.ms=2000'];
/** kafkite snapshots a second after its first append, so that Kafka's return loads a snapshot kafkite wrote. */
const KAFKITE_PROPERTIES = [...COMMON_PROPERTIES, 'node.id=1', LISTENERS, 'metadata.log.max.snapshot.interval.ms=1000'];
/** Kafka's ControlRecordType ids: a log's first batch and a snapshot's header batch at kraft.version 1. */
const LEADER_CHANGE = 2;
const SNAPSHOT_HEADER = 3;
const KRAFT_VERSION = 5;
const KRAFT_VOTERS = 6;
const NEW_VALUES = ['after-takeover-0', 'after-takeover-1', 'after-takeover-2'];

let kafka: ReferenceKafka;
let kafkite: BrokerProcess | undefined;
let tools: KafkaTools;
let workDir: string;
let filled: Filled;
let crashDir: string;
let kafkaFinalized: Array<{ name: string; level: number }>;
/** Each filled topic's leader epoch as kafkite recorded it. */
const recordedEpochs = new Map<string, number>();

const dataDir = () => join(kafka.dir, 'data');
const metadataDir = (dir: string) => join(dir, '__cluster_metadata-0');

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kafka44-default-dir-'));
  tools = new KafkaTools();
  kafka = await ReferenceKafka.start({ standalone: true, properties: KAFKA_PROPERTIES, readyTimeoutMs: 90_000 });
  filled = await fillNode(kafka.ports.PLAINTEXT!, `127.0.0.1:${kafka.ports.PLAINTEXT}`, tools);
  // An ACL host given as a CIDR block (KIP-1276, metadata.version 4.4-IV1 on): alice may read java-lz4 from 127.0.0.0/8.
  const acl = await tools.run('org.apache.kafka.tools.AclCommand', '--bootstrap-server', `127.0.0.1:${kafka.ports.PLAINTEXT}`, '--add',
    '--allow-principal', 'User:alice', '--allow-host', '127.0.0.0/8', '--operation', 'Read', '--topic', 'java-lz4');
  expect({ code: acl.code, err: acl.err }).toEqual({ code: 0, err: '' });
  await kafka.kill();
  crashDir = join(workDir, 'crashed');
  cpSync(dataDir(), crashDir, { recursive: true });
  kafka = await kafka.restart({ readyTimeoutMs: 90_000 });
  const client = await connectWithRetry(kafka.ports.PLAINTEXT!);
  kafkaFinalized = await finalizedFeatures(client);
  client.close();
  // SIGTERM: Kafka's controlled shutdown (143, the JVM's status once its shutdown hooks ran).
  expect(await kafka.stop()).toBe(143);
  kafkite = await startBroker({ dataDir: dataDir(), overrides: KAFKITE_PROPERTIES });
}, 480_000);

afterAll(async () => {
  await tools?.close();
  if (kafkite && kafkite.child.exitCode === null) expect(await kafkite.stop()).toBe(0);
  await kafka?.stop();
  kafka?.cleanup();
  rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe('a default-formatted Kafka 4.4 dir (4.4-IV2, kraft.version 1, ELR on) -> kafkite', () => {
  it("was formatted at Kafka 4.4's defaults, node 1 the one voter of its VotersRecord", () => {
    expect(kafkaFinalized).toEqual(expect.arrayContaining([
      { name: 'metadata.version', level: 33 }, { name: 'kraft.version', level: 1 }, { name: 'eligible.leader.replicas.version', level: 1 },
    ]));
    const onDisk = readMetadataOnDisk(metadataDir(crashDir));
    expect({ kraftVersion: onDisk.kraftVersion, voters: onDisk.voterSets.at(-1)?.map((v) => v.id) }).toEqual({ kraftVersion: 1, voters: [1] });
  });

  it('answers ApiVersions with the finalized features Kafka answered with', async () => {
    const client = await WireClient.connect(kafkite!.port);
    try {
      expect(await finalizedFeatures(client)).toEqual(kafkaFinalized);
    } finally {
      client.close();
    }
  });

  it('serves every record at its offset, with the same topic ids', () => expectEveryRecord(kafkite!.port, filled));

  it('has the topic configs', () => expectTopicConfigs(tools, kafkite!.bootstrap));

  it("resumes the groups at their committed offsets (classic, KIP-848's consumer, and a transaction's)", () => expectGroupOffsets(tools, kafkite!.bootstrap));

  it('leaves the aborted transaction out of a read_committed read', () => expectReadCommitted(tools, kafkite!.bootstrap));

  it('lets the idempotent producer go on', async () => {
    const client = await WireClient.connect(kafkite!.port);
    try {
      await expectIdempotentProducerGoesOn(client, filled);
    } finally {
      client.close();
    }
  });

  it('has the SCRAM user, the ACLs and the client quota, and enforces the CIDR-host ACL', async () => {
    await expectSecurityRecords(tools, kafkite!.bootstrap);
    const sasl = `127.0.0.1:${listenerPorts(kafkite!).SASL_PLAINTEXT}`;
    await expectAliceConsumes(tools, sasl);
    // Only the ACL on 127.0.0.0/8 lets alice read java-lz4.
    expect(await aliceConsumes(tools, sasl, 'java-lz4')).toHaveLength(filled.before.get('java-lz4')!.values.length);
  }, 60_000);

  it("leads each partition again as Kafka's controller would on the node's return: isr [1], the ELR fields cleared", async () => {
    const leaders = partitionLeaders(metadataLogRecords(metadataDir(dataDir())));
    const client = await WireClient.connect(kafkite!.port);
    try {
      const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      for (const name of TOPICS) {
        const p = leaders.get(`${filled.topicIds.get(name)}-0`)!;
        // Kafka's controlled shutdown: isr [], leader -1, ELR and lastKnownElr [1]; kafkite's change undoes it.
        expect({ name, leaders: p.leaders.slice(-2), change: p.lastChange }).toEqual({
          name, leaders: [-1, 1],
          change: expect.objectContaining({ leader: 1, isr: [1], eligibleLeaderReplicas: [], lastKnownElr: [] }),
        });
        const served = metadata.topics.find((t: { name: string }) => t.name === name).partitions[0];
        expect({ name, leader: served.leaderId, epoch: served.leaderEpoch }).toEqual({ name, leader: 1, epoch: p.leaderEpoch });
        recordedEpochs.set(name, p.leaderEpoch);
      }
    } finally {
      client.close();
    }
  });

  it('appends new batches after the records Kafka wrote, stamped with the new leader epoch', async () => {
    const client = await WireClient.connect(kafkite!.port);
    try {
      const end = filled.before.get('java-none')!.offsets.at(-1)! + 1;
      const res = await produce(client, 'java-none', 0, recordBatch(NEW_VALUES));
      expect({ errorCode: res.errorCode, baseOffset: res.baseOffset }).toEqual({ errorCode: 0, baseOffset: end });
      expect((await readPartition(client, 'java-none', 0, end)).values).toEqual(NEW_VALUES);
    } finally {
      client.close();
    }
    const segment = readFileSync(join(dataDir(), 'java-none-0', '00000000000000000000.log'));
    expect([...batchesIn(segment)].at(-1)!.partitionLeaderEpoch).toBe(recordedEpochs.get('java-none'));
  });

  it('snapshots the metadata image with the KRaftVersion and Voters records after its header, as Kafka does at kraft.version 1', async () => {
    const dir = metadataDir(dataDir());
    const registered = readMetadataOnDisk(dir).endOffset!;
    let snapshot = latestSnapshot(dir);
    await until(() => (snapshot = latestSnapshot(dir)) !== null && snapshot.endOffset >= registered, 'a snapshot by kafkite');
    const bytes = readFileSync(snapshot!.file);
    const header = [...batchesIn(bytes)][0]!;
    const keys = decodeBatch(bytes.subarray(header.pos, header.pos + header.sizeInBytes)).records.map((r) => r.key!.readInt16BE(2));
    expect({ control: header.isControl, keys }).toEqual({ control: true, keys: [SNAPSHOT_HEADER, KRAFT_VERSION, KRAFT_VOTERS] });
  });
});

describe('the directory a SIGKILL left (no controlled shutdown)', () => {
  it('is taken over: every record, the groups, read_committed; node 1 leads on, no election written', async () => {
    const broker = await startBroker({ dataDir: crashDir, overrides: KAFKITE_PROPERTIES });
    try {
      await expectEveryRecord(broker.port, filled);
      await expectGroupOffsets(tools, broker.bootstrap);
      await expectReadCommitted(tools, broker.bootstrap);
      const leaders = partitionLeaders(metadataLogRecords(metadataDir(crashDir)));
      for (const name of TOPICS) expect({ name, leaders: leaders.get(`${filled.topicIds.get(name)}-0`)!.leaders }).toEqual({ name, leaders: [1] });
    } finally {
      expect(await broker.stop()).toBe(0);
    }
  }, 120_000);

  it('is refused when its voter set names node 1 on another directory, the directory left unchanged', () => {
    const dir = join(workDir, 'other-directory');
    cpSync(crashDir, dir, { recursive: true });
    const meta = join(dir, 'meta.properties');
    writeFileSync(meta, readFileSync(meta, 'utf8').replace(/^directory\.id=.*$/m, `directory.id=${Buffer.alloc(16, 7).toString('base64url')}`));
    expect(refusal(dir, workDir)).toMatch(/the voter set names node 1 with directory id [0-9a-f]{32}, not this metadata log dir's \(07070707070707070707070707070707\)/);
  });
});

describe('a directory formatted the default way that no node started on', () => {
  it("starts its log with the bootstrap checkpoint's levels and voter set, as Kafka's first start does, on every start", async () => {
    const dir = join(workDir, 'formatted');
    const props = join(workDir, 'formatted.properties');
    writeFileSync(props, readFileSync(join(kafka.dir, 'server.properties'), 'utf8').replace(/^log\.dirs=.*$/m, `log.dirs=${dir}`));
    const format = await tools.run('kafka.tools.StorageTool', 'format', '-t', 'AAAAAAAAAAAAAAAAAAAAAA', '-c', props, '--standalone');
    expect({ code: format.code, err: format.err }).toEqual({ code: 0, err: '' });
    for (let start = 1; start <= 2; start++) {
      const broker = await startBroker({ dataDir: dir, overrides: KAFKITE_PROPERTIES });
      try {
        const client = await WireClient.connect(broker.port);
        expect({ start, finalized: await finalizedFeatures(client) }).toEqual({ start, finalized: kafkaFinalized });
        client.close();
      } finally {
        expect(await broker.stop()).toBe(0);
      }
    }
    // LeaderChange, KRaftVersion and Voters in the log's first batch, the quorum-state of a dynamic quorum (data_version 1).
    const segment = readFileSync(join(metadataDir(dir), '00000000000000000000.log'));
    const first = [...batchesIn(segment)][0]!;
    const keys = decodeBatch(segment.subarray(first.pos, first.pos + first.sizeInBytes)).records.map((r) => r.key!.readInt16BE(2));
    expect({ keys, quorumState: JSON.parse(readFileSync(join(metadataDir(dir), 'quorum-state'), 'utf8')).data_version }).toEqual({ keys: [LEADER_CHANGE, KRAFT_VERSION, KRAFT_VOTERS], quorumState: 1 });
  }, 60_000);
});

describe('Kafka 4.4 on the directory again, after kafkite', () => {
  it('starts on what kafkite wrote (its snapshot, records and ELR changes) and serves the new records, the groups and every epoch on', async () => {
    expect(await kafkite!.stop()).toBe(0);
    kafka = await kafka.restart({ readyTimeoutMs: 90_000 });
    const client = await connectWithRetry(kafka.ports.PLAINTEXT!);
    try {
      expect(await finalizedFeatures(client)).toEqual(kafkaFinalized);
      const metadata = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      for (const name of TOPICS) {
        const p = metadata.topics.find((t: { name: string }) => t.name === name).partitions[0];
        expect({ name, leader: p.leaderId, later: p.leaderEpoch > recordedEpochs.get(name)! }).toEqual({ name, leader: 1, later: true });
      }
      const javaNone = [...filled.before.get('java-none')!.values, ...NEW_VALUES];
      expect(await readToEnd(client, 'java-none', javaNone.length)).toEqual(javaNone);
      expect(await readToEnd(client, 'idempotent', 6)).toEqual(['idem-0', 'idem-1', 'idem-2', 'idem-3', 'idem-4', 'idem-5']);
    } finally {
      client.close();
    }
    await expectGroupOffsets(tools, `127.0.0.1:${kafka.ports.PLAINTEXT}`);
    expect(await kafka.stop()).toBe(143);
  }, 180_000);
});

/** Partition 0's values once `count` are served: Kafka's high watermark reaches the log end once its leader has taken the partition over. */
async function readToEnd(client: WireClient, topic: string, count: number): Promise<string[]> {
  let read = await readPartition(client, topic, 0);
  await until(async () => (read = await readPartition(client, topic, 0)).values.length >= count, `${topic} served to its end`);
  return read.values;
}
