// The cluster metadata log (KRaft's __cluster_metadata-0): SCRAM credentials, ACLs, client quotas and dynamic
// configs, as Kafka's metadata records, byte for byte. Each record has a null key and a value framed as Kafka's
// MetadataRecordSerde (AbstractApiMessageSerde) frames it: unsigned varint frame version, unsigned varint record
// type (the spec's apiKey), unsigned varint record version, then the record's fields in that version's encoding.
// Bodies are encoded by each record's user (e.g. src/security/acls.ts); this module only frames and stores them.
// kafkite keeps the whole log (no snapshots): it is small and replayed once at start-up.
import { readSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Reader, Writer } from '../../protocol/primitives.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch, encodeBatch } from '../../protocol/records/record-batch.js';
import type { LogConfig } from '../../storage/log-config.js';
import { CLUSTER_METADATA_TOPIC, CLUSTER_METADATA_TOPIC_ID, logDirName } from '../../storage/log-file-names.js';
import { readPartitionMetadata, writePartitionMetadata } from '../../storage/meta-properties.js';
import { UnifiedLog } from '../../storage/unified-log.js';

/** MetadataRecordSerde's DEFAULT_FRAME_VERSION. */
const METADATA_FRAME_VERSION = 1;

export interface MetadataRecord {
  /** The record spec's apiKey (e.g. 6 = AccessControlEntryRecord). */
  readonly type: number;
  readonly version: number;
  readonly body: Buffer;
}

/** A record in the metadata log that cannot be unframed (a frame version this code does not know, a cut value). */
class MetadataRecordError extends Error {
  override name = 'MetadataRecordError';
}

const READ_CHUNK_BYTES = 1024 * 1024;

function frameMetadataRecord(r: MetadataRecord): Buffer {
  const w = new Writer(r.body.length + 8);
  w.uvarint(METADATA_FRAME_VERSION).uvarint(r.type).uvarint(r.version).raw(r.body);
  return w.toBuffer();
}

export function unframeMetadataRecord(value: Buffer): MetadataRecord {
  try {
    const r = new Reader(value);
    const frameVersion = r.uvarint();
    if (frameVersion !== METADATA_FRAME_VERSION) throw new MetadataRecordError(`unknown metadata frame version ${frameVersion}`);
    const type = r.uvarint();
    const version = r.uvarint();
    return { type, version, body: value.subarray(r.offset) };
  } catch (err) {
    if (err instanceof MetadataRecordError) throw err;
    throw new MetadataRecordError(`cannot unframe a metadata record: ${(err as Error).message}`);
  }
}

export interface ClusterMetadataLogOptions {
  /** metadata.log.dir, else the first of log.dirs (Kafka's KafkaConfig.metadataLogDir). */
  dir: string;
  /** The broker's log defaults; retention never runs on this log (it is not in the LogManager). */
  config: LogConfig;
  logger: Logger;
}

export class ClusterMetadataLog {
  private constructor(private readonly log: UnifiedLog) {}

  /** Opens (creating if needed) `<dir>/__cluster_metadata-0`, recovering any torn tail a crash left. */
  static open(opts: ClusterMetadataLogOptions): ClusterMetadataLog {
    const log = UnifiedLog.load({
      dir: join(opts.dir, logDirName(CLUSTER_METADATA_TOPIC, 0)),
      topic: CLUSTER_METADATA_TOPIC,
      partition: 0,
      topicId: CLUSTER_METADATA_TOPIC_ID,
      config: opts.config,
      logger: opts.logger,
      // It has no entry in the log dir's checkpoints: validate every batch on each start (the log is small).
      recoveryPoint: 0,
      logStartOffset: 0,
      hadCleanShutdown: false,
    });
    // Kafka's KafkaMetadataLog opens this log with the metadata topic's fixed id, which its UnifiedLog keeps in partition.metadata.
    if (readPartitionMetadata(log.dir) !== CLUSTER_METADATA_TOPIC_ID) writePartitionMetadata(log.dir, CLUSTER_METADATA_TOPIC_ID);
    return new ClusterMetadataLog(log);
  }

  get dir(): string {
    return this.log.dir;
  }

  get logEndOffset(): number {
    return this.log.logEndOffset;
  }

  /** Every record in log order, for replay at start-up. */
  *records(): Iterable<MetadataRecord> {
    let offset = this.log.logStartOffset;
    while (offset < this.log.logEndOffset) {
      const { slices } = this.log.read(offset, READ_CHUNK_BYTES, true);
      let lastOffset = offset - 1;
      for (const slice of slices) {
        const buf = Buffer.allocUnsafe(slice.length);
        readSync(slice.fd, buf, 0, slice.length, slice.position);
        for (const header of batchesIn(buf)) {
          lastOffset = header.lastOffset;
          // Control batches (KRaft's LeaderChange, snapshot markers) carry no metadata records.
          if (header.isControl || header.lastOffset < offset) continue;
          const { records } = decodeBatch(buf.subarray(header.pos, header.pos + header.sizeInBytes));
          for (const r of records) {
            if (r.offset >= offset && r.value !== null) yield unframeMetadataRecord(r.value);
          }
        }
      }
      if (lastOffset < offset) break;
      offset = lastOffset + 1;
    }
  }

  /** Appends the records as one batch (all or nothing, as a KRaft atomic batch) and fsyncs before resolving. */
  async append(records: ReadonlyArray<MetadataRecord>): Promise<void> {
    if (records.length === 0) return;
    const now = Date.now();
    const batch = encodeBatch({
      baseOffset: 0,
      records: records.map((r, i) => ({ offset: i, timestamp: now, key: null, value: frameMetadataRecord(r), headers: [] })),
    });
    this.log.appendAsLeader(batch, now, 'coordinator');
    await this.log.flush();
  }

  async close(): Promise<void> {
    await this.log.close();
  }
}
