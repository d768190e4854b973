// Apache Kafka 4.4 (test/kafka/lib, from scripts/kafka-jars.mjs) as a reference broker beside kafkite: one KRaft
// node in combined mode (broker + controller) on free loopback ports and a temporary log dir, formatted as
// `kafka-storage.sh format` does (kafka.tools.StorageTool) and started with kafka.Kafka. Tests and benchmarks
// give it the same server properties they give kafkite; this module adds only what a KRaft node needs.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.js';
import { REPO_ROOT } from './kafkite-process.js';
import { WireClient } from './wire-client.js';

const CLASSPATH = join(REPO_ROOT, 'test/kafka/lib/*');
// A small heap and the client compiler only: a test node starts in seconds and serves a few requests.
const TEST_JVM_FLAGS = ['-Xms64m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto', '-Djava.awt.headless=true'];
// What kafka-server-start.sh runs a broker with: its KAFKA_HEAP_OPTS default, then kafka-run-class.sh's
// KAFKA_JVM_PERFORMANCE_OPTS default. The benchmarks measure Kafka as its users start it.
const SERVER_JVM_FLAGS = [
  '-Xmx1G', '-Xms1G',
  '-server', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:InitiatingHeapOccupancyPercent=35', '-XX:+ExplicitGCInvokesConcurrent', '-Djava.awt.headless=true',
];
const NODE_ID = 1;

export interface ReferenceKafkaOptions {
  /** `key=value` server properties, the same ones kafkite gets; a listener on port 0 gets a free port. */
  properties?: string[];
  readyTimeoutMs?: number;
  /** 'server': kafka.Kafka runs with kafka-server-start.sh's heap and JVM flags; 'test' (the default): a small, quick JVM. */
  jvm?: 'test' | 'server';
  /** The node id Metadata must list before the node counts as serving (1, a single node's, unless set). */
  nodeId?: number;
  /** More arguments to `kafka-storage format` (e.g. --release-version). */
  formatArgs?: string[];
  /**
   * Formatted as Kafka's quickstart does: controller.quorum.bootstrap.servers and `format --standalone` (kraft.version 1,
   * KIP-853, the node its quorum's one dynamic voter), instead of a static controller.quorum.voters.
   */
  standalone?: boolean;
}

export class ReferenceKafka {
  private constructor(
    readonly child: ChildProcess,
    readonly dir: string,
    /** Each listener's port by listener name (CONTROLLER included). */
    readonly ports: Readonly<Record<string, number>>,
    /** The log4j2 file the node logs to. */
    readonly logFile: string,
    /** Milliseconds from spawning kafka.Kafka to serving Metadata with itself as a broker (the format before it not counted). */
    readonly readyMs: number,
    private readonly exited: Promise<number | null>,
  ) {}

  /** The first listener's port. */
  get port(): number {
    return Object.values(this.ports)[0]!;
  }

  /** The JVM's pid (java is spawned directly: all of Kafka's threads are in this process). */
  get pid(): number {
    return this.child.pid!;
  }

  static async start(opts: ReferenceKafkaOptions = {}): Promise<ReferenceKafka> {
    const dir = mkdtempSync(join(tmpdir(), 'kafka-ref-'));
    const { lines, ports } = await serverProperties(opts.properties ?? [], join(dir, 'data'), opts.standalone);
    return ReferenceKafka.startOn(dir, lines, ports, ['-t', clusterId(), ...(opts.standalone ? ['--standalone'] : []), ...(opts.formatArgs ?? [])], opts);
  }

  /**
   * kafka.Kafka with `lines` as its whole server.properties, written to `dir` with its log4j2 file. `format` (the
   * arguments of kafka-storage format beside -c) runs first, unless null: a log dir formatted already (kafkite's).
   */
  static async startOn(dir: string, lines: string[], ports: Record<string, number>, format: string[] | null, opts: ReferenceKafkaOptions = {}): Promise<ReferenceKafka> {
    const propsFile = join(dir, 'server.properties');
    writeFileSync(propsFile, lines.join('\n') + '\n');
    const logFile = join(dir, 'kafka.log');
    const log4j = join(dir, 'log4j2.properties');
    writeFileSync(log4j, [
      'appender.file.type=File', 'appender.file.name=FILE', `appender.file.fileName=${logFile}`,
      'appender.file.layout.type=PatternLayout', 'appender.file.layout.pattern=[%d] %p %m (%c)%n',
      'rootLogger.level=INFO', 'rootLogger.appenderRef.file.ref=FILE',
    ].join('\n') + '\n');
    if (format) {
      const run = java(log4j, 'kafka.tools.StorageTool', ['format', '-c', propsFile, ...format]);
      const formatOut = collect(run);
      const formatCode = await new Promise<number | null>((r) => run.once('exit', r));
      if (formatCode !== 0) throw new Error(`kafka-storage format exited with ${formatCode}: ${formatOut()}`);
    }
    return ReferenceKafka.launch(dir, ports, opts);
  }

  /** Starts kafka.Kafka again on this node's directory (after stop): a restart, its logs loaded as they are. */
  async restart(opts: ReferenceKafkaOptions = {}): Promise<ReferenceKafka> {
    return ReferenceKafka.launch(this.dir, this.ports, opts);
  }

  private static async launch(dir: string, ports: Record<string, number>, opts: ReferenceKafkaOptions): Promise<ReferenceKafka> {
    const logFile = join(dir, 'kafka.log');
    const started = performance.now();
    const child = java(join(dir, 'log4j2.properties'), 'kafka.Kafka', [join(dir, 'server.properties')], opts.jvm === 'server' ? SERVER_JVM_FLAGS : TEST_JVM_FLAGS);
    const output = collect(child);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await Promise.race([
        waitUntilServing(ports.PLAINTEXT ?? Object.values(ports)[0]!, opts.readyTimeoutMs ?? 60_000, opts.nodeId),
        exited.then((code) => Promise.reject(new Error(`Kafka exited with ${code} before serving: ${output()} (log: ${logFile})`))),
      ]);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
    return new ReferenceKafka(child, dir, ports, logFile, performance.now() - started, exited);
  }

  /** SIGTERM (Kafka's controlled shutdown) and wait for exit; SIGKILL after `graceMs`. */
  async stop(graceMs = 20_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL (no shutdown hooks run, as at a crash) and wait for exit. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Removes the log dir, properties and log file (after stop). */
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A cluster id as Kafka's Uuid.randomUuid() makes them: 16 random bytes, base64url, never starting with '-'. */
function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function java(log4j: string, main: string, args: string[], flags = TEST_JVM_FLAGS): ChildProcess {
  return spawn('java', [...flags, `-Dlog4j2.configurationFile=${log4j}`, '-cp', CLASSPATH, main, ...args], { cwd: dirname(log4j), stdio: ['ignore', 'pipe', 'pipe'] });
}

function collect(child: ChildProcess): () => string {
  let out = '';
  const add = (d: Buffer) => {
    out = (out + d.toString()).slice(-8192);
  };
  child.stdout!.on('data', add);
  child.stderr!.on('data', add);
  return () => out;
}

/**
 * The caller's properties, then what a single combined-mode KRaft node needs unless the caller set it: a
 * CONTROLLER listener, the quorum of this one voter, replication factors of 1 for the internal topics.
 */
async function serverProperties(given: string[], logDir: string, standalone = false): Promise<{ lines: string[]; ports: Record<string, number> }> {
  const props = new Map<string, string>();
  for (const line of given) {
    const eq = line.indexOf('=');
    props.set(line.slice(0, eq).trim(), line.slice(eq + 1));
  }
  const ports: Record<string, number> = {};
  const listeners: string[] = [];
  for (const l of (props.get('listeners') || 'PLAINTEXT://127.0.0.1:0').split(',').map((s) => s.trim())) {
    const m = /^([A-Za-z0-9_]+):\/\/(.*):(\d+)$/.exec(l);
    if (!m) throw new Error(`listener ${l} is not NAME://host:port`);
    const port = Number(m[3]) || (await freePort());
    ports[m[1]!.toUpperCase()] = port;
    listeners.push(`${m[1]}://${m[2] || '127.0.0.1'}:${port}`);
  }
  const names = Object.keys(ports);
  const controllerPort = await freePort();
  ports.CONTROLLER = controllerPort;
  props.set('listeners', [...listeners, `CONTROLLER://127.0.0.1:${controllerPort}`].join(','));
  // Clients get the listener they came in on, as kafkite's `advertised.listeners=` (empty) gives them.
  props.set('advertised.listeners', listeners.join(','));
  const map = props.get('listener.security.protocol.map') || names.map((n) => `${n}:${n}`).join(',');
  props.set('listener.security.protocol.map', `${map},CONTROLLER:PLAINTEXT`);
  const defaults: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(NODE_ID),
    ...(standalone ? { 'controller.quorum.bootstrap.servers': `127.0.0.1:${controllerPort}` } : { 'controller.quorum.voters': `${NODE_ID}@127.0.0.1:${controllerPort}` }),
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': names.includes('PLAINTEXT') ? 'PLAINTEXT' : names[0]!,
    'log.dirs': logDir,
    'offsets.topic.replication.factor': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    'group.initial.rebalance.delay.ms': '0',
  };
  for (const [k, v] of Object.entries(defaults)) if (!props.has(k)) props.set(k, v);
  props.set('log.dirs', logDir);
  return { lines: [...props].map(([k, v]) => `${k}=${v}`), ports };
}

/** Ready once Metadata lists this node as a broker (it has registered with its controller and is unfenced). */
export async function waitUntilServing(port: number, timeoutMs: number, nodeId = NODE_ID): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const client = await WireClient.connect(port);
      try {
        const res = await client.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        if (res.brokers.some((b: { nodeId: number }) => b.nodeId === nodeId)) return;
      } finally {
        client.close();
      }
    } catch {
      // not listening yet, or closed the connection while starting
    }
    if (Date.now() > deadline) throw new Error(`Kafka did not serve Metadata within ${timeoutMs} ms`);
    // Short: the benchmarks time start to ready with this.
    await new Promise((r) => setTimeout(r, 50));
  }
}
