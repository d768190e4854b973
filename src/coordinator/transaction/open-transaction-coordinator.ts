// Builds the broker's TransactionCoordinator on __transaction_state and loads it. The topic is created
// on the first write with Kafka's transaction.state.log.* settings; markers go straight to the local logs.
import type { BrokerConfig } from '../../../config/broker-config.js';
import type { Logger } from 'pino';
import type { TopicRegistry } from '../../metadata/topic-registry.js';
import type { FinalizedFeatures } from '../../metadata/finalized-features.js';
import type { CoordinatorHost } from '../open-group-coordinator.js';
import type { GroupCoordinator } from '../group-coordinator.js';
import { ErrorCode, KafkaError } from '../../errors.js';
import { internalTopicLogs } from '../internal-topic-logs.js';
import { LogOffsetsTopic, type OffsetsTopicLogs } from '../log-offsets-topic.js';
import { OFFSETS_TOPIC_NAME } from '../offsets-topic.js';
import {
  TransactionCoordinator, type ProducerIdGenerator, type TransactionConfig, type TransactionMetrics, type TransactionMarkerWriter, type TxnMarker,
} from './transaction-coordinator.js';
import type { TxnPartitions } from './transaction-metadata.js';
import { transactionLogValueVersion } from './transaction-version.js';
import { TRANSACTION_STATE_TOPIC_NAME, TransactionStateManager, type Durability, type TransactionStateTopic } from './transaction-state-manager.js';

/** What the transaction coordinator needs of the broker (which passes itself). */
export interface TransactionCoordinatorHost extends CoordinatorHost {
  readonly log: Logger;
  readonly topics: Pick<TopicRegistry, 'get'>;
  readonly producerIds: ProducerIdGenerator;
  readonly purgatory: { notify(topic: string, partition: number): void };
  readonly groupCoordinator: Pick<GroupCoordinator, 'onTransactionCompleted'>;
  /** The finalized transaction.version picks the TransactionLogValue version, as Kafka's TransactionStateManager. */
  readonly features: Pick<FinalizedFeatures, 'level'>;
  /** Set while the admin HTTP runs. */
  readonly metrics?: TransactionMetrics;
}

function transactionConfigOf(config: BrokerConfig): TransactionConfig {
  return {
    transactionMaxTimeoutMs: config.get('transaction.max.timeout.ms') as number,
    abortTimedOutTransactionsIntervalMs: config.get('transaction.abort.timed.out.transaction.cleanup.interval.ms') as number,
    transactionalIdExpirationMs: config.get('transactional.id.expiration.ms') as number,
    removeExpiredTransactionalIdsIntervalMs: config.get('transaction.remove.expired.transaction.cleanup.interval.ms') as number,
  };
}

/** The topic configs Kafka gives __transaction_state when it creates it. */
export function transactionStateTopicConfigs(config: BrokerConfig): Record<string, string> {
  return {
    'cleanup.policy': 'compact',
    'compression.type': 'uncompressed',
    'segment.bytes': String(config.get('transaction.state.log.segment.bytes')),
    'min.insync.replicas': String(config.get('transaction.state.log.min.isr')),
  };
}

/** Coordinator writes are flushed before they are acted on, like acks=all produce (kafkite's durability default). */
class LogTransactionStateTopic implements TransactionStateTopic {
  private readonly records: LogOffsetsTopic;
  constructor(private readonly logs: OffsetsTopicLogs) {
    this.records = new LogOffsetsTopic(logs);
  }
  get numPartitions(): number {
    return this.logs.numPartitions;
  }
  async append(partition: number, records: Parameters<TransactionStateTopic['append']>[1], durability: Durability = 'flushed'): Promise<void> {
    const log = this.records.write(partition, records);
    if (durability === 'unflushed') return;
    const flushed = log.flush();
    if (durability === 'flushed') await flushed;
    else flushed.catch(() => {});
  }
  flush(partition: number): Promise<void> {
    return this.logs.get(partition)?.flush() ?? Promise.resolve();
  }
  readAll(partition: number): ReturnType<TransactionStateTopic['readAll']> {
    return this.records.readAll(partition);
  }
}

/** Maps an append failure to its Kafka code: storage errors carry one; anything else is a storage fault. */
function errorCodeOf(err: unknown): number {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : ErrorCode.KAFKA_STORAGE_ERROR;
}

/**
 * Appends one COMMIT/ABORT marker to a local partition and wakes its waiting fetches; a marker on
 * __consumer_offsets also completes the group offsets of the transaction. Returns Kafka's error code.
 */
export function writeMarkerToPartition(
  broker: TransactionCoordinatorHost, topic: string, partition: number, marker: TxnMarker, now: number,
): { errorCode: number; flushed: Promise<void> } {
  const log = broker.getLog(topic, partition);
  if (!log) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, flushed: Promise.resolve() };
  const { producerId, producerEpoch, coordinatorEpoch, commit, transactionVersion } = marker;
  let flushed: Promise<void>;
  try {
    ({ flushed } = log.appendTransactionMarker(producerId, producerEpoch, coordinatorEpoch, commit, now, transactionVersion));
  } catch (err) {
    broker.log.warn({ topic, partition, producerId, producerEpoch, transactionVersion, error: (err as Error).message }, 'transaction marker not written');
    return { errorCode: errorCodeOf(err), flushed: Promise.resolve() };
  }
  if (topic === OFFSETS_TOPIC_NAME) broker.groupCoordinator.onTransactionCompleted(producerId, partition, commit);
  broker.purgatory.notify(topic, partition);
  return { errorCode: ErrorCode.NONE, flushed };
}

class LocalMarkerWriter implements TransactionMarkerWriter {
  constructor(private readonly broker: TransactionCoordinatorHost) {}

  async writeMarkers(marker: TxnMarker, partitions: TxnPartitions): Promise<void> {
    const now = Date.now();
    const flushes: Array<Promise<void>> = [];
    for (const [topic, ids] of partitions) {
      for (const partition of ids) {
        const { errorCode, flushed } = writeMarkerToPartition(this.broker, topic, partition, marker, now);
        // A partition whose topic was deleted meanwhile gets no marker, as Kafka drops markers for unknown partitions.
        if (errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) continue;
        if (errorCode !== ErrorCode.NONE) throw new KafkaError(errorCode, `marker for ${topic}-${partition} not written`);
        flushes.push(flushed);
      }
    }
    await Promise.all(flushes);
  }
}

export async function openTransactionCoordinator(broker: TransactionCoordinatorHost): Promise<TransactionCoordinator> {
  const log = broker.log.child({ component: 'transaction-coordinator' });
  const coordinator = new TransactionCoordinator(
    transactionConfigOf(broker.config),
    new TransactionStateManager(new LogTransactionStateTopic(internalTopicLogs(
      broker, TRANSACTION_STATE_TOPIC_NAME, () => broker.config.get('transaction.state.log.num.partitions') as number, () => transactionStateTopicConfigs(broker.config),
    )), () => transactionLogValueVersion(broker.features.level('transaction.version')), log),
    new LocalMarkerWriter(broker),
    broker.producerIds,
    log,
  );
  coordinator.metrics = {
    transactionStarted: () => broker.metrics?.transactionStarted(),
    transactionCompleted: (committed) => broker.metrics?.transactionCompleted(committed),
    transactionTimedOut: () => broker.metrics?.transactionTimedOut(),
  };
  await coordinator.startup();
  return coordinator;
}
