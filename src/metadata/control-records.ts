// KRaft's control records (Kafka's ControlRecordUtils): a control batch of one record whose key is the
// ControlRecordType (int16 version 0, int16 type) and whose value is the message of kafka-clients' spec
// (LeaderChangeMessage, SnapshotHeaderRecord, SnapshotFooterRecord) at version 0. At kraft.version 1 a snapshot's
// header batch also holds the KRaftVersionRecord and VotersRecord (RecordsSnapshotWriter), kept as they were read.
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
const KRAFT_VERSION = 5;
const KRAFT_VOTERS = 6;

/** The raft state a snapshot at kraft.version 1 carries: the values of the last KRaftVersionRecord and VotersRecord. */
export interface RaftControlValues {
  kraftVersion: Buffer;
  voters: Buffer | null;
}

const controlKey = (type: number) => new Writer(4).int16(0).int16(type).toBuffer();

function controlBatch(baseOffset: number, epoch: number, timestamp: number, type: number, write: (w: Writer) => void, more: ReadonlyArray<[number, Buffer]> = []): Buffer {
  const w = new Writer(32);
  write(w);
  const values: Array<[number, Buffer]> = [[type, w.toBuffer()], ...more];
  return encodeBatch({
    baseOffset,
    records: values.map(([t, value], i) => ({ offset: baseOffset + i, timestamp, key: controlKey(t), value, headers: [] })),
    isControl: true,
    partitionLeaderEpoch: epoch,
  });
}

/**
 * The batch a KRaft leader writes first in its epoch: itself as leader, elected by every voter (one node). The first
 * leader of a log formatted with dynamic voters (kraft.version 1) writes the KRaftVersion and Voters records of the
 * bootstrap checkpoint into the same batch, as Kafka 4.4's first start on such a directory does.
 */
export function leaderChangeBatch(nodeId: number, epoch: number, timestamp: number, raft?: RaftControlValues): Buffer {
  const voters = [{ voterId: nodeId, voterDirectoryId: '0'.repeat(32) }];
  const message: LeaderChangeMessage = { version: 0, leaderId: nodeId, voters, grantingVoters: voters };
  return controlBatch(0, epoch, timestamp, LEADER_CHANGE, (w) => writeLeaderChangeMessage(w, 0, message), raftRecords(raft));
}

function raftRecords(raft: RaftControlValues | undefined): Array<[number, Buffer]> {
  return raft ? [[KRAFT_VERSION, raft.kraftVersion], ...(raft.voters ? [[KRAFT_VOTERS, raft.voters] as [number, Buffer]] : [])] : [];
}

/** The header batch; with `raft` (kraft.version 1) it holds KRaftVersion and Voters records after the header, as Kafka's. */
export function snapshotHeaderBatch(baseOffset: number, epoch: number, lastContainedLogTimestamp: number, raft?: RaftControlValues): Buffer {
  return controlBatch(baseOffset, epoch, lastContainedLogTimestamp, SNAPSHOT_HEADER, (w) => writeSnapshotHeaderRecord(w, 0, { version: 0, lastContainedLogTimestamp }), raftRecords(raft));
}

export function snapshotFooterBatch(baseOffset: number, epoch: number, timestamp: number): Buffer {
  return controlBatch(baseOffset, epoch, timestamp, SNAPSHOT_FOOTER, (w) => writeSnapshotFooterRecord(w, 0, { version: 0 }));
}
