// KRaft's quorum-state file in the metadata log's directory (Kafka's FileQuorumStateStore): QuorumStateData as
// JSON, at data_version 0 (kraft.version 0: a static voter set, controller.quorum.voters), as Kafka 4.4 writes it;
// at kraft.version 1 (KIP-853) data_version 1, without the voters (the log's VotersRecord holds them).
import fs from 'node:fs';
import path from 'node:path';
import type { QuorumStateData } from '../protocol/generated/records/QuorumStateData.js';
import { writeFileAtomically } from './checkpoint-file.js';
import { KafkaStorageError } from './errors.js';

const QUORUM_STATE_FILE = 'quorum-state';

type QuorumState = Pick<QuorumStateData, 'leaderId' | 'leaderEpoch' | 'votedId' | 'appliedOffset'> & { voters: number[] };

/** The quorum state, or null when the directory has none; an unreadable file is refused (Kafka fails to start on it too). */
export function readQuorumState(dir: string): QuorumState | null {
  const file = path.join(dir, QUORUM_STATE_FILE);
  if (!fs.existsSync(file)) return null;
  try {
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!Number.isInteger(json.leaderEpoch) || !Number.isInteger(json.leaderId)) throw new Error('no leaderEpoch or leaderId');
    return {
      leaderId: json.leaderId,
      leaderEpoch: json.leaderEpoch,
      votedId: json.votedId ?? -1,
      appliedOffset: json.appliedOffset ?? 0,
      voters: (json.currentVoters ?? []).map((v: { voterId: number }) => v.voterId),
    };
  } catch (err) {
    throw new KafkaStorageError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

export function writeQuorumState(dir: string, state: QuorumState, kraftVersion = 0): void {
  // The zero Uuid: this node voted for no one (it is the only voter, and leader).
  const dynamic = { leaderId: state.leaderId, leaderEpoch: state.leaderEpoch, votedId: state.votedId, votedDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', data_version: 1 };
  const json = kraftVersion > 0 ? dynamic : {
    clusterId: '',
    leaderId: state.leaderId,
    leaderEpoch: state.leaderEpoch,
    votedId: state.votedId,
    appliedOffset: state.appliedOffset,
    currentVoters: state.voters.map((voterId) => ({ voterId })),
    data_version: 0,
  };
  writeFileAtomically(path.join(dir, QUORUM_STATE_FILE), JSON.stringify(json));
}
