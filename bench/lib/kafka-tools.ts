// Apache Kafka 4.4's own perf tools (kafka-tools, in test/kafka/lib) run as their scripts run them:
// kafka-producer-perf-test.sh and kafka-consumer-perf-test.sh set KAFKA_HEAP_OPTS=-Xmx512M, and
// kafka-run-class.sh adds its KAFKA_JVM_PERFORMANCE_OPTS. Either broker is measured with the same client.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './kafkite-process.js';

export const CLASSPATH = join(REPO_ROOT, 'test/kafka/lib/*');
/** Also the client JVM of the benches' own Java peers (bench/peers/*.java), the same for both brokers. */
export const TOOL_JVM_FLAGS = ['-Xmx512M', '-server', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:InitiatingHeapOccupancyPercent=35', '-XX:+ExplicitGCInvokesConcurrent', '-Djava.awt.headless=true'];

class KafkaToolError extends Error {
  override name = 'KafkaToolError';
}

function runTool(main: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('java', [...TOOL_JVM_FLAGS, '-cp', CLASSPATH, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err = (err + d).slice(-4096)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new KafkaToolError(`${main} exited with ${code}: ${err}${out.slice(-2048)}`))));
  });
}

export interface ProducerPerf {
  recordsPerSec: number;
  avgLatencyMs: number;
  p99LatencyMs: number;
}

/** ProducerPerformance, unthrottled, the producer's defaults but `props`; its own figures (its JVM's start is not in them). */
export async function producerPerformance(bootstrap: string, topic: string, records: number, recordBytes: number, props: Record<string, string>): Promise<ProducerPerf> {
  const out = await runTool('org.apache.kafka.tools.ProducerPerformance', [
    '--bootstrap-server', bootstrap, '--topic', topic, '--num-records', String(records), '--record-size', String(recordBytes), '--throughput', '-1',
    '--command-property', ...Object.entries(props).map(([k, v]) => `${k}=${v}`),
  ]);
  // The summary line: "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, ..."
  const m = /records sent, ([\d.]+) records\/sec \([\d.]+ MB\/sec\), ([\d.]+) ms avg latency, [\d.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, (\d+) ms 99th/.exec(out);
  if (!m) throw new KafkaToolError(`ProducerPerformance printed no summary: ${out.slice(-2048)}`);
  return { recordsPerSec: Number(m[1]), avgLatencyMs: Number(m[2]), p99LatencyMs: Number(m[3]) };
}

export interface ConsumerPerf {
  /** Records/s from the first fetch to the last (ConsumerPerformance's fetch.nMsg.sec: the group join is not in it). */
  recordsPerSec: number;
  rebalanceMs: number;
}

/** ConsumerPerformance reading `records` from the beginning as a new member of `group` under `groupProtocol`. */
export async function consumerPerformance(bootstrap: string, topic: string, records: number, group: string, groupProtocol: 'classic' | 'consumer'): Promise<ConsumerPerf> {
  const out = await runTool('org.apache.kafka.tools.ConsumerPerformance', [
    '--bootstrap-server', bootstrap, '--topic', topic, '--num-records', String(records), '--group', group, '--timeout', '30000',
    '--command-property', `group.protocol=${groupProtocol}`,
  ]);
  const lines = out.trim().split('\n');
  const header = lines.findIndex((l) => l.includes('fetch.nMsg.sec'));
  if (header < 0 || !lines[header + 1]) throw new KafkaToolError(`ConsumerPerformance printed no figures: ${out.slice(-2048)}`);
  const names = lines[header]!.split(',').map((s) => s.trim());
  const values = lines[header + 1]!.split(',').map((s) => s.trim());
  const value = (name: string) => Number(values[names.indexOf(name)]);
  if (value('data.consumed.in.nMsg') < records) throw new KafkaToolError(`ConsumerPerformance read ${value('data.consumed.in.nMsg')} of ${records} records`);
  return { recordsPerSec: value('fetch.nMsg.sec'), rebalanceMs: value('rebalance.time.ms') };
}
