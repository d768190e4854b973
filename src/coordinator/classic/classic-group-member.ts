// One member of a classic group (Kafka's MemberMetadata).
import type { JoinGroupResult, Protocol, SyncGroupResult } from '../types.js';

export class ClassicGroupMember {
  assignment: Buffer = Buffer.alloc(0);
  /** Resolves this member's pending JoinGroup; set while it waits for the rebalance to complete. */
  awaitingJoin: ((result: JoinGroupResult) => void) | undefined;
  /** Resolves this member's pending SyncGroup; set while it waits for the leader's assignment. */
  awaitingSync: ((result: SyncGroupResult) => void) | undefined;
  heartbeatDeadline = 0;
  heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(
    public memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    readonly protocolType: string,
    public protocols: ReadonlyArray<Protocol>,
  ) {}

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== undefined;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== undefined;
  }

  isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  metadataFor(protocolName: string): Buffer {
    const p = this.protocols.find((x) => x.name === protocolName);
    if (!p) throw new Error(`member ${this.memberId} does not support protocol ${protocolName}`);
    return p.metadata;
  }

  /** Same protocols, in the same order, with the same metadata (a rejoin that changes nothing). */
  matches(protocols: ReadonlyArray<Protocol>): boolean {
    return (
      protocols.length === this.protocols.length &&
      protocols.every((p, i) => p.name === this.protocols[i].name && p.metadata.equals(this.protocols[i].metadata))
    );
  }

  /** Kafka's shouldKeepAlive: a member waiting on the group is not expired by its session timeout. */
  shouldKeepAlive(now: number): boolean {
    return this.isAwaitingJoin || this.isAwaitingSync || this.heartbeatDeadline > now;
  }
}
