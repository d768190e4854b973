// Checks on a Kafka 4.4 node's data dir that kafkite takes over (issue #31): whether kafkite refuses it unchanged,
// a record appended to its metadata log as the leader would, the partitions' leaders as the log records them, and
// the finalized features a node answers with. Shared by kafka-to-kafkite and kafka44-default-dir.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import type { PartitionChangeRecord } from '../../protocol/generated/records/PartitionChangeRecord.js';
import type { PartitionRecord } from '../../protocol/generated/records/PartitionRecord.js';
import { batchesIn } from '../../protocol/records/batch-header.js';
import { encodeBatch } from '../../protocol/records/record-batch.js';
import { frameMetadataRecord, type MetadataRecord } from '../../src/metadata/metadata-frame.js';
import { collectBatches, type MetadataOnDisk } from '../../src/metadata/metadata-log-files.js';
import { readMetadataRecord, recordTypeOf } from '../../src/metadata/metadata-records.js';
import { REPO_ROOT } from './broker-process.js';

/** A hash of every file's path, size and bytes under `dir`. */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      hash.update(`${p}\0${st.size}\0`);
      if (st.isDirectory()) walk(p);
      else hash.update(readFileSync(p));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** Runs kafkite on `dataDir` (node.id 1) to its exit, for a directory it refuses. */
function kafkiteRefuses(dataDir: string, configDir: string): { status: number | null; stderr: string } {
  const config = join(configDir, 'refused.properties');
  writeFileSync(config, `node.id=1\nlog.dirs=${dataDir}\nlisteners=PLAINTEXT://127.0.0.1:0\n`);
  try {
    execFileSync(process.execPath, ['bin/kafkite.js', 'start', config], { cwd: REPO_ROOT, encoding: 'utf8', stdio: 'pipe', timeout: 30_000 });
    return { status: 0, stderr: '' };
  } catch (err) {
    const e = err as { status: number | null; stderr: string };
    return { status: e.status, stderr: e.stderr };
  }
}

/** kafkite's error on `dir`, checked to exit 1 and to change no file; its config is written to `configDir`. */
export function refusal(dir: string, configDir: string): string {
  const hash = treeHash(dir);
  const run = kafkiteRefuses(dir, configDir);
  expect(run.status).toBe(1);
  expect(treeHash(dir)).toBe(hash);
  return run.stderr;
}

/** A copy of the data dir `from` at `to` with `record` appended to its metadata log, as the leader appends a batch. */
export function withRecordAppended(from: string, to: string, record: MetadataRecord): string {
  cpSync(from, to, { recursive: true });
  const segment = join(to, '__cluster_metadata-0', '00000000000000000000.log');
  const last = [...batchesIn(readFileSync(segment))].at(-1)!;
  const next = last.lastOffset + 1;
  const value = frameMetadataRecord(record);
  appendFileSync(segment, encodeBatch({ baseOffset: next, partitionLeaderEpoch: last.partitionLeaderEpoch, records: [{ offset: next, timestamp: Date.now(), key: null, value, headers: [] }] }));
  return to;
}

/** Every metadata record in the log's segments from its start: the history the snapshots fold into an image. */
export function metadataLogRecords(metadataDir: string): MetadataRecord[] {
  const out: MetadataOnDisk = { records: [], voterSets: [] };
  for (const f of readdirSync(metadataDir).filter((n) => /^\d{20}\.log$/.test(n)).sort()) collectBatches(readFileSync(join(metadataDir, f)), 0, out);
  return out.records;
}

interface PartitionLeaders {
  leader: number;
  leaderEpoch: number;
  leaders: number[];
  /** The last change record of the partition, as written. */
  lastChange: PartitionChangeRecord | null;
}

/** Each partition's leader, leader epoch and the leaders it had, as Kafka's PartitionRegistration replays them. */
export function partitionLeaders(records: readonly MetadataRecord[]): Map<string, PartitionLeaders> {
  const partitions = new Map<string, PartitionLeaders>();
  for (const r of records) {
    if (r.type === recordTypeOf('PartitionRecord')) {
      const p = readMetadataRecord<PartitionRecord>('PartitionRecord', r);
      partitions.set(`${p.topicId}-${p.partitionId}`, { leader: p.leader, leaderEpoch: p.leaderEpoch, leaders: [p.leader], lastChange: null });
    } else if (r.type === recordTypeOf('PartitionChangeRecord')) {
      const c = readMetadataRecord<PartitionChangeRecord>('PartitionChangeRecord', r);
      const p = partitions.get(`${c.topicId}-${c.partitionId}`);
      if (!p) continue;
      p.lastChange = c;
      // A change naming a leader (the same one too) bumps the leader epoch; -2: the leader did not change.
      if (c.leader === -2) continue;
      p.leader = c.leader;
      p.leaderEpoch++;
      p.leaders.push(c.leader);
    }
  }
  return partitions;
}

/** ApiVersions' finalized features of the node on `port`, by name. */
export async function finalizedFeatures(client: WireClient): Promise<Array<{ name: string; level: number }>> {
  const versions = await client.send(18, 4, { clientSoftwareName: 'kafkite-test', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
  return (versions.finalizedFeatures as Array<{ name: string; maxVersionLevel: number }>)
    .map((f) => ({ name: f.name, level: f.maxVersionLevel })).sort((a, b) => a.name.localeCompare(b.name));
}
