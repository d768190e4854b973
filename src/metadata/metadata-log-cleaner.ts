// The metadata log's cleaning, as Kafka's KafkaMetadataLog does it. The log itself has no retention: it shrinks only
// when a snapshot makes its head redundant. After each snapshot (maybeClean), while the log and its snapshots together
// exceed metadata.max.retention.bytes, or the oldest snapshot is older than metadata.max.retention.ms, the oldest
// snapshot goes and the log start moves to the next one, deleting the segments wholly before it; the latest snapshot
// always stays. At start-up (recoverSnapshots) unfinished and deleted snapshot files go, and so do snapshots below the
// log start; a log that starts past offset 0 without a snapshot covering its head is refused.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { readSnapshotHeaderRecord } from '../../protocol/generated/records/SnapshotHeaderRecord.js';
import { Reader } from '../../protocol/primitives.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { decodeBatch } from '../../protocol/records/record-batch.js';
import type { UnifiedLog } from '../../storage/unified-log.js';
import { MetadataSnapshotError, snapshotFiles, type SnapshotFile } from './metadata-log-files.js';
import type { MetadataLogPolicy } from './snapshot-generator.js';

/** Kafka's Snapshots: a snapshot being written, and one marked for deletion. */
const LEFTOVER_SNAPSHOT = /^\d{20}-\d{10}\.checkpoint\.(part|deleted)$/;

function sizeOf(file: string): number {
  return statSync(file).size;
}

/** The SnapshotHeader's lastContainedLogTimestamp (Snapshots.lastContainedLogTimestamp); null when it cannot be read. */
function snapshotTimestamp(file: string): number | null {
  try {
    const buf = readFileSync(file);
    const first = batchesIn(buf).next().value;
    if (!first) return null;
    const value = decodeBatch(buf.subarray(first.pos, first.pos + first.sizeInBytes)).records[0]?.value;
    return value ? readSnapshotHeaderRecord(new Reader(value), 0).lastContainedLogTimestamp : null;
  } catch {
    return null;
  }
}

/** KafkaMetadataLog.recoverSnapshots, at start-up. */
export function recoverSnapshots(log: UnifiedLog, logger: Logger): void {
  const snapshots = snapshotFiles(log.dir);
  const latest = snapshots.at(-1);
  if (log.logStartOffset > 0 && (!latest || latest.endOffset < log.logStartOffset)) {
    throw new MetadataSnapshotError(`the metadata log ${log.dir} starts at offset ${log.logStartOffset}, but no snapshot holds the records before it ` +
      `(the latest is ${latest ? latest.file : 'missing'}): kafkite does not start on it, as Kafka does not`);
  }
  const leftovers = readdirSync(log.dir).filter((f) => LEFTOVER_SNAPSHOT.test(f)).map((f) => join(log.dir, f));
  for (const file of [...leftovers, ...snapshots.filter((s) => s.endOffset < log.logStartOffset).map((s) => s.file)]) {
    rmSync(file, { force: true });
    logger.info({ file }, 'deleted unneeded metadata snapshot file');
  }
}

/**
 * KafkaMetadataLog.deleteBeforeSnapshot: moves the log start to the snapshot's end offset (below the latest
 * snapshot's), deletes the segments wholly before it and the snapshots older than it.
 */
function deleteBeforeSnapshot(log: UnifiedLog, snapshot: SnapshotFile, latest: SnapshotFile, reason: string, logger: Logger): boolean {
  if (log.logStartOffset >= snapshot.endOffset || snapshot.endOffset > latest.endOffset) return false;
  log.deleteRecordsBefore(snapshot.endOffset);
  for (const old of snapshotFiles(log.dir).filter((s) => s.endOffset < snapshot.endOffset)) {
    rmSync(old.file, { force: true });
    logger.info({ snapshot: old.file, reason }, 'metadata snapshot deleted');
  }
  return true;
}

/** KafkaMetadataLog.maybeClean: by size (metadata.max.retention.bytes), then by age (metadata.max.retention.ms). */
export function maybeClean(log: UnifiedLog, policy: MetadataLogPolicy, now: number, logger: Logger): boolean {
  let cleaned = false;
  if (policy.retentionBytes >= 0) {
    const snapshots = snapshotFiles(log.dir);
    let snapshotBytes = snapshots.reduce((sum, s) => sum + sizeOf(s.file), 0);
    for (let i = 0; i + 1 < snapshots.length; i++) {
      if (log.size + snapshotBytes <= policy.retentionBytes) break;
      snapshotBytes -= sizeOf(snapshots[i]!.file);
      const reason = `the log and its snapshots exceed metadata.max.retention.bytes (${policy.retentionBytes})`;
      if (!deleteBeforeSnapshot(log, snapshots[i + 1]!, snapshots.at(-1)!, reason, logger)) break;
      cleaned = true;
    }
  }
  if (policy.retentionMs >= 0) {
    const snapshots = snapshotFiles(log.dir);
    for (let i = 0; i + 1 < snapshots.length; i++) {
      const timestamp = snapshotTimestamp(snapshots[i]!.file);
      if (timestamp === null || now - timestamp <= policy.retentionMs) break;
      const reason = `older than metadata.max.retention.ms (${policy.retentionMs})`;
      if (!deleteBeforeSnapshot(log, snapshots[i + 1]!, snapshots.at(-1)!, reason, logger)) break;
      cleaned = true;
    }
  }
  return cleaned;
}
