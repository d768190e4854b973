// The broker's registration in the metadata log, as Kafka's ClusterControlManager writes it when a broker
// registers: a RegisterBrokerRecord per start, with a new incarnation id, the broker epoch being the record's
// offset. kafkite is its own controller and never fences itself, so the record says unfenced at once.
import { randomBytes } from 'node:crypto';
import type { RegisterBrokerRecord } from '../../protocol/generated/records/RegisterBrokerRecord.js';
import type { MetadataRecord } from './metadata-frame.js';
import { FEATURES } from './features.js';
import { metadataRecord } from './metadata-records.js';
import { registerBrokerRecordVersion } from './metadata-version.js';

/** Kafka's SecurityProtocol ids. */
const SECURITY_PROTOCOL_IDS: Readonly<Record<string, number>> = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 };


export interface BrokerRegistration {
  nodeId: number;
  brokerEpoch: number;
  endpoints: ReadonlyArray<{ listenerName: string; host: string; port: number; securityProtocol: string }>;
  rack: string | null;
  /** Directory ids (32 hex) of the log dirs. */
  logDirs: readonly string[];
  /** The finalized metadata.version: the record's version follows it (v4, cordoned log dirs, from 4.3-IV0 on). */
  metadataVersion: number;
}

export function registerBrokerRecord(r: BrokerRegistration): MetadataRecord {
  const version = registerBrokerRecordVersion(r.metadataVersion);
  const record: RegisterBrokerRecord = {
    brokerId: r.nodeId,
    isMigratingZkBroker: false,
    incarnationId: randomBytes(16).toString('hex'),
    brokerEpoch: r.brokerEpoch,
    endPoints: r.endpoints.map((e) => ({ name: e.listenerName, host: e.host, port: e.port, securityProtocol: SECURITY_PROTOCOL_IDS[e.securityProtocol] ?? 0 })),
    features: FEATURES.map((f) => ({ name: f.name, minSupportedVersion: f.minSupported, maxSupportedVersion: f.maxSupported })),
    rack: r.rack,
    fenced: false,
    inControlledShutdown: false,
    logDirs: [...r.logDirs],
    // kafkite cordons no log dir; the field exists from version 4 on.
    cordonedLogDirs: version >= 4 ? [] : null,
  };
  return metadataRecord('RegisterBrokerRecord', version, record);
}

/**
 * The broker fenced at a clean shutdown, as Kafka's controller records a broker's controlled shutdown: a controller
 * started on the log later (Kafka's own) then takes a new registration of this node at once, instead of refusing it
 * as a duplicate until the old registration's session expires.
 */
export function brokerFencedRecord(nodeId: number, brokerEpoch: number): MetadataRecord {
  return metadataRecord('BrokerRegistrationChangeRecord', 0, {
    brokerId: nodeId, brokerEpoch, fenced: 1, inControlledShutdown: 0, logDirs: [], cordonedLogDirs: null,
  });
}
