// The cluster metadata log (KRaft's __cluster_metadata-0) as a combined KRaft node of one voter keeps it: the one
// source of truth for features, the broker's registration, topics and partitions, configs, producer id blocks,
// SCRAM credentials, ACLs and client quotas, replayed at start-up. Raft's framing is Kafka's: batches carry the
// quorum's leader epoch, the epoch opens with a LeaderChange control batch, `quorum-state` names this node leader,
// and the bootstrap checkpoint (00000000000000000000-0000000000.checkpoint) holds what `kafka-storage format`
// writes. Record bodies are encoded by each record's owner; this module frames, stores and replays them.
// At start-up the latest snapshot and the log after it are read once, and each record goes to every replayer (replay).
// It keeps the metadata image (metadata-image.ts) up to date, snapshots it at Kafka's triggers (snapshot-generator.ts)
// and cleans the log as Kafka does (metadata-log-cleaner.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import { writeFileAtomically } from '../../storage/checkpoint-file.js';
import type { LogConfig } from '../../storage/log-config.js';
import { CLUSTER_METADATA_TOPIC, CLUSTER_METADATA_TOPIC_ID, logDirName } from '../../storage/log-file-names.js';
import { readPartitionMetadata, writePartitionMetadata } from '../../storage/meta-properties.js';
import { readQuorumState, writeQuorumState } from '../../storage/quorum-state.js';
import { UnifiedLog } from '../../storage/unified-log.js';
import { bootstrapRecords, bootstrapTransaction } from './bootstrap-metadata.js';
import { leaderChangeBatch, type RaftControlValues } from './control-records.js';
import { frameMetadataRecord, unframeMetadataRecord, type MetadataRecord } from './metadata-frame.js';
import { maybeClean, recoverSnapshots } from './metadata-log-cleaner.js';
import { MetadataImage } from './metadata-image.js';
import { collectBatches, latestSnapshot, readSnapshot, type MetadataOnDisk } from './metadata-log-files.js';
import { readMetadataRecord, recordTypeOf } from './metadata-records.js';
import { DEFAULT_METADATA_LOG_POLICY, SnapshotGenerator, type MetadataLogPolicy } from './snapshot-generator.js';
import { writeSnapshot, writeSnapshotAsync } from './snapshot-writer.js';

/** A leader's first epoch: KafkaRaftClient's first election moves the quorum from epoch 0 to 1. */
const FIRST_EPOCH = 1;
/**
 * The log as kafkite kept it before KRaft's framing (security records only), kept as a file beside the
 * partition dirs (Kafka loads directories only) until the log is rewritten in its new form.
 */
export const PRE_KRAFT_BACKUP_FILE = 'kafkite-cluster-metadata-pre-kraft.log';

const READ_CHUNK_BYTES = 1024 * 1024;

export interface ClusterMetadataLogOptions {
  /** metadata.log.dir, else the first of log.dirs (Kafka's KafkaConfig.metadataLogDir). */
  dir: string;
  /** Its segments' settings (metadata-log-config.ts); retention never runs on this log (it is not in the LogManager): snapshots shrink it. */
  config: LogConfig;
  logger: Logger;
  /** This node: the quorum's only voter, and its leader. */
  nodeId: number;
  /** Records a new log starts with after the bootstrap ones: what kafkite kept outside the log before (see legacy-topics.ts). */
  initialRecords?: () => MetadataRecord[];
  /** When to snapshot and how much to keep; Kafka's defaults when absent. */
  policy?: MetadataLogPolicy;
  /** The directory as checkServableDataDir read it before anything was written: replayed unless recovery changed the log. */
  onDisk?: MetadataOnDisk;
}

/** Whatever the log's records rebuild at start-up: topics, configs, ACLs, SCRAM users, quotas, producer ids. */
interface MetadataReplayer {
  replay(record: MetadataRecord): void;
}

/** The metadata records of record batches (control batches carry none). */
function* recordsIn(buf: Buffer): Iterable<MetadataRecord> {
  for (const header of batchesIn(buf)) {
    if (header.isControl) continue;
    const { records } = decodeBatch(buf.subarray(header.pos, header.pos + header.sizeInBytes));
    for (const r of records) if (r.value !== null) yield unframeMetadataRecord(r.value);
  }
}

function loadLog(dir: string, opts: ClusterMetadataLogOptions, epoch: number): UnifiedLog {
  const log = UnifiedLog.load({
    dir,
    topic: CLUSTER_METADATA_TOPIC,
    partition: 0,
    topicId: CLUSTER_METADATA_TOPIC_ID,
    config: opts.config,
    logger: opts.logger,
    // It has no entry in the log dir's checkpoints: validate every batch on each start (the log is small), truncating
    // a torn tail as Kafka's log recovery does.
    recoveryPoint: 0,
    logStartOffset: 0,
    hadCleanShutdown: false,
    leaderEpoch: epoch,
  });
  // Kafka's KafkaMetadataLog opens this log with the metadata topic's fixed id, which its UnifiedLog keeps in partition.metadata.
  if (readPartitionMetadata(log.dir) !== CLUSTER_METADATA_TOPIC_ID) writePartitionMetadata(log.dir, CLUSTER_METADATA_TOPIC_ID);
  return log;
}

export class ClusterMetadataLog {
  private readonly image = new MetadataImage();
  private readonly generator: SnapshotGenerator;
  private readonly policy: MetadataLogPolicy;
  private readonly logger: Logger;
  /** The records read at open (kept up to date by appends) until replay hands them out. */
  private startupRecords: MetadataRecord[] | null = null;
  private snapshotting: Promise<void> | null = null;
  /** kraft.version 1's voter set and level as the log holds them, carried into each snapshot; absent at kraft.version 0. */
  private raftControl: RaftControlValues | undefined;
  /** kraft.version (KIP-853): 1 on a Kafka node's directory formatted with dynamic voters, else 0. */
  kraftVersion = 0;

  private constructor(
    private readonly log: UnifiedLog,
    /** The raft leader epoch of this node's term. */
    readonly epoch: number,
    opts: ClusterMetadataLogOptions,
  ) {
    this.policy = opts.policy ?? DEFAULT_METADATA_LOG_POLICY;
    this.logger = opts.logger;
    this.generator = new SnapshotGenerator(this.policy, (reason) => this.snapshot(reason));
  }

  /**
   * Opens (creating if needed) `<dir>/__cluster_metadata-0`, recovering any torn tail a crash left. A new log gets
   * raft's opening (quorum-state, bootstrap checkpoint, LeaderChange, the bootstrap records); a log kafkite wrote
   * before it had them is rewritten with them, its records kept (see upgrade).
   */
  static async open(opts: ClusterMetadataLogOptions): Promise<ClusterMetadataLog> {
    const dir = join(opts.dir, logDirName(CLUSTER_METADATA_TOPIC, 0));
    mkdirSync(dir, { recursive: true });
    const quorum = readQuorumState(dir);
    const epoch = quorum?.leaderEpoch ?? FIRST_EPOCH;
    const log = loadLog(dir, opts, epoch);
    recoverSnapshots(log, opts.logger);
    const metadataLog = new ClusterMetadataLog(log, epoch, opts);
    const onDisk = opts.onDisk;
    // What the servable check read is the log as recovery left it when it reached the same end: no second read.
    const read = onDisk && !onDisk.fromBootstrap && !onDisk.cut && onDisk.endOffset === log.logEndOffset ? onDisk : metadataLog.read();
    if (!hasMetadataVersion(read.records) || existsSync(join(opts.dir, PRE_KRAFT_BACKUP_FILE))) return metadataLog.upgrade(dir, opts);
    for (const r of read.records) metadataLog.image.replay(r);
    metadataLog.startupRecords = read.records;
    metadataLog.kraftVersion = read.kraftVersion ?? 0;
    if (metadataLog.kraftVersion > 0) metadataLog.raftControl = read.raftControl;
    metadataLog.generator.appended(read.bytes ?? 0);
    return metadataLog;
  }

  /**
   * Writes the log's opening, keeping the records of a log kafkite wrote before KRaft's framing: they are first
   * saved to PRE_KRAFT_BACKUP_FILE, the log is rewritten, then the file goes. A crash in between leaves the file,
   * from which the next start rewrites again: nothing is lost, and no record is written twice.
   */
  private async upgrade(dir: string, opts: ClusterMetadataLogOptions): Promise<ClusterMetadataLog> {
    const backup = join(opts.dir, PRE_KRAFT_BACKUP_FILE);
    let kept: MetadataRecord[];
    if (existsSync(backup)) {
      kept = [...recordsIn(readFileSync(backup))];
    } else {
      const bytes = this.readAll();
      kept = [...recordsIn(bytes)];
      if (kept.length > 0) writeFileAtomically(backup, bytes);
    }
    let log = this.log;
    if (log.logEndOffset > 0) {
      log.closeAndDelete();
      rmSync(dir, { recursive: true, force: true });
      log = loadLog(dir, opts, this.epoch);
    }
    const now = Date.now();
    // A directory `kafka-storage format` wrote and no node started on: its bootstrap checkpoint is kept and its records
    // and voter set start the log, as Kafka's first start writes them (QuorumController's bootstrap, KafkaRaftClient).
    const formatted = opts.onDisk?.fromBootstrap ? opts.onDisk : undefined;
    const raft = formatted?.kraftVersion ? formatted.raftControl : undefined;
    if (!formatted) {
      for (const f of readdirSync(dir)) if (f.endsWith('.checkpoint')) rmSync(join(dir, f));
      writeSnapshot(dir, 0, 0, bootstrapRecords(), now);
    }
    writeQuorumState(dir, { leaderId: opts.nodeId, leaderEpoch: this.epoch, votedId: -1, appliedOffset: 0, voters: [opts.nodeId] }, raft ? 1 : 0);
    log.appendAsLeader(leaderChangeBatch(opts.nodeId, this.epoch, now, raft), now, 'coordinator');
    const upgraded = new ClusterMetadataLog(log, this.epoch, opts);
    upgraded.startupRecords = [];
    if (raft) {
      upgraded.kraftVersion = formatted!.kraftVersion!;
      upgraded.raftControl = raft;
    }
    await upgraded.append([...bootstrapTransaction(formatted?.records ?? bootstrapRecords()), ...(opts.initialRecords?.() ?? []), ...kept]);
    rmSync(backup, { force: true });
    if (kept.length > 0) opts.logger.info({ records: kept.length }, 'cluster metadata log rewritten in KRaft form, its records kept');
    return upgraded;
  }

  get dir(): string {
    return this.log.dir;
  }

  get logEndOffset(): number {
    return this.log.logEndOffset;
  }

  /** The log's batches from its start, as they are on disk. */
  private readAll(): Buffer {
    const chunks: Buffer[] = [];
    let offset = this.log.logStartOffset;
    while (offset < this.log.logEndOffset) {
      const { slices } = this.log.read(offset, READ_CHUNK_BYTES, true);
      let lastOffset = offset - 1;
      for (const slice of slices) {
        const buf = Buffer.allocUnsafe(slice.length);
        readSync(slice.fd, buf, 0, slice.length, slice.position);
        for (const header of batchesIn(buf)) {
          lastOffset = header.lastOffset;
          if (header.lastOffset >= offset) chunks.push(buf.subarray(header.pos, header.pos + header.sizeInBytes));
        }
      }
      if (lastOffset < offset) break;
      offset = lastOffset + 1;
    }
    return Buffer.concat(chunks);
  }

  /** Every record in log order, as read from disk: the latest snapshot's, then the log's after it. */
  records(): Iterable<MetadataRecord> {
    return this.read().records;
  }

  private read(): MetadataOnDisk {
    const snapshot = latestSnapshot(this.log.dir);
    const out: MetadataOnDisk = { records: [], voterSets: [] };
    if (snapshot) collectBatches(readSnapshot(snapshot.file), 0, out);
    out.bytes = 0;
    collectBatches(this.readAll(), snapshot?.endOffset ?? 0, out);
    return out;
  }

  /**
   * Hands every record, in log order, to each replayer: the first time those read at open (one read of the snapshot
   * and the log at start-up, for all replayers), later those on disk.
   */
  replay(replayers: ReadonlyArray<MetadataReplayer>): void {
    const records = this.startupRecords ?? this.read().records;
    this.startupRecords = null;
    for (const r of records) for (const replayer of replayers) replayer.replay(r);
  }

  /**
   * Writes a snapshot of the image at the log end (Kafka's SnapshotGenerator asks the controller for one), once the
   * records it holds are on disk, then cleans the log. Not while a metadata transaction is open (Kafka snapshots
   * committed state only): the next append asks again.
   */
  private snapshot(reason: string): void {
    if (this.snapshotting || this.image.inTransaction) return;
    const endOffset = this.log.logEndOffset;
    if (endOffset <= (latestSnapshot(this.log.dir)?.endOffset ?? 0)) return;
    const records = this.image.records();
    const lastContainedLogTimestamp = Date.now();
    this.generator.snapshotted();
    this.snapshotting = this.log.flush()
      .then(() => writeSnapshotAsync(this.log.dir, endOffset, this.epoch, records, lastContainedLogTimestamp, this.raftControl))
      .then((file) => {
        this.logger.info({ file, records: records.length, reason }, 'metadata snapshot written');
        maybeClean(this.log, this.policy, Date.now(), this.logger);
      })
      .catch((err: unknown) => this.logger.error({ err, endOffset }, 'cannot write a metadata snapshot; the log still holds every record'))
      .finally(() => {
        this.snapshotting = null;
      });
  }

  /**
   * Appends the records as one batch (all or nothing, as a KRaft atomic batch) at once, and resolves once they
   * are fsynced. The offset of the first record is `logEndOffset` before the call.
   */
  append(records: ReadonlyArray<MetadataRecord>): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const now = Date.now();
    const batch = encodeBatch({
      baseOffset: 0,
      records: records.map((r, i) => ({ offset: i, timestamp: now, key: null, value: frameMetadataRecord(r), headers: [] })),
    });
    this.log.appendAsLeader(batch, now, 'coordinator');
    this.startupRecords?.push(...records);
    for (const r of records) this.image.replay(r);
    const flushed = this.log.flush();
    this.generator.appended(batch.length);
    return flushed;
  }

  async close(): Promise<void> {
    this.generator.close();
    await this.snapshotting;
    await this.log.close();
  }
}

function hasMetadataVersion(records: readonly MetadataRecord[]): boolean {
  const type = recordTypeOf('FeatureLevelRecord');
  return records.some((r) => r.type === type && readMetadataRecord<{ name: string }>('FeatureLevelRecord', r).name === 'metadata.version');
}
