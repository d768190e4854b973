// KIP-848 consumer groups: four Kafka 4.4 KafkaConsumers (group.protocol=consumer, one JVM,
// test/clients/java/ConsumerGroupMembers.java) subscribing together. As on Kafka 4.4 (KIP-1263 assignment batching,
// GroupMetadataManager.canComputeNextTargetAssignment), joins within group.consumer.assignment.interval.ms of the
// group's first target assignment are not assigned one by one: the first member holds every partition until a
// heartbeat after the interval computes one target for all four, and only then are they spread one each.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Admin } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DescribedGroup } from '../../protocol/generated/ConsumerGroupDescribeResponse.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { describeConsumerGroup } from '../helpers/consumer-group-describe.js';
import { compileJava, javaArgs } from '../helpers/java.js';

const TOPIC = 'join-topic';
const GROUP = 'join-group';
const PARTITIONS = 4;
const MEMBERS = 4;
const ASSIGNMENT_INTERVAL_MS = 4_000;

let broker: BrokerProcess;

beforeAll(async () => {
  broker = await startBroker({
    overrides: [
      'group.consumer.heartbeat.interval.ms=2000', 'group.consumer.min.heartbeat.interval.ms=1000',
      `group.consumer.assignment.interval.ms=${ASSIGNMENT_INTERVAL_MS}`,
    ],
  });
  const admin = new Admin({ clientId: 'join-admin', bootstrapBrokers: [broker.bootstrap] });
  try {
    await admin.createTopics({ topics: [TOPIC], partitions: PARTITIONS, replicas: 1 });
  } finally {
    await admin.close();
  }
});

afterAll(async () => {
  await broker.stop();
  broker.cleanup();
});

const describeGroup = () => describeConsumerGroup(broker.port, GROUP);

const partitionsOf = (a: DescribedGroup['members'][number]['assignment']) => a.topicPartitions.flatMap((tp) => tp.partitions).sort();

interface Report {
  member: number;
  ms: number;
  partitions: number[];
}

describe('KIP-848 consumers joining together (KafkaConsumer 4.4)', () => {
  it('are assigned in one target per assignment interval: the first member holds all partitions, then each gets one', async () => {
    const child = spawn('java', javaArgs('ConsumerGroupMembers', [broker.bootstrap, GROUP, TOPIC, String(MEMBERS)], compileJava('ConsumerGroupMembers')));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-10_000)));
    const exited = once(child, 'exit');
    const reports: Report[] = [];
    const lines = createInterface({ input: child.stdout });
    const balanced = new Promise<void>((resolve, reject) => {
      const latest: number[][] = Array.from({ length: MEMBERS }, () => []);
      lines.on('line', (line) => {
        const report = JSON.parse(line) as Report;
        reports.push(report);
        latest[report.member] = report.partitions;
        if (latest.every((p) => p.length === 1) && latest.flat().sort().join() === '0,1,2,3') resolve();
      });
      lines.on('close', () => reject(new Error(`the members exited before each held one partition: ${JSON.stringify(reports)}\n${stderr}`)));
    });
    balanced.catch(() => {}); // awaited below; a close before that must not go unhandled
    try {
      // All four joined within the interval: the group epoch moved on, the target is still the first member's alone.
      let group = await describeGroup();
      for (const deadline = Date.now() + 30_000; group.members.length < MEMBERS && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 50));
        group = await describeGroup();
      }
      expect(group.members).toHaveLength(MEMBERS);
      expect(group.groupEpoch).toBeGreaterThan(group.assignmentEpoch);
      expect(group.members.map((m) => partitionsOf(m.targetAssignment).length).sort()).toEqual([0, 0, 0, 4]);

      await balanced;
      // What each member reported: the first to get partitions got all four and kept them for at least the interval
      // (the target that takes three of them away is computed no sooner); then each member had one.
      const first = reports.find((r) => r.partitions.length > 0)!;
      expect(first.partitions).toEqual([0, 1, 2, 3]);
      const next = reports.find((r) => r.member === first.member && r.ms > first.ms)!;
      expect(next.partitions).toHaveLength(1);
      expect(next.ms - first.ms).toBeGreaterThanOrEqual(ASSIGNMENT_INTERVAL_MS / 2);

      // The coordinator agrees: one target, reconciled, one partition per member.
      group = await describeGroup();
      expect(group.assignmentEpoch).toBe(group.groupEpoch);
      expect(group.members.map((m) => partitionsOf(m.assignment)).flat().sort()).toEqual([0, 1, 2, 3]);
      for (const m of group.members) {
        expect(partitionsOf(m.assignment)).toHaveLength(1);
        expect(m.memberEpoch).toBe(group.groupEpoch);
      }
    } finally {
      child.stdin.end();
      await exited;
    }
  }, 90_000);
});
