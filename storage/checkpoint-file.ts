// Kafka's text checkpoint files: a version line, a count line, then one entry per line.
// Written to a temp file, fsynced and renamed over the old one so a crash leaves either version intact.
import fs from 'node:fs';
import path from 'node:path';
import { KafkaStorageError } from './errors.js';

const CHECKPOINT_VERSION = 0;

export function writeFileAtomically(file: string, content: string | Buffer): void {
  const tmp = `${file}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, typeof content === 'string' ? Buffer.from(content) : content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    fsyncDirectory(path.dirname(file));
  } catch (err) {
    throw new KafkaStorageError(`cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}

export function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads the entry lines of a checkpoint file; [] when it does not exist. Throws on a malformed file. */
function readEntryLines(file: string): string[][] {
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
  return lines.slice(2).map((l) => l.split(' '));
}

function format(entries: string[]): string {
  return `${CHECKPOINT_VERSION}\n${entries.length}\n${entries.map((e) => e + '\n').join('')}`;
}

/** `<topic> <partition> <offset>` entries (recovery point, log start offset, cleaner offset checkpoints). */
export class OffsetCheckpointFile {
  constructor(readonly file: string) {}

  /** Keys are `<topic>-<partition>` directory names. */
  read(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [topic, partition, offset] of readEntryLines(this.file)) {
      out.set(`${topic}-${partition}`, Number(offset));
    }
    return out;
  }

  write(entries: Iterable<{ topic: string; partition: number; offset: number }>): void {
    const lines: string[] = [];
    for (const e of entries) lines.push(`${e.topic} ${e.partition} ${e.offset}`);
    writeFileAtomically(this.file, format(lines));
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
    return readEntryLines(this.file).map(([epoch, startOffset]) => ({ epoch: Number(epoch), startOffset: Number(startOffset) }));
  }

  write(entries: readonly EpochEntry[]): void {
    writeFileAtomically(this.file, format(entries.map((e) => `${e.epoch} ${e.startOffset}`)));
  }
}
