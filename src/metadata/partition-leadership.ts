// The partitions that have no leader when kafkite starts, and the records that make this node their leader, as
// Kafka's controller writes them when a broker is unfenced (ReplicationControlManager.handleBrokerUnfenced: a
// PartitionChangeRecord per leaderless partition, built by PartitionChangeBuilder). A Kafka node's controlled shutdown
// leaves each partition it led at leader -1; kafkite then serves them as their leader, and its log must say so, or a
// Kafka node taking the directory back would find them leaderless. The change record names the new leader (which
// bumps the leader and partition epochs when replayed); it sets the ISR only if it lacked this node, as an unclean
// election does, and clears a RECOVERING state, as the leader's AlterPartition does once recovered: kafkite's replica
// is the partition's only one. With eligible leader replicas on (KIP-966, a default Kafka 4.4 cluster), the controlled
// shutdown leaves isr [] and ELR = lastKnownElr = [this node]; the node's return elects it from the ELR and clears
// both, as Kafka 4.4's PartitionChangeBuilder writes it (seen in its log: isr [1], leader 1, both ELR fields []).
import type { PartitionChangeRecord } from '../../protocol/generated/records/PartitionChangeRecord.js';
import type { PartitionRecord } from '../../protocol/generated/records/PartitionRecord.js';
import type { MetadataRecord } from './metadata-frame.js';
import { metadataRecord, readMetadataRecord, recordTypeOf } from './metadata-records.js';
import { PARTITION_CHANGE_RECORD_VERSION } from './metadata-version.js';

const PARTITION = recordTypeOf('PartitionRecord');
const PARTITION_CHANGE = recordTypeOf('PartitionChangeRecord');
const REMOVE_TOPIC = recordTypeOf('RemoveTopicRecord');
/** PartitionChangeRecord's leader: -1 none, -2 unchanged. */
const NO_LEADER = -1;
const NO_LEADER_CHANGE = -2;
/** LeaderRecoveryState: RECOVERED 0, RECOVERING 1; -1 in a change record: unchanged. */
const RECOVERED = 0;
const RECOVERING = 1;
const UNCHANGED = -1;

interface PartitionState {
  leader: number;
  isr: number[];
  leaderRecoveryState: number;
  elr: number[];
  lastKnownElr: number[];
}

export class LeaderlessPartitions {
  /** Topic id -> partition id -> its leader, ISR and recovery state. */
  private readonly partitions = new Map<string, Map<number, PartitionState>>();

  replay(r: MetadataRecord): void {
    if (r.type === PARTITION) {
      const p = readMetadataRecord<PartitionRecord>('PartitionRecord', r);
      let topic = this.partitions.get(p.topicId);
      if (!topic) this.partitions.set(p.topicId, (topic = new Map()));
      topic.set(p.partitionId, { leader: p.leader, isr: p.isr, leaderRecoveryState: p.leaderRecoveryState, elr: p.eligibleLeaderReplicas ?? [], lastKnownElr: p.lastKnownElr ?? [] });
    } else if (r.type === PARTITION_CHANGE) {
      const c = readMetadataRecord<PartitionChangeRecord>('PartitionChangeRecord', r);
      const state = this.partitions.get(c.topicId)?.get(c.partitionId);
      if (!state) return;
      if (c.leader !== NO_LEADER_CHANGE) state.leader = c.leader;
      if (c.isr !== null) state.isr = c.isr;
      if (c.leaderRecoveryState !== UNCHANGED) state.leaderRecoveryState = c.leaderRecoveryState;
      if (c.eligibleLeaderReplicas !== null) state.elr = c.eligibleLeaderReplicas;
      if (c.lastKnownElr !== null) state.lastKnownElr = c.lastKnownElr;
    } else if (r.type === REMOVE_TOPIC) {
      this.partitions.delete(readMetadataRecord<{ topicId: string }>('RemoveTopicRecord', r).topicId);
    }
  }

  /** A PartitionChangeRecord electing `nodeId` for each partition replayed without a leader; once, at registration. */
  electionRecords(nodeId: number): MetadataRecord[] {
    const records: MetadataRecord[] = [];
    for (const [topicId, partitions] of this.partitions) {
      for (const [partitionId, state] of partitions) {
        if (state.leader !== NO_LEADER) continue;
        const hasElr = state.elr.length > 0 || state.lastKnownElr.length > 0;
        const change: PartitionChangeRecord = {
          partitionId, topicId, leader: nodeId,
          isr: state.isr.includes(nodeId) ? null : [nodeId],
          leaderRecoveryState: state.leaderRecoveryState === RECOVERING ? RECOVERED : UNCHANGED,
          replicas: null, removingReplicas: null, addingReplicas: null, directories: null,
          eligibleLeaderReplicas: hasElr ? [] : null, lastKnownElr: hasElr ? [] : null,
        };
        records.push(metadataRecord('PartitionChangeRecord', PARTITION_CHANGE_RECORD_VERSION, change));
      }
    }
    this.partitions.clear();
    return records;
  }
}
