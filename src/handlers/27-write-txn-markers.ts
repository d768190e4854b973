import type { WriteTxnMarkersRequest } from '../../protocol/generated/WriteTxnMarkersRequest.js';
import type { WriteTxnMarkersResponse } from '../../protocol/generated/WriteTxnMarkersResponse.js';
import { writeMarkerToPartition } from '../coordinator/transaction/open-transaction-coordinator.js';
import type { TxnMarker } from '../coordinator/transaction/transaction-coordinator.js';
import { ErrorCode } from '../errors.js';
import type { Handler } from './handler.js';
import { AclOperation, authorizeCluster } from '../security/authorization.js';

/** KIP-1228: v2 carries each marker's transaction version. */
const FIRST_TRANSACTION_VERSION_VERSION = 2;

/**
 * Versions 0-1 carry no transaction version: their markers follow the rules of versions 0/1, as Kafka's
 * KafkaApis.handleWriteTxnMarkersRequest takes them; from v2 a marker follows its own (2: the epoch was bumped).
 */
function markerOf(m: WriteTxnMarkersRequest['markers'][number], version: number): TxnMarker {
  const transactionVersion = version >= FIRST_TRANSACTION_VERSION_VERSION ? m.transactionVersion : 0;
  return { producerId: m.producerId, producerEpoch: m.producerEpoch, coordinatorEpoch: m.coordinatorEpoch, commit: m.transactionResult, transactionVersion };
}

/**
 * The coordinator-to-leader request. kafkite's own coordinator writes its markers directly; a request
 * from outside is answered as a one-node Kafka broker would: each marker appended to the local
 * partition (flushed), UNKNOWN_TOPIC_OR_PARTITION for a partition it does not have.
 */
export const handler: Handler<WriteTxnMarkersRequest, WriteTxnMarkersResponse> = {
  apiKey: 27,
  name: 'WriteTxnMarkers',
  minVersion: 0,
  maxVersion: 2,
  async handle(request, ctx) {
    // The coordinator-to-leader request needs CLUSTER_ACTION (KafkaApis.handleWriteTxnMarkersRequest).
    if (!authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) {
      return {
        markers: request.markers.map((m) => ({
          producerId: m.producerId,
          topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED })) })),
        })),
      };
    }
    const now = Date.now();
    const flushes: Array<Promise<void>> = [];
    const markers = request.markers.map((m) => ({
      producerId: m.producerId,
      topics: m.topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => {
          const { errorCode, flushed } = writeMarkerToPartition(ctx.broker, t.name, partitionIndex, markerOf(m, ctx.apiVersion), now);
          flushes.push(flushed);
          return { partitionIndex, errorCode };
        }),
      })),
    }));
    try {
      await Promise.all(flushes);
    } catch (err) {
      ctx.log.error({ error: (err as Error).message }, 'flush of transaction markers failed');
      for (const m of markers) for (const t of m.topics) for (const p of t.partitions) if (p.errorCode === ErrorCode.NONE) p.errorCode = ErrorCode.KAFKA_STORAGE_ERROR;
    }
    return { markers };
  },
};
