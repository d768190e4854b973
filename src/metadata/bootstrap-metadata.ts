// What `kafka-storage format` puts in the bootstrap checkpoint and a KRaft controller writes at the head of a new
// metadata log (Kafka's BootstrapMetadata): one FeatureLevelRecord per finalized feature, metadata.version first.
import type { MetadataRecord } from './metadata-frame.js';
import { FEATURES } from './features.js';
import { metadataRecord } from './metadata-records.js';

export function bootstrapRecords(): MetadataRecord[] {
  return FEATURES.filter((f) => f.defaultLevel > 0).map((f) => metadataRecord('FeatureLevelRecord', 0, { name: f.name, featureLevel: f.defaultLevel }));
}

/** The bootstrap records as the controller writes them into the log: one metadata transaction (KIP-868). */
export function bootstrapTransaction(records: readonly MetadataRecord[]): MetadataRecord[] {
  return [metadataRecord('BeginTransactionRecord', 0, { name: 'Bootstrap records' }), ...records, metadataRecord('EndTransactionRecord', 0, {})];
}
