// Incremental fetch sessions (KIP-227): a consumer of many partitions sends only what changed, and
// gets back only partitions with news. Kafka's FetchSession / FetchSessionCache, for one broker.
import { randomInt } from 'node:crypto';
import { ErrorCode } from './errors.js';

/** Session epochs as KIP-227 defines them. */
const INITIAL_EPOCH = 0;
const FINAL_EPOCH = -1;
const NO_SESSION_ID = 0;

/** What the client asked for on one partition, as the session remembers it. */
export interface SessionPartition {
  topic: string;
  topicId: string;
  partition: number;
  fetchOffset: number;
  partitionMaxBytes: number;
  /** The leader epoch the client knows (-1: none), checked at each read (Kafka's CachedPartition.leaderEpoch). */
  currentLeaderEpoch: number;
  /** What the last response said, to decide whether the next incremental response includes it. */
  lastHighWatermark: number;
  lastLogStartOffset: number;
  lastStableOffset: number;
}

export class FetchSession {
  epoch = INITIAL_EPOCH + 1;
  lastUsed = Date.now();
  /** Insertion-ordered, keyed by `topic\0partition`. */
  readonly partitions = new Map<string, SessionPartition>();

  constructor(readonly id: number) {}

  static key(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /** Moves the partition behind every other (the order the next fetch reads them in). */
  rotateToEnd(partition: SessionPartition): void {
    const key = FetchSession.key(partition.topic, partition.partition);
    if (this.partitions.delete(key)) this.partitions.set(key, partition);
  }
}

/** What a Fetch request's session fields mean, decided before any log is read. */
export type SessionContext =
  | { kind: 'sessionless' }
  | { kind: 'full'; session: FetchSession | null }
  | { kind: 'incremental'; session: FetchSession }
  | { kind: 'error'; errorCode: number };

export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();

  constructor(private readonly maxSlots: number) {}

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Interprets (sessionId, epoch): sessionless full fetch, a new session (full), the next step of an
   * existing one (incremental), or an error the response must carry.
   */
  begin(sessionId: number, epoch: number): SessionContext {
    if (sessionId === NO_SESSION_ID) {
      if (epoch === FINAL_EPOCH) return { kind: 'sessionless' };
      if (epoch !== INITIAL_EPOCH) return { kind: 'error', errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH };
      return { kind: 'full', session: this.create() };
    }
    const session = this.sessions.get(sessionId);
    if (epoch === FINAL_EPOCH || epoch === INITIAL_EPOCH) {
      // The client closes its session (and, with epoch 0, starts a new one).
      this.sessions.delete(sessionId);
      return epoch === FINAL_EPOCH ? { kind: 'sessionless' } : { kind: 'full', session: this.create() };
    }
    if (!session) return { kind: 'error', errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND };
    if (session.epoch !== epoch) return { kind: 'error', errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH };
    session.epoch++;
    session.lastUsed = Date.now();
    return { kind: 'incremental', session };
  }

  /** A new session, evicting the least recently used one when every slot is taken. */
  private create(): FetchSession | null {
    if (this.maxSlots <= 0) return null;
    if (this.sessions.size >= this.maxSlots) {
      let oldest: FetchSession | undefined;
      for (const s of this.sessions.values()) if (!oldest || s.lastUsed < oldest.lastUsed) oldest = s;
      this.sessions.delete(oldest!.id);
    }
    let id: number;
    do id = randomInt(1, 2 ** 31 - 1);
    while (this.sessions.has(id));
    const session = new FetchSession(id);
    this.sessions.set(id, session);
    return session;
  }
}
