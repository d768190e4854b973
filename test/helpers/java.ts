// Java programs and Kafka's own tools (Apache Kafka 4.4's jars in test/kafka/lib) run against a kafkite.
// Programs are compiled with javac once per content: the classes are kept in ~/.cache/kafkite-java/<hash>,
// so a run pays one JVM start per launch; the source launcher (`java Foo.java`) would compile again on
// every launch, 2-4 s of javac on this machine.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
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
  stdout: string;
  stderr: string;
}

/** Runs one of Kafka's tools through its main class; resolves with its exit code and output, whatever the code. */
export function runKafkaTool(mainClass: string, args: string[], timeoutMs = 60_000): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    execFile('java', javaArgs(mainClass, args), { timeout: timeoutMs, cwd: REPO_ROOT }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(new Error(`${mainClass} ${args.join(' ')}: ${err.message}\n${stderr}`));
      resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}
