// Kafka's text checkpoint files: a version line, a count line, then one entry per line.
// Written to a temp file, fsynced and renamed over the old one so a crash leaves either version intact.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { KafkaStorageError } from './errors.js';
import { probeStorageAddon, type StorageAddon } from './native-storage.js';

const CHECKPOINT_VERSION = 0;

/** The file operations of an atomic write, done in place (blocking) or on the libuv pool. */
interface FileSteps<R> {
  /** Writes `content` to a new `file`, fsynced before it is closed when `fsync`. */
  write(file: string, content: string | Buffer, fsync: boolean): R;
  rename(from: string, to: string): R;
  /** fsync of a file or directory. */
  fsync(target: string): R;
}

const inPlace: FileSteps<void> = {
  write(file, content, fsync) {
    const fd = fs.openSync(file, 'w');
    try {
      fs.writeSync(fd, typeof content === 'string' ? Buffer.from(content) : content);
      if (fsync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  rename: (from, to) => fs.renameSync(from, to),
  fsync(target) {
    const fd = fs.openSync(target, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
};

const onPool: FileSteps<Promise<void>> = {
  async write(file, content, fsync) {
    const handle = await fs.promises.open(file, 'w');
    try {
      await handle.writeFile(content);
      if (fsync) await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => fs.promises.rename(from, to),
  async fsync(target) {
    const handle = await fs.promises.open(target, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};

/**
 * The steps of an atomic write, for either FileSteps: the content to `<file>.tmp`, fsynced, renamed over
 * `file`, the directory fsynced, so a crash leaves the old or the new content. Without `durable` the
 * fsyncs are left to the caller (of `file` and its directory).
 */
function atomicWriteSteps<R>(file: string, content: string | Buffer, durable: boolean): Array<(on: FileSteps<R>) => R> {
  const tmp = `${file}.tmp`;
  const steps = [(on: FileSteps<R>) => on.write(tmp, content, durable), (on: FileSteps<R>) => on.rename(tmp, file)];
  if (durable) steps.push((on) => on.fsync(path.dirname(file)));
  return steps;
}

function writeFailure(file: string, err: unknown): KafkaStorageError {
  return new KafkaStorageError(`cannot write ${file}: ${(err as Error).message}`, { cause: err });
}

/**
 * writeFileAtomically on the libuv pool, without stalling the event loop while the disk is busy (a
 * checkpoint's two fsyncs can take tens of ms behind the commit rounds' flushes).
 */
export async function writeFileAtomicallyAsync(file: string, content: string | Buffer): Promise<void> {
  try {
    for (const step of atomicWriteSteps<Promise<void>>(file, content, true)) await step(onPool);
  } catch (err) {
    throw writeFailure(file, err);
  }
}

/**
 * writeFileAtomically with its fsyncs on the libuv pool: the file is in place (page cache) when this
 * returns, and the promise settles once it is durable. For files a crash may lose at no cost but a
 * slower start (Kafka flushes the producer snapshot it writes at a roll in the background, KAFKA-13345).
 */
export function writeFileAtomicallyThenSync(file: string, content: Buffer): Promise<void> {
  try {
    for (const step of atomicWriteSteps<void>(file, content, false)) step(inPlace);
  } catch (err) {
    throw writeFailure(file, err);
  }
  const done = backgroundSyncs.then(() => onPool.fsync(file)).then(() => onPool.fsync(path.dirname(file)));
  backgroundSyncs = done.catch(() => {});
  return done.catch((err: unknown) => {
    throw new KafkaStorageError(`cannot sync ${file}: ${(err as Error).message}`, { cause: err });
  });
}

/** writeFileAtomicallyThenSync's fsyncs run one at a time: each holds a descriptor, and a burst of rolls must not take hundreds. */
let backgroundSyncs: Promise<void> = Promise.resolve();

/**
 * A checkpoint kept current in the background: each request() writes the content of that moment (read
 * when the write starts) off the event loop; requests made while a write runs are served by one more
 * write after it, so writes never overlap and the last one holds the newest content.
 */
export class BackgroundCheckpoint {
  private running: Promise<void> | null = null;
  private requested = false;

  /** `content` returns null when nothing is to be written (the log dir went offline). */
  constructor(
    private readonly file: string,
    private readonly content: () => string | null,
    private readonly onWritten: (error: unknown) => void,
  ) {}

  request(): void {
    this.requested = true;
    if (this.running === null) this.running = this.writeWhileRequested();
  }

  /** Resolves once no write is running or requested (before a synchronous write of the same file). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  private async writeWhileRequested(): Promise<void> {
    await null; // after request() stored this promise: the `running = null` below must come later
    while (this.requested) {
      this.requested = false;
      const content = this.content();
      if (content === null) continue;
      let error: unknown = null;
      try {
        await writeFileAtomicallyAsync(this.file, content);
      } catch (err) {
        error = err;
      }
      this.onWritten(error);
    }
    this.running = null;
  }
}

/** Files written inside syncingOnce(): their fsyncs are left to its end. */
let unsynced: string[] | null = null;

/** Replaces `file` with `content`, durable when it returns, or at the end of syncingOnce() inside one (see atomicWriteSteps). */
export function writeFileAtomically(file: string, content: string | Buffer): void {
  const syncLater = unsynced;
  try {
    for (const step of atomicWriteSteps<void>(file, content, syncLater === null)) step(inPlace);
  } catch (err) {
    throw writeFailure(file, err);
  }
  syncLater?.push(file);
}

/** Runs `fn` with writeFileAtomically's fsyncs left out; returns its result and the files it wrote. */
function deferringSyncs<T>(fn: () => T): { result: T; written: string[] } {
  const written: string[] = [];
  unsynced = written;
  try {
    return { result: fn(), written };
  } finally {
    unsynced = null;
  }
}

/**
 * Runs `fn`, whose writeFileAtomically calls skip their own fsyncs, then makes everything it wrote
 * durable at once: syncfs(2) of each filesystem (through the native addon, else `sync -f`), or, where
 * that is missing, an fsync per file and directory as usual. Creating a partition writes two small
 * files; 100 partitions then cost one filesystem sync instead of 400 fsyncs. Callers commit (e.g. register the topic) only after it returns.
 * Blocks the event loop while the filesystem writes back (seconds when it is dirty): for start-up and
 * the coordinators' internal topics; requests use syncingOnceAsync.
 */
export function syncingOnce<T>(dirs: readonly string[], fn: () => T): T {
  if (unsynced !== null) return fn();
  const { result, written } = deferringSyncs(fn);
  if (written.length === 0) return result;
  try {
    const addon = probeStorageAddon().addon;
    for (const dir of dirs) {
      if (addon) addon.syncfsSync(dir);
      else execFileSync('sync', ['-f', dir], { stdio: 'ignore' });
    }
  } catch {
    try {
      for (const file of written) inPlace.fsync(file);
      for (const dir of new Set(written.map((f) => path.dirname(f)))) inPlace.fsync(dir);
    } catch (err) {
      throw new KafkaStorageError(`cannot sync ${written.length} new files: ${(err as Error).message}`, { cause: err });
    }
  }
  return result;
}

/**
 * syncingOnce with the syncs on the libuv pool: `fn` runs now, and the promise settles once what it
 * wrote is durable, the event loop serving other requests meanwhile. Without the addon, an fsync per
 * file and directory.
 */
export async function syncingOnceAsync<T>(dirs: readonly string[], fn: () => T): Promise<T> {
  if (unsynced !== null) return fn();
  const { result, written } = deferringSyncs(fn);
  if (written.length === 0 || (await syncedFilesystems(dirs))) return result;
  try {
    for (const file of written) await onPool.fsync(file);
    for (const dir of new Set(written.map((f) => path.dirname(f)))) await onPool.fsync(dir);
  } catch (err) {
    throw new KafkaStorageError(`cannot sync ${written.length} new files: ${(err as Error).message}`, { cause: err });
  }
  return result;
}

/** syncfs(2) of each dir's filesystem on the pool; false when the addon is missing or a syncfs failed (the caller fsyncs file by file). */
async function syncedFilesystems(dirs: readonly string[]): Promise<boolean> {
  const addon = probeStorageAddon().addon;
  if (addon === null) return false;
  try {
    for (const dir of dirs) await syncfsAsync(addon, dir);
    return true;
  } catch {
    return false;
  }
}

async function syncfsAsync(addon: StorageAddon, dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await new Promise<void>((resolve, reject) => addon.syncfs(handle.fd, (err) => (err ? reject(err) : resolve())));
  } finally {
    await handle.close();
  }
}

/** Reads the entry lines of a checkpoint file, unsplit; [] when it does not exist. Throws on a malformed file. */
function readEntryLines(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const lines = text.split('\n').filter((l) => l.length > 0);
  const version = Number(lines[0]);
  const count = Number(lines[1]);
  if (version !== CHECKPOINT_VERSION || !Number.isInteger(count) || lines.length !== count + 2) {
    throw new KafkaStorageError(`malformed checkpoint file ${file}`);
  }
  return lines.slice(2);
}

function format(entries: string[]): string {
  return `${CHECKPOINT_VERSION}\n${entries.length}\n${entries.map((e) => e + '\n').join('')}`;
}

/** `<topic> <partition> <offset>` entries (recovery point, log start offset, cleaner offset checkpoints). */
export class OffsetCheckpointFile {
  constructor(readonly file: string) {}

  /** Keys are `<topic>-<partition>` directory names. Parsed without splitting: start-up reads 100k-line ones. */
  read(): Map<string, number> {
    const out = new Map<string, number>();
    for (const line of readEntryLines(this.file)) {
      const a = line.indexOf(' ');
      const b = line.indexOf(' ', a + 1);
      if (a <= 0 || b < 0) throw new KafkaStorageError(`malformed checkpoint file ${this.file}`);
      const c = line.indexOf(' ', b + 1);
      out.set(`${line.slice(0, a)}-${line.slice(a + 1, b)}`, Number(line.slice(b + 1, c < 0 ? line.length : c)));
    }
    return out;
  }

  write(entries: Iterable<{ topic: string; partition: number; offset: number }>): void {
    writeFileAtomically(this.file, OffsetCheckpointFile.format(entries));
  }

  static format(entries: Iterable<{ topic: string; partition: number; offset: number }>): string {
    const lines: string[] = [];
    for (const e of entries) lines.push(`${e.topic} ${e.partition} ${e.offset}`);
    return format(lines);
  }
}

export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

/** `<epoch> <startOffset>` entries (leader-epoch-checkpoint). */
export class LeaderEpochCheckpointFile {
  constructor(readonly file: string) {}

  read(): EpochEntry[] {
    return readEntryLines(this.file).map((line) => {
      const [epoch, startOffset] = line.split(' ');
      return { epoch: Number(epoch), startOffset: Number(startOffset) };
    });
  }

  write(entries: readonly EpochEntry[]): void {
    writeFileAtomically(this.file, format(entries.map((e) => `${e.epoch} ${e.startOffset}`)));
  }
}
