// Keys and values of __transaction_state in Kafka's format, by the codecs generated from transaction-coordinator's
// TransactionLogKey v0 and TransactionLogValue v0/v1, each after an int16 version, as Kafka's TransactionLog writes
// them. Value v1 (flexible, with the PreviousProducerId/NextProducerId/ClientTransactionVersion tagged fields) is
// written once transaction.version >= 1 is finalized, v0 before; both are read.
import { readTransactionLogKey, writeTransactionLogKey } from '../../../protocol/generated/records/TransactionLogKey.js';
import { readTransactionLogValue, writeTransactionLogValue } from '../../../protocol/generated/records/TransactionLogValue.js';
import { Reader, Writer } from '../../../protocol/primitives.js';
import type { TxnPartitions, TxnTransitMetadata } from './transaction-metadata.js';
import { TransactionState } from './transaction-state.js';

const KEY_VERSION = 0;
/** NextProducerEpoch (tag 3): kafkite keeps no next epoch apart (the default, -1, is not written). */
const NO_PRODUCER_EPOCH = -1;

class TransactionLogRecordError extends Error {
  override name = 'TransactionLogRecordError';
}

export function transactionLogKey(transactionalId: string): Buffer {
  const w = new Writer(32).int16(KEY_VERSION);
  writeTransactionLogKey(w, KEY_VERSION, { transactionalId });
  return w.toBuffer();
}

export function decodeTransactionLogKey(buf: Buffer): string {
  const r = new Reader(buf);
  const version = r.int16();
  if (version !== KEY_VERSION) throw new TransactionLogRecordError(`unknown TransactionLogKey version ${version}`);
  return readTransactionLogKey(r, version).transactionalId;
}

/** The value of a transit; `valueVersion` 0 or 1. Empty transactions store null partitions, as Kafka does. */
export function transactionLogValue(t: TxnTransitMetadata, valueVersion: number): Buffer {
  const w = new Writer(128).int16(valueVersion);
  writeTransactionLogValue(w, valueVersion, {
    producerId: t.producerId, previousProducerId: t.previousProducerId, nextProducerId: t.nextProducerId, producerEpoch: t.producerEpoch,
    nextProducerEpoch: NO_PRODUCER_EPOCH, transactionTimeoutMs: t.txnTimeoutMs, transactionStatus: t.state,
    transactionPartitions: t.state === TransactionState.Empty ? null
      : [...t.partitions].map(([topic, ids]) => ({ topic, partitionIds: [...ids].sort((a, b) => a - b) })),
    transactionLastUpdateTimestampMs: t.txnLastUpdateTimestamp, transactionStartTimestampMs: t.txnStartTimestamp,
    clientTransactionVersion: t.clientTransactionVersion,
  });
  return w.toBuffer();
}

export function decodeTransactionLogValue(buf: Buffer): TxnTransitMetadata {
  const r = new Reader(buf);
  const version = r.int16();
  if (version < 0 || version > 1) throw new TransactionLogRecordError(`unknown TransactionLogValue version ${version}`);
  const v = readTransactionLogValue(r, version);
  const state = v.transactionStatus as TransactionState;
  if (TransactionState[state] === undefined) throw new TransactionLogRecordError(`unknown transaction status ${state}`);
  const partitions: TxnPartitions = new Map((v.transactionPartitions ?? []).map((p) => [p.topic, new Set(p.partitionIds)]));
  return {
    producerId: v.producerId, previousProducerId: v.previousProducerId, nextProducerId: v.nextProducerId, producerEpoch: v.producerEpoch,
    lastProducerEpoch: -1, txnTimeoutMs: v.transactionTimeoutMs, state, partitions,
    txnStartTimestamp: v.transactionStartTimestampMs, txnLastUpdateTimestamp: v.transactionLastUpdateTimestampMs, clientTransactionVersion: v.clientTransactionVersion,
  };
}
