// The share-partition state store, as Kafka's org.apache.kafka.server.share.persister.Persister: the broker's
// share partitions (src/share/) read and write their state through it, the share group coordinator
// (src/coordinator/share/) initializes and deletes it, and the share coordinator on __share_group_state
// (src/coordinator/share-coordinator/) implements it. On one node the calls stay in process; the wire forms
// (Initialize/Read/Write/Delete ShareGroupState, ReadShareGroupStateSummary) are answered from the same store.
import { ErrorCode } from '../errors.js';

/**
 * Kafka's RecordState as persisted: a batch is AVAILABLE, ACKNOWLEDGED, ARCHIVING (being written to the share group's
 * dead-letter queue, KIP-1191) or ARCHIVED (ACQUIRED is never stored).
 */
export const enum PersistedDeliveryState {
  Available = 0,
  Acknowledged = 2,
  Archiving = 3,
  Archived = 4,
}

/** A run of offsets with one state and delivery count (Kafka's PersisterStateBatch). */
export interface PersisterStateBatch {
  firstOffset: number;
  lastOffset: number;
  deliveryState: PersistedDeliveryState;
  deliveryCount: number;
}

export interface SharePartitionKey {
  groupId: string;
  topicId: string;
  partition: number;
}

export interface SharePartitionState {
  stateEpoch: number;
  leaderEpoch: number;
  /** -1 when initialized without an offset: the share partition starts where share.auto.offset.reset says. */
  startOffset: number;
  /** Records below the end that are acknowledged or archived, or -1 when unknown (WriteShareGroupState v1). */
  deliveryCompleteCount: number;
  stateBatches: PersisterStateBatch[];
}

export interface SharePartitionSummary {
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: number;
  deliveryCompleteCount: number;
}

/** Kafka's error codes travel as PersisterError (the same codes the state APIs answer). */
export class PersisterError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'PersisterError';
  }
}

export interface Persister {
  /** Creates or resets the state at stateEpoch (InitializeShareGroupState): no batches, the given start offset. */
  initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<void>;
  /** The state, or undefined when never initialized (Kafka answers UNKNOWN_TOPIC_OR_PARTITION then). */
  readState(key: SharePartitionKey, leaderEpoch: number): Promise<SharePartitionState | undefined>;
  /**
   * Applies an update (WriteShareGroupState): the batches are merged over the stored ones, as the share
   * coordinator merges a ShareUpdate, and the update is durable when the promise resolves. A stale
   * stateEpoch or leaderEpoch is refused with FENCED_STATE_EPOCH / FENCED_LEADER_EPOCH.
   */
  writeState(key: SharePartitionKey, state: SharePartitionState): Promise<void>;
  readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<SharePartitionSummary | undefined>;
  deleteState(key: SharePartitionKey): Promise<void>;
}

/**
 * The code a share partition answers for a failed state write (Kafka's SharePartition.fetchPersisterError). A
 * failing __share_group_state log counts as the coordinator gone: Kafka's coordinator runtime turns
 * KAFKA_STORAGE_ERROR into NOT_COORDINATOR (CoordinatorOperationExceptionHelper).
 */
export function persisterErrorCode(err: unknown): number {
  const code = err instanceof PersisterError ? err.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
  switch (code) {
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.GROUP_ID_NOT_FOUND:
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return code;
    case ErrorCode.FENCED_LEADER_EPOCH:
    case ErrorCode.FENCED_STATE_EPOCH:
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}
