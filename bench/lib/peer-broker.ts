// kafkite and Apache Kafka 4.4 behind one interface, for the benches that run them side by side (issue 32):
// either broker started fresh (Kafka as kafka-server-start.sh starts it: bench/lib/reference-kafka.ts with
// jvm 'server'), its pid for CPU and RSS, and topics created until every partition has a leader.
import { BenchBroker, cpuTimesOf, sampleRssOf } from './broker-process.js';
import { ReferenceKafka } from './reference-kafka.js';
import { WireClient } from './wire-client.js';
import { createTopic } from '../loadgen.js';

export const BROKERS = ['kafkite', 'kafka'] as const;
export type Broker = (typeof BROKERS)[number];

export interface Side {
  name: Broker;
  bootstrap: string;
  port: number;
  pid: number;
}

export interface Started {
  side: Side;
  readyMs: number;
  /** The directory holding its logs (kafkite's log.dirs; Kafka's node dir, log.dirs in data/). */
  dir: string;
  /** Stops it and removes its directory. */
  stop(): Promise<unknown>;
  /** A clean shutdown, then a start on the same directory: readyMs is the restart's. */
  restart(): Promise<Started>;
}

function kafkiteStarted(b: BenchBroker): Started {
  return {
    side: { name: 'kafkite', bootstrap: b.bootstrap, port: b.port, pid: b.pid }, readyMs: b.readyMs, dir: b.dataDir,
    stop: async () => (await b.stop(), b.cleanup()),
    restart: async () => (await b.stop(), kafkiteStarted(await BenchBroker.start({ dataDir: b.dataDir, overrides: b.overrides }))),
  };
}

function kafkaStarted(k: ReferenceKafka): Started {
  return {
    side: { name: 'kafka', bootstrap: `127.0.0.1:${k.port}`, port: k.port, pid: k.pid }, readyMs: k.readyMs, dir: k.dir,
    stop: async () => (await k.stop(), k.cleanup()),
    restart: async () => (await k.stop(), kafkaStarted(await k.restart({ jvm: 'server' }))),
  };
}

/** The brokers in round `i`'s order: the order swaps every round, so neither always runs second on a warmer machine. */
export function brokerOrder(i: number): readonly Broker[] {
  return i % 2 === 0 ? BROKERS : [...BROKERS].reverse();
}

/**
 * Starts a fresh broker. `properties` are server properties both brokers take (`key=value`); `kafkite` and
 * `kafka` add one broker's own.
 */
export async function startBroker(name: Broker, opts: { properties?: string[]; kafkite?: string[]; kafka?: string[] } = {}): Promise<Started> {
  if (name === 'kafkite') return kafkiteStarted(await BenchBroker.start({ overrides: [...(opts.properties ?? []), ...(opts.kafkite ?? [])] }));
  return kafkaStarted(await ReferenceKafka.start({ jvm: 'server', properties: [...(opts.properties ?? []), ...(opts.kafka ?? [])] }));
}

/** Starts both brokers; stops the first if the second fails. */
export async function startBoth(opts: Parameters<typeof startBroker>[1] = {}): Promise<Record<Broker, Started>> {
  const kafkite = await startBroker('kafkite', opts);
  try {
    return { kafkite, kafka: await startBroker('kafka', opts) };
  } catch (err) {
    await kafkite.stop();
    throw err;
  }
}

/** Creates the topic and waits until Metadata gives every partition a leader: Kafka elects them after answering CreateTopics. */
export async function createReadyTopic(side: Side, topic: string, partitions: number, configs: Record<string, string> = {}, timeoutMs = 10_000): Promise<void> {
  await createTopic(side.bootstrap, topic, partitions, configs);
  const client = await WireClient.connect(side.port);
  try {
    for (const deadline = Date.now() + timeoutMs; ;) {
      const res = await client.send(3, 12, {
        topics: [{ topicId: '00000000-0000-0000-0000-000000000000', name: topic }],
        allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
      });
      const ps = res.topics[0]?.partitions ?? [];
      if (ps.length === partitions && ps.every((p: { errorCode: number; leaderId: number }) => p.errorCode === 0 && p.leaderId >= 0)) return;
      if (Date.now() > deadline) throw new Error(`${side.name}: ${topic} has no leaders after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    client.close();
  }
}

/** What a broker spent while `work` ran: user and system CPU seconds (all its threads) and its peak RSS in bytes. */
export interface BrokerCost {
  user: number;
  system: number;
  peakRss: number;
}

export async function brokerCost<T>(side: Side, work: () => Promise<T>): Promise<BrokerCost & { result: T }> {
  const before = cpuTimesOf(side.pid);
  const stopRss = sampleRssOf(side.pid);
  let result: T;
  let peakRss: number;
  try {
    result = await work();
  } finally {
    peakRss = stopRss();
  }
  const after = cpuTimesOf(side.pid);
  return { result, user: after.user - before.user, system: after.system - before.system, peakRss };
}
