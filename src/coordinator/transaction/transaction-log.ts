// Keys and values of __transaction_state in Kafka's format (transaction-coordinator's TransactionLogKey
// v0 and TransactionLogValue v0/v1, each after an int16 version, as Kafka's TransactionLog writes them).
// Value v1 (flexible, with the PreviousProducerId/NextProducerId/ClientTransactionVersion tagged fields) is
// written once transaction.version >= 1 is finalized, v0 before; both are read.
import { Reader, Writer } from '../../../protocol/primitives.js';
import { NO_PRODUCER_ID, type TxnPartitions, type TxnTransitMetadata } from './transaction-metadata.js';
import { TransactionState } from './transaction-state.js';

const KEY_VERSION = 0;

class TransactionLogRecordError extends Error {
  override name = 'TransactionLogRecordError';
}

export function transactionLogKey(transactionalId: string): Buffer {
  return new Writer(32).int16(KEY_VERSION).string(transactionalId, false).toBuffer();
}

export function decodeTransactionLogKey(buf: Buffer): string {
  const r = new Reader(buf);
  const version = r.int16();
  if (version !== KEY_VERSION) throw new TransactionLogRecordError(`unknown TransactionLogKey version ${version}`);
  return r.string(false);
}

function int64Field(v: number): Buffer {
  return new Writer(8).int64(v).toBuffer();
}

/** The value of a transit; `valueVersion` 0 or 1. Empty transactions store null partitions, as Kafka does. */
export function transactionLogValue(t: TxnTransitMetadata, valueVersion: number): Buffer {
  const flexible = valueVersion >= 1;
  const w = new Writer(128).int16(valueVersion).int64(t.producerId).int16(t.producerEpoch).int32(t.txnTimeoutMs).int8(t.state);
  if (t.state === TransactionState.Empty) {
    w.arrayLength(null, flexible);
  } else {
    w.arrayLength(t.partitions.size, flexible);
    for (const [topic, ids] of t.partitions) {
      w.string(topic, flexible).arrayLength(ids.size, flexible);
      for (const id of [...ids].sort((a, b) => a - b)) w.int32(id);
      if (flexible) w.taggedFields();
    }
  }
  w.int64(t.txnLastUpdateTimestamp).int64(t.txnStartTimestamp);
  if (flexible) {
    const tagged: Array<[number, Buffer]> = [];
    if (t.previousProducerId !== NO_PRODUCER_ID) tagged.push([0, int64Field(t.previousProducerId)]);
    if (t.nextProducerId !== NO_PRODUCER_ID) tagged.push([1, int64Field(t.nextProducerId)]);
    if (t.clientTransactionVersion !== 0) tagged.push([2, new Writer(2).int16(t.clientTransactionVersion).toBuffer()]);
    w.taggedFields(tagged);
  }
  return w.toBuffer();
}

export function decodeTransactionLogValue(buf: Buffer): TxnTransitMetadata {
  const r = new Reader(buf);
  const version = r.int16();
  if (version < 0 || version > 1) throw new TransactionLogRecordError(`unknown TransactionLogValue version ${version}`);
  const flexible = version >= 1;
  const producerId = r.int64();
  const producerEpoch = r.int16();
  const txnTimeoutMs = r.int32();
  const state = r.int8() as TransactionState;
  if (TransactionState[state] === undefined) throw new TransactionLogRecordError(`unknown transaction status ${state}`);
  const partitions: TxnPartitions = new Map();
  const topics = r.arrayLength(flexible, true);
  for (let i = 0; i < topics; i++) {
    const topic = r.string(flexible);
    const n = r.arrayLength(flexible, false);
    const ids = new Set<number>();
    for (let j = 0; j < n; j++) ids.add(r.int32());
    if (flexible) r.skipTaggedFields();
    partitions.set(topic, ids);
  }
  const txnLastUpdateTimestamp = r.int64();
  const txnStartTimestamp = r.int64();
  let previousProducerId = NO_PRODUCER_ID;
  let nextProducerId = NO_PRODUCER_ID;
  let clientTransactionVersion = 0;
  if (flexible) {
    const count = r.uvarint();
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint();
      const field = new Reader(r.raw(r.uvarint()));
      if (tag === 0) previousProducerId = field.int64();
      else if (tag === 1) nextProducerId = field.int64();
      else if (tag === 2) clientTransactionVersion = field.int16();
    }
  }
  return {
    producerId, previousProducerId, nextProducerId, producerEpoch, lastProducerEpoch: -1, txnTimeoutMs, state, partitions,
    txnStartTimestamp, txnLastUpdateTimestamp, clientTransactionVersion,
  };
}
