// Timing kcat runs, shared by the throughput benches (plain and secured listeners).
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { seconds } from './stats.js';

class KcatError extends Error {
  override name = 'KcatError';
}

/**
 * kcat's consume from the beginning to the end of a topic, arguments after the topic. A short
 * fetch.wait.max.ms keeps the long poll that ends each run short. The queue limits are raised so that
 * librdkafka 2.0 never pauses the fetcher: once its queue passed queued.min.messages (100,000) it
 * waited 0.65-0.9 s before fetching again (its fetch debug log) although kcat had drained the queue in
 * a few ms, so a broker that answered faster filled the queue more often and timed slower (a copying
 * broker 6.1-8.1 s for 3M records of 100 B, against 1.7 s for the same data from a sendfile one).
 */
export const KCAT_CONSUME_TO_END = [
  '-o', 'beginning', '-e', '-q', '-X', 'fetch.wait.max.ms=100', '-X', 'queued.min.messages=10000000', '-X', 'queued.max.messages.kbytes=2097151',
];

/** Runs kcat with stdin from `inputPath` (or nothing) and stdout to /dev/null; resolves with the wall seconds. */
export function timeKcat(args: string[], inputPath: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const stdin = inputPath ? openSync(inputPath, 'r') : 'ignore';
    const started = process.hrtime.bigint();
    const child = spawn('kcat', args, { stdio: [stdin, 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (typeof stdin === 'number') closeSync(stdin);
      if (code !== 0) reject(new KcatError(`kcat ${args.join(' ')} exited with ${code}: ${stderr}`));
      else resolve(seconds(started));
    });
  });
}

/** A file of `records` lines of exactly `recordBytes` bytes each (kcat -P sends one record per line). */
export function writeInput(dir: string, recordBytes: number, records: number): string {
  const path = join(dir, `input-${recordBytes}-${records}.txt`);
  const line = Buffer.alloc(recordBytes + 1, 0x61);
  line[recordBytes] = 0x0a;
  const perChunk = Math.max(1, Math.floor((4 << 20) / line.length));
  const chunk = Buffer.concat(Array.from({ length: perChunk }, () => line));
  const fd = openSync(path, 'w');
  for (let left = records; left > 0; left -= perChunk) writeSync(fd, chunk, 0, Math.min(left, perChunk) * line.length);
  closeSync(fd);
  return path;
}
