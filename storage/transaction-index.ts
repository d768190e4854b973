// A segment's aborted transactions (Kafka's TransactionIndex, `<baseOffset>.txnindex`): one 34-byte
// entry per transaction aborted by a marker in this segment:
//   version int16 (0), producerId int64, firstOffset int64, lastOffset int64, lastStableOffset int64.
// lastOffset is the ABORT marker's offset; lastStableOffset is the partition's LSO once the marker was
// written, which lets a search stop early. kafkite creates the file (empty) with its segment, so a
// missing file means it was lost and is rebuilt from the log.
import fs from 'node:fs';
import { readInt64, writeInt64 } from '../protocol/primitives.js';
import { CorruptRecordError } from './errors.js';

export const ABORTED_TXN_VERSION = 0;
const ABORTED_TXN_SIZE = 34;

export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

/** What Fetch sends in `abortedTransactions`. */
export interface FetchAbortedTxn {
  producerId: number;
  firstOffset: number;
}

function encodeAbortedTxn(txn: AbortedTxn): Buffer {
  const buf = Buffer.alloc(ABORTED_TXN_SIZE);
  buf.writeInt16BE(ABORTED_TXN_VERSION, 0);
  writeInt64(buf, txn.producerId, 2);
  writeInt64(buf, txn.firstOffset, 10);
  writeInt64(buf, txn.lastOffset, 18);
  writeInt64(buf, txn.lastStableOffset, 26);
  return buf;
}

/** Parses a whole .txnindex file; throws CorruptRecordError for a size or version Kafka would refuse. */
export function decodeAbortedTxns(buf: Buffer, file: string): AbortedTxn[] {
  if (buf.length % ABORTED_TXN_SIZE !== 0) {
    throw new CorruptRecordError(`Transaction index file ${file} has size ${buf.length}, not a multiple of ${ABORTED_TXN_SIZE}`);
  }
  const out: AbortedTxn[] = [];
  for (let pos = 0; pos < buf.length; pos += ABORTED_TXN_SIZE) {
    const version = buf.readInt16BE(pos);
    if (version !== ABORTED_TXN_VERSION) throw new CorruptRecordError(`Unexpected aborted transaction version ${version} in ${file} at position ${pos}`);
    out.push({ producerId: readInt64(buf, pos + 2), firstOffset: readInt64(buf, pos + 10), lastOffset: readInt64(buf, pos + 18), lastStableOffset: readInt64(buf, pos + 26) });
  }
  return out;
}

export class TransactionIndex {
  /** Loaded on first use; the files of cold segments are never read. */
  private entries_: AbortedTxn[] | null = null;
  private fd: number | null = null;
  private dirty = false;

  constructor(
    public file: string,
    readonly baseOffset: number,
  ) {}

  /** A new segment's index: an empty file. */
  static create(file: string, baseOffset: number): TransactionIndex {
    fs.closeSync(fs.openSync(file, 'w'));
    const index = new TransactionIndex(file, baseOffset);
    index.entries_ = [];
    return index;
  }

  /** Kafka's TransactionIndex.sanityCheck, from the file size alone (start-up stats every segment's). */
  hasValidSize(): boolean {
    try {
      return fs.statSync(this.file).size % ABORTED_TXN_SIZE === 0;
    } catch {
      return false;
    }
  }

  get entries(): readonly AbortedTxn[] {
    this.entries_ ??= decodeAbortedTxns(fs.readFileSync(this.file), this.file);
    return this.entries_;
  }

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  append(txn: AbortedTxn): void {
    const entries = this.entries as AbortedTxn[];
    const last = entries[entries.length - 1];
    // Kafka's TransactionIndex.append: markers come in offset order.
    if (last !== undefined && txn.lastOffset <= last.lastOffset) {
      throw new CorruptRecordError(`aborted transaction ending at ${txn.lastOffset} does not follow the one ending at ${last.lastOffset} in ${this.file}`);
    }
    this.fd ??= fs.openSync(this.file, 'a');
    fs.writeSync(this.fd, encodeAbortedTxn(txn));
    entries.push(txn);
    this.dirty = true;
  }

  /**
   * The aborted transactions overlapping [fetchOffset, upperBoundOffset); complete when an entry's LSO
   * reaches the upper bound, since every later transaction in later segments started after it.
   */
  collectAbortedTxns(fetchOffset: number, upperBoundOffset: number): { aborted: AbortedTxn[]; isComplete: boolean } {
    const aborted: AbortedTxn[] = [];
    for (const txn of this.entries) {
      if (txn.lastOffset >= fetchOffset && txn.firstOffset < upperBoundOffset) aborted.push(txn);
      if (txn.lastStableOffset >= upperBoundOffset) return { aborted, isComplete: true };
    }
    return { aborted, isComplete: false };
  }

  /** Empties the index (its segment is being recovered and will re-add its entries). */
  reset(): void {
    this.close();
    fs.writeFileSync(this.file, Buffer.alloc(0));
    this.entries_ = [];
    this.dirty = true;
  }

  /** Replaces the content at once, on disk when it returns (a cleaned segment's index). */
  writeAllSync(entries: readonly AbortedTxn[]): void {
    this.close();
    const fd = fs.openSync(this.file, 'w');
    try {
      fs.writeSync(fd, Buffer.concat(entries.map(encodeAbortedTxn)));
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.entries_ = [...entries];
    this.dirty = false;
  }

  /**
   * First half of a flush: the entries written so far are the ones the returned fdatasync covers (null:
   * none). A failed fdatasync leaves the index dirty, so the next flush writes those entries out again.
   */
  beginFlush(): (() => Promise<void>) | null {
    if (!this.dirty) return null;
    this.dirty = false;
    return () =>
      this.fdatasync().catch((err: unknown) => {
        this.dirty = true;
        throw err;
      });
  }

  private fdatasync(): Promise<void> {
    return new Promise((resolve, reject) => {
      fs.open(this.file, 'r', (err, fd) => {
        if (err) return reject(err);
        fs.fdatasync(fd, (syncErr) => fs.close(fd, () => (syncErr ? reject(syncErr) : resolve())));
      });
    });
  }

  renameTo(file: string): void {
    try {
      fs.renameSync(this.file, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.file = file;
  }

  close(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
  }

  deleteFile(): void {
    this.close();
    fs.rmSync(this.file, { force: true });
  }
}
