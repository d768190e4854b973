// Hands out producer ids for InitProducerId. Ids must never repeat across restarts (idempotence state
// is keyed by them), so blocks of ids are reserved on disk before any id in them is given out.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const BLOCK_SIZE = 1000;

export class ProducerIdManager {
  private next: number;
  private blockEnd: number;

  constructor(private readonly file: string) {
    const reserved = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 0;
    this.next = Number.isSafeInteger(reserved) && reserved > 0 ? reserved : 0;
    this.blockEnd = this.next;
  }

  nextId(): number {
    if (this.next >= this.blockEnd) this.reserve(this.next + BLOCK_SIZE);
    return this.next++;
  }

  private reserve(end: number): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, `${end}\n`);
    const fd = openSync(tmp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.file);
    this.blockEnd = end;
  }
}
