// Hands out producer ids for InitProducerId. Ids must never repeat across restarts (idempotence state
// is keyed by them), so blocks of ids are reserved on disk before any id in them is given out.
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomically } from '../storage/checkpoint-file.js';

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

  /** Durable, directory included, before any id of the block is given out: an OS crash cannot bring back an older end. */
  private reserve(end: number): void {
    writeFileAtomically(this.file, `${end}\n`);
    this.blockEnd = end;
  }
}
