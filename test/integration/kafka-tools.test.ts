// Apache Kafka 4.4's own command-line tools (kafka-tools 4.4.0), run through the main classes their scripts
// start, against a kafkite with an authorizer: kafka-topics, kafka-configs, kafka-producer-perf-test and
// kafka-consumer-perf-test, kafka-consumer-groups, kafka-transactions, kafka-get-offsets, kafka-delete-records,
// kafka-log-dirs, kafka-features and kafka-acls. Each tool's exit code is checked, and what it did is read
// back from the broker with our wire client (or from disk), not from the tool's own output.
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { CompressionType } from '../../protocol/records/batch-header.js';
import { brokerForFile } from '../helpers/broker-process.js';
import { batchesOnDisk } from '../helpers/disk-batches.js';
import { KafkaTools, type ToolRun } from '../helpers/java.js';

const TOOL = {
  topics: 'org.apache.kafka.tools.TopicCommand',
  configs: 'org.apache.kafka.tools.ConfigCommand',
  groups: 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  transactions: 'org.apache.kafka.tools.TransactionsCommand',
  getOffsets: 'org.apache.kafka.tools.GetOffsetShell',
  deleteRecords: 'org.apache.kafka.tools.DeleteRecordsCommand',
  logDirs: 'org.apache.kafka.tools.LogDirsCommand',
  features: 'org.apache.kafka.tools.FeatureCommand',
  producerPerf: 'org.apache.kafka.tools.ProducerPerformance',
  consumerPerf: 'org.apache.kafka.tools.ConsumerPerformance',
  acls: 'org.apache.kafka.tools.AclCommand',
} as const;
const RECORDS = 1000;
const ZERO_UUID = '0'.repeat(32);

const broker = brokerForFile({
  overrides: [
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users=User:ANONYMOUS',
    'group.initial.rebalance.delay.ms=0',
    'offsets.topic.num.partitions=3',
  ],
});
let client: WireClient;
let tools: KafkaTools;
let bootstrap: string;
const timings: string[] = [];

beforeAll(async () => {
  tools = new KafkaTools();
  bootstrap = broker().bootstrap;
  client = await WireClient.connect(broker().port);
});

afterAll(async () => {
  await tools?.close();
  console.log(`tools: ${timings.join(', ')}`);
  client?.close();
});

/** Runs a tool with --bootstrap-server; expects exit code 0 unless told otherwise. */
async function tool(name: keyof typeof TOOL, args: string[], expectedCode = 0): Promise<ToolRun> {
  const run = await tools.run(TOOL[name], ...args);
  timings.push(`${name} ${run.ms} ms`);
  if (run.code !== expectedCode) throw new Error(`${name} ${args.join(' ')}: exit ${run.code}\n${run.out}\n${run.err}`);
  return run;
}

async function metadataTopic(name: string): Promise<any> {
  const res = await client.send(3, 12, { topics: [{ topicId: ZERO_UUID, name }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  return res.topics[0];
}

async function topicConfigs(topic: string): Promise<Record<string, string>> {
  const res = await client.send(32, 4, { resources: [{ resourceType: 2, resourceName: topic, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
  return Object.fromEntries(res.results[0].configs.filter((c: any) => c.configSource === 1).map((c: any) => [c.name, c.value]));
}

async function committed(group: string, topic: string, partition = 0): Promise<number> {
  const res = await client.send(9, 7, { groupId: group, topics: [{ name: topic, partitionIndexes: [partition] }], groups: [], requireStable: true });
  return res.topics[0].partitions[0].committedOffset;
}

async function listOffset(topic: string, timestamp: number): Promise<number> {
  const res = await client.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }] }] });
  return Number(res.topics[0].partitions[0].offset);
}

describe('Kafka 4.4 tools', () => {
  it('kafka-topics creates, describes, lists, alters and deletes topics', async () => {
    await tool('topics', ['--bootstrap-server', bootstrap, '--create', '--topic', 'tools-t', '--partitions', '2', '--config', 'retention.ms=3600000']);
    await tool('topics', ['--bootstrap-server', bootstrap, '--create', '--topic', 'tools-gone']);
    const created = await metadataTopic('tools-t');
    expect([created.errorCode, created.partitions.length]).toEqual([0, 2]);
    expect((await topicConfigs('tools-t'))['retention.ms']).toBe('3600000');

    const described = await tool('topics', ['--bootstrap-server', bootstrap, '--describe', '--topic', 'tools-t']);
    expect(described.out).toContain(`TopicId: ${Buffer.from(created.topicId, 'hex').toString('base64url')}\tPartitionCount: 2\tReplicationFactor: 1`);
    // From DescribeTopicPartitions (KIP-966): empty ELRs, where the Metadata fallback prints "Elr: N/A".
    expect(described.out).toContain('Partition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n');

    await tool('topics', ['--bootstrap-server', bootstrap, '--alter', '--topic', 'tools-t', '--partitions', '3']);
    expect((await metadataTopic('tools-t')).partitions).toHaveLength(3);
    await tool('topics', ['--bootstrap-server', bootstrap, '--delete', '--topic', 'tools-gone']);
    expect((await metadataTopic('tools-gone')).errorCode).toBe(3); // UNKNOWN_TOPIC_OR_PARTITION
    const listed = await tool('topics', ['--bootstrap-server', bootstrap, '--list', '--exclude-internal']);
    expect(listed.out.split('\n').filter(Boolean)).toEqual(['tools-t']);
    // A topic that is not there: the tool fails, as on Kafka.
    await tool('topics', ['--bootstrap-server', bootstrap, '--describe', '--topic', 'tools-none'], 1);
  });

  it('kafka-configs alters and describes topic, broker-default and user configs (SCRAM credentials, quotas)', async () => {
    await tool('configs', ['--bootstrap-server', bootstrap, '--entity-type', 'topics', '--entity-name', 'tools-t', '--alter', '--add-config', 'cleanup.policy=compact,max.message.bytes=65536', '--delete-config', 'retention.ms']);
    expect(await topicConfigs('tools-t')).toEqual({ 'cleanup.policy': 'compact', 'max.message.bytes': '65536' });
    const topic = await tool('configs', ['--bootstrap-server', bootstrap, '--entity-type', 'topics', '--entity-name', 'tools-t', '--describe']);
    expect(topic.out).toContain('max.message.bytes=65536 sensitive=false');

    await tool('configs', ['--bootstrap-server', bootstrap, '--entity-type', 'brokers', '--entity-default', '--alter', '--add-config', 'log.retention.ms=86400000']);
    const brokerDefault = await client.send(32, 4, { resources: [{ resourceType: 4, resourceName: '', configurationKeys: ['log.retention.ms'] }], includeSynonyms: false, includeDocumentation: false });
    expect(brokerDefault.results[0].configs.map((c: any) => [c.name, c.value])).toEqual([['log.retention.ms', '86400000']]);
    // As a Kafka 4.4 node prints them: the default's synonyms are its own level only; a group's defaults are
    // named after the broker configs they come from.
    const defaults = await tool('configs', ['--bootstrap-server', bootstrap, '--entity-type', 'brokers', '--entity-default', '--describe']);
    expect(defaults.out).toContain('  log.retention.ms=86400000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=86400000}\n');
    const group = await tool('configs', ['--bootstrap-server', bootstrap, '--entity-type', 'groups', '--entity-name', 'tools-any', '--describe', '--all']);
    expect(group.out).toContain('  consumer.session.timeout.ms=45000 sensitive=false synonyms={DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}\n');

    await tool('configs', ['--bootstrap-server', bootstrap, '--entity-type', 'users', '--entity-name', 'erin', '--alter', '--add-config', 'SCRAM-SHA-512=[iterations=8192,password=erin-secret]']);
    // Quotas apart: the tool refuses SCRAM credentials and quotas in one --alter, as it does against Kafka.
    await tool('configs', ['--bootstrap-server', bootstrap, '--entity-type', 'users', '--entity-name', 'erin', '--alter', '--add-config', 'producer_byte_rate=1048576']);
    const scram = await client.send(50, 0, { users: [{ name: 'erin' }] });
    expect(scram.results[0].credentialInfos).toEqual([{ mechanism: 2, iterations: 8192 }]);
    const quotas = await client.send(48, 1, { components: [{ entityType: 'user', matchType: 0, match: 'erin' }], strict: true });
    expect(quotas.entries[0].values).toEqual([{ key: 'producer_byte_rate', value: 1048576 }]);
    const users = await tool('configs', ['--bootstrap-server', bootstrap, '--entity-type', 'users', '--entity-name', 'erin', '--describe']);
    expect(users.out).toContain('SCRAM-SHA-512=iterations=8192');
    expect(users.out).toContain('producer_byte_rate=1048576');
  });

  it('kafka-producer-perf-test writes its records (lz4, and in transactions), kafka-consumer-perf-test reads them in a group', async () => {
    const produced = await tool('producerPerf', ['--topic', 'tools-perf', '--num-records', String(RECORDS), '--record-size', '100', '--throughput', '-1',
      '--command-property', `bootstrap.servers=${bootstrap}`, 'compression.type=lz4']);
    expect(produced.out).toContain(`${RECORDS} records sent`);
    const stored = batchesOnDisk(broker().dataDir, 'tools-perf');
    expect(stored.reduce((n, b) => n + b.records, 0)).toBe(RECORDS);
    expect(stored.every((b) => b.compression === CompressionType.Lz4)).toBe(true);

    await tool('producerPerf', ['--topic', 'tools-perf-txn', '--num-records', '200', '--record-size', '50', '--throughput', '-1',
      '--command-property', `bootstrap.servers=${bootstrap}`, '--transactional-id', 'tools-txn', '--transaction-duration-ms', '100']);
    const txn = batchesOnDisk(broker().dataDir, 'tools-perf-txn');
    expect(txn.filter((b) => !b.isControl).reduce((n, b) => n + b.records, 0)).toBe(200);
    expect(txn.filter((b) => b.isControl).every((b) => b.marker === 'COMMIT')).toBe(true);
    expect(txn.at(-1)?.marker).toBe('COMMIT');

    for (const [group, protocol] of [['tools-classic', 'classic'], ['tools-consumer', 'consumer']]) {
      const consumed = await tool('consumerPerf', ['--bootstrap-server', bootstrap, '--topic', 'tools-perf', '--num-records', String(RECORDS), '--group', group!,
        '--timeout', '30000', '--command-property', `group.protocol=${protocol}`, '--command-property', 'auto.offset.reset=earliest']);
      // The data line: ..., data.consumed.in.nMsg, ... as the tool counts them.
      expect(consumed.out.trim().split('\n')[1]!.split(', ')[4]).toBe(String(RECORDS));
      // Its group committed where it stopped (auto-commit on close).
      expect(await committed(group!, 'tools-perf')).toBe(RECORDS);
    }
  });

  it('kafka-consumer-groups lists, describes, resets offsets of and deletes groups', async () => {
    const listed = await tool('groups', ['--bootstrap-server', bootstrap, '--list', '--type']);
    expect(listed.out).toMatch(/tools-classic\s+Classic/);
    expect(listed.out).toMatch(/tools-consumer\s+Consumer/);
    const described = await tool('groups', ['--bootstrap-server', bootstrap, '--describe', '--group', 'tools-classic']);
    expect(described.out).toMatch(new RegExp(`tools-classic\\s+tools-perf\\s+0\\s+${RECORDS}\\s+${RECORDS}\\s+0`));
    // The consumer-protocol group its perf test left: empty, with its assignment epoch caught up with the group
    // epoch, as Kafka 4.4 shows it (KAFKA-20442).
    const state = await tool('groups', ['--bootstrap-server', bootstrap, '--describe', '--group', 'tools-consumer', '--state', '--verbose']);
    const [, , , , groupState, groupEpoch, targetEpoch, members] = state.out.trim().split('\n').at(-1)!.split(/\s+/);
    expect([groupState, targetEpoch, members]).toEqual(['Empty', groupEpoch, '0']);

    await tool('groups', ['--bootstrap-server', bootstrap, '--reset-offsets', '--group', 'tools-classic', '--topic', 'tools-perf', '--to-offset', '10', '--execute']);
    expect(await committed('tools-classic', 'tools-perf')).toBe(10);
    await tool('groups', ['--bootstrap-server', bootstrap, '--reset-offsets', '--group', 'tools-consumer', '--all-topics', '--shift-by', '-100', '--execute']);
    expect(await committed('tools-consumer', 'tools-perf')).toBe(RECORDS - 100);
    // --dry-run changes nothing.
    await tool('groups', ['--bootstrap-server', bootstrap, '--reset-offsets', '--group', 'tools-classic', '--all-topics', '--to-earliest', '--dry-run']);
    expect(await committed('tools-classic', 'tools-perf')).toBe(10);

    await tool('groups', ['--bootstrap-server', bootstrap, '--delete', '--group', 'tools-consumer']);
    const groups = await client.send(16, 5, { statesFilter: [], typesFilter: [] });
    expect(groups.groups.map((g: any) => g.groupId).sort()).toEqual(['tools-classic']);
    expect(await committed('tools-consumer', 'tools-perf')).toBe(-1);
  });

  it('kafka-transactions lists and describes the perf test transactional id', async () => {
    const state = (await client.send(65, 0, { transactionalIds: ['tools-txn'] })).transactionStates[0];
    expect(state.transactionState).toBe('CompleteCommit');
    const listed = await tool('transactions', ['--bootstrap-server', bootstrap, 'list']);
    expect(listed.out).toMatch(new RegExp(`tools-txn\\s+1\\s+${state.producerId}\\s+CompleteCommit`));
    const described = await tool('transactions', ['--bootstrap-server', bootstrap, 'describe', '--transactional-id', 'tools-txn']);
    expect(described.out).toMatch(new RegExp(`1\\s+tools-txn\\s+${state.producerId}\\s+${state.producerEpoch}\\s+CompleteCommit`));
  });

  it('kafka-delete-records moves the log start, kafka-get-offsets reads the offsets', async () => {
    const before = await tool('getOffsets', ['--bootstrap-server', bootstrap, '--topic', 'tools-perf']);
    expect(before.out.trim()).toBe(`tools-perf:0:${RECORDS}`);
    const json = join(broker().dataDir, 'delete-records.json');
    writeFileSync(json, JSON.stringify({ version: 1, partitions: [{ topic: 'tools-perf', partition: 0, offset: 300 }] }));
    const deleted = await tool('deleteRecords', ['--bootstrap-server', bootstrap, '--offset-json-file', json]);
    expect(deleted.out).toContain('partition: tools-perf-0\tlow_watermark: 300');
    expect(await listOffset('tools-perf', -2)).toBe(300);
    const earliest = await tool('getOffsets', ['--bootstrap-server', bootstrap, '--topic-partitions', 'tools-perf:0', '--time', '-2']);
    expect(earliest.out.trim()).toBe('tools-perf:0:300');
  });

  it('kafka-log-dirs reports each partition with its size on disk', async () => {
    const dirs = await tool('logDirs', ['--bootstrap-server', bootstrap, '--describe', '--topic-list', 'tools-perf,tools-t']);
    const report = JSON.parse(dirs.out.split('\n').find((l) => l.startsWith('{'))!);
    const logDir = report.brokers[0].logDirs[0];
    expect([report.brokers[0].broker, logDir.logDir, logDir.error]).toEqual([1, broker().dataDir, null]);
    const partitions = Object.fromEntries(logDir.partitions.map((p: any) => [p.partition, p.size]));
    const onDisk = (dir: string) => readdirSync(join(broker().dataDir, dir)).filter((f) => f.endsWith('.log')).reduce((n, f) => n + statSync(join(broker().dataDir, dir, f)).size, 0);
    expect(partitions).toEqual({ 'tools-perf-0': onDisk('tools-perf-0'), 'tools-t-0': 0, 'tools-t-1': 0, 'tools-t-2': 0 });
  });

  it('kafka-features describes the features ApiVersions advertises, finalized where they are', async () => {
    const features = await tool('features', ['--bootstrap-server', bootstrap, 'describe']);
    const versions = await client.send(18, 4, { clientSoftwareName: 'tools-test', clientSoftwareVersion: '1' });
    const lines = features.out.trim().split('\n');
    // One line per supported feature; a feature that is not finalized shows level 0 (FeatureCommand).
    expect(lines).toHaveLength(versions.supportedFeatures.length);
    for (const f of versions.supportedFeatures) {
      const level = versions.finalizedFeatures.find((x: { name: string }) => x.name === f.name)?.maxVersionLevel ?? 0;
      // metadata.version's levels are printed by name (4.4-IV2 for level 33), the others' as numbers.
      const shown = f.name === 'metadata.version' ? '4\\.4-IV2' : String(level);
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^Feature: ${f.name}\\s.*FinalizedVersionLevel: ${shown}\\s`)));
    }
  });

  it('kafka-acls adds, lists and removes ACLs', async () => {
    await tool('acls', ['--bootstrap-server', bootstrap, '--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--operation', 'Write', '--topic', 'orders-', '--resource-pattern-type', 'prefixed']);
    await tool('acls', ['--bootstrap-server', bootstrap, '--add', '--producer', '--allow-principal', 'User:bob', '--topic', 'bobs', '--transactional-id', 'bob-tx']);
    const describe = (principal: string) => client.send(29, 3, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: principal, hostFilter: null, operation: 1, permissionType: 1 })
      .then((r: any) => r.resources.flatMap((res: any) => res.acls.map((a: any) => `${res.resourceType}:${res.resourceName}:${res.patternType}:${a.operation}`)).sort());
    // TOPIC=2, TRANSACTIONAL_ID=5; PREFIXED=4, LITERAL=3; READ=3, WRITE=4, CREATE=5, DESCRIBE=8.
    expect(await describe('User:alice')).toEqual(['2:orders-:4:3', '2:orders-:4:4']);
    expect(await describe('User:bob')).toEqual(['2:bobs:3:4', '2:bobs:3:5', '2:bobs:3:8', '5:bob-tx:3:4', '5:bob-tx:3:8']);
    const listed = await tool('acls', ['--bootstrap-server', bootstrap, '--list', '--principal', 'User:alice']);
    expect(listed.out).toContain('(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)');

    await tool('acls', ['--bootstrap-server', bootstrap, '--remove', '--force', '--allow-principal', 'User:bob', '--operation', 'Write', '--topic', 'bobs']);
    expect(await describe('User:bob')).toEqual(['2:bobs:3:5', '2:bobs:3:8', '5:bob-tx:3:4', '5:bob-tx:3:8']);
  });
});
