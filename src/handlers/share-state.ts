// What the share-state APIs (83-87) share: the broker-to-broker RPCs of KIP-932, each answered per share
// partition from the share coordinator, as Kafka's KafkaApis and ShareCoordinatorService answer them.
import { ErrorCode } from '../errors.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';
import type { ShardResult, ShareCoordinatorShard } from '../coordinator/share-coordinator/share-coordinator-shard.js';
import type { SharePartitionKey } from '../share/persister.js';
import type { RequestContext } from './handler.js';

interface TopicData<P> {
  topicId: string;
  partitions: P[];
}

export interface PartitionError {
  partition: number;
  errorCode: number;
  errorMessage: string | null;
}

/**
 * Runs `op` for each partition and maps its result with `answer`. Without CLUSTER_ACTION every partition is
 * refused (KafkaApis).
 */
export async function perSharePartition<P extends { partition: number }, T, R extends PartitionError>(
  ctx: RequestContext,
  groupId: string,
  topics: ReadonlyArray<TopicData<P>>,
  op: (shard: ShareCoordinatorShard, key: SharePartitionKey, p: P) => ShardResult<T>,
  answer: (p: P, result: ShardResult<T>) => R,
): Promise<Array<TopicData<R>>> {
  // Kafka 4.4's ShareCoordinatorService answers an empty group id with no results at all.
  if (groupId === '') return [];
  const refusal: ShardResult<T> | undefined = authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)
    ? undefined
    : { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', records: [] };
  const coordinator = ctx.broker.shareCoordinator;
  return Promise.all(topics.map(async (t) => ({
    topicId: t.topicId,
    partitions: await Promise.all(t.partitions.map(async (p) => {
      const key = { groupId, topicId: t.topicId, partition: p.partition };
      return answer(p, refusal ?? await coordinator.execute(key, (shard) => op(shard, key, p)));
    })),
  })));
}

export function partitionError(partition: number, result: ShardResult<unknown>): PartitionError {
  return { partition, errorCode: result.errorCode, errorMessage: result.errorMessage };
}
