// The broker core: what every handler reaches through ctx.broker. One node, so it is its own
// controller, the leader of every partition and the coordinator of every group.
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { BrokerConfig } from '../config/broker-config.js';
import { UnknownConfigError } from '../config/config-error.js';
import { brokerConfigDef } from '../config/definitions.js';
import { isDynamicBrokerConfig, isPerBrokerOnlyConfig } from '../config/dynamic-broker-configs.js';
import { CLUSTER_METADATA_TOPIC, logDirName } from '../storage/log-file-names.js';
import { ensureMetaProperties, readClusterId, uuidFromBase64 } from '../storage/meta-properties.js';
import { StorageResourceError } from '../storage/errors.js';
import { LogManager } from '../storage/log-manager.js';
import type { UnifiedLog } from '../storage/unified-log.js';
import type { GroupCoordinator } from './coordinator/group-coordinator.js';
import { offsetsTopicConfigs } from './coordinator/coordinator-config.js';
import { OFFSETS_TOPIC_NAME } from './coordinator/offsets-topic.js';
import { openGroupCoordinator } from './coordinator/open-group-coordinator.js';
import { openTransactionCoordinator, transactionStateTopicConfigs } from './coordinator/transaction/open-transaction-coordinator.js';
import { TRANSACTION_STATE_TOPIC_NAME } from './coordinator/transaction/transaction-state-manager.js';
import type { TransactionCoordinator } from './coordinator/transaction/transaction-coordinator.js';
import { SHARE_GROUP_STATE_TOPIC_NAME, shareGroupStateTopicConfigs } from './coordinator/share-coordinator/share-coordinator-config.js';
import { openShareCoordinator } from './coordinator/share-coordinator/open-share-coordinator.js';
import type { ShareCoordinatorService } from './coordinator/share-coordinator/share-coordinator-service.js';
import { ErrorCode, KafkaError } from './errors.js';
import { brokerFencedRecord, registerBrokerRecord } from './metadata/broker-registration.js';
import { ClusterMetadataLog } from './metadata/cluster-metadata-log.js';
import { DynamicConfigs } from './metadata/dynamic-configs.js';
import { FinalizedFeatures } from './metadata/finalized-features.js';
import { metadataLogConfig } from './metadata/metadata-log-config.js';
import { checkServableDataDir } from './metadata/servable-data-dir.js';
import { consumerGroupTimeouts, shareGroupTimeouts, streamsGroupSettings } from './metadata/group-configs.js';
import { LEGACY_TOPICS_FILE, legacyClusterId, legacyTopicRecords, retireLegacyTopicsFile } from './metadata/legacy-topics.js';
import { invalidTopicNameReason, newTopicId, TopicRegistry, ZERO_UUID, type Placement, type TopicInfo } from './metadata/topic-registry.js';
import { legacyProducerIdsRecords, ProducerIdManager } from './producer-ids.js';
import { ScramCredentialStore } from './security/scram-credentials.js';
import { StandardAuthorizer } from './security/standard-authorizer.js';
import { ClientQuotaManager } from './quota/client-quota-manager.js';
import { ClientQuotaStore } from './quota/client-quotas.js';
import { FetchPurgatory } from './purgatory.js';
import { FetchSessionCache } from './fetch-sessions.js';
import { SharePartitionManager, type ShareGroupMetricsSink } from './share/share-partition-manager.js';
import { raiseOpenFileLimit } from './open-file-limit.js';

export interface Endpoint {
  listenerName: string;
  host: string;
  port: number;
}

/** Where one request's time went, in milliseconds, as Kafka's RequestMetrics split it. */
export interface RequestTimes {
  /** The handler's own work and encoding the response (LocalTimeMs). */
  localMs: number;
  /** Parked in a purgatory: a fetch waiting for min_bytes or max_wait_ms (RemoteTimeMs). */
  remoteMs: number;
  /** Ready, waiting behind earlier responses or a send in progress on its connection (ResponseQueueTimeMs). */
  responseQueueMs: number;
  /** Until the socket write or sendfile of its send returned (ResponseSendTimeMs). */
  responseSendMs: number;
  /** From dispatch to sent (TotalTimeMs). */
  totalMs: number;
}

export interface BrokerMetrics {
  observeRequest(apiKey: number, millis: number): void;
  /** Once a request's response has been sent. */
  observeRequestTimes(apiKey: number, times: RequestTimes): void;
  /** A request whose handler threw. */
  observeRequestError(apiKey: number): void;
  /** After a successful produce append; `bytes` is the appended record batches' length. */
  recordsAppended(topic: string, partition: number, records: number, bytes: number): void;
  /** Record batch bytes a fetch response carries for one partition. */
  bytesFetched(topic: string, partition: number, bytes: number): void;
  /** One log fdatasync (acks=all group commit, flush.ms/flush.messages) and how long it took. */
  observeFlush(millis: number): void;
  /** The transaction coordinator: a transaction began, completed (committed or aborted), or was aborted by its timeout. */
  transactionStarted(): void;
  transactionCompleted(committed: boolean): void;
  transactionTimedOut(): void;
  /** A SASL authentication (or re-authentication) that succeeded or failed. */
  authentication(listener: string, mechanism: string, success: boolean): void;
  /** Share groups (KIP-932): acknowledgements and share-partition loads. */
  readonly shareGroups: ShareGroupMetricsSink;
}

/** A log dir that cannot be created or written at start-up. */
export class LogDirError extends Error {
  override name = 'LogDirError';
}

export interface CreateTopicOptions {
  partitions: number;
  replicationFactor: number;
  configs: Record<string, string>;
  validateOnly: boolean;
  /** Date.now() past which a creation still waiting for its turn is not begun (CreateTopics' timeoutMs). */
  deadline?: number;
}

export class Broker {
  /** Advertised endpoints, filled in once listeners are bound. */
  endpoints: Endpoint[] = [];
  metrics?: BrokerMetrics;
  /** Set at shutdown: long-polling fetches answer at once. */
  closing = false;
  /** Set by open() once __consumer_offsets is loaded. */
  groupCoordinator!: GroupCoordinator;
  /** Set by open() when authorizer.class.name names Kafka's ACL authorizer; null: everything is allowed. */
  authorizer: StandardAuthorizer | null = null;
  /** Set by open() once __transaction_state is loaded (after the group coordinator: its markers reach group offsets). */
  transactionCoordinator!: TransactionCoordinator;
  /** The share coordinator on __share_group_state: the Persister of share-partition state. Set by open(). */
  shareCoordinator!: ShareCoordinatorService;
  /** Client quotas (AlterClientQuotas), replayed from the metadata log, and their enforcement. Set by open(). */
  clientQuotas!: ClientQuotaStore;
  quotaManager!: ClientQuotaManager;
  readonly purgatory = new FetchPurgatory();
  /** Topics whose creation is under way (files syncing), not in the registry yet: a second creation gets TOPIC_ALREADY_EXISTS. */
  private readonly topicsBeingCreated = new Set<string>();
  /** The tail of the requests' topic changes (see changeTopics). */
  private topicChanges: Promise<unknown> = Promise.resolve();
  readonly fetchSessions: FetchSessionCache;
  /** Share groups' partitions and share sessions (KIP-932). */
  readonly sharePartitions: SharePartitionManager = new SharePartitionManager(this);
  /** SCRAM users, replayed from the metadata log; AlterUserScramCredentials appends to it. */
  readonly scramCredentials: ScramCredentialStore;
  /** Dynamic broker configs and group configs (ConfigRecords in the metadata log). */
  readonly dynamicConfigs: DynamicConfigs;
  /** The finalized feature levels (FeatureLevelRecords in the metadata log); UpdateFeatures appends to it. */
  readonly features: FinalizedFeatures;
  /** This start's registration in the metadata log (its offset), once registered. */
  private brokerEpoch = -1;

  private constructor(
    readonly config: BrokerConfig,
    readonly log: Logger,
    readonly logManager: LogManager,
    readonly topics: TopicRegistry,
    readonly producerIds: ProducerIdManager,
    readonly clusterId: string,
    /** __cluster_metadata-0: topics, producer id blocks, ACLs, SCRAM credentials, client quotas, dynamic configs (replayed by their owners). */
    readonly metadataLog: ClusterMetadataLog,
    /** The directory id (32 hex) of each log dir's meta.properties, for the records that place partitions. */
    private readonly directoryIds: ReadonlyMap<string, string>,
    replayed: { scramCredentials: ScramCredentialStore; dynamicConfigs: DynamicConfigs; features: FinalizedFeatures },
  ) {
    this.fetchSessions = new FetchSessionCache(config.maxIncrementalFetchSessionCacheSlots);
    this.scramCredentials = replayed.scramCredentials;
    this.dynamicConfigs = replayed.dynamicConfigs;
    this.features = replayed.features;
  }

  get nodeId(): number {
    return this.config.nodeId;
  }

  static async open(config: BrokerConfig, log: Logger): Promise<Broker> {
    for (const dir of config.logDirs) {
      try {
        mkdirSync(dir, { recursive: true });
        accessSync(dir, constants.W_OK);
      } catch (err) {
        throw new LogDirError(`log dir ${dir} is not usable: ${(err as Error).message}`);
      }
    }
    const metaDir = config.logDirs[0]!;
    const metadataLogDir = config.metadataLogDir ?? metaDir;
    try {
      mkdirSync(metadataLogDir, { recursive: true });
      accessSync(metadataLogDir, constants.W_OK);
    } catch (err) {
      throw new LogDirError(`metadata.log.dir ${metadataLogDir} is not usable: ${(err as Error).message}`);
    }
    // Before any file is written: a directory another node wrote (a Kafka node's) that kafkite cannot serve is refused as it is.
    const onDisk = checkServableDataDir(metadataLogDir, config.nodeId);
    // The cluster id: the log dirs' meta.properties, else the one kafkite-topics.json kept, else a new one.
    const legacyFile = join(metaDir, LEGACY_TOPICS_FILE);
    const clusterId = config.clusterId ?? readClusterId([...config.logDirs, metadataLogDir]) ?? legacyClusterId(legacyFile) ?? newClusterId();
    const directoryIds = new Map<string, string>();
    for (const dir of new Set([...config.logDirs, metadataLogDir])) {
      const { directoryId } = ensureMetaProperties(dir, clusterId, config.nodeId, (message) => log.warn(message));
      directoryIds.set(dir, directoryId === '' ? ZERO_UUID : uuidFromBase64(directoryId));
    }
    let logManagerRef: LogManager | undefined;
    const placement: Placement = {
      nodeId: config.nodeId,
      directoryOf: (topic, partition) => {
        const dir = logManagerRef?.logDirOfPartition(topic, partition) ?? config.logDirs.find((d) => existsSync(join(d, logDirName(topic, partition)))) ?? metaDir;
        return directoryIds.get(dir) ?? ZERO_UUID;
      },
    };
    const producerIdsFile = join(metaDir, 'kafkite-producer-ids');
    const { logConfig, policy } = metadataLogConfig(config);
    const metadataLog = await ClusterMetadataLog.open({
      dir: metadataLogDir,
      config: logConfig,
      policy,
      onDisk,
      logger: log,
      nodeId: config.nodeId,
      initialRecords: () => [
        ...legacyTopicRecords({
          file: legacyFile,
          logDirs: config.logDirs,
          log,
          configsFor: (topic) =>
            topic === OFFSETS_TOPIC_NAME ? offsetsTopicConfigs(config)
            : topic === TRANSACTION_STATE_TOPIC_NAME ? transactionStateTopicConfigs(config)
            : topic === SHARE_GROUP_STATE_TOPIC_NAME ? shareGroupStateTopicConfigs(config) : {},
        }, placement),
        ...legacyProducerIdsRecords(producerIdsFile, config.nodeId),
      ],
    });
    retireLegacyTopicsFile(legacyFile);
    const features = new FinalizedFeatures(metadataLog, config.nodeId);
    const topics = new TopicRegistry(metadataLog, placement, (name) => features.level(name));
    const scramCredentials = new ScramCredentialStore(metadataLog);
    const dynamicConfigs = new DynamicConfigs(metadataLog, config, log);
    const producerIds = new ProducerIdManager(producerIdsFile, metadataLog, config.nodeId, log);
    const authorizer = StandardAuthorizer.fromConfig(config, metadataLog, log);
    const clientQuotas = new ClientQuotaStore(metadataLog);
    // One pass over the snapshot and log read at open, each record to every replayer.
    metadataLog.replay([topics, scramCredentials, dynamicConfigs, producerIds, clientQuotas, features, ...(authorizer ? [authorizer] : [])]);
    if (authorizer) log.info({ acls: authorizer.aclCount }, 'ACLs loaded');
    // Declared before the log manager so its flush callback can reach the broker's metrics.
    let broker: Broker | undefined = undefined;
    const openFiles = raiseOpenFileLimit(log);
    const logManager = await LogManager.open({
      openFileLimit: openFiles.soft,
      minFreeSpace: config.storageMinFree,
      syncfs: config.logFlushSyncfsEnable,
      unloadIdleMs: Math.min(config.logUnloadIdleMs, 2 ** 31 - 1),
      // Directories of topics the registry does not have are what a failed or interrupted creation left.
      isKnownPartition: (topic, partition) => partition < (topics.get(topic)?.partitions ?? 0),
      logDirs: [...config.logDirs],
      logger: log,
      clusterId,
      nodeId: config.nodeId,
      configFor: (topic) => config.logConfig(topics.get(topic)?.configs ?? {}),
      leaderEpochOf: (topic, partition) => topics.leaderEpochs(topic)[partition] ?? 0,
      retentionCheckIntervalMs: config.logRetentionCheckIntervalMs,
      producerIdExpirationMs: () => config.get('producer.id.expiration.ms') as number,
      producerIdExpirationCheckIntervalMs: config.get('producer.id.expiration.check.interval.ms') as number,
      // Kafka's default is Long.MAX_VALUE (never); Node timers cap at 2^31-1 ms.
      flushSchedulerIntervalMs: Math.min(config.logFlushSchedulerIntervalMs, 2 ** 31 - 1),
      cleanerBackoffMs: config.logCleanerBackoffMs,
      cleanerEnable: config.logCleanerEnable,
      onFlushed: (millis) => broker?.metrics?.observeFlush(millis),
      onTransactionMarker: (topic, partition) => broker?.purgatory.notify(topic, partition),
      onAllLogDirsOffline: () => {
        // Kafka's ReplicaManager halts when no log dir is left: a supervisor restarts it and recovery runs.
        log.fatal({ logDirs: config.logDirs }, 'Shutdown broker because all log dirs have failed');
        log.flush?.();
        process.exit(1);
      },
    });
    logManagerRef = logManager;
    broker = new Broker(
      config,
      log,
      logManager,
      topics,
      producerIds,
      clusterId,
      metadataLog,
      directoryIds,
      { scramCredentials, dynamicConfigs, features },
    );
    broker.authorizer = authorizer;
    broker.clientQuotas = clientQuotas;
    broker.quotaManager = new ClientQuotaManager(
      broker.clientQuotas, Number(config.get('quota.window.num')), Number(config.get('quota.window.size.seconds')) * 1000,
    );
    broker.dynamicConfigs.loaded();
    broker.reconfigureLogs();
    broker.reconcileLogs();
    logManager.startup();
    broker.groupCoordinator = await openGroupCoordinator(broker);
    broker.transactionCoordinator = await openTransactionCoordinator(broker);
    broker.shareCoordinator = await openShareCoordinator(broker);
    // The share coordinator is the Persister of the share group coordinator (initialize, delete) and of the share partitions.
    broker.groupCoordinator.shareGroups.persister = broker.shareCoordinator;
    broker.sharePartitions.persister = broker.shareCoordinator;
    broker.groupCoordinator.useConsumerGroupTimeouts((groupId) => consumerGroupTimeouts(broker!.dynamicConfigs.groupConfigs(groupId), config));
    broker.groupCoordinator.shareGroupTimeoutsOf = (groupId) => shareGroupTimeouts(broker!.dynamicConfigs.groupConfigs(groupId), config);
    // A member that leaves its share group gives back what it acquired (Kafka's ShareGroupListener).
    broker.groupCoordinator.shareGroups.addListener(broker.sharePartitions);
    broker.features.onLevelChanged((feature, level) => {
      if (feature === 'share.version') broker!.sharePartitions.onShareVersionToggle(level > 0);
    });
    broker.groupCoordinator.useStreamsGroupSettings((groupId) => streamsGroupSettings(broker!.dynamicConfigs.groupConfigs(groupId), config));
    return broker;
  }

  /**
   * Registers this broker in the metadata log once its listeners are bound (as a Kafka broker registers with its
   * controller at each start), with the advertised endpoints; the broker epoch is the record's offset. Unfenced at
   * once, it leads the partitions a Kafka node's shutdown left leaderless, as Kafka's controller records on unfencing.
   */
  async register(): Promise<void> {
    this.brokerEpoch = this.metadataLog.logEndOffset;
    this.producerIds.brokerEpoch = this.brokerEpoch;
    const elected = this.topics.leaderless.electionRecords(this.nodeId);
    await this.metadataLog.append([registerBrokerRecord({
      nodeId: this.nodeId,
      brokerEpoch: this.brokerEpoch,
      endpoints: this.endpoints.map((e) => ({ ...e, securityProtocol: this.config.listeners.find((l) => l.name === e.listenerName)?.securityProtocol ?? 'PLAINTEXT' })),
      rack: null,
      logDirs: [...new Set(this.config.logDirs.map((d) => this.directoryIds.get(d)!))],
      metadataVersion: this.features.level('metadata.version'),
    }), ...elected]);
    // Each election bumps its partition's leader epoch: a loaded log takes it now, the others when they load.
    for (const r of elected) this.topics.replay(r);
    for (const log of this.logManager.allLogs()) log.becomeLeader(this.topics.leaderEpochs(log.topic)[log.partition] ?? 0);
  }

  /** Re-resolves every log's config: a dynamic broker config its topic inherits may have changed. */
  reconfigureLogs(): void {
    // Loaded logs only: the others (lazy loading) take their config when they load.
    const configs = new Map<string, ReturnType<BrokerConfig['logConfig']>>();
    for (const log of this.logManager.allLogs()) {
      const topic = this.topics.get(log.topic);
      if (!topic) continue;
      let logConfig = configs.get(topic.name);
      if (!logConfig) configs.set(topic.name, (logConfig = this.config.logConfig(topic.configs)));
      log.updateConfig(logConfig);
    }
  }

  /**
   * Alter(Incremental)Configs on a BROKER resource: `next` replaces the dynamic configs of this broker
   * (perBroker) or of the cluster default. Validated as Kafka's DynamicBrokerConfig.validateConfigs does, the
   * whole set at once: read-only names first, then names only a broker id may take, then each value. A refusal
   * is INVALID_REQUEST, as Kafka 4.4's ConfigAdminManager (the broker's own check of BROKER resources) answers
   * it; an unknown name stays INVALID_CONFIG (Kafka ignores it). Persisted, then live: topics without their
   * own override take the new values at once.
   */
  async alterBrokerConfigs(perBroker: boolean, next: ReadonlyMap<string, string>, validateOnly: boolean): Promise<void> {
    const names = [...next.keys()];
    const readOnly = names.filter((name) => brokerConfigDef(name) !== undefined && !isDynamicBrokerConfig(name));
    if (readOnly.length > 0) throw new KafkaError(ErrorCode.INVALID_REQUEST, `Cannot update these configs dynamically: ${javaSetString(readOnly)}`);
    const brokerOnly = perBroker ? [] : names.filter(isPerBrokerOnlyConfig);
    if (brokerOnly.length > 0) {
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `Cannot update these configs at default cluster level, broker id must be specified: ${javaSetString(brokerOnly)}`);
    }
    for (const [name, value] of next) {
      try {
        BrokerConfig.validateDynamic(name, value);
      } catch (err) {
        throw new KafkaError(err instanceof UnknownConfigError ? ErrorCode.INVALID_CONFIG : ErrorCode.INVALID_REQUEST, (err as Error).message);
      }
    }
    if (validateOnly) return;
    await this.dynamicConfigs.alterBroker(perBroker, next);
    this.reconfigureLogs();
  }

  /** Every partition the registry knows has a log (one removed by hand, or found damaged at start-up). */
  private reconcileLogs(): void {
    for (const topic of this.topics.all()) {
      for (let p = 0; p < topic.partitions; p++) {
        if (!this.logManager.hasLog(topic.name, p)) this.createPartitionLog(topic, p);
      }
    }
  }

  /**
   * Creates partitions [from, to) of a topic, all or none: on a failure the ones made are removed and
   * the error is a KafkaError (a resource limit such as too many open files is retriable). Blocks the
   * event loop while the new files sync: for the coordinators' internal topics.
   */
  private createPartitionLogs(topic: TopicInfo, from: number, to: number, commit: () => void): void {
    let p = from;
    try {
      this.logManager.creatingLogs(() => {
        for (; p < to; p++) this.createPartitionLog(topic, p);
      });
      commit();
    } catch (err) {
      throw this.partitionCreationFailed(topic, from, to, p, err);
    }
  }

  /** createPartitionLogs for requests: the new files sync on the libuv pool while other requests are served. */
  private async createPartitionLogsAsync(topic: TopicInfo, from: number, to: number, commit: () => void): Promise<void> {
    let p = from;
    try {
      await this.logManager.creatingLogsAsync(() => {
        for (; p < to; p++) this.createPartitionLog(topic, p);
      });
      commit();
    } catch (err) {
      throw this.partitionCreationFailed(topic, from, to, p, err);
    }
  }

  /** Removes partitions [from, made) and says why the creation failed, as a KafkaError. */
  private partitionCreationFailed(topic: TopicInfo, from: number, to: number, made: number, err: unknown): KafkaError {
    for (let q = from; q < made; q++) this.logManager.abandonLog(topic.name, q);
    const resource = err instanceof StorageResourceError;
    this.log.warn(
      { topic: topic.name, partitions: to - from, failedPartition: made, error: (err as Error).message },
      `cannot create partitions ${from}..${to - 1} of ${topic.name}; the ${made - from} made were removed`,
    );
    if (err instanceof KafkaError) return err;
    return new KafkaError(
      ErrorCode.KAFKA_STORAGE_ERROR,
      `${resource ? 'Resource limit' : 'Storage error'} while creating partition ${made} of ${topic.name}: ${(err as Error).message}` +
        (resource ? ' (retriable; nothing was created)' : ''),
    );
  }

  /**
   * Requests' topic creations and partition additions run one at a time (each validates against the
   * registry as the one before left it), their files syncing on the pool while the event loop goes on.
   */
  private changeTopics<T>(change: () => Promise<T>): Promise<T> {
    const run = this.topicChanges.then(change);
    this.topicChanges = run.catch(() => {});
    return run;
  }

  /** Whether the partition's log dir is offline, without loading its log. */
  isPartitionOffline(topic: string, partition: number): boolean {
    return this.logManager.isLogOffline(topic, partition);
  }

  private createPartitionLog(topic: TopicInfo, partition: number): void {
    this.logManager.createPartition(topic.name, partition, topic.topicId, this.config.logConfig(topic.configs));
  }

  getLog(topic: string, partition: number): UnifiedLog | undefined {
    return this.logManager.getLog(topic, partition);
  }

  /** A new topic's TopicInfo, validated as Kafka validates CreateTopics; throws KafkaError with Kafka's code and message. */
  private newTopic(name: string, opts: CreateTopicOptions): TopicInfo {
    const invalid = invalidTopicNameReason(name);
    if (invalid) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, invalid);
    // Kafka's ControllerApis refuses it the same way: the name belongs to the metadata log.
    if (name === CLUSTER_METADATA_TOPIC) {
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${CLUSTER_METADATA_TOPIC} is prohibited.`);
    }
    if (this.topics.get(name) || this.topicsBeingCreated.has(name)) throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const colliding = this.topics.collidingTopic(name);
    if (colliding) {
      throw new KafkaError(
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        `Topic '${name}' collides with existing topic: ${colliding.name}`,
      );
    }
    const partitions = opts.partitions === -1 ? this.config.numPartitions : opts.partitions;
    if (partitions <= 0) throw new KafkaError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.');
    const replicationFactor = opts.replicationFactor === -1 ? 1 : opts.replicationFactor;
    if (replicationFactor <= 0) {
      throw new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.');
    }
    if (replicationFactor > 1) {
      throw new KafkaError(
        ErrorCode.INVALID_REPLICATION_FACTOR,
        `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} cannot be reached because only 1 broker(s) are registered.`,
      );
    }
    try {
      this.config.validateTopicConfigs(opts.configs);
    } catch (err) {
      throw new KafkaError(ErrorCode.INVALID_CONFIG, (err as Error).message);
    }
    return { name, topicId: newTopicId(), partitions, configs: { ...opts.configs } };
  }

  /**
   * Validates and (unless validateOnly) creates a topic for a request: its files sync on the libuv pool,
   * then the registry entry commits it. Until then Metadata does not list it.
   */
  createTopic(name: string, opts: CreateTopicOptions): Promise<TopicInfo> {
    return this.changeTopics(async () => {
      // Kafka's controller fails an event whose deadline passed while it was queued (ControllerApis'
      // createTopics gives it timeoutMs): REQUEST_TIMED_OUT, nothing created, nothing validated.
      if (opts.deadline !== undefined && Date.now() >= opts.deadline) throw new KafkaError(ErrorCode.REQUEST_TIMED_OUT, 'timed out waiting for earlier topic creations');
      const topic = this.newTopic(name, opts);
      if (opts.validateOnly) return topic;
      this.topicsBeingCreated.add(name);
      try {
        // The topic's records are the commit: written only once every partition exists.
        let persisted: Promise<void> = Promise.resolve();
        await this.createPartitionLogsAsync(topic, 0, topic.partitions, () => {
          persisted = this.topics.add(topic);
        });
        await persisted;
      } finally {
        this.topicsBeingCreated.delete(name);
      }
      this.log.info({ topic: name, partitions: topic.partitions, topicId: topic.topicId, configs: opts.configs }, 'topic created');
      return topic;
    });
  }

  /** createTopic for the coordinators' internal topics, made on their first use: synchronously, the event loop waiting for the sync. */
  createTopicSync(name: string, opts: CreateTopicOptions): TopicInfo {
    const topic = this.newTopic(name, opts);
    if (opts.validateOnly) return topic;
    // Durable within the metadata log's next flush; the coordinators write the topic's first records after it.
    this.createPartitionLogs(topic, 0, topic.partitions, () => {
      this.topics.add(topic).catch((err) => this.log.error({ err, topic: name }, 'cannot write the topic to the metadata log'));
    });
    this.log.info({ topic: name, partitions: topic.partitions, topicId: topic.topicId, configs: opts.configs }, 'topic created');
    return topic;
  }

  /** Auto-creation on Metadata/Produce when `auto.create.topics.enable` (Kafka's defaults). */
  autoCreateTopic(name: string): Promise<TopicInfo> {
    return this.createTopic(name, {
      partitions: this.config.numPartitions,
      replicationFactor: -1,
      configs: {},
      validateOnly: false,
    });
  }

  /** Replaces a topic's config overrides, validated first; takes effect on its logs at once, and persists. */
  async alterTopicConfigs(name: string, overrides: Record<string, string>, validateOnly: boolean): Promise<void> {
    const topic = this.topics.get(name);
    if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${name} does not exist.`);
    try {
      this.config.validateTopicConfigs(overrides);
    } catch (err) {
      throw new KafkaError(ErrorCode.INVALID_CONFIG, (err as Error).message);
    }
    if (validateOnly) return;
    const persisted = this.topics.setConfigs(topic, overrides);
    const logConfig = this.config.logConfig(topic.configs);
    // Logs not loaded take the new config when they load.
    for (let p = 0; p < topic.partitions; p++) this.logManager.loadedLog(name, p)?.updateConfig(logConfig);
    await persisted;
    this.log.info({ topic: name, configs: overrides }, 'topic configs altered');
  }

  /** CreatePartitions: grows a topic to `count` partitions (Kafka never shrinks one). */
  createPartitions(name: string, count: number, validateOnly: boolean): Promise<void> {
    return this.changeTopics(async () => {
      const topic = this.topics.get(name);
      if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
      if (count < topic.partitions) {
        throw new KafkaError(ErrorCode.INVALID_PARTITIONS, `The topic ${name} currently has ${topic.partitions} partition(s); ${count} would not be an increase.`);
      }
      if (count === topic.partitions) {
        throw new KafkaError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${topic.partitions} partition(s).`);
      }
      if (validateOnly) return;
      const before = topic.partitions;
      let persisted: Promise<void> = Promise.resolve();
      await this.createPartitionLogsAsync(topic, before, count, () => {
        persisted = this.topics.addPartitions(topic, count);
      });
      await persisted;
      this.log.info({ topic: name, partitions: count, before }, 'partitions created');
    });
  }

  async deleteTopic(name: string): Promise<TopicInfo> {
    if (!this.config.deleteTopicEnable) {
      throw new KafkaError(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
    }
    const topic = await this.topics.remove(name);
    if (!topic) {
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.');
    }
    for (let p = 0; p < topic.partitions; p++) await this.logManager.deleteLog(name, p);
    await this.groupCoordinator.onTopicDeleted(name);
    await this.shareCoordinator.onTopicDeleted(topic.topicId);
    this.log.info({ topic: name, topicId: topic.topicId }, 'topic deleted');
    return topic;
  }

  async shutdown(): Promise<void> {
    this.purgatory.wakeAll();
    this.sharePartitions.shutdown();
    await this.transactionCoordinator?.shutdown();
    this.shareCoordinator?.shutdown();
    this.groupCoordinator?.shutdown();
    await this.logManager.shutdown();
    // The fenced record only spares a Kafka node that takes over the directory a wait for this registration to
    // expire: a disk that refuses it must not fail a clean stop.
    if (this.brokerEpoch >= 0) {
      try {
        await this.metadataLog.append([brokerFencedRecord(this.nodeId, this.brokerEpoch)]);
      } catch (err) {
        this.log.warn({ err }, 'cannot write the broker fenced record to the metadata log');
      }
    }
    await this.metadataLog.close();
  }
}

/**
 * Names as Kafka's messages print a java.util.HashSet of them ("[a, b]"), in its iteration order: by bucket
 * (String.hashCode spread as HashMap.hash does, over a table of 16 buckets, doubled past 3/4 full), then in
 * insertion order within a bucket. So a message names several configs in the order Kafka's does.
 */
function javaSetString(names: readonly string[]): string {
  let buckets = 16;
  while (names.length > buckets * 0.75) buckets *= 2;
  const bucketOf = (name: string): number => {
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (Math.imul(31, h) + name.charCodeAt(i)) | 0;
    return (h ^ (h >>> 16)) & (buckets - 1);
  };
  const ordered = names.map((name, i) => ({ name, i, bucket: bucketOf(name) })).sort((a, b) => a.bucket - b.bucket || a.i - b.i);
  return `[${ordered.map((e) => e.name).join(', ')}]`;
}

/** A new cluster id, as Kafka's Uuid.randomUuid() makes them: base64url, never starting with '-'. */
function newClusterId(): string {
  return Buffer.from(newTopicId(), 'hex').toString('base64url');
}
