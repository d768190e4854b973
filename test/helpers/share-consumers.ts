// Kafka 4.4 KafkaShareConsumers (test/clients/java/ShareConsumerApp.java) as child processes, each line they print
// kept in one list in the order the test received it; and the topic and share group they read.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { compileJava, javaArgs } from './java.js';
import { until } from './poll.js';

interface ShareEvent {
  recv?: number;
  partition?: number;
  count?: number;
  /** ACCEPT, RELEASE or REJECT as the broker confirmed it, or "failed" (then `type` is what was tried). */
  ack?: string;
  type?: string;
  offset?: number;
  started?: boolean;
  idle?: boolean;
  closed?: boolean;
}

export type ConsumerEvent = ShareEvent & { consumer: number };

export interface ShareConsumer {
  id: number;
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | null>;
}

export type AckMode = 'explicit' | 'implicit' | 'release' | 'dlq';

/** A record's key across partitions: "partition:offset". */
export const recordKey = (e: ShareEvent): string => `${e.partition ?? 0}:${e.recv ?? e.offset}`;

export const isDecided = (e: ShareEvent): boolean => e.ack === 'ACCEPT' || e.ack === 'REJECT';

export class ShareConsumers {
  /** Every consumer's lines in the order the test received them. */
  readonly events: ConsumerEvent[] = [];
  private readonly running: ShareConsumer[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly classes = compileJava('ShareConsumerApp');

  /** Starts consumer `id`: max.poll.records 20, a 100 ms pause before each commit. */
  start(id: number, bootstrap: string, topic: string, group: string, mode: AckMode = 'explicit'): ShareConsumer {
    const child = spawn('java', javaArgs('ShareConsumerApp', [bootstrap, topic, group, '20', '100', mode], this.classes));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      this.events.push({ ...(JSON.parse(line) as ShareEvent), consumer: id });
      for (const wake of [...this.waiters]) wake();
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-10_000)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
      if (code !== 0) console.log(`share consumer ${id} exited ${code}: ${stderr}`);
      resolve(code);
    }));
    const c = { id, child, exited };
    this.running.push(c);
    return c;
  }

  /** Closes its stdin (the program closes its KafkaShareConsumer and exits); resolves with the exit code. */
  stop(c: ShareConsumer): Promise<number | null> {
    c.child.stdin.end();
    return c.exited;
  }

  killAll(): void {
    for (const c of this.running) c.child.kill('SIGKILL');
  }

  /** Resolves once `check` holds, tested at each line a consumer prints; rejects naming `what` after `timeoutMs`. */
  waitFor(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (err?: Error) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        if (err) reject(err);
        else resolve();
      };
      const wake = () => {
        if (check()) done();
      };
      const timer = setTimeout(() => done(new Error(`timed out waiting for ${what}`)), timeoutMs);
      this.waiters.add(wake);
    });
  }

  deliveries(id: number): ConsumerEvent[] {
    return this.events.filter((e) => e.consumer === id && e.recv !== undefined);
  }

  /** Resolves once consumer `id` has polled `polls` times in a row and found nothing. */
  idleFor(id: number, polls: number, timeoutMs: number): Promise<void> {
    const from = this.events.length;
    return this.waitFor(() => {
      const mine = this.events.slice(from).filter((e) => e.consumer === id);
      return mine.length >= polls && mine.slice(-polls).every((e) => e.idle);
    }, `consumer ${id} idle for ${polls} polls`, timeoutMs);
  }
}

interface ShareTopic {
  partitions?: number;
  /** Group configs besides share.auto.offset.reset=earliest. */
  groupConfigs?: Record<string, string>;
  /** Each record's timestamp by its value; now by default. */
  timestampOf?: (value: number) => number;
}

/**
 * A topic of `n` records with values "0".."n-1", ten to a batch, batch b on partition b % partitions (so a record's
 * offset % 10 is its value's), and a share group that reads it from the start.
 */
export async function prepareShareTopic(port: number, topic: string, group: string, n: number, opts: ShareTopic = {}): Promise<void> {
  const partitions = opts.partitions ?? 1;
  const admin = await WireClient.connect(port);
  try {
    const created = await admin.send(ApiKey.CreateTopics, 7, { topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(created.topics[0].errorCode).toBe(0);
    await untilLeading(port, [topic]);
    // share.auto.offset.reset is a GROUP config, latest by default.
    const altered = await admin.send(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [{
        resourceType: 32, resourceName: group,
        configs: Object.entries({ 'share.auto.offset.reset': 'earliest', ...opts.groupConfigs }).map(([name, value]) => ({ name, configOperation: 0, value })),
      }],
      validateOnly: false,
    });
    expect(altered.responses[0].errorCode).toBe(0);
    await produceValues(admin, topic, partitions, 0, n, opts.timestampOf);
  } finally {
    admin.close();
  }
}

/**
 * Resolves once Metadata names a leader for every partition of `topics`: Kafka elects them after answering
 * CreateTopics, and again once a restarted node is unfenced (KRaft's ReplicationControlManager).
 */
export async function untilLeading(port: number, topics: string[], timeoutMs = 60_000): Promise<void> {
  const client = await WireClient.connect(port);
  try {
    await until(async () => {
      const res = await client.send(ApiKey.Metadata, 12, { topics: topics.map((name) => ({ topicId: '0'.repeat(32), name })), allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      const found = res.topics as Array<{ errorCode: number; partitions: Array<{ errorCode: number; leaderId: number }> }>;
      return found.every((t) => t.errorCode === 0 && t.partitions.length > 0 && t.partitions.every((p) => p.errorCode === 0 && p.leaderId >= 0));
    }, `leaders for ${topics.join(', ')}`, timeoutMs);
  } finally {
    client.close();
  }
}

/** Produces values from..to-1, ten to a batch, batch b (value / 10) on partition b % partitions. */
export async function produceValues(client: WireClient, topic: string, partitions: number, from: number, to: number, timestampOf = (_v: number) => Date.now()): Promise<void> {
  for (let b = from / 10; b < to / 10; b++) {
    const records = encodeBatch({ baseOffset: 0, records: Array.from({ length: 10 }, (_, i) => ({ offset: i, timestamp: timestampOf(b * 10 + i), key: null, value: Buffer.from(String(b * 10 + i)), headers: [] })) });
    const res = await client.send(ApiKey.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: b % partitions, records }] }] });
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
  }
}

interface ShareOffsets {
  partitionIndex: number;
  startOffset: number;
  leaderEpoch: number;
  lag: number;
}

/** The share group's offsets of each partition of `topic` (DescribeShareGroupOffsets v1, with its lag), by partition. */
export async function shareGroupOffsets(port: number, group: string, topic: string, partitions: number): Promise<ShareOffsets[]> {
  const client = await WireClient.connect(port);
  try {
    const res = await client.send(ApiKey.DescribeShareGroupOffsets, 1, {
      groups: [{ groupId: group, topics: [{ topicName: topic, partitions: Array.from({ length: partitions }, (_, p) => p) }] }],
    });
    const parts = res.groups[0].topics[0].partitions as Array<ShareOffsets & { errorCode: number }>;
    expect(parts.every((p) => p.errorCode === 0), JSON.stringify(res)).toBe(true);
    return [...parts].sort((a, b) => a.partitionIndex - b.partitionIndex).map(({ partitionIndex, startOffset, leaderEpoch, lag }) => ({ partitionIndex, startOffset, leaderEpoch, lag }));
  } finally {
    client.close();
  }
}

/** The share group's start offset of each partition of `topic`, by partition. */
export async function shareStartOffsets(port: number, group: string, topic: string, partitions: number): Promise<number[]> {
  return (await shareGroupOffsets(port, group, topic, partitions)).map((p) => p.startOffset);
}

/** The partitions each member of the share group holds (ShareGroupDescribe), one sorted list per member. */
export async function sharePartitionsByMember(port: number, group: string): Promise<number[][]> {
  const client = await WireClient.connect(port);
  try {
    const res = await client.send(ApiKey.ShareGroupDescribe, 1, { groupIds: [group], includeAuthorizedOperations: false });
    const members = (res.groups[0]?.members ?? []) as Array<{ assignment: { topicPartitions: Array<{ partitions: number[] }> } }>;
    return members.map((m) => m.assignment.topicPartitions.flatMap((tp) => tp.partitions).sort((a, b) => a - b));
  } finally {
    client.close();
  }
}
