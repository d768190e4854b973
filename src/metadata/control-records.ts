// KRaft's control records (Kafka's ControlRecordUtils): a control batch of one record whose key is the
// ControlRecordType (int16 version 0, int16 type) and whose value is the message of kafka-clients' spec
// (LeaderChangeMessage, SnapshotHeaderRecord, SnapshotFooterRecord) at version 0.
import type { LeaderChangeMessage } from '../../protocol/generated/records/LeaderChangeMessage.js';
import { writeLeaderChangeMessage } from '../../protocol/generated/records/LeaderChangeMessage.js';
import { writeSnapshotFooterRecord } from '../../protocol/generated/records/SnapshotFooterRecord.js';
import { writeSnapshotHeaderRecord } from '../../protocol/generated/records/SnapshotHeaderRecord.js';
import { Writer } from '../../protocol/primitives.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';

/** Kafka's ControlRecordType ids. */
const LEADER_CHANGE = 2;
const SNAPSHOT_HEADER = 3;
const SNAPSHOT_FOOTER = 4;

function controlBatch(baseOffset: number, epoch: number, timestamp: number, type: number, write: (w: Writer) => void): Buffer {
  const key = new Writer(4).int16(0).int16(type).toBuffer();
  const w = new Writer(32);
  write(w);
  return encodeBatch({
    baseOffset,
    records: [{ offset: baseOffset, timestamp, key, value: w.toBuffer(), headers: [] }],
    isControl: true,
    partitionLeaderEpoch: epoch,
  });
}

/** The batch a KRaft leader writes first in its epoch: itself as leader, elected by every voter (one node). */
export function leaderChangeBatch(nodeId: number, epoch: number, timestamp: number): Buffer {
  const voters = [{ voterId: nodeId, voterDirectoryId: '0'.repeat(32) }];
  const message: LeaderChangeMessage = { version: 0, leaderId: nodeId, voters, grantingVoters: voters };
  return controlBatch(0, epoch, timestamp, LEADER_CHANGE, (w) => writeLeaderChangeMessage(w, 0, message));
}

export function snapshotHeaderBatch(baseOffset: number, epoch: number, lastContainedLogTimestamp: number): Buffer {
  return controlBatch(baseOffset, epoch, lastContainedLogTimestamp, SNAPSHOT_HEADER, (w) => writeSnapshotHeaderRecord(w, 0, { version: 0, lastContainedLogTimestamp }));
}

export function snapshotFooterBatch(baseOffset: number, epoch: number, timestamp: number): Buffer {
  return controlBatch(baseOffset, epoch, timestamp, SNAPSHOT_FOOTER, (w) => writeSnapshotFooterRecord(w, 0, { version: 0 }));
}
