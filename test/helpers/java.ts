// Java programs and Kafka's own tools (Apache Kafka 4.4's jars in test/kafka/lib) run against a kafkite.
// Programs are compiled with javac once per content: the classes are kept in ~/.cache/kafkite-java/<hash>,
// so a run pays one JVM start per launch; the source launcher (`java Foo.java`) would compile again on
// every launch, 2-4 s of javac on this machine. The tools run in one JVM between them (ToolRunner.java):
// a JVM start (0.8-1.5 s here) costs more than most tool runs (10-150 ms once loaded).
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './broker-process.js';

const LIB = join(REPO_ROOT, 'test/kafka/lib');
const SOURCES = join(REPO_ROOT, 'test/clients/java');
const CLASSPATH = `${LIB}/*`;
/** A short-lived JVM: C1 only, the CDS archive, the serial collector, a small heap; logs to stderr. */
const JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-Xshare:auto', '-XX:+UseSerialGC', '-Xmx256m', `-Dlog4j2.configurationFile=${join(SOURCES, 'log4j2.properties')}`];

/** Compiles test/clients/java/<name>.java (cached by its content and the jars' names); returns the classes' dir. */
export function compileJava(name: string): string {
  const source = join(SOURCES, `${name}.java`);
  const hash = createHash('sha256').update(readFileSync(source)).update(readdirSync(LIB).sort().join('\n')).digest('hex').slice(0, 16);
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kafkite-java', `${name}-${hash}`);
  if (existsSync(dir)) return dir;
  // Compiled aside and renamed into place, so that a concurrent or interrupted compile never leaves half a dir.
  const tmp = `${dir}.${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  try {
    execFileSync('javac', ['-nowarn', '-d', tmp, '-cp', CLASSPATH, source], { stdio: ['ignore', 'ignore', 'pipe'] });
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw err;
  }
  return dir;
}

/** `java` arguments that run `mainClass` with Kafka's jars (and `classes`, a compiled program's dir). */
export function javaArgs(mainClass: string, args: string[], classes?: string): string[] {
  return [...JVM_FLAGS, '-cp', classes ? `${CLASSPATH}:${classes}` : CLASSPATH, mainClass, ...args];
}

export interface ToolRun {
  code: number;
  out: string;
  err: string;
  ms: number;
}

const RUN_TIMEOUT_MS = 120_000;

/**
 * Kafka's tools run one after another in one JVM (test/clients/java/ToolRunner.java): `run` sends it a main
 * class and its arguments and resolves with the tool's exit code and output.
 */
export class KafkaTools {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Array<(line: string) => void> = [];
  private stderr = '';

  constructor() {
    this.child = spawn('java', javaArgs('ToolRunner', [], compileJava('ToolRunner')), { cwd: REPO_ROOT });
    this.child.stderr.on('data', (d) => (this.stderr = (this.stderr + d).slice(-20_000)));
    // A line that is not a result (a tool printing past the captured System.out) is kept with stderr.
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      if (line.startsWith('{"code":')) this.pending.shift()?.(line);
      else this.stderr += `${line}\n`;
    });
    this.child.on('exit', (code) => {
      for (const wake of this.pending.splice(0)) wake(JSON.stringify({ code: -1, out: '', err: `ToolRunner exited with ${code}: ${this.stderr}`, ms: 0 }));
    });
  }

  /**
   * A tool that has not answered within RUN_TIMEOUT_MS ends the JVM: it and the runs queued behind it
   * resolve with code -1 (a hung tool would otherwise hold its test until the test's own timeout).
   */
  run(mainClass: string, ...args: string[]): Promise<ToolRun> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.stderr += `${mainClass} gave no answer within ${RUN_TIMEOUT_MS} ms\n`;
        this.child.kill('SIGKILL');
      }, RUN_TIMEOUT_MS);
      this.pending.push((line) => {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      });
      this.child.stdin.write(`${JSON.stringify([mainClass, ...args])}\n`);
    });
  }

  /**
   * Every record of a topic, read with read_committed by Kafka's console consumer (until 5 s pass without one):
   * [CreateTime, key, value], the value through `valueDeserializer` (a class of org.apache.kafka.common.serialization).
   */
  async consumeCommitted(bootstrap: string, topic: string, valueDeserializer = 'StringDeserializer'): Promise<Array<[number, string, string]>> {
    const run = await this.run('org.apache.kafka.tools.consumer.ConsoleConsumer',
      '--bootstrap-server', bootstrap, '--topic', topic, '--from-beginning', '--timeout-ms', '5000',
      '--isolation-level', 'read_committed', '--value-deserializer', `org.apache.kafka.common.serialization.${valueDeserializer}`,
      '--property', 'print.timestamp=true', '--property', 'print.key=true');
    return run.out.split('\n').filter((l) => l.startsWith('CreateTime:')).map((l) => {
      const [ts, key, value] = l.split('\t');
      return [Number(ts!.slice('CreateTime:'.length)), key!, value!];
    });
  }

  /** Ends the JVM (stdin closed) and waits for it. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
    });
  }
}
