// bench/peers/StreamsBench.java as a long-lived JVM against one broker (bench/streams.ts): a command line in, one JSON
// line out. One JVM per broker for the whole bench, so that javac (the source launcher), the JVM's start and its JIT
// are paid once and outside every timed span; the program times each span itself, with System.nanoTime().
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CLASSPATH, TOOL_JVM_FLAGS } from './kafka-tools.js';
import { REPO_ROOT } from './kafkite-process.js';
import type { Side } from './peer-broker.js';

class StreamsPeerError extends Error {
  override name = 'StreamsPeerError';
}

export class StreamsPeer {
  private readonly child: ChildProcess;
  private readonly answers: Array<{ resolve: (json: any) => void; reject: (err: Error) => void }> = [];
  private readonly exited: Promise<number | null>;
  /** The program's other output (Kafka's client logs, a JVM error), its last 8 KB, for an error's message. */
  private output = '';

  constructor(side: Side, group: { sessionTimeoutMs: number; heartbeatIntervalMs: number }) {
    const source = join(REPO_ROOT, 'bench/peers/StreamsBench.java');
    this.child = spawn('java', [...TOOL_JVM_FLAGS, '-cp', CLASSPATH, source, side.bootstrap, String(group.sessionTimeoutMs), String(group.heartbeatIntervalMs)],
      { stdio: ['pipe', 'pipe', 'pipe'] });
    const keep = (text: string) => (this.output = (this.output + text).slice(-8192));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{"')) return keep(`${line}\n`);
      const waiter = this.answers.shift();
      let json: any;
      try {
        json = JSON.parse(line);
      } catch {
        json = { error: line };
      }
      if (json.error) waiter?.reject(new StreamsPeerError(`StreamsBench on ${side.name}: ${json.error}\n${this.output}`));
      else waiter?.resolve(json);
    });
    this.child.stderr!.on('data', (d) => keep(String(d)));
    const fail = (why: string) => {
      for (const waiter of this.answers.splice(0)) waiter.reject(new StreamsPeerError(`StreamsBench on ${side.name} ${why}: ${this.output}`));
    };
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => (fail(`could not start (${err.message})`), resolve(null)));
      this.child.once('exit', (code) => (fail(`exited with ${code}`), resolve(code)));
    });
  }

  /** Sends one command (see StreamsBench.java) and resolves with its answer. */
  run<T>(...command: Array<string | number>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.answers.push({ resolve, reject });
      this.child.stdin!.write(`${command.join(' ')}\n`);
    });
  }

  /** Ends the program (stdin closed; SIGKILL if it has not exited within 60 s). */
  async close(): Promise<void> {
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 60_000);
    await this.exited;
    clearTimeout(timer);
  }
}
