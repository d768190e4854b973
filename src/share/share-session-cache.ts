// Share fetch sessions (KIP-932; Kafka's server.share.session.ShareSessionCache): one per group and member,
// the partitions it fetches, an epoch that orders its requests, bounded by group.share.max.share.sessions.
// A session belongs to the connection that opened it; that connection closing ends it.
import { ErrorCode } from '../errors.js';

/** ShareRequestMetadata's epochs. */
export const INITIAL_SHARE_SESSION_EPOCH = 0;
const FINAL_SHARE_SESSION_EPOCH = -1;

export interface ShareSessionPartition {
  topicId: string;
  partition: number;
}

export class ShareSession {
  /** The epoch the next request must carry. */
  epoch = 1;
  /** Insertion-ordered, keyed by topicId:partition. */
  readonly partitions = new Map<string, ShareSessionPartition>();

  constructor(
    readonly groupId: string,
    readonly memberId: string,
    readonly connectionId: number,
  ) {}

  static partitionKey(topicId: string, partition: number): string {
    return `${topicId}:${partition}`;
  }

  add(topicId: string, partition: number): void {
    const key = ShareSession.partitionKey(topicId, partition);
    if (!this.partitions.has(key)) this.partitions.set(key, { topicId, partition });
  }

  remove(topicId: string, partition: number): void {
    this.partitions.delete(ShareSession.partitionKey(topicId, partition));
  }
}

/** What a request's epoch means for its session, decided before anything else (Kafka's newContext). */
export type ShareSessionContext =
  | { kind: 'open'; session: ShareSession; replaced?: ShareSession }
  | { kind: 'next'; session: ShareSession }
  | { kind: 'close'; session: ShareSession }
  | { kind: 'error'; errorCode: number };

export class ShareSessionCache {
  private readonly sessions = new Map<string, ShareSession>();

  constructor(private readonly maxSessions: () => number) {}

  get size(): number {
    return this.sessions.size;
  }

  private static key(groupId: string, memberId: string): string {
    return `${groupId}\u0000${memberId}`;
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(ShareSessionCache.key(groupId, memberId));
  }

  /**
   * Epoch 0 opens a session (replacing the member's previous one), -1 names the one being closed, any other
   * must be the session's next epoch, which it then advances.
   */
  begin(groupId: string, memberId: string, epoch: number, connectionId: number): ShareSessionContext {
    const key = ShareSessionCache.key(groupId, memberId);
    const existing = this.sessions.get(key);
    if (epoch === INITIAL_SHARE_SESSION_EPOCH) {
      if (!existing && this.sessions.size >= this.maxSessions()) return { kind: 'error', errorCode: ErrorCode.SHARE_SESSION_LIMIT_REACHED };
      const session = new ShareSession(groupId, memberId, connectionId);
      this.sessions.set(key, session);
      return existing ? { kind: 'open', session, replaced: existing } : { kind: 'open', session };
    }
    if (!existing) return { kind: 'error', errorCode: ErrorCode.SHARE_SESSION_NOT_FOUND };
    if (epoch === FINAL_SHARE_SESSION_EPOCH) return { kind: 'close', session: existing };
    if (epoch !== existing.epoch) return { kind: 'error', errorCode: ErrorCode.INVALID_SHARE_SESSION_EPOCH };
    existing.epoch = existing.epoch === 0x7fffffff ? 1 : existing.epoch + 1;
    return { kind: 'next', session: existing };
  }

  remove(session: ShareSession): void {
    const key = ShareSessionCache.key(session.groupId, session.memberId);
    if (this.sessions.get(key) === session) this.sessions.delete(key);
  }

  /** Removes every session (share groups were switched off). */
  removeAll(): void {
    this.sessions.clear();
  }

  /** Removes and returns the sessions a connection opened. */
  removeConnection(connectionId: number): ShareSession[] {
    const gone = [...this.sessions.values()].filter((s) => s.connectionId === connectionId);
    for (const s of gone) this.remove(s);
    return gone;
  }

  /** Removes and returns a member's sessions (the member left its group). */
  removeMember(groupId: string, memberId: string): ShareSession | undefined {
    const session = this.get(groupId, memberId);
    if (session) this.remove(session);
    return session;
  }
}
