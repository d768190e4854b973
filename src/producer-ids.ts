// Hands out producer ids for InitProducerId. Ids must never repeat across restarts (idempotence state
// is keyed by them), so blocks of ids are reserved on disk before any id in them is given out: in the metadata
// log as Kafka's controller reserves them (ProducerIdsRecord, whose nextProducerId is the reserved end), and in a
// small file, written synchronously, so that the reservation is durable before the first id of the block goes out.
import { existsSync, readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { writeFileAtomically } from '../storage/checkpoint-file.js';
import type { ClusterMetadataLog } from './metadata/cluster-metadata-log.js';
import type { MetadataRecord } from './metadata/metadata-frame.js';
import { metadataRecord, readMetadataRecord, recordTypeOf } from './metadata/metadata-records.js';

const BLOCK_SIZE = 1000;
const PRODUCER_IDS_RECORD = recordTypeOf('ProducerIdsRecord');

function readFile(file: string): number {
  const reserved = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 0;
  return Number.isSafeInteger(reserved) && reserved > 0 ? reserved : 0;
}

function producerIdsRecord(brokerId: number, brokerEpoch: number, nextProducerId: number): MetadataRecord {
  return metadataRecord('ProducerIdsRecord', 0, { brokerId, brokerEpoch, nextProducerId });
}

/** The reservation a data dir made before the metadata log held it, as a record for that log (none when nothing was reserved). */
export function legacyProducerIdsRecords(file: string, brokerId: number): MetadataRecord[] {
  const reserved = readFile(file);
  return reserved > 0 ? [producerIdsRecord(brokerId, -1, reserved)] : [];
}

export class ProducerIdManager {
  private next: number;
  private blockEnd: number;
  /** The broker epoch the reservations are made under (its registration's offset). */
  brokerEpoch = -1;

  /** Starts past the file's reservation; replay moves it past the metadata log's. */
  constructor(
    private readonly file: string,
    private readonly metadataLog: ClusterMetadataLog,
    private readonly brokerId: number,
    private readonly log: Logger,
  ) {
    this.next = readFile(file);
    this.blockEnd = this.next;
  }

  replay(r: MetadataRecord): void {
    if (r.type !== PRODUCER_IDS_RECORD) return;
    this.next = Math.max(this.next, readMetadataRecord<{ nextProducerId: number }>('ProducerIdsRecord', r).nextProducerId);
    this.blockEnd = this.next;
  }

  nextId(): number {
    if (this.next >= this.blockEnd) this.reserve(this.next + BLOCK_SIZE);
    return this.next++;
  }

  /** Durable, directory included, before any id of the block is given out: an OS crash cannot bring back an older end. */
  private reserve(end: number): void {
    writeFileAtomically(this.file, `${end}\n`);
    this.metadataLog.append([producerIdsRecord(this.brokerId, this.brokerEpoch, end)]).catch((err) => {
      this.log.error({ err, nextProducerId: end }, 'cannot write a ProducerIdsRecord to the metadata log');
    });
    this.blockEnd = end;
  }
}
