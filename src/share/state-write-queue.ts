// A share partition's writes to the Persister, one at a time. Changes made while a write is out wait for the
// next one, which takes all of them: so each write is computed from a state where every earlier write has
// settled (committed or rolled back), its start offset never goes below an earlier write's, and one fdatasync
// covers what several acknowledgements changed meanwhile. Kafka's SharePartition sends a write per change and
// relies on the share coordinator applying them in order; kafkite writes the whole in-flight state, so order
// within the partition is kept here instead.

/** One write, and the changes waiting in it: a change names its write so that it settles with it. */
export interface PendingWrite {
  /** The write's error code once it is durable (0) or failed. */
  readonly done: Promise<number>;
}

export class StateWriteQueue {
  private tail: Promise<void> = Promise.resolve();
  private open: PendingWrite | null = null;

  /** `flush` makes one write and settles its changes; it never throws and answers the error code. */
  constructor(private readonly flush: (write: PendingWrite) => Promise<number>) {}

  /** The write that changes made now go into: it starts once the one out now has settled. */
  next(): PendingWrite {
    if (this.open) return this.open;
    let resolve!: (code: number) => void;
    const write: PendingWrite = { done: new Promise<number>((r) => (resolve = r)) };
    this.open = write;
    this.tail = this.tail.then(async () => {
      // From here on, new changes go into the write after this one.
      this.open = null;
      resolve(await this.flush(write));
    });
    return write;
  }
}
